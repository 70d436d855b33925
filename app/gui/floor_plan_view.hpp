#pragma once
// Top-down plan of the first hall (racks with their cold-air side, cooling units, CDUs, layout findings). Click
// selects, Ctrl+click adds to the selection, a drag moves the selection by whole floor tiles (the document
// applies it as one undoable edit).
#include "entity_ref.hpp"

#include <QList>
#include <QRectF>
#include <QStringList>
#include <QWidget>

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

signals:
    void entitySelected(const ct::app::EntityRef& ref);
    void selectionChanged(const QList<ct::app::EntityRef>& refs);
    /// The user dragged the selection by (dx, dy) metres, already whole tiles.
    void moveRequested(const QStringList& ids, double dx_m, double dy_m);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;

private:
    struct Shape {
        EntityRef ref;
        QRectF floor_m;  ///< footprint on the floor (m)
        int facing;      ///< model::Facing
        QColor colour;
    };
    void rebuild();
    QTransform floorToWidget() const;
    const ScenarioDocument& doc_;
    std::vector<Shape> shapes_;
    QList<EntityRef> selection_;
    bool dragging_ = false;
    QPointF drag_from_m_;
    QPointF drag_by_m_;  ///< snapped offset shown while dragging
};

} // namespace ct::app
