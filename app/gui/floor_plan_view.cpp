#include "floor_plan_view.hpp"

#include "scenario_document.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/geometry.hpp>

#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>
#include <map>

namespace ct::app {

namespace {
QRectF floorRect(const model::Vec2& c, double w, double d, model::Facing f) {
    const model::Box2 b = model::footprint(c, w, d, f);
    return {b.x0, b.y0, b.width(), b.depth()};
}
}  // namespace

FloorPlanView::FloorPlanView(const ScenarioDocument& doc, QWidget* parent) : QWidget(parent), doc_(doc) {
    setObjectName("floorPlan");
    setMinimumSize(320, 240);
    connect(&doc_, &ScenarioDocument::changed, this, &FloorPlanView::rebuild);
    connect(&doc_, &ScenarioDocument::edited, this, &FloorPlanView::rebuild);
    rebuild();
}

void FloorPlanView::rebuild() {
    shapes_.clear();
    aisles_.clear();
    const auto& sc = doc_.scenario();
    if (!sc.halls.empty()) {
        const auto& h = sc.halls.front();
        const auto& cat = doc_.catalog();
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                if (const auto* rm = cat.rack(r.model)) {
                    const double liquid = model::rackLiquidPowerW(r, cat);
                    shapes_.push_back({{"rack", QString::fromStdString(r.id)},
                                       floorRect(r.position_m, rm->width_m, rm->depth_m, r.facing),
                                       static_cast<int>(r.facing),
                                       liquid > 0 ? QColor(120, 110, 200) : QColor(90, 96, 110)});
                }
        for (const auto& u : h.cooling_units)
            if (const auto* m = cat.coolingUnit(u.model))
                shapes_.push_back({{"cooling_unit", QString::fromStdString(u.id)},
                                   floorRect(u.position_m, m->width_m, m->depth_m, u.facing),
                                   static_cast<int>(u.facing),
                                   QColor(60, 130, 230)});
        for (const auto& c : h.cdus)
            if (const auto* m = cat.cdu(c.model))
                shapes_.push_back({{"cdu", QString::fromStdString(c.id)},
                                   floorRect(c.position_m, m->width_m, m->depth_m, c.facing),
                                   static_cast<int>(c.facing),
                                   QColor(40, 190, 170)});
        addSensorShapes();
        addAisles();
    }
    update();
}

void FloorPlanView::addAisles() {
    const auto& h = doc_.scenario().halls.front();
    const auto& cat = doc_.catalog();
    for (const auto& c : h.containments)
        for (const auto& a : model::containedAisles(h, c, cat)) {
            Aisle x;
            x.containment = QString::fromStdString(c.id);
            x.floor_m = QRectF(a.box.x0, a.box.y0, a.box.width(), a.box.depth());
            x.cold = c.kind == "cold";
            x.roof = c.roof;
            x.doors = c.end_doors;
            x.along_x = a.along_x;
            x.rows = QString::fromStdString(a.row_a + " and " + a.row_b);
            x.leakage = QString::number(100 * model::leakageFraction(c, cat), 'g', 3) + " %";
            aisles_.push_back(x);
        }
}

void FloorPlanView::paintAisles(QPainter& p, const QTransform& t, const QFont& small) const {
    for (const Aisle& a : aisles_) {
        const QRectF r = t.mapRect(a.floor_m);
        const QColor tint = a.cold ? QColor(70, 140, 255) : QColor(240, 90, 60);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(tint.red(), tint.green(), tint.blue(), a.roof ? 70 : 40));
        p.drawRect(r);
        // The aisle's ends: a solid line for doors, dashed where they stay open.
        QPen end(tint, 2, a.doors ? Qt::SolidLine : Qt::DashLine);
        p.setPen(end);
        if (a.along_x) {
            p.drawLine(r.topLeft(), r.bottomLeft());
            p.drawLine(r.topRight(), r.bottomRight());
        } else {
            p.drawLine(r.topLeft(), r.topRight());
            p.drawLine(r.bottomLeft(), r.bottomRight());
        }
        // Its name, as much as fits: "pod1: hot aisle contained", else its id, else nothing.
        p.setFont(small);
        const QFontMetrics fm(small);
        if (r.height() < fm.height()) continue;
        for (const QString& label : {tr("%1: %2 aisle contained").arg(a.containment, a.cold ? tr("cold") : tr("hot")), a.containment})
            if (fm.horizontalAdvance(label) <= r.width() - 6) {
                p.setPen(tint.lighter(150));
                p.drawText(r, Qt::AlignCenter, label);
                break;
            }
    }
}

