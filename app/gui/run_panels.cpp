#include "run_panels.hpp"

#include "run_controller.hpp"
#include "table_util.hpp"

#include <clustertwin/model/time.hpp>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHeaderView>
#include <QLineSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <cmath>

namespace ct::app {

namespace {
QString formatValue(double v, const std::string& unit, const std::string& metric) {
    if (std::isnan(v)) return QObject::tr("—");
    if (metric == "pue") return QString::number(v, 'f', 3);
    if (unit == "W") return std::abs(v) >= 1000 ? QString("%1 kW").arg(v / 1000, 0, 'f', 2) : QString("%1 W").arg(v, 0, 'f', 0);
    if (unit == "degC") return QString("%1 °C").arg(v, 0, 'f', 1);
    if (unit == "ratio") return QString("%1 %").arg(100 * v, 0, 'f', 1);
    return QString("%1 %2").arg(v, 0, 'g', 5).arg(QString::fromStdString(unit));
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
    for (const auto& metric : rp->metricsOf(id)) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(metric)));
        const double v = importers::valueAt(*rp->series(id, metric), run_.absoluteTime() + 1e-6);
        table_->setItem(row, 1, new QTableWidgetItem(formatValue(v, rp->unitOf(id, metric), metric)));
    }
}

QString ValuesPanel::value(const QString& metric) const {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0)->text() == metric) return table_->item(r, 1)->text();
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
    x_->setLabelFormat("%.1f");
    x_->setTickCount(7);
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
    const QString keep = metric_->currentText();
    metric_->blockSignals(true);
    metric_->clear();
    if (const auto* rp = run_.replay(); rp && ref.isValid())
        for (const auto& m : rp->metricsOf(ref.id.toStdString())) metric_->addItem(QString::fromStdString(m));
    const int i = metric_->findText(keep);
    metric_->setCurrentIndex(i >= 0 ? i : 0);
    metric_->blockSignals(false);
    reload();
}

void ChartsPanel::reload() {
    series_->clear();
    view_->chart()->setTitle({});
    const auto* rp = run_.replay();
    if (!rp || !ref_.isValid() || metric_->currentText().isEmpty()) {
        cursor_->clear();
        return;
    }
    const std::string id = ref_.id.toStdString(), metric = metric_->currentText().toStdString();
    const auto* pts = rp->series(id, metric);
    if (!pts) return;
    const std::string unit = rp->unitOf(id, metric);
    const bool percent = unit == "ratio" && metric != "pue";
    const double scale = percent ? 100 : unit == "W" ? 0.001 : 1;
    QList<QPointF> list;
    double lo = 1e300, hi = -1e300;
    for (const auto& [t, v] : *pts) {
        if (std::isnan(v)) continue;
        list.append({(t - rp->startS()) / 60.0, v * scale});
        lo = std::min(lo, v * scale);
        hi = std::max(hi, v * scale);
    }
    series_->replace(list);
    if (list.isEmpty()) return;
    const double pad = std::max(0.5, 0.05 * (hi - lo));
    y_->setRange(lo - pad, hi + pad);
    x_->setRange(0, std::max(run_.duration() / 60.0, 1.0 / 60));
    x_->setLabelFormat(run_.duration() < 600 ? "%.1f" : "%.0f");
    const QString u = percent ? "%" : unit == "W" ? "kW" : unit == "degC" ? "°C" : QString::fromStdString(unit);
    y_->setTitleText(u);
    metric_->setToolTip(QString("%1 — %2").arg(ref_.id, metric_->currentText()));
    moveCursor();
}

void ChartsPanel::moveCursor() {
    const double x = run_.time() / 60.0;
    cursor_->replace(QList<QPointF>{{x, y_->min()}, {x, y_->max()}});
}

// ------------------------------------------------------------------ alerts

AlertsPanel::AlertsPanel(const RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("alertsPanel");
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    table_ = makeListTable(this, {tr("time"), tr("alert"), tr("entity"), tr("message")});
    l->addWidget(table_);
    connect(&run_, &RunController::runChanged, this, [this] {
        shown_ = -1;
        refresh();
    });
    connect(&run_, &RunController::timeChanged, this, &AlertsPanel::refresh);
    connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
        if (auto* it = table_->item(row, 2)) emit entityActivated(it->text());
    });
}

void AlertsPanel::refresh() {
    const auto* rp = run_.replay();
    std::vector<const importers::StoredEvent*> shown;
    if (rp)
        for (const auto& e : rp->events())
            if (e.kind != "event" && e.t_s <= run_.absoluteTime() + 1e-6) shown.push_back(&e);
    if (static_cast<int>(shown.size()) == shown_) return;  // nothing new: keep the user's selection
    shown_ = static_cast<int>(shown.size());
    table_->setRowCount(0);
    for (const auto* e : shown) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        table_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(model::formatDuration(e->t_s - rp->startS()))));
        table_->setItem(row, 1, new QTableWidgetItem(QString::fromStdString(e->kind)));
        table_->setItem(row, 2, new QTableWidgetItem(QString::fromStdString(e->target)));
        table_->setItem(row, 3, new QTableWidgetItem(QString::fromStdString(e->message)));
    }
}

} // namespace ct::app
