#include "floor_plan_view.hpp"

#include "scenario_document.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/geometry.hpp>

#include <QMouseEvent>
#include <QPainter>

namespace ct::app {

namespace {
QRectF floorRect(const model::Vec2& c, double w, double d, model::Facing f) {
    const model::Box2 b = model::footprint(c, w, d, f);
    return {b.x0, b.y0, b.width(), b.depth()};
}
} // namespace

FloorPlanView::FloorPlanView(const ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    setObjectName("floorPlan");
    setMinimumSize(320, 240);
    connect(&doc_, &ScenarioDocument::changed, this, &FloorPlanView::rebuild);
    connect(&doc_, &ScenarioDocument::edited, this, &FloorPlanView::rebuild);
    rebuild();
}

void FloorPlanView::rebuild() {
    shapes_.clear();
    const auto& sc = doc_.scenario();
    if (!sc.halls.empty()) {
        const auto& h = sc.halls.front();
        const auto& cat = doc_.catalog();
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                if (const auto* rm = cat.rack(r.model)) {
                    const double liquid = model::rackLiquidPowerW(r, cat);
                    shapes_.push_back({{"rack", QString::fromStdString(r.id)}, floorRect(r.position_m, rm->width_m, rm->depth_m, r.facing),
                                       static_cast<int>(r.facing), liquid > 0 ? QColor(120, 110, 200) : QColor(90, 96, 110)});
                }
        for (const auto& u : h.cooling_units)
            if (const auto* m = cat.coolingUnit(u.model))
                shapes_.push_back({{"cooling_unit", QString::fromStdString(u.id)}, floorRect(u.position_m, m->width_m, m->depth_m, u.facing),
                                   static_cast<int>(u.facing), QColor(60, 130, 230)});
        for (const auto& c : h.cdus)
            if (const auto* m = cat.cdu(c.model))
                shapes_.push_back({{"cdu", QString::fromStdString(c.id)}, floorRect(c.position_m, m->width_m, m->depth_m, c.facing),
                                   static_cast<int>(c.facing), QColor(40, 190, 170)});
    }
    update();
}

QTransform FloorPlanView::floorToWidget() const {
    const auto& sc = doc_.scenario();
    if (sc.halls.empty()) return {};
    const auto& h = sc.halls.front();
    const double margin = 12;
    const double k = std::min((width() - 2 * margin) / h.width_m, (height() - 2 * margin) / h.depth_m);
    // y up on the floor (north), y down on screen.
    QTransform t;
    t.translate(margin, margin + h.depth_m * k);
    t.scale(k, -k);
    return t;
}

void FloorPlanView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(30, 32, 38));
    const auto& sc = doc_.scenario();
    if (sc.halls.empty()) {
        p.setPen(Qt::lightGray);
        p.drawText(rect(), Qt::AlignCenter, tr("No scenario open"));
        return;
    }
    const auto& h = sc.halls.front();
    p.setRenderHint(QPainter::Antialiasing);
    const QTransform t = floorToWidget();
    // Floor with its tile grid.
    p.setPen(QPen(QColor(70, 74, 82), 0));
    p.setBrush(QColor(48, 51, 58));
    p.drawRect(t.mapRect(QRectF(0, 0, h.width_m, h.depth_m)));
    if (h.tile_m > 0 && t.m11() * h.tile_m > 4) {
        for (double x = h.tile_m; x < h.width_m; x += h.tile_m) p.drawLine(t.map(QPointF(x, 0)), t.map(QPointF(x, h.depth_m)));
        for (double y = h.tile_m; y < h.depth_m; y += h.tile_m) p.drawLine(t.map(QPointF(0, y)), t.map(QPointF(h.width_m, y)));
    }
    // Layout findings: a red (error) or amber (warning) halo around the entity.
    for (const auto& f : doc_.findings()) {
        for (const Shape& s : shapes_)
            if (s.ref.id.toStdString() == f.entity) {
                p.setPen(Qt::NoPen);
                p.setBrush(f.severity == model::Severity::Error ? QColor(230, 50, 40, 150) : QColor(240, 170, 30, 120));
                p.drawRect(t.mapRect(s.floor_m.adjusted(-0.15, -0.15, 0.15, 0.15)));
            }
    }
    for (const Shape& s : shapes_) {
        const bool sel = selection_.contains(s.ref);
        const QRectF r = t.mapRect(sel && dragging_ ? s.floor_m.translated(drag_by_m_) : s.floor_m);
        p.setPen(QPen(sel ? QColor(255, 210, 60) : QColor(20, 20, 24), sel ? 2.5 : 1));
        p.setBrush(s.colour);
        p.drawRect(r);
        // The front (cold-air intake or supply) edge in light blue.
        p.setPen(QPen(QColor(150, 220, 255), 2));
        switch (static_cast<model::Facing>(s.facing)) {
        case model::Facing::North: p.drawLine(r.topLeft(), r.topRight()); break;
        case model::Facing::South: p.drawLine(r.bottomLeft(), r.bottomRight()); break;
        case model::Facing::East: p.drawLine(r.topRight(), r.bottomRight()); break;
        case model::Facing::West: p.drawLine(r.topLeft(), r.bottomLeft()); break;
        }
    }
    p.setPen(Qt::lightGray);
    p.drawText(QRectF(8, 4, width() - 16, 20), Qt::AlignRight,
               tr("%1 — %2 × %3 m (north up; light edge = front)").arg(QString::fromStdString(h.name)).arg(h.width_m).arg(h.depth_m));
}

