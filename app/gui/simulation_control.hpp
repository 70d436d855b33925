#pragma once
// Runs simulations of the open scenario for the window: one SimulationJob at a time, and the two runs of a
// what-if (the scenario as it is, then with the failure). Each job remembers the scenario it was started from
// (file, id, content hash): its live frames and its finished run go to the window only while that scenario is
// still the open one, so a run never lands on another scenario.
#include "entity_ref.hpp"
#include "simulation_job.hpp"  // model::Frame as a Qt metatype, for liveFrame

#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include "run_dialog.hpp"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace ct::runs {
class RunReplay;
}

namespace ct::app {
class ScenarioDocument;

class SimulationControl : public QObject {
    Q_OBJECT
public:
    SimulationControl(const ScenarioDocument& doc, QObject* parent = nullptr);
    ~SimulationControl() override;

    /// Starts a run of the open scenario (see MainWindow::runSimulation). False when one is running or the
    /// scenario has no hall.
    bool start(const RunRequest& request, const QString& db_path);
    /// A what-if: the baseline run, then the run with `failures` (each an event of the what-if). False when it
    /// cannot start.
    bool startWhatIf(const std::vector<model::Event>& failures, double duration_s, const QString& dir, const std::string& air);
    void cancel();
    bool running() const { return job_ != nullptr; }
    /// Where runs go when no file is named (default: runs/ in the app's data folder).
    void setRunsFolder(const QString& dir) { runs_folder_ = dir; }
    QString runsFolder() const;
    /// The last finished baseline of a what-if, or the run chosen to compare with (nullptr if none).
    const std::shared_ptr<runs::RunReplay>& baseline() const { return baseline_; }
    /// Where it is: "<database>, run N", as a what-if's metadata names its baseline.
    const std::string& baselineSource() const { return baseline_source_; }
    /// Another run to compare the shown one with (MainWindow::compareWithRun).
    void setBaseline(std::shared_ptr<runs::RunReplay> run, std::string source) {
        baseline_ = std::move(run);
        baseline_source_ = std::move(source);
    }
    void dropBaseline() {
        baseline_.reset();
        baseline_source_.clear();
    }
    /// Whether the open scenario is still the one the running job was started from.
    bool jobMatchesDocument() const;

signals:
    void started(const QString& message);
    void progress(int percent);
    /// With each progress: the wall-clock seconds left, estimated from the pace so far (NaN before it can tell).
    void timeLeft(double seconds);
    /// The air solver's summary once the engine is built, and whether its results are approximate.
    void airSolver(const QString& label, const QString& summary);
    /// Live frames, only while the job's scenario is the open one.
    void liveFrame(const model::Frame& f);
    /// The run being computed, of the open scenario, has more in its database (about every second).
    void runGrew(const QString& db_path, qint64 run);
    /// A job ended: "finished", "cancelled" or "failed", with a message for the status bar.
    void ended(const QString& how, const QString& message);
    /// A run to show: finished or cancelled (up to where it stopped). `whatif`: the failure run of a what-if,
    /// with baseline() set. Not emitted when another scenario has been opened since the job started.
    void runReady(const QString& db_path, bool whatif);
    void failed(const QString& message);
    /// A driven run, once planned: what drives it, and what drives nothing (SimulationJob::driveNote).
    void driveNote(const QString& summary, const QStringList& notes);

private:
    bool launch(const RunRequest& request, const QString& db_path);
    /// A run finished: said in the status, then shown, or (a baseline) kept and its what-if launched.
    void jobSucceeded(const QString& path, qint64 run);
    void finish(const QString& how, const QString& message);
    const ScenarioDocument& doc_;
    SimulationJob* job_ = nullptr;
    QString job_path_, job_id_;  ///< the scenario the job runs
    QString air_label_;
    QString runs_folder_;
    std::shared_ptr<runs::RunReplay> baseline_;
    std::string baseline_source_;
    struct PendingWhatIf {
        RunRequest request;  // the baseline's, with the failures as its extra events
        QString db;
    };
    std::unique_ptr<PendingWhatIf> pending_;
    bool running_whatif_ = false;
    QElapsedTimer clock_;  // since the job started, for timeLeft
};

}  // namespace ct::app