const FloorPlanView::Aisle* FloorPlanView::aisleAt(const QPointF& widget_pos) const {
    const QPointF floor = floorToWidget().inverted().map(widget_pos);
    for (const Aisle& a : aisles_)
        if (a.floor_m.contains(floor)) return &a;
    return nullptr;
}

void FloorPlanView::addSensorShapes() {
    const auto& h = doc_.scenario().halls.front();
    const double half = 0.12;                    // a sensor's mark: 0.24 m across, on the floor plan
    std::map<std::string, int> on_side, placed;  // sensors per rack side, and how many of them are drawn
    for (const auto& x : h.sensors)
        if (!x.rack.empty()) ++on_side[x.rack + "/" + x.side];
    for (const auto& x : h.sensors) {
        QPointF at(x.position_m.x_m, x.position_m.y_m);
        if (!x.rack.empty()) {
            // On the rack's front or rear edge, a rack's several sensors spread along it.
            const model::Rack* rack = nullptr;
            for (const auto& row : h.rows)
                for (const auto& r : row.racks)
                    if (r.id == x.rack) rack = &r;
            const auto* rm = rack ? doc_.catalog().rack(rack->model) : nullptr;
            if (!rm) continue;
            const model::Box2 b = model::footprint(rack->position_m, rm->width_m, rm->depth_m, rack->facing);
            const std::string key = x.rack + "/" + x.side;
            const double f = (++placed[key]) / (on_side[key] + 1.0);
            const bool front = x.side == "front";
            switch (rack->facing) {
                case model::Facing::North:
                    at = {b.x0 + f * b.width(), front ? b.y1 : b.y0};
                    break;
                case model::Facing::South:
                    at = {b.x0 + f * b.width(), front ? b.y0 : b.y1};
                    break;
                case model::Facing::East:
                    at = {front ? b.x1 : b.x0, b.y0 + f * b.depth()};
                    break;
                case model::Facing::West:
                    at = {front ? b.x0 : b.x1, b.y0 + f * b.depth()};
                    break;
            }
        }
        shapes_.push_back(
            {{"sensor", QString::fromStdString(x.id)}, QRectF(at.x() - half, at.y() - half, 2 * half, 2 * half), 0, QColor(250, 200, 60)});
    }
}

void FloorPlanView::paintSensor(QPainter& p, const QRectF& r, bool selected) const {
    const QPointF c = r.center();
    const double k = std::max(4.0, r.width() / 2);
    p.setPen(QPen(selected ? QColor(255, 255, 255) : QColor(20, 20, 24), selected ? 2 : 1));
    p.setBrush(QColor(250, 200, 60));
    p.drawPolygon(QPolygonF({c + QPointF(0, -k), c + QPointF(k, 0), c + QPointF(0, k), c + QPointF(-k, 0)}));
}

void FloorPlanView::beginPlacing(const QString& hint) {
    placing_hint_ = hint;
    setCursor(Qt::CrossCursor);
    setFocus();
    update();
}

void FloorPlanView::endPlacing() {
    placing_hint_.clear();
    unsetCursor();
    update();
}

QPointF FloorPlanView::widgetPosOfFloor(double x_m, double y_m) const { return floorToWidget().map(QPointF(x_m, y_m)); }

void FloorPlanView::keyPressEvent(QKeyEvent* e) {
    if (placing() && e->key() == Qt::Key_Escape) return endPlacing();
    QWidget::keyPressEvent(e);
}

