#include "run_panels.hpp"

#include "run_controller.hpp"
#include "table_util.hpp"

#include <clustertwin/importers/export.hpp>
#include <clustertwin/importers/replay.hpp>
#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/time.hpp>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHeaderView>
#include <QLineSeries>
#include <QSaveFile>
#include <QTextStream>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <cmath>

namespace ct::app {

using model::metricInfo;
using model::sortMetrics;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

/// The metrics of an entity in display order (power, temperatures, utilisation first).
std::vector<std::string> orderedMetrics(const importers::RunReplay& rp, const std::string& id) {
    std::vector<std::string> ids = rp.metricsOf(id);
    sortMetrics(ids);
    return ids;
}

} // namespace

// ------------------------------------------------------------------ values

ValuesPanel::ValuesPanel(const RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("valuesPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    table_ = makeListTable(this, {tr("metric"), tr("value now")});
    l->addWidget(table_);
    connect(&run_, &RunController::timeChanged, this, &ValuesPanel::refresh);
    connect(&run_, &RunController::runChanged, this, &ValuesPanel::refresh);
}

void ValuesPanel::setEntity(const EntityRef& ref) {
    ref_ = ref;
    refresh();
}

void ValuesPanel::refresh() {
    table_->setRowCount(0);
    const auto* rp = run_.replay();
    if (!rp || !ref_.isValid()) return;
    const std::string id = ref_.id.toStdString();
    for (const auto& metric : orderedMetrics(*rp, id)) {
        const model::MetricInfo info = metricInfo(metric, rp->unitOf(id, metric));
        const int row = table_->rowCount();
        table_->insertRow(row);
        auto* name = new QTableWidgetItem(qs(info.name));
        name->setData(Qt::UserRole, qs(metric));
        name->setToolTip(info.about.empty() ? qs(metric) : QString("%1 — %2").arg(qs(metric), qs(info.about)));
        table_->setItem(row, 0, name);
        const double v = importers::valueAt(*rp->series(id, metric), run_.absoluteTime() + 1e-6);
        auto* value = new QTableWidgetItem(qs(model::formatMetric(v, info)));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, 1, value);
    }
}

QString ValuesPanel::value(const QString& metric) const {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0)->data(Qt::UserRole).toString() == metric) return table_->item(r, 1)->text();
    return {};
}

// ------------------------------------------------------------------ charts

ChartsPanel::ChartsPanel(const RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("chartsPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    metric_ = new QComboBox(this);
    metric_->setObjectName("chartMetric");
    auto* chart = new QChart;
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 2, 4, 2));  // a short dock: room for the axis labels, not for margins
    series_ = new QLineSeries;
    cursor_ = new QLineSeries;
    cursor_->setColor(QColor(220, 60, 50));
    chart->addSeries(series_);
    chart->addSeries(cursor_);
    x_ = new QValueAxis;
    x_->setTitleText(tr("time (min)"));
    y_ = new QValueAxis;
    chart->addAxis(x_, Qt::AlignBottom);
    chart->addAxis(y_, Qt::AlignLeft);
    for (auto* s : {series_, cursor_}) {
        s->attachAxis(x_);
        s->attachAxis(y_);
    }
    view_ = new QChartView(chart, this);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumHeight(160);
    l->addWidget(metric_);
    l->addWidget(view_, 1);
    connect(metric_, &QComboBox::currentIndexChanged, this, &ChartsPanel::reload);
    connect(&run_, &RunController::runChanged, this, [this] { setEntity(ref_); });
    connect(&run_, &RunController::timeChanged, this, &ChartsPanel::moveCursor);
}

