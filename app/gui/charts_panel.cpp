#include "charts_panel.hpp"
#include "measured_overlay.hpp"
#include "qstr.hpp"

#include "run_controller.hpp"
#include "run_panels.hpp"
#include "scenario_tree.hpp"

#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QCursor>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QMimeData>
#include <QMouseEvent>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ct::app {

namespace {

const QColor kPalette[] = {QColor(31, 119, 180),  QColor(214, 39, 40), QColor(44, 160, 44),   QColor(255, 127, 14),
                           QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(23, 190, 207)};

/// Limits an operator reads a metric against, in stored units: ASHRAE's recommended and allowable inlet, the
/// breaker's 80 % continuous-load rule.
std::vector<std::pair<double, QString>> limitsOf(const std::string& metric) {
    if (metric.find("inlet") != std::string::npos && metric.size() >= 2 && metric.substr(metric.size() - 2) == "_c")
        return {{27.0, QObject::tr("27 °C recommended")}, {32.0, QObject::tr("32 °C allowable")}};
    if (metric == "breaker_utilization") return {{0.8, QObject::tr("breaker 80 %")}};
    return {};
}

void niceAxis(QValueAxis* axis, double lo, double hi) {
    // A series constant but for its last bits is constant: ticks a rounding error apart would be billions once
    // the axis takes another range.
    if (!(hi - lo > 1e-9 * std::max({1.0, std::abs(lo), std::abs(hi)}))) {
        const double pad = std::max(0.5, 0.05 * std::abs(hi));
        lo -= pad;
        hi += pad;
    }
    const model::Ticks t = model::niceTicks(lo, hi, 6);
    const double first = std::floor(lo / t.step + 1e-9) * t.step;
    const double last = std::ceil(hi / t.step - 1e-9) * t.step;
    axis->setRange(first, last);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(first);
    axis->setTickInterval(t.step);
    axis->setLabelFormat(QString("%.%1f").arg(t.decimals));
}

/// Min and max of each of `buckets` equal slices of [x0, x1], in time order: peaks survive decimation.
QList<QPointF> decimate(const std::vector<QPointF>& pts, double x0, double x1, int buckets) {
    QList<QPointF> out;
    if (pts.empty()) return out;
    auto first = std::lower_bound(pts.begin(), pts.end(), x0, [](const QPointF& p, double x) { return p.x() < x; });
    auto last = std::upper_bound(pts.begin(), pts.end(), x1, [](double x, const QPointF& p) { return x < p.x(); });
    if (first != pts.begin()) --first;  // the line runs in from the left edge
    if (last != pts.end()) ++last;
    const auto n = std::distance(first, last);
    if (n <= 2 * buckets) {
        for (auto it = first; it != last; ++it) out.append(*it);
        return out;
    }
    const double w = (x1 - x0) / buckets;
    auto it = first;
    while (it != last) {
        const int b = static_cast<int>(std::floor((it->x() - x0) / w));
        auto lo = it, hi = it;
        auto j = it;
        for (; j != last && static_cast<int>(std::floor((j->x() - x0) / w)) == b; ++j) {
            if (j->y() < lo->y()) lo = j;
            if (j->y() > hi->y()) hi = j;
        }
        if (lo->x() <= hi->x()) {
            out.append(*lo);
            if (hi != lo) out.append(*hi);
        } else {
            out.append(*hi);
            out.append(*lo);
        }
        it = j;
    }
    return out;
}

}  // namespace

struct ChartsPanel::Curve {
    std::string entity, metric;
    model::MetricInfo info;
    model::AxisUnit unit;
    bool pinned = false, right = false;
    std::vector<QPointF> pts, base, meas;  ///< (time in the chart's unit, shown value)
    QLineSeries* line = nullptr;
    QLineSeries* base_line = nullptr;
    QLineSeries* meas_line = nullptr;
    QString name() const { return QString("%1 · %2").arg(qs(entity), qs(info.name)); }
};

