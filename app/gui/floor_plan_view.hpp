#pragma once
// Top-down plan of the first hall (racks with their cold-air side, cooling units, CDUs); click selects a rack.
// The 3D view (issue 5) will sit beside it.
#include "entity_ref.hpp"

#include <QRectF>
#include <QWidget>

#include <vector>

namespace ct::app {
class ScenarioDocument;

class FloorPlanView : public QWidget {
    Q_OBJECT
public:
    explicit FloorPlanView(const ScenarioDocument& doc, QWidget* parent = nullptr);
    void setSelected(const EntityRef& ref);
    /// Widget position of an entity's centre (for tests and tooltips); invalid point if not drawn.
    QPointF widgetPosOf(const EntityRef& ref) const;

signals:
    void entitySelected(const ct::app::EntityRef& ref);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;

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
    EntityRef selected_;
};

} // namespace ct::app
