#include "simulation_control.hpp"
#include "run_explainer.hpp"

#include "scenario_document.hpp"
#include "simulation_job.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/replay.hpp>

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QDir>
#include <QStandardPaths>

#include <cmath>

namespace ct::app {

SimulationControl::SimulationControl(const ScenarioDocument& doc, QObject* parent) : QObject(parent), doc_(doc) {}

SimulationControl::~SimulationControl() {
    if (job_) {
        job_->cancel();
        job_->wait();
    }
}

QString SimulationControl::runsFolder() const {
    return runs_folder_.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs" : runs_folder_;
}

bool SimulationControl::jobMatchesDocument() const {
    return job_path_ == doc_.path() && job_id_ == QString::fromStdString(doc_.scenario().id);
}

bool SimulationControl::start(const RunRequest& request, const QString& db_path) {
    if (job_) return false;
    pending_.reset();
    running_whatif_ = false;
    return launch(request, db_path);
}

bool SimulationControl::launch(const RunRequest& r, const QString& db_path) {
    const double duration_s = r.duration_s;
    if (job_ || doc_.scenario().halls.empty() || !(duration_s > 0)) return false;
    QString db = db_path;
    if (db.isEmpty()) {
        const QString dir = runsFolder();
        QDir().mkpath(dir);
        db = dir + QString("/%1-%2.sqlite")
                       .arg(QString::fromStdString(doc_.scenario().id), QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
    }
    job_path_ = doc_.path();
    job_id_ = QString::fromStdString(doc_.scenario().id);
    const bool options = !r.extra_jobs.empty() || !r.skipped_events.empty();
    job_ = new SimulationJob(options ? r.applyTo(doc_.scenario()) : doc_.scenario(), doc_.catalog(), duration_s, db, r.extra_events, this);
    job_->setAir(r.air);
    job_->setSteady(r.steady);
    job_->setStep(r.step_s);
    job_->setScenarioFile(job_path_);
    if (!r.drive_db.empty()) job_->setDrive(r.drive_db, r.drive_map, r.drive_span);
    if (!r.whatif_baseline.empty()) job_->setWhatIf(r.whatif_baseline, r.whatif_changes);
    if (options) {
        nlohmann::json o{
            {"extra_jobs", r.extra_jobs.size()}, {"skipped_events", r.skipped_events}, {"extra_events", r.extra_events.size()}};
        job_->setDocument(model::scenarioToJson(doc_.scenario()), model::scenarioHash(doc_.scenario()), o.dump());
    }
    clock_.start();
    connect(job_, &SimulationJob::progress, this, [this](int pct) {
        const double elapsed = clock_.elapsed() / 1000.0;
        emit timeLeft(pct >= 2 && elapsed > 2 ? elapsed * (100 - pct) / pct : std::nan(""));
    });
    connect(job_, &SimulationJob::progress, this, &SimulationControl::progress);
    connect(job_, &SimulationJob::driveNote, this, &SimulationControl::driveNote);
    connect(job_, &SimulationJob::airSolver, this, [this](const QString& summary, bool approximate) {
        air_label_ = approximate ? tr("quick air (approximate)") : tr("lattice-Boltzmann air");
        emit airSolver(air_label_, summary);
    });
    connect(job_, &SimulationJob::liveFrame, this, [this](const model::Frame& f) {
        if (jobMatchesDocument()) emit liveFrame(f);
    });
    connect(job_, &SimulationJob::checkpointed, this, [this](const QString& path, qint64 run) {
        if (jobMatchesDocument()) emit runGrew(path, run);
    });
    connect(job_, &SimulationJob::succeeded, this, &SimulationControl::jobSucceeded);
    connect(job_, &SimulationJob::cancelled, this, [this](const QString& path, qint64) {
        const bool mine = jobMatchesDocument();
        finish("cancelled", tr("Simulation cancelled; the part that ran is in %1").arg(path));
        pending_.reset();
        // What ran is a run too: shown up to where it stopped (the what-if's comparison needs both whole).
        if (mine && !running_whatif_) emit runReady(path, false);
        running_whatif_ = false;
    });
    connect(job_, &SimulationJob::failed, this, [this](const QString& m) {
        finish("failed", tr("Simulation failed: %1").arg(m));
        pending_.reset();
        running_whatif_ = false;
        emit failed(m);
    });
    emit started(tr("Simulating %1 of %2…").arg(QString::fromStdString(model::formatDuration(duration_s)), doc_.path()));
    job_->start();
    return true;
}

void SimulationControl::jobSucceeded(const QString& path, qint64 run) {
    const QString note = job_->note();
    const bool mine = jobMatchesDocument();
    const QString scenario = job_id_;
    QString message = note.isEmpty() ? tr("Simulation of %1 finished (%2): %3").arg(scenario, air_label_, path)
                                     : tr("Simulation of %1 finished (%2), %3: %4").arg(scenario, air_label_, note, path);
    if (!mine) message += tr(" — not shown: another scenario is open (File > Open run shows it on its own scenario)");
    finish("finished", message);
    if (!mine) {
        pending_.reset();
        return;
    }
    if (pending_) {
        // The baseline is done: keep it for the comparison and run the what-if.
        try {
            auto store = runs::TelemetryStore::open(path.toStdString(), runs::TelemetryStore::Mode::Existing);
            baseline_ = std::make_shared<runs::RunReplay>(runs::RunReplay::load(store, run));
            baseline_source_ = path.toStdString() + ", run " + std::to_string(run);
        } catch (const std::exception& e) {
            pending_.reset();
            emit failed(QString::fromStdString(e.what()));
            return;
        }
        const auto p = std::move(pending_);
        running_whatif_ = true;
        p->request.whatif_baseline = baseline_source_;
        for (const auto& e : p->request.extra_events)
            p->request.whatif_changes.push_back(
                tr("%1 at %2")
                    .arg(describeEvent(e.kind, e.target, e.value), QString::fromStdString(model::formatDuration(e.time_s)))
                    .toStdString());
        launch(p->request, p->db);
        return;
    }
    emit runReady(path, running_whatif_);
    running_whatif_ = false;
}

bool SimulationControl::startWhatIf(const std::vector<model::Event>& failures, double duration_s, const QString& dir,
                                    const std::string& air) {
    if (job_ || failures.empty() || !(duration_s > 60)) return false;
    const QString folder = dir.isEmpty() ? runsFolder() : dir;
    QDir().mkpath(folder);
    const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss");
    const QString sid = QString::fromStdString(doc_.scenario().id);
    const QString what = QString::fromStdString(failures.front().target);
    dropBaseline();
    running_whatif_ = false;
    RunRequest base;
    base.duration_s = duration_s;
    base.air = air;
    if (!launch(base, folder + QString("/%1-%2-baseline.sqlite").arg(sid, stamp))) return false;
    RunRequest fail = base;
    fail.extra_events = failures;
    pending_ = std::make_unique<PendingWhatIf>(PendingWhatIf{fail, folder + QString("/%1-%2-fail-%3.sqlite").arg(sid, stamp, what)});
    return true;
}

void SimulationControl::cancel() {
    pending_.reset();
    if (job_) job_->cancel();
}

void SimulationControl::finish(const QString& how, const QString& message) {
    if (job_) {
        job_->wait();
        job_->deleteLater();
        job_ = nullptr;
    }
    emit ended(how, message);
}

}  // namespace ct::app