ChartsPanel::ChartsPanel(const RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("chartsPanel");
    setAcceptDrops(true);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    metric_ = new QComboBox(this);
    metric_->setObjectName("chartMetric");
    pin_ = new QPushButton(tr("Pin"), this);
    pin_->setObjectName("chartPin");
    pin_->setToolTip(tr("Keep this series on the chart when the selection changes (or drag an entity here from the tree)"));
    auto* clear = new QPushButton(tr("Clear pins"), this);
    auto* fit = new QPushButton(tr("Whole run"), this);
    fit->setToolTip(tr("Drag across the chart to zoom into a time, the wheel zooms, a middle drag pans, a double click shows all"));
    auto* save = new QPushButton(tr("Export"), this);
    auto* menu = new QMenu(save);
    menu->addAction(tr("Chart as PNG…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Save chart"), "chart.png", tr("PNG images (*.png)"));
        if (!p.isEmpty()) savePng(p);
    });
    menu->addAction(tr("Series as CSV…"), this, [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Save series"), "series.csv", tr("CSV (*.csv)"));
        if (!p.isEmpty()) saveCsv(p);
    });
    save->setMenu(menu);
    bar->addWidget(metric_, 1);
    for (QPushButton* b : {pin_, clear, fit, save}) bar->addWidget(b);
    l->addLayout(bar);

    auto* chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignTop);
    QFont small = chart->legend()->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    chart->legend()->setFont(small);
    chart->setTitleFont(small);
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 2, 4, 2));  // a short dock: room for the axis labels, not for margins
    x_ = new QValueAxis;
    x_->setTitleText(tr("time (min)"));
    y_ = new QValueAxis;
    y2_ = new QValueAxis;
    // Labels in full: the value axis showed a steady rack power's labels (38.8–39.8 kW) as "…".
    for (QValueAxis* a : {x_, y_, y2_}) a->setTruncateLabels(false);
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    chart->addAxis(y2_, Qt::AlignRight);
    y2_->hide();
    empty_ = new QLineSeries(this);
    cursor_ = new QLineSeries;
    cursor_->setColor(QColor(220, 60, 50));
    chart->addSeries(cursor_);
    cursor_->attachAxis(x_);
    cursor_->attachAxis(y_);
    view_ = new QChartView(chart, this);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumHeight(200);
    view_->setRubberBand(QChartView::HorizontalRubberBand);
    view_->setMouseTracking(true);
    view_->viewport()->installEventFilter(this);
    view_->setAcceptDrops(false);  // drops go to the panel
    l->addWidget(view_, 1);
    connect(metric_, &QComboBox::currentIndexChanged, this, &ChartsPanel::reload);
    connect(pin_, &QPushButton::clicked, this, [this] { pinCurrent(); });
    connect(clear, &QPushButton::clicked, this, &ChartsPanel::clearPinned);
    connect(fit, &QPushButton::clicked, this, &ChartsPanel::resetZoom);
    connect(&run_, &RunController::runChanged, this, [this] {
        for (auto it = curves_.begin(); it != curves_.end();)  // pins are of the run that was shown
            it = (*it)->pinned ? curves_.erase(it) : std::next(it);
        zoomed_ = false;
        setEntity(ref_);
    });
    connect(&run_, &RunController::timeChanged, this, &ChartsPanel::moveCursor);
    connect(x_, &QValueAxis::rangeChanged, this, [this] { redraw(); });
}

ChartsPanel::~ChartsPanel() = default;

QLineSeries* ChartsPanel::series() const {
    for (const auto& c : curves_)
        if (!c->pinned) return c->line;
    return empty_;  // no live series: an empty one, so callers can ask for count()
}

void ChartsPanel::setEntity(const EntityRef& ref) {
    ref_ = ref;
    const QString keep = metric_->currentData().toString();
    metric_->blockSignals(true);
    metric_->clear();
    if (const auto* rp = run_.replay(); rp && ref.isValid()) {
        const std::string id = ref.id.toStdString();
        std::vector<std::string> ids = rp->metricsOf(id);
        model::sortMetrics(ids);
        for (const auto& m : ids) {
            const model::MetricInfo info = model::metricInfo(m, rp->unitOf(id, m));
            metric_->addItem(qs(info.name), qs(m));
            metric_->setItemData(metric_->count() - 1, qs(m + " — " + info.about), Qt::ToolTipRole);
        }
    }
    // The metric shown before when this entity has it, else the first in display order (power before counters).
    const int i = metric_->findData(keep);
    metric_->setCurrentIndex(i >= 0 ? i : 0);
    metric_->blockSignals(false);
    reload();
}

QString ChartsPanel::currentMetric() const { return metric_->currentData().toString(); }