QTransform FloorPlanView::floorToWidget() const {
    const auto& sc = doc_.scenario();
    if (sc.halls.empty()) return {};
    const auto& h = sc.halls.front();
    // Fitted into the widget above the colour bar, centred; then the user's zoom and pan.
    const double margin = 12, top = 26, bottom = has_values_ ? 58 : 12;
    const double avail_w = width() - 2 * margin, avail_h = height() - top - bottom;
    const double k = std::max(1e-6, std::min(avail_w / h.width_m, avail_h / h.depth_m)) * zoom_;
    const double ox = margin + (avail_w - h.width_m * k / zoom_) / 2, oy = top + (avail_h - h.depth_m * k / zoom_) / 2;
    const QPointF centre(ox + h.width_m * k / zoom_ / 2, oy + h.depth_m * k / zoom_ / 2);
    // y up on the floor (north), y down on screen.
    QTransform t;
    t.translate(centre.x() + pan_px_.x(), centre.y() + pan_px_.y());
    t.scale(k, -k);
    t.translate(-h.width_m / 2, -h.depth_m / 2);
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
    QFont small = font();  // the labels' font, once per paint
    small.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
    paintAisles(p, t, small);
    // Layout findings: a red (error) or amber (warning) halo around the entity.
    for (const auto& f : doc_.findings()) {
        for (const Shape& s : shapes_)
            if (s.ref.id.toStdString() == f.entity) {
                p.setPen(Qt::NoPen);
                p.setBrush(f.severity == model::Severity::Error ? QColor(230, 50, 40, 150) : QColor(240, 170, 30, 120));
                p.drawRect(t.mapRect(s.floor_m.adjusted(-0.15, -0.15, 0.15, 0.15)));
            }
    }
    for (const Shape& s : shapes_) paintShape(p, t, s, small);
    p.setPen(Qt::lightGray);
    p.drawText(QRectF(8, 4, width() - 16, 20), Qt::AlignRight,
               tr("%1 — %2 × %3 m (north up; light edge = front; wheel zooms, right drag pans, double click fits)")
                   .arg(QString::fromStdString(h.name))
                   .arg(h.width_m)
                   .arg(h.depth_m));
    if (has_values_) paintLegend(p);
    if (placing()) {
        p.setPen(QColor(250, 200, 60));
        p.drawText(QRectF(8, 4, width() - 16, 20), Qt::AlignLeft, placing_hint_);
    }
}

void FloorPlanView::paintShape(QPainter& p, const QTransform& t, const Shape& s, const QFont& small) const {
    const bool sel = selection_.contains(s.ref);
    const QRectF r = t.mapRect(sel && dragging_ ? s.floor_m.translated(drag_by_m_) : s.floor_m);
    if (s.ref.kind == "sensor") return paintSensor(p, r, sel);
    QColor fill = s.colour;
    if (has_values_ && s.ref.kind == "rack") {
        const auto it = values_.rack.find(s.ref.id.toStdString());
        fill = valueColour(it == values_.rack.end() ? std::nan("") : it->second);
    }
    if (has_values_ && s.ref.kind == "cooling_unit" && values_.failed_units.count(s.ref.id.toStdString())) fill = QColor(225, 45, 40);
    p.setPen(QPen(sel ? QColor(255, 210, 60) : QColor(20, 20, 24), sel ? 2.5 : 1));
    p.setBrush(fill);
    p.drawRect(r);
    // The front (cold-air intake or supply) edge in light blue.
    p.setPen(QPen(QColor(150, 220, 255), 2));
    switch (static_cast<model::Facing>(s.facing)) {
        case model::Facing::North:
            p.drawLine(r.topLeft(), r.topRight());
            break;
        case model::Facing::South:
            p.drawLine(r.bottomLeft(), r.bottomRight());
            break;
        case model::Facing::East:
            p.drawLine(r.topRight(), r.bottomRight());
            break;
        case model::Facing::West:
            p.drawLine(r.topLeft(), r.bottomLeft());
            break;
    }
    paintLabel(p, s, r, fill, small);
}

/// Labels where they fit: the value on a coloured rack, the id below it when there is room.
void FloorPlanView::paintLabel(QPainter& p, const Shape& s, const QRectF& r, const QColor& fill, const QFont& small) const {
    p.setFont(small);
    const QFontMetricsF fm(small);
    QString value;
    if (has_values_ && s.ref.kind == "rack") {
        const auto it = values_.rack.find(s.ref.id.toStdString());
        if (it != values_.rack.end() && std::isfinite(it->second)) value = QString::number(it->second, 'f', values_.decimals);
    }
    const QString id = s.ref.id.section('-', -1);  // "r01-03" -> "03", "crah-02" -> "02"
    const bool fits_value = !value.isEmpty() && fm.horizontalAdvance(value) + 2 <= r.width() && fm.height() <= r.height();
    const bool fits_id = fm.horizontalAdvance(s.ref.id) + 2 <= r.width() && fm.height() * (fits_value ? 2 : 1) <= r.height();
    const double luma = 0.299 * fill.red() + 0.587 * fill.green() + 0.114 * fill.blue();
    const QColor ink = luma > 140 ? QColor(10, 10, 10) : QColor(245, 245, 245);
    p.setPen(ink);
    if (fits_value && fits_id) {
        p.drawText(r.adjusted(0, 0, 0, -r.height() / 2), Qt::AlignHCenter | Qt::AlignBottom, value);
        p.drawText(r.adjusted(0, r.height() / 2, 0, 0), Qt::AlignHCenter | Qt::AlignTop, s.ref.id);
    } else if (fits_value) {
        p.drawText(r, Qt::AlignCenter, value);
    } else if (fits_id) {
        p.drawText(r, Qt::AlignCenter, s.ref.id);
    } else if (fm.horizontalAdvance(id) + 2 <= r.width() && fm.height() <= r.height() && !has_values_) {
        p.drawText(r, Qt::AlignCenter, id);
    }
    p.setFont(font());
}

