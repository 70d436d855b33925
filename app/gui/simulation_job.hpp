#pragma once
// Simulation > Run: a session::RunSession (the same run as clustertwin-cli simulate) in a worker thread.
// Reports progress and live frames to the GUI thread; cancel stops it at the next step and keeps what was
// recorded, marked interrupted. In steady mode it stops once every rack inlet holds still, with the duration
// as the most it runs.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QString>
#include <QStringList>
#include <QThread>

#include <atomic>
#include <string>

namespace ct::session {
struct RunOutcome;
struct RunRequest;
}  // namespace ct::session
namespace ct::sim {
struct EngineStats;
}  // namespace ct::sim

namespace ct::app {

class SimulationJob : public QThread {
    Q_OBJECT
public:
    SimulationJob(model::Scenario s, model::Catalog c, double duration_s, QString db_path, std::vector<model::Event> extra_events = {},
                  QObject* parent = nullptr);
    void cancel() { cancel_ = true; }
    /// Before start(): the room-air solver ("lbm", "quick"; empty: the scenario's) and steady mode.
    void setAir(std::string name) { air_ = std::move(name); }
    void setSteady(bool on) { steady_ = on; }
    /// Before start(): the engine step in seconds (default 1).
    void setStep(double s) { step_s_ = s > 0 ? s : 1.0; }
    /// Before start(): the scenario's file, recorded in the run's metadata (so the app can offer to open it).
    void setScenarioFile(QString path) { scenario_file_ = std::move(path); }
    /// A what-if's failure run: its baseline and changes go into the run's metadata (RunMeta::whatif_*).
    void setWhatIf(std::string baseline, std::vector<std::string> changes) {
        whatif_baseline_ = std::move(baseline);
        whatif_changes_ = std::move(changes);
    }
    /// Before start(): the document's content (model::scenarioToJson) and hash, when the run simulates it with
    /// run options (more jobs, events left out): the run still belongs to that document. Also the options, for
    /// the run's metadata.
    void setDocument(std::string json, std::string hash, std::string options_json) {
        scenario_json_ = std::move(json);
        scenario_hash_ = std::move(hash);
        options_json_ = std::move(options_json);
    }
    /// Before start(): driven by a hall's measurements (issue 44): planned in the worker (session::planDrive);
    /// `span`: the run lasts as long as the measurements rather than its duration.
    void setDrive(std::string db, std::string map, bool span) {
        drive_db_ = std::move(db);
        drive_map_ = std::move(map);
        drive_span_ = span;
    }
    /// After the run: how it ended in words ("steady after 6m 30s, 14 flow-through times"), or empty.
    const QString& note() const { return note_; }
    /// What the status bar adds to "finished": steady or not (steady mode), and a lattice that went unstable and
    /// started again at a shorter step (the air ran faster than the ports let it expect), with the fastest air.
    static QString runNote(const session::RunOutcome& o, const sim::EngineStats& st);
    const QString& databasePath() const { return db_; }

signals:
    void progress(int percent);
    /// A driven run, once planned: what drives it ("driven by hall.sqlite, run 2 from …: 52 of 60 series drive"),
    /// and what drives nothing (entities not in the scenario, inputs left out), one line each.
    void driveNote(const QString& summary, const QStringList& notes);
    /// Once the engine is built: the air solver's summary and whether its results are approximate.
    void airSolver(const QString& summary, bool approximate);
    /// About four times a second, with the air field.
    void liveFrame(const ct::model::Frame& f);
    /// About every second: what was recorded so far is in the database (RunRecorder::checkpoint).
    void checkpointed(const QString& db_path, qint64 run);
    void succeeded(const QString& db_path, qint64 run);
    void cancelled(const QString& db_path, qint64 run);
    void failed(const QString& message);

protected:
    void run() override;

private:
    static QString steadyNote(const session::RunOutcome& o);
    void planDrive(session::RunRequest& r);

    model::Scenario scenario_;
    model::Catalog catalog_;
    double duration_s_;
    std::vector<model::Event> extra_;
    QString db_;
    std::atomic<bool> cancel_{false};
    std::string air_;
    bool steady_ = false;
    double step_s_ = 1.0;
    QString note_;
    QString scenario_file_;
    std::string scenario_json_, scenario_hash_, options_json_;
    std::string whatif_baseline_;
    std::vector<std::string> whatif_changes_;
    std::string drive_db_, drive_map_;
    bool drive_span_ = true;
};

}  // namespace ct::app

Q_DECLARE_METATYPE(ct::model::Frame)