void ChartsPanel::reload() {
    // The live series follows the selection; pinned ones stay.
    curves_.erase(std::remove_if(curves_.begin(), curves_.end(), [](const auto& c) { return !c->pinned; }), curves_.end());
    if (run_.replay() && ref_.isValid() && !currentMetric().isEmpty()) {
        const std::string id = ref_.id.toStdString(), m = currentMetric().toStdString();
        const bool pinned = std::any_of(curves_.begin(), curves_.end(), [&](const auto& c) { return c->entity == id && c->metric == m; });
        // addCurve appends: the live series goes first.
        if (!pinned && addCurve(id, m, false, nullptr)) std::rotate(curves_.begin(), curves_.end() - 1, curves_.end());
    }
    rebuild();
}

bool ChartsPanel::addCurve(const std::string& entity, const std::string& metric, bool pinned, QString* why) {
    const auto* rp = run_.replay();
    const auto* pts = rp ? rp->series(entity, metric) : nullptr;
    if (!pts) {
        if (why) *why = tr("%1 has no %2 in this run").arg(qs(entity), qs(metric));
        return false;
    }
    auto c = std::make_unique<Curve>();
    c->entity = entity;
    c->metric = metric;
    c->pinned = pinned;
    c->info = model::metricInfo(metric, rp->unitOf(entity, metric));
    // Curves of one stored unit share an axis and its scale: the left axis takes the first unit, the right the second.
    const Curve* left = nullptr;
    const Curve* right = nullptr;
    for (const auto& o : curves_) (o->right ? right : left) = o.get();
    double max_abs = 0;
    for (const auto& [t, v] : *pts)
        if (std::isfinite(v)) max_abs = std::max(max_abs, std::abs(v));
    if (!left || left->info.stored_unit == c->info.stored_unit) {
        c->unit = left ? left->unit : model::axisUnit(c->info, max_abs);
    } else if (!right || right->info.stored_unit == c->info.stored_unit) {
        c->right = true;
        c->unit = right ? right->unit : model::axisUnit(c->info, max_abs);
    } else {
        if (why)
            *why = tr("The chart has two units already (%1 and %2): clear the pins to chart %3")
                       .arg(qs(left->unit.unit), qs(right->unit.unit), qs(c->info.name));
        return false;
    }
    // Seconds for a short capture (a 15 s scrape charted in minutes is a sliver), minutes up to two hours.
    time_unit_s_ = run_.duration() > 2 * 3600 ? 3600 : run_.duration() > 600 ? 60 : 1;
    for (const auto& [t, v] : *pts)
        if (std::isfinite(v)) c->pts.emplace_back((t - rp->startS()) / time_unit_s_, v * c->unit.factor);
    if (baseline_)
        if (const auto* b = baseline_->series(entity, metric))
            for (const auto& [t, v] : *b)
                if (std::isfinite(v)) c->base.emplace_back((t - baseline_->startS()) / time_unit_s_, v * c->unit.factor);
    if (measured_)
        if (const auto* mp = measured_->find(entity, metric))
            for (const auto& [t, v] : *mp)  // on the run's clock, as the run's own series
                if (std::isfinite(v)) c->meas.emplace_back((t - rp->startS()) / time_unit_s_, v * c->unit.factor);
    curves_.push_back(std::move(c));
    return true;
}

bool ChartsPanel::pinCurrent(QString* why) {
    for (auto& c : curves_)
        if (!c->pinned) {
            for (const auto& o : curves_)
                if (o->pinned && o->entity == c->entity && o->metric == c->metric) {
                    if (why) *why = tr("Already pinned");
                    return false;
                }
            c->pinned = true;  // it stays; the selection's next series comes on top
            reload();
            return true;
        }
    if (why) *why = tr("Select an entity with recorded values first");
    return false;
}

bool ChartsPanel::addSeries(const QString& entity, const QString& metric, QString* why) {
    const auto* rp = run_.replay();
    if (!rp) {
        if (why) *why = tr("No run is shown");
        return false;
    }
    std::string m = metric.isEmpty() ? currentMetric().toStdString() : metric.toStdString();
    const std::string id = entity.toStdString();
    if (!metric.isEmpty() && !rp->series(id, m)) {
        if (why) *why = tr("%1 has no %2 in this run").arg(entity, metric);
        return false;
    }
    if (!rp->series(id, m)) {  // dropped from the tree: the live metric if it has it, else its first
        std::vector<std::string> ids = rp->metricsOf(id);
        model::sortMetrics(ids);
        if (ids.empty()) {
            if (why) *why = tr("%1 has no recorded values").arg(entity);
            return false;
        }
        m = ids.front();
    }
    for (const auto& o : curves_)
        if (o->pinned && o->entity == id && o->metric == m) return true;
    if (!addCurve(id, m, true, why)) return false;
    rebuild();
    return true;
}

