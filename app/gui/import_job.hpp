#pragma once
// File > Import telemetry… and File > Connect to Prometheus…: one import (files, or a range read from a
// Prometheus server) into a run database in a worker thread, through the same ImportSession as
// clustertwin-cli import. Reports progress; cancel stops it after the record being read (what the files
// before it gave is kept; a run that received nothing is removed).
#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/prometheus_http.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QString>
#include <QStringList>
#include <QThread>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ct::app {

struct ImportRequest {
    QString db;                                            ///< the run database (created when missing)
    QString run_name;                                      ///< readings go to the run of this name (created when missing)
    QStringList paths;                                     ///< files and directories (a file import)
    std::optional<importers::PrometheusRange> prometheus;  ///< or a range read from a server
    double tz_offset_s = 0;                                ///< zone of times written without one
    /// Entities are mapped onto this scenario's where they match (hostnames, ids, GPU UUIDs, its
    /// telemetry_mapping rules); the rest keep the names the telemetry gives.
    std::optional<model::Scenario> scenario;
    QString scenario_file;  ///< its file, recorded with the run when entities were mapped onto it
    QString rules_file;     ///< the alert rules evaluated on the run after it (importers/alert_rules.hpp); "" built-in
    /// A followed server's evaluator, continuing from its last poll (then rules_file is not read again).
    std::shared_ptr<importers::AlertEvaluator> alerts;
};

/// How an import ended (read on the GUI thread after the job's finished()).
struct ImportOutcome {
    QString db;
    qint64 run = 0;
    bool run_removed = false;       ///< nothing could be read: no run is left behind
    bool database_removed = false;  ///< ... and the database it created for it is gone too
    bool cancelled = false;
    int exit_code = 0;                                  ///< as clustertwin-cli import: 0 all read, 3 some failed, 2 nothing
    QString summary;                                    ///< the summary in words, as the CLI prints it
    QStringList failed;                                 ///< what could not be read at all, each named
    qint64 stored = 0;                                  ///< samples stored by this import
    std::size_t matched = 0;                            ///< entities mapped onto the scenario
    std::vector<importers::ImportedEntity> entities;    ///< what the telemetry describes (for a skeleton)
    QString error;                                      ///< the store could not be opened or written ("" otherwise)
    std::shared_ptr<importers::AlertEvaluator> alerts;  ///< the rules it evaluated, with their state (for the next poll)
};

/// Whether a scenario has any node (telemetry can be mapped onto it).
bool hasNodes(const model::Scenario& s);

class ImportJob : public QThread {
    Q_OBJECT
public:
    explicit ImportJob(ImportRequest request, QObject* parent = nullptr);
    void cancel() { cancel_ = true; }
    const ImportRequest& request() const { return request_; }
    /// After finished().
    const ImportOutcome& outcome() const { return outcome_; }

signals:
    /// Percent done and what is being read ("file 3 of 12: gpu0.prom", "request 2 of 24: DCGM_FI_DEV_GPU_TEMP").
    void progress(int percent, const QString& what);

protected:
    void run() override;

private:
    ImportRequest request_;
    ImportOutcome outcome_;
    std::atomic<bool> cancel_{false};
};

}  // namespace ct::app
