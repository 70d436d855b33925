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