QColor FloorPlanView::valueColour(double v) const {
    if (!std::isfinite(v)) return QColor(110, 110, 116);  // no data
    double f = std::clamp((v - values_.lo) / std::max(1e-9, values_.hi - values_.lo), 0.0, 1.0);
    if (values_.high_is_good) f = 1 - f;
    // Blue (cool, low) to red (hot, high), as the 3D view's colour table.
    return QColor::fromHsvF(static_cast<float>((1 - f) * 240.0 / 360.0), 0.85f, 0.95f);
}

void FloorPlanView::paintLegend(QPainter& p) const {
    const QRectF bar(16, height() - 44, std::min(360.0, width() - 32.0), 12);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int k = 0; k <= 10; ++k) g.setColorAt(k / 10.0, valueColour(values_.lo + (values_.hi - values_.lo) * k / 10.0));
    p.setPen(QPen(QColor(200, 200, 200), 0.5));
    p.setBrush(g);
    p.drawRect(bar);
    p.setPen(QColor(220, 220, 220));
    const double span = values_.hi - values_.lo;
    const double raw = span / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    for (double v = std::ceil(values_.lo / step) * step; v <= values_.hi + 1e-9; v += step) {
        const double x = bar.left() + (v - values_.lo) / span * bar.width();
        p.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3));
        p.drawText(QRectF(x - 30, bar.bottom() + 3, 60, 14), Qt::AlignHCenter | Qt::AlignTop, QString::number(v, 'g', 4));
    }
    p.drawText(QRectF(bar.right() + 12, bar.top() - 3, width() - bar.right() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter,
               QString::fromStdString(values_.label) + tr(" · grey: no data · red unit: failed"));
    if (values_.ashrae) paintAshraeBands(p, bar);
}

void FloorPlanView::paintAshraeBands(QPainter& p, const QRectF& bar) const {
    // Above the bar: ASHRAE's recommended inlet range and class A1's allowable one, where they fall on it.
    struct Band {
        double lo, hi;
        QColor colour;
        QString name;
    };
    const Band bands[] = {{15, 32, QColor(240, 170, 30), tr("A1 allowable 15–32 °C")},
                          {18, 27, QColor(80, 200, 100), tr("recommended 18–27 °C")}};
    const double span = values_.hi - values_.lo;
    for (int i = 0; i < 2; ++i) {
        const Band& b = bands[i];
        const double lo = std::max(b.lo, values_.lo), hi = std::min(b.hi, values_.hi);
        if (!(hi > lo)) continue;
        const double y = bar.top() - 4 - 5 * i;
        const double x0 = bar.left() + (lo - values_.lo) / span * bar.width(), x1 = bar.left() + (hi - values_.lo) / span * bar.width();
        p.setPen(QPen(b.colour, 3, Qt::SolidLine, Qt::FlatCap));
        p.drawLine(QPointF(x0, y), QPointF(x1, y));
    }
    p.setPen(QColor(220, 220, 220));
    const QRectF text(bar.right() + 12, bar.top() - 21, width() - bar.right() - 20, 16);
    p.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, tr("ASHRAE inlet: green %1, amber %2").arg(bands[1].name, bands[0].name));
}

void FloorPlanView::setFrame(const model::Frame& f, const std::string& metric) {
    try {
        values_ = planValues(doc_.scenario(), doc_.catalog(), &f, metric);
    } catch (const std::exception&) {
        return;  // an unknown metric: keep what is shown
    }
    has_values_ = true;
    update();
}

