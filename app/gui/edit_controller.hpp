#pragma once
// The Edit menu (issue 6): undo/redo, delete, rotate, duplicate, nudge by a tile, add row, add rack (one dialog
// with a preview), containment, in-row coolers, rear doors, halls (issue 18), sensors placed with a click on the
// floor plan (issue 44), and moves dragged on the floor plan. Every action is one undoable step on the document; the 3D view and the plan act
// on the same selection.
#include "entity_ref.hpp"

#include <string>
#include <vector>

#include <QList>
#include <QObject>
#include <QStringList>

class QAction;
class QMenu;
class QWidget;

namespace ct::model {
struct RackPlan;
struct RowPlan;
}  // namespace ct::model

namespace ct::app {
class ScenarioDocument;

class EditController : public QObject {
    Q_OBJECT
public:
    EditController(ScenarioDocument& doc, QWidget* window);
    /// Fills the Edit menu.
    void populate(QMenu* menu);
    /// What the edits act on: the plan's multi-selection, or the current entity.
    void setTargets(const QList<EntityRef>& refs) { targets_ = refs; }
    const QList<EntityRef>& targets() const { return targets_; }

    bool removeTargets();
    bool rotateTargets();
    bool duplicateTargets();
    bool nudgeTargets(int dx_tiles, int dy_tiles);
    bool move(const QStringList& ids, double dx_m, double dy_m);
    /// Adds a rack at the next free slot of the target's row (else the hall's last row, else a new row), on feeds
    /// that carry it. Returns its id ("" on failure).
    QString addRack(const QString& rack_model, const QString& server_model, int nodes);
    /// Adds the planned racks in one undo step (a row of them); selects their row and says a redundancy lost.
    QStringList placeAll(const model::RowPlan& plans, const std::string& rack_model, const std::string& server_model, int nodes);
    /// A new row across an aisle from the last one, starting with a rack like the last row's. Returns the row's id.
    QString addRow();
    /// Closes the `kind` ("hot"/"cold") aisle of the target rows (one row: with the row across that aisle).
    QString addContainment(const QString& kind);
    /// An in-row cooler (catalog id, "" = inrow-cw-600) at the next free slot of the target's row.
    QString addInRowCooler(const QString& model_id = {});
    /// Fits a rear door (catalog id; "" removes) to every target rack.
    bool fitRearDoor(const QString& model_id);
    QString addHall(double width_m, double depth_m, double height_m);
    /// Edit > Add sensor: the next click on the floor plan places a temperature sensor `height_m` up (on a rack's
    /// front or rear, whichever half is clicked; else a point of the room). Emits placementRequested.
    void beginAddSensor(double height_m);
    /// The click: a sensor at (x, y) of the plan's hall, one undoable edit. Returns its id ("" on failure).
    QString placeSensor(double x_m, double y_m);
    /// An inspector edit: values come as shown, with units ("18 °C", "(1.5, 2.4) m"); the numbers are taken out.
    bool setProperty(const QString& id, const QString& key, const QString& value);
    const QString& lastError() const { return error_; }
    /// What the last rack added costs though it was added (a floor PDU's redundancy lost); "" = nothing.
    const QString& lastWarning() const { return warning_; }

signals:
    /// After an edit that creates or removes entities: what should be selected now.
    void selectRequested(const ct::app::EntityRef& ref);
    /// The next click on the floor plan should place something; `hint` says what.
    void placementRequested(const QString& hint);
    /// Something the user should know about an edit that went through (the status bar shows it).
    void notice(const QString& text);

private:
    std::vector<std::string> ids(bool floor_only) const;
    bool report(bool ok);
    void addRackDialog(bool new_row);
    void containmentDialog();
    void rearDoorDialog();
    void hallDialog();
    void sensorDialog();
    void targetPlace(std::string& hall, std::string& row) const;
    std::vector<std::string> targetRows() const;
    QString place(const model::RackPlan& plan, const std::string& rack_model, const std::string& server_model, int nodes);
    ScenarioDocument& doc_;
    QWidget* window_;
    QList<EntityRef> targets_;
    QString error_, warning_;
    double sensor_height_m_ = 1.2;  ///< the height of the sensor the next placement adds
};

}  // namespace ct::app