void ChartsPanel::clearPinned() {
    curves_.erase(std::remove_if(curves_.begin(), curves_.end(), [](const auto& c) { return c->pinned; }), curves_.end());
    rebuild();
}

void ChartsPanel::setBaseline(std::shared_ptr<const runs::RunReplay> baseline) {
    baseline_ = std::move(baseline);
    reloadCurves();
}

void ChartsPanel::setMeasured(std::shared_ptr<const MeasuredOverlay> measured) {
    measured_ = std::move(measured);
    reloadCurves();
}

int ChartsPanel::measuredCurveCount() const {
    int n = 0;
    for (const auto& c : curves_) n += c->meas_line ? 1 : 0;
    return n;
}

void ChartsPanel::reloadCurves() {
    std::vector<std::pair<std::string, std::string>> pinned;
    for (const auto& c : curves_)
        if (c->pinned) pinned.emplace_back(c->entity, c->metric);
    curves_.clear();
    for (const auto& [e, m] : pinned) addCurve(e, m, true, nullptr);
    reload();
}

int ChartsPanel::baselineCurveCount() const {
    int n = 0;
    for (const auto& c : curves_) n += c->base_line ? 1 : 0;
    return n;
}

QStringList ChartsPanel::seriesNames() const {
    QStringList out;
    for (const auto& c : curves_) out << c->name();
    return out;
}

void ChartsPanel::rebuild() {
    QChart* chart = view_->chart();
    // Everything but the cursor goes; the curves, limits and marks are drawn again.
    for (QAbstractSeries* s : chart->series())
        if (s != cursor_) {
            chart->removeSeries(s);
            delete s;
        }
    decorations_.clear();
    limits_.clear();
    event_marks_ = 0;
    const auto* rp = run_.replay();
    if (curves_.empty() || !rp) {
        cursor_->clear();
        y2_->hide();
        chart->legend()->hide();
        chart->setTitle({});
        return;
    }
    double lo[2] = {1e300, 1e300}, hi[2] = {-1e300, -1e300};
    // Attaching a series first sets the axes to its own range with the ticks they have: dynamic ticks of the last
    // chart's scale over another range could be millions (a step time's 0.001 s over a power's kW). Fixed ticks
    // until niceAxis sets them again.
    for (QValueAxis* a : {y_, y2_}) a->setTickType(QValueAxis::TicksFixed);
    addCurves(lo, hi);
    const double t_end = std::max(run_.duration() / time_unit_s_, 1.0 / time_unit_s_);
    addLimits(t_end, lo, hi);
    if (lo[0] <= hi[0]) niceAxis(y_, lo[0], hi[0]);
    if (lo[1] <= hi[1]) {
        niceAxis(y2_, lo[1], hi[1]);
        y2_->show();
    } else {
        y2_->hide();
    }
    addEventMarks(*rp);
    labelChart();
    if (!zoomed_) niceAxis(x_, 0, t_end);
    redraw();
    moveCursor();
}