void ChartsPanel::setEntity(const EntityRef& ref) {
    ref_ = ref;
    const QString keep = metric_->currentData().toString();
    metric_->blockSignals(true);
    metric_->clear();
    if (const auto* rp = run_.replay(); rp && ref.isValid()) {
        const std::string id = ref.id.toStdString();
        for (const auto& m : orderedMetrics(*rp, id)) {
            const model::MetricInfo info = metricInfo(m, rp->unitOf(id, m));
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
    series_->clear();
    view_->chart()->setTitle({});
    const auto* rp = run_.replay();
    if (!rp || !ref_.isValid() || currentMetric().isEmpty()) {
        cursor_->clear();
        return;
    }
    const std::string id = ref_.id.toStdString(), metric = currentMetric().toStdString();
    const auto* pts = rp->series(id, metric);
    if (!pts) return;
    const model::MetricInfo info = metricInfo(metric, rp->unitOf(id, metric));
    double max_abs = 0;
    for (const auto& [t, v] : *pts)
        if (!std::isnan(v)) max_abs = std::max(max_abs, std::abs(v));
    const model::AxisUnit unit = model::axisUnit(info, max_abs);
    // Time in minutes up to two hours, in hours beyond.
    time_unit_s_ = run_.duration() > 2 * 3600 ? 3600 : 60;
    x_->setTitleText(time_unit_s_ == 60 ? tr("time (min)") : tr("time (h)"));
    QList<QPointF> list;
    double lo = 1e300, hi = -1e300;
    for (const auto& [t, v] : *pts) {
        if (std::isnan(v)) continue;
        list.append({(t - rp->startS()) / time_unit_s_, v * unit.factor});
        lo = std::min(lo, v * unit.factor);
        hi = std::max(hi, v * unit.factor);
    }
    series_->replace(list);
    series_->setPointsVisible(list.size() <= 30);  // a scrape or two is a few points, not a line
    if (list.isEmpty()) return;
    // Round ticks that cover the data: 20 / 22 / 24 °C, not 19.7 / 21.3 / 22.9.
    if (hi - lo < 1e-9 * std::max(1.0, std::abs(hi))) {
        const double pad = std::max(0.5, 0.05 * std::abs(hi));
        lo -= pad;
        hi += pad;
    }
    setNiceAxis(y_, lo, hi);
    setNiceAxis(x_, 0, std::max(run_.duration() / time_unit_s_, 1.0));  // at least a minute
    y_->setTitleText(unit.unit.empty() ? qs(info.name) : QString("%1 (%2)").arg(qs(info.name), qs(unit.unit)));
    metric_->setToolTip(QString("%1 — %2 (%3)").arg(ref_.id, qs(info.name), qs(metric)));
    moveCursor();
}

void ChartsPanel::setNiceAxis(QValueAxis* axis, double lo, double hi) {
    model::Ticks t = model::niceTicks(lo, hi, 6);
    // The axis runs from the tick at or below lo to the one at or above hi, so its ends are labelled too.
    const double first = std::floor(lo / t.step + 1e-9) * t.step;
    const double last = std::ceil(hi / t.step - 1e-9) * t.step;
    axis->setRange(first, last);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(first);
    axis->setTickInterval(t.step);
    axis->setLabelFormat(QString("%.%1f").arg(t.decimals));
}

void ChartsPanel::moveCursor() {
    const double x = run_.time() / time_unit_s_;
    cursor_->replace(QList<QPointF>{{x, y_->min()}, {x, y_->max()}});
}

bool writeSeriesCsv(const importers::RunReplay& rp, const QString& entity, const QString& path, QString* error) {
    QSaveFile f(path);  // atomic: a temporary file renamed on commit
    if (!f.open(QIODevice::WriteOnly)) {
        if (error) *error = f.errorString();
        return false;
    }
    QTextStream out(&f);
    // The same RFC 4180 vocabulary as `clustertwin-cli query --format csv`.
    out << importers::kSeriesCsvHeader << "\r\n";
    const std::string id = entity.toStdString();
    for (const auto& m : rp.metricsOf(id))
        for (const auto& [t, v] : *rp.series(id, m)) out << QString::fromStdString(importers::seriesCsvRecord(t, id, m, v, rp.unitOf(id, m)));
    out.flush();
    if (!f.commit()) {
        if (error) *error = f.errorString();
        return false;
    }
    return true;
}

} // namespace ct::app
