#include "import_job.hpp"

#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/runs/store.hpp>

#include <QFileInfo>

#include <chrono>

namespace ct::app {

namespace im = ct::importers;

bool hasNodes(const model::Scenario& s) {
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                if (!r.nodes.empty()) return true;
    return false;
}

ImportJob::ImportJob(ImportRequest request, QObject* parent) : QThread(parent), request_(std::move(request)) {}

void ImportJob::run() {
    outcome_.db = request_.db;
    try {
        std::optional<im::EntityMapper> mapper;
        if (request_.scenario && hasNodes(*request_.scenario)) mapper.emplace(*request_.scenario);
        std::vector<std::pair<std::string, bool>> files;
        if (!request_.prometheus) {
            std::vector<std::string> paths;
            for (const QString& p : request_.paths) paths.push_back(p.toStdString());
            files = im::collectInputs(paths);
        }
        // A database this import creates and fills with nothing is removed once closed (as the CLI does).
        struct RemoveIfEmpty {
            std::string path;
            bool remove = false;
            ~RemoveIfEmpty() {
                if (remove) runs::removeDatabaseFiles(path);
            }
        } created{request_.db.toStdString()};
        const bool existed = QFileInfo::exists(request_.db);
        auto store = runs::TelemetryStore::open(request_.db.toStdString());
        im::ImportOptions opt;
        opt.run_name = request_.run_name.toStdString();
        opt.tz_offset_s = request_.tz_offset_s;
        opt.mapper = mapper ? &*mapper : nullptr;
        if (mapper) {
            opt.mapped_onto = request_.scenario->id;
            if (!request_.scenario_file.isEmpty())
                opt.mapped_onto_file = QFileInfo(request_.scenario_file).absoluteFilePath().toStdString();
        }
        opt.alerts = request_.alerts;
        if (!opt.alerts)  // read before anything is stored: a bad file names itself and its pointer
            opt.alerts = std::make_shared<im::AlertEvaluator>(
                request_.rules_file.isEmpty() ? im::defaultAlertRules() : im::loadAlertRules(request_.rules_file.toStdString()));
        outcome_.alerts = opt.alerts;
        im::ImportSession session(store, opt);
        std::vector<std::string> failed;
        int last = -1;
        auto tell = [&](double fraction, const QString& what) {
            const int pct = static_cast<int>(100 * fraction);
            if (pct != last) {
                last = pct;
                emit progress(pct, what);
            }
        };
        if (request_.prometheus) {
            failed = im::importPrometheusRange(session, *request_.prometheus,
                                               [&](std::size_t done, std::size_t total, const std::string& query) {
                                                   tell(static_cast<double>(done) / static_cast<double>(total),
                                                        tr("request %1 of %2: %3").arg(done).arg(total).arg(QString::fromStdString(query)));
                                                   if (cancel_) session.cancel();
                                                   return !cancel_;
                                               });
        } else {
            session.importFiles(files, [&](std::size_t k, std::size_t n, double within, const std::string& file) {
                if (k < n)
                    tell((static_cast<double>(k) + within) / static_cast<double>(n),
                         tr("file %1 of %2: %3").arg(k + 1).arg(n).arg(QFileInfo(QString::fromStdString(file)).fileName()));
                return !cancel_;
            });
        }
        im::ImportSummary sum = session.finish();
        created.remove = !existed && sum.run_removed && store.runs().empty() && store.entities().empty();
        outcome_.database_removed = created.remove;
        sum.failed.insert(sum.failed.end(), failed.begin(), failed.end());
        sum.cancelled = sum.cancelled || cancel_;
        outcome_.run = sum.run;
        outcome_.run_removed = sum.run_removed;
        outcome_.cancelled = sum.cancelled;
        outcome_.exit_code = sum.exitCode();
        outcome_.summary = QString::fromStdString(im::formatImportSummary(sum, request_.prometheus ? "request(s)" : "file(s)")).trimmed();
        for (const auto& f : sum.failed) outcome_.failed << QString::fromStdString(f);
        outcome_.stored = sum.written.stored;
        outcome_.matched = sum.matched;
        outcome_.entities = std::move(sum.entities);
    } catch (const std::exception& e) {
        outcome_.error = QString::fromStdString(e.what());
        outcome_.exit_code = 2;
    }
}

}  // namespace ct::app