void ChartsPanel::addCurves(double lo[2], double hi[2]) {
    QChart* chart = view_->chart();
    int colour = 0;
    for (auto& c : curves_) {
        c->line = new QLineSeries;
        c->line->setName(c->name());
        c->line->setColor(kPalette[colour++ % 8]);
        chart->addSeries(c->line);
        c->line->attachAxis(x_);
        c->line->attachAxis(c->right ? y2_ : y_);
        for (const auto& p : c->pts) {
            lo[c->right] = std::min(lo[c->right], p.y());
            hi[c->right] = std::max(hi[c->right], p.y());
        }
        c->base_line = nullptr;
        if (!c->base.empty()) {
            c->base_line = new QLineSeries;
            c->base_line->setName(c->name() + tr(" (baseline)"));
            QPen pen(c->line->color().lighter(150), 1.5, Qt::DashLine);
            c->base_line->setPen(pen);
            chart->addSeries(c->base_line);
            c->base_line->attachAxis(x_);
            c->base_line->attachAxis(c->right ? y2_ : y_);
            for (const auto& p : c->base) {
                lo[c->right] = std::min(lo[c->right], p.y());
                hi[c->right] = std::max(hi[c->right], p.y());
            }
        }
        c->meas_line = nullptr;
        if (!c->meas.empty()) {
            c->meas_line = new QLineSeries;
            c->meas_line->setName(c->name() + tr(" (measured)"));
            c->meas_line->setPen(QPen(c->line->color().darker(160), 2.0, Qt::DotLine));
            chart->addSeries(c->meas_line);
            c->meas_line->attachAxis(x_);
            c->meas_line->attachAxis(c->right ? y2_ : y_);
            for (const auto& p : c->meas) {
                lo[c->right] = std::min(lo[c->right], p.y());
                hi[c->right] = std::max(hi[c->right], p.y());
            }
        }
    }
}

void ChartsPanel::addLimits(double t_end, double lo[2], double hi[2]) {
    QChart* chart = view_->chart();
    // Limit lines of the metrics shown, when near enough the data to matter.
    std::vector<std::pair<double, QString>> seen;
    for (const auto& c : curves_)
        for (const auto& [v, label] : limitsOf(c->metric)) {
            const double y = v * c->unit.factor;
            const int a = c->right ? 1 : 0;
            if (std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.second == label; }) != seen.end()) continue;
            if (y > hi[a] + 0.5 * (hi[a] - lo[a]) + 3 || y < lo[a] - 0.5 * (hi[a] - lo[a]) - 3) continue;
            seen.emplace_back(v, label);
            lo[a] = std::min(lo[a], y);
            hi[a] = std::max(hi[a], y);
            auto* s = new QLineSeries;
            s->setName(label);
            s->setPen(QPen(label.contains("32") ? QColor(200, 40, 40) : QColor(210, 150, 20), 1.2, Qt::DashLine));
            s->append(0, y);
            s->append(t_end, y);
            chart->addSeries(s);
            s->attachAxis(x_);
            s->attachAxis(a ? y2_ : y_);
            decorations_.push_back(s);
            limits_.push_back(v);
        }
}

void ChartsPanel::addEventMarks(const runs::RunReplay& replay) {
    QChart* chart = view_->chart();
    const auto* rp = &replay;
    // The run's events (a unit failing, a restore) as vertical marks.
    for (const auto& e : rp->events()) {
        if (e.kind != "event") continue;
        const double x = (e.t_s - rp->startS()) / time_unit_s_;
        auto* s = new QLineSeries;
        s->setName(tr("event"));
        s->setPen(QPen(QColor(120, 40, 170), 1.2, Qt::DotLine));
        s->append(x, y_->min());
        s->append(x, y_->max());
        chart->addSeries(s);
        s->attachAxis(x_);
        s->attachAxis(y_);
        decorations_.push_back(s);
        ++event_marks_;
    }
}

void ChartsPanel::labelChart() {
    QChart* chart = view_->chart();
    // The legend names the curves only (not the cursor, limits, marks or baseline twins: the title says dashed
    // lines are the baseline's).
    chart->legend()->setVisible(curves_.size() > 1);
    for (QLegendMarker* m : chart->legend()->markers()) {
        bool curve = false;
        for (const auto& c : curves_) curve = curve || m->series() == c->line;
        m->setVisible(curve);
    }
    QStringList heading;
    // The run compared with, by name: a what-if's baseline, or any run the user chose.
    if (baselineCurveCount() > 0 && baseline_)
        heading << tr("dashed: run %1, %2").arg(baseline_->info().id).arg(qs(baseline_->info().name));
    if (measuredCurveCount() > 0) heading << tr("dotted: measured (%1)").arg(qs(measured_->label));
    chart->setTitle(heading.join("; "));
    const Curve& first = *curves_.front();
    auto title = [&](bool right) {
        for (const auto& c : curves_)
            if (c->right == right)
                return c->unit.unit.empty()
                           ? qs(c->info.name)
                           : (curves_.size() == 1 ? QString("%1 (%2)").arg(qs(c->info.name), qs(c->unit.unit)) : qs(c->unit.unit));
        return QString();
    };
    y_->setTitleText(title(false));
    y2_->setTitleText(title(true));
    x_->setTitleText(time_unit_s_ == 1 ? tr("time (s)") : time_unit_s_ == 60 ? tr("time (min)") : tr("time (h)"));
    metric_->setToolTip(QString("%1 — %2 (%3)").arg(qs(first.entity), qs(first.info.name), qs(first.metric)));
}