void FloorPlanView::mousePressEvent(QMouseEvent* e) {
    const QPointF floor = floorToWidget().inverted().map(e->position());
    const Shape* hit = nullptr;
    for (const Shape& s : shapes_)
        if (s.floor_m.contains(floor)) hit = &s;
    if (!hit) {
        if (!(e->modifiers() & Qt::ControlModifier)) setSelection({});
        emit selectionChanged(selection_);
        return;
    }
    if (e->modifiers() & Qt::ControlModifier) {
        if (selection_.contains(hit->ref)) selection_.removeAll(hit->ref);
        else selection_.append(hit->ref);
        update();
    } else if (!selection_.contains(hit->ref)) {
        selection_ = {hit->ref};
        update();
    }
    emit selectionChanged(selection_);
    emit entitySelected(hit->ref);
    if (e->button() == Qt::LeftButton && selection_.contains(hit->ref)) {
        dragging_ = true;
        drag_from_m_ = floor;
        drag_by_m_ = {};
    }
}

void FloorPlanView::mouseMoveEvent(QMouseEvent* e) {
    if (!dragging_ || doc_.scenario().halls.empty()) return;
    const double tile = doc_.scenario().halls.front().tile_m;
    const QPointF d = floorToWidget().inverted().map(e->position()) - drag_from_m_;
    drag_by_m_ = {model::snapToTiles(d.x(), tile), model::snapToTiles(d.y(), tile)};
    update();
}

void FloorPlanView::mouseReleaseEvent(QMouseEvent*) {
    if (!dragging_) return;
    dragging_ = false;
    const QPointF by = drag_by_m_;
    drag_by_m_ = {};
    update();
    if (by.isNull()) return;
    QStringList ids;
    for (const auto& r : selection_) ids << r.id;
    emit moveRequested(ids, by.x(), by.y());
}

void FloorPlanView::setSelected(const EntityRef& ref) {
    if (selection_.size() > 1 && selection_.contains(ref)) return;  // keep a multi-selection it belongs to
    selection_ = ref.isValid() ? QList<EntityRef>{ref} : QList<EntityRef>{};
    update();
}

void FloorPlanView::setSelection(const QList<EntityRef>& refs) {
    selection_ = refs;
    update();
}

QPointF FloorPlanView::widgetPosOf(const EntityRef& ref) const {
    for (const Shape& s : shapes_)
        if (s.ref == ref) return floorToWidget().map(s.floor_m.center());
    return {};
}

} // namespace ct::app
