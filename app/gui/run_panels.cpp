#include "run_panels.hpp"
#include "qstr.hpp"

#include "run_controller.hpp"
#include "table_util.hpp"

#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/series_csv.hpp>

#include <QHeaderView>
#include <QSaveFile>
#include <QTableWidget>
#include <QTextStream>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ct::app {

using model::metricInfo;
using model::sortMetrics;

namespace {

/// The metrics of an entity in display order (power, temperatures, utilisation first).
std::vector<std::string> orderedMetrics(const runs::RunReplay& rp, const std::string& id) {
    std::vector<std::string> ids = rp.metricsOf(id);
    sortMetrics(ids);
    return ids;
}

/// How a node's GPUs add up for a metric, by what it measures: power and memory summed, temperatures the
/// hottest, clocks the lowest, shares and the rest their mean.
enum class Fold { Sum, Max, Min, Mean };
Fold foldOf(const model::MetricInfo& m) {
    if (m.stored_unit == "W" || m.stored_unit == "MiB" || m.stored_unit == "J" || m.stored_unit == "count") return Fold::Sum;
    if (m.stored_unit == "degC") return Fold::Max;
    if (m.stored_unit == "MHz") return Fold::Min;
    return Fold::Mean;
}

/// One roll-up row: the folded value, and for the hottest or lowest the GPU it comes from.
struct RollUp {
    double value = std::nan("");
    std::string gpu;
    int count = 0;
};

RollUp rollUp(const runs::RunReplay& rp, const std::vector<std::string>& gpus, const std::string& metric, Fold fold, double t) {
    RollUp r;
    double sum = 0;
    for (const auto& g : gpus) {
        const auto* s = rp.series(g, metric);
        if (!s) continue;
        const double v = runs::valueAt(*s, t);
        if (!std::isfinite(v)) continue;
        ++r.count;
        sum += v;
        if ((fold == Fold::Max && !(v <= r.value)) || (fold == Fold::Min && !(v >= r.value))) {
            r.value = v;
            r.gpu = g.substr(g.rfind('/') + 1);
        }
    }
    if (r.count > 0 && (fold == Fold::Sum || fold == Fold::Mean)) r.value = fold == Fold::Sum ? sum : sum / r.count;
    return r;
}

}  // namespace

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
        const double v = runs::valueAt(*rp->series(id, metric), run_.absoluteTime() + 1e-6);
        auto* value = new QTableWidgetItem(qs(model::formatMetric(v, info)));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, 1, value);
    }
    if (ref_.kind == "node") addGpuRollUp(*rp, id);
}

void ValuesPanel::addGpuRollUp(const runs::RunReplay& rp, const std::string& node) {
    // A node's GPUs at a glance: each metric they record, over all of them ("GPUs: Temperature, hottest").
    std::vector<std::string> gpus, metrics;
    const std::string prefix = node + "/gpu";
    for (const auto& e : rp.entities())
        if (e.rfind(prefix, 0) == 0) gpus.push_back(e);
    for (const auto& g : gpus)
        for (const auto& m : rp.metricsOf(g))
            if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
    sortMetrics(metrics);
    if (metrics.empty()) return;
    // A header row, "Its 8 GPUs", then each metric's roll-up under it (italic).
    const int head = table_->rowCount();
    table_->insertRow(head);
    auto* title = new QTableWidgetItem(gpus.size() == 1 ? tr("Its GPU") : tr("Its %1 GPUs").arg(gpus.size()));
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    table_->setItem(head, 0, title);
    table_->setItem(head, 1, new QTableWidgetItem());
    const double t = run_.absoluteTime() + 1e-6;
    for (const auto& metric : metrics) {
        const model::MetricInfo info = metricInfo(metric, rp.unitOf(gpus.front(), metric));
        const Fold fold = foldOf(info);
        const RollUp r = rollUp(rp, gpus, metric, fold, t);
        static const char* const kHow[] = {"total", "hottest", "lowest", "mean"};
        const char* how = fold == Fold::Max && info.stored_unit != "degC" ? "highest" : kHow[static_cast<int>(fold)];
        const int row = table_->rowCount();
        table_->insertRow(row);
        auto* name = new QTableWidgetItem(tr("%1, %2").arg(qs(info.name), tr(how)));
        name->setData(Qt::UserRole, "gpus:" + qs(metric));
        name->setToolTip(tr("%1 over the node's %2 GPUs that record it").arg(qs(metric)).arg(r.count));
        QFont f = name->font();
        f.setItalic(true);
        name->setFont(f);
        table_->setItem(row, 0, name);
        QString text = qs(model::formatMetric(r.value, info));
        if (!r.gpu.empty()) text += " (" + qs(r.gpu) + ")";
        auto* value = new QTableWidgetItem(text);
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, 1, value);
    }
}

QString ValuesPanel::value(const QString& metric) const {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (table_->item(r, 0)->data(Qt::UserRole).toString() == metric) return table_->item(r, 1)->text();
    return {};
}

bool writeSeriesCsv(const runs::RunReplay& rp, const std::vector<std::pair<std::string, std::string>>& series, const QString& path,
                    QString* error) {
    QSaveFile f(path);  // atomic: a temporary file renamed on commit
    if (!f.open(QIODevice::WriteOnly)) {
        if (error) *error = f.errorString();
        return false;
    }
    QTextStream out(&f);
    // The same RFC 4180 vocabulary as `clustertwin-cli query --format csv`.
    out << runs::kSeriesCsvHeader << "\r\n";
    for (const auto& [id, m] : series)
        if (const auto* pts = rp.series(id, m))
            for (const auto& [t, v] : *pts) out << QString::fromStdString(runs::seriesCsvRecord(t, id, m, v, rp.unitOf(id, m)));
    out.flush();
    if (!f.commit()) {
        if (error) *error = f.errorString();
        return false;
    }
    return true;
}

bool writeSeriesCsv(const runs::RunReplay& rp, const QString& entity, const QString& path, QString* error) {
    std::vector<std::pair<std::string, std::string>> series;
    const std::string id = entity.toStdString();
    for (const auto& m : rp.metricsOf(id)) series.emplace_back(id, m);
    return writeSeriesCsv(rp, series, path, error);
}

}  // namespace ct::app