void FloorPlanView::clearFrame() {
    has_values_ = false;
    values_ = {};
    update();
}

const FloorPlanView::Shape* FloorPlanView::shapeAt(const QPointF& widget_pos) const {
    const QPointF floor = floorToWidget().inverted().map(widget_pos);
    const Shape* hit = nullptr;
    for (const Shape& s : shapes_)
        if (s.floor_m.contains(floor)) hit = &s;
    return hit;
}

QString FloorPlanView::toolTipAt(const QPointF& pos) const {
    const Shape* s = shapeAt(pos);
    if (!s) {
        const Aisle* a = aisleAt(pos);
        if (!a) return {};
        return tr("containment %1: %2 aisle between %3, %4, %5; leakage %6")
            .arg(a->containment, a->cold ? tr("cold") : tr("hot"), a->rows, a->roof ? tr("roofed") : tr("no roof"),
                 a->doors ? tr("end doors") : tr("open ends"), a->leakage);
    }
    QString text = s->ref.id;
    const std::string id = s->ref.id.toStdString();
    for (const auto& h : doc_.scenario().halls) {
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                if (r.id == id) text += tr(" (%1, %2 nodes)").arg(QString::fromStdString(r.model)).arg(r.nodes.size());
        for (const auto& u : h.cooling_units)
            if (u.id == id) text += tr(" (%1)").arg(QString::fromStdString(u.model));
        for (const auto& x : h.sensors)
            if (x.id == id)
                text += x.rack.empty()
                            ? tr(": temperature at (%1, %2) m, %3 m up").arg(x.position_m.x_m).arg(x.position_m.y_m).arg(x.height_m)
                            : tr(": temperature on %1's %2, %3 m up")
                                  .arg(QString::fromStdString(x.rack), QString::fromStdString(x.side))
                                  .arg(x.height_m);
    }
    if (has_values_ && s->ref.kind == "rack") {
        const auto it = values_.rack.find(id);
        text +=
            "\n" + QString::fromStdString(values_.label) + ": " +
            (it != values_.rack.end() && std::isfinite(it->second) ? QString::number(it->second, 'f', values_.decimals) : tr("no data"));
    }
    if (has_values_ && values_.failed_units.count(id)) text += tr("\nfailed");
    return text;
}

bool FloorPlanView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString tip = toolTipAt(he->pos());
        if (tip.isEmpty()) QToolTip::hideText();
        else QToolTip::showText(he->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

void FloorPlanView::wheelEvent(QWheelEvent* e) {
    // Zoom toward the cursor: the floor point under it stays under it.
    const QPointF at = e->position();
    const QPointF floor = floorToWidget().inverted().map(at);
    const double steps = e->angleDelta().y() / 120.0;
    zoom_ = std::clamp(zoom_ * std::pow(1.25, steps), 1.0, 40.0);
    const QPointF moved = floorToWidget().map(floor);
    pan_px_ += at - moved;
    if (zoom_ == 1.0) pan_px_ = {};
    update();
    e->accept();
}

void FloorPlanView::mouseDoubleClickEvent(QMouseEvent*) {
    zoom_ = 1;
    pan_px_ = {};
    update();
}

void FloorPlanView::mousePressEvent(QMouseEvent* e) {
    if (placing() && e->button() == Qt::RightButton) return endPlacing();
    if (e->button() == Qt::MiddleButton || e->button() == Qt::RightButton) {
        panning_ = true;
        pan_from_ = e->position();
        return;
    }
    const QPointF floor = floorToWidget().inverted().map(e->position());
    if (placing()) {  // this click places; a right click (above) or Esc would have cancelled
        endPlacing();
        if (e->button() == Qt::LeftButton) emit placeRequested(floor.x(), floor.y());
        return;
    }
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
    if (panning_) {
        pan_px_ += e->position() - pan_from_;
        pan_from_ = e->position();
        update();
        return;
    }
    if (!dragging_ || doc_.scenario().halls.empty()) return;
    const double tile = doc_.scenario().halls.front().tile_m;
    const QPointF d = floorToWidget().inverted().map(e->position()) - drag_from_m_;
    drag_by_m_ = {model::snapToTiles(d.x(), tile), model::snapToTiles(d.y(), tile)};
    update();
}

void FloorPlanView::mouseReleaseEvent(QMouseEvent*) {
    panning_ = false;
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

}  // namespace ct::app