void ChartsPanel::redraw() {
    // Each curve at about two points per pixel column of the visible time, its peaks kept.
    const int buckets = std::max(50, static_cast<int>(view_->chart()->plotArea().width()));
    for (auto& c : curves_) {
        if (!c->line) continue;
        c->line->replace(decimate(c->pts, x_->min(), x_->max(), buckets));
        c->line->setPointsVisible(c->pts.size() <= 30);  // a scrape or two is a few points, not a line
        if (c->base_line) c->base_line->replace(decimate(c->base, x_->min(), x_->max(), buckets));
        if (c->meas_line) c->meas_line->replace(decimate(c->meas, x_->min(), x_->max(), buckets));
    }
}

void ChartsPanel::moveCursor() {
    const double x = run_.time() / time_unit_s_;
    if (curves_.empty()) {
        cursor_->clear();
        return;
    }
    cursor_->replace(QList<QPointF>{{x, y_->min()}, {x, y_->max()}});
}

QString ChartsPanel::readoutAt(double t_s) const {
    const auto* rp = run_.replay();
    if (!rp || curves_.empty()) return {};
    QString text = tr("at %1").arg(qs(model::formatDuration(t_s)));
    for (const auto& c : curves_) {
        const auto* pts = rp->series(c->entity, c->metric);
        const double v = pts ? runs::valueAt(*pts, rp->startS() + t_s + 1e-6) : NAN;
        text += QString("\n%1: %2").arg(c->name(), std::isfinite(v) ? qs(model::formatMetric(v, c->info)) : tr("no value"));
        if (baseline_)
            if (const auto* b = baseline_->series(c->entity, c->metric)) {
                const double bv = runs::valueAt(*b, baseline_->startS() + t_s + 1e-6);
                if (std::isfinite(bv)) text += tr(" (baseline %1)").arg(qs(model::formatMetric(bv, c->info)));
            }
        if (measured_) {
            const double mv = measured_->at(c->entity, c->metric, rp->startS() + t_s);
            if (std::isfinite(mv)) text += tr(" (measured %1)").arg(qs(model::formatMetric(mv, c->info)));
        }
    }
    const double near = std::max(5.0, 0.01 * run_.duration());
    for (const auto& e : rp->events())
        if (e.kind == "event" && std::abs(e.t_s - rp->startS() - t_s) <= near)
            text += tr("\nevent at %1: %2 %3").arg(qs(model::formatDuration(e.t_s - rp->startS())), qs(e.message), qs(e.target));
    return text;
}

void ChartsPanel::zoomTime(double t0_s, double t1_s) {
    if (!(t1_s > t0_s)) return;
    zoomed_ = true;
    x_->setRange(t0_s / time_unit_s_, t1_s / time_unit_s_);
}

void ChartsPanel::resetZoom() {
    zoomed_ = false;
    niceAxis(x_, 0, std::max(run_.duration() / time_unit_s_, 1.0 / time_unit_s_));
}

std::pair<double, double> ChartsPanel::timeRange() const { return {x_->min() * time_unit_s_, x_->max() * time_unit_s_}; }

std::vector<double> ChartsPanel::limits() const { return limits_; }

int ChartsPanel::eventMarkCount() const { return event_marks_; }

int ChartsPanel::drawnPoints(int series) const {
    if (series < 0 || series >= static_cast<int>(curves_.size()) || !curves_[static_cast<std::size_t>(series)]->line) return 0;
    return static_cast<int>(curves_[static_cast<std::size_t>(series)]->line->count());
}

bool ChartsPanel::saveCsv(const QString& path, QString* error) {
    const auto* rp = run_.replay();
    if (!rp) {
        if (error) *error = tr("No run is shown");
        return false;
    }
    std::vector<std::pair<std::string, std::string>> series;
    for (const auto& c : curves_) series.emplace_back(c->entity, c->metric);
    return writeSeriesCsv(*rp, series, path, error);
}

}  // namespace ct::app
