#pragma once
// Top-down plan of the first hall (racks with their cold-air side, cooling units, CDUs, layout findings). Click
// selects, Ctrl+click adds to the selection, a drag moves the selection by whole floor tiles (the document
// applies it as one undoable edit). With a frame the racks are coloured by the 3D view's metric (one value per
// rack, plan_values.hpp) with their values written on them, a colour bar and failed units in red; the wheel
// zooms toward the cursor, a middle or right drag pans, a double click fits the hall again; hovering tells an
// entity's id, model and value. Sensors show as small diamonds (a point sensor where it stands, a rack's on its
// front or rear edge); beginPlacing() makes the next click a place on the floor (Edit > Add sensor), Esc or a
// right click cancels it. Contained aisles are tinted on the floor (blue cold, red hot) with their panels' outline:
// a solid line where the containment has end doors, dashed where the aisle's ends stay open; hovering names the
// containment, its rows, roof and leakage.
#include "entity_ref.hpp"
#include "plan_values.hpp"

#include <QList>
#include <QRectF>
#include <QStringList>
#include <QWidget>

#include <string>
#include <vector>

namespace ct::app {
class ScenarioDocument;

class FloorPlanView : public QWidget {
    Q_OBJECT
public:
    explicit FloorPlanView(const ScenarioDocument& doc, QWidget* parent = nullptr);
    void setSelected(const EntityRef& ref);
    void setSelection(const QList<EntityRef>& refs);
    const QList<EntityRef>& selection() const { return selection_; }
    /// Widget position of an entity's centre (for tests and tooltips); invalid point if not drawn.
    QPointF widgetPosOf(const EntityRef& ref) const;
    /// Colours from a frame by `metric` (render::metrics() id); clearFrame goes back to the design's colours.
    void setFrame(const model::Frame& f, const std::string& metric);
    void clearFrame();
    const PlanValues& values() const { return values_; }
    bool hasValues() const { return has_values_; }
    /// What a tooltip at a widget position says ("" when nothing is there).
    QString toolTipAt(const QPointF& pos) const;
    double zoom() const { return zoom_; }
    /// The next left click places something: placeRequested() with its floor point. `hint` is shown meanwhile.
    void beginPlacing(const QString& hint);
    bool placing() const { return !placing_hint_.isEmpty(); }
    /// Widget position of a floor point (metres) of the shown hall.
    QPointF widgetPosOfFloor(double x_m, double y_m) const;

signals:
    void entitySelected(const ct::app::EntityRef& ref);
    void selectionChanged(const QList<ct::app::EntityRef>& refs);
    /// The user dragged the selection by (dx, dy) metres, already whole tiles.
    void moveRequested(const QStringList& ids, double dx_m, double dy_m);
    /// A click while placing: the floor point (metres) of the shown hall.
    void placeRequested(double x_m, double y_m);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool event(QEvent*) override;

private:
    struct Shape {
        EntityRef ref;
        QRectF floor_m;  ///< footprint on the floor (m)
        int facing;      ///< model::Facing
        QColor colour;
    };
    /// A contained aisle on the floor (model::containedAisles).
    struct Aisle {
        QString containment;
        QRectF floor_m;
        bool cold = false, roof = true, doors = true, along_x = true;
        QString rows, leakage;
    };
    void rebuild();
    void addSensorShapes();
    void addAisles();
    void paintAisles(QPainter& p, const QTransform& t, const QFont& small) const;
    const Aisle* aisleAt(const QPointF& widget_pos) const;
    void paintSensor(QPainter& p, const QRectF& r, bool selected) const;
    void endPlacing();
    QTransform floorToWidget() const;
    void paintLegend(QPainter& p) const;
    void paintAshraeBands(QPainter& p, const QRectF& bar) const;
    void paintShape(QPainter& p, const QTransform& t, const Shape& s,
                    const QFont& small) const;  ///< a rack, unit or CDU with its front edge and label
    void paintLabel(QPainter& p, const Shape& s, const QRectF& r, const QColor& fill, const QFont& small) const;
    QColor valueColour(double v) const;
    const Shape* shapeAt(const QPointF& widget_pos) const;
    const ScenarioDocument& doc_;
    std::vector<Shape> shapes_;
    std::vector<Aisle> aisles_;
    QList<EntityRef> selection_;
    bool dragging_ = false;
    QPointF drag_from_m_;
    QPointF drag_by_m_;  ///< snapped offset shown while dragging
    PlanValues values_;
    bool has_values_ = false;
    double zoom_ = 1;  ///< on top of fitting the hall to the widget
    QPointF pan_px_;   ///< widget pixels
    bool panning_ = false;
    QString placing_hint_;  ///< non-empty while the next click places something
    QPointF pan_from_;
};

}  // namespace ct::app
