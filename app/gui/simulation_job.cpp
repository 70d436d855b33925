#include "simulation_job.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/session/drive.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/session/run_session.hpp>
#include <clustertwin/sim/air/air_solver.hpp>

#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace ct::app {

SimulationJob::SimulationJob(model::Scenario s, model::Catalog c, double duration_s, QString db_path,
                             std::vector<model::Event> extra_events, QObject* parent)
    : QThread(parent),
      scenario_(std::move(s)),
      catalog_(std::move(c)),
      duration_s_(duration_s),
      extra_(std::move(extra_events)),
      db_(std::move(db_path)) {
    qRegisterMetaType<ct::model::Frame>();
}

void SimulationJob::run() {
    try {
        session::RunRequest r;
        r.scenario = scenario_;
        r.catalog = catalog_;
        r.engine.threads = std::max(1, QThread::idealThreadCount() - 1);  // leave a core to the GUI
        r.engine.air = air_;
        r.engine.step_s = step_s_;
        r.extra_events = extra_;
        r.duration_s = duration_s_;
        r.steady = steady_;
        r.db_path = db_.toStdString();
        r.run_name = "app " + scenario_.id;
        r.meta.source = "clustertwin app";
        if (!scenario_file_.isEmpty()) r.meta.scenario_file = QFileInfo(scenario_file_).absoluteFilePath().toStdString();
        r.meta.scenario_hash = scenario_hash_;
        r.meta.scenario_json = scenario_json_;
        r.meta.run_options_json = options_json_;
        r.meta.whatif_baseline = whatif_baseline_;
        r.meta.whatif_changes = whatif_changes_;
        if (!drive_db_.empty()) planDrive(r);
        session::RunSession run(std::move(r));
        emit airSolver(QString::fromStdString(run.stats().air_summary), run.stats().air_approximate);
        session::RunCallbacks cb;
        cb.cancelled = [this] { return cancel_.load(); };
        cb.live_every_s = 0.25;
        cb.live_frame = [this](const model::Frame& f) { emit liveFrame(f); };
        cb.progress = [this](const session::RunProgress& p) { emit progress(p.percent); };
        cb.checkpoint_every_s = 1.0;
        cb.checkpoint = [this](std::int64_t id) { emit checkpointed(db_, id); };
        const session::RunOutcome o = run.run(cb);
        if (o.end == session::RunEnd::Cancelled) {
            emit cancelled(db_, o.run);
            return;
        }
        note_ = runNote(o, run.stats());
        emit succeeded(db_, o.run);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

void SimulationJob::planDrive(session::RunRequest& r) {
    session::DriveRequest d;
    d.db_path = drive_db_;
    d.map_path = drive_map_;
    session::DrivePlan plan = session::planDrive(d, r.scenario, r.catalog);
    if (drive_span_) {
        if (!(plan.span_s > r.engine.step_s))
            throw session::InputError(drive_db_ + ": the measurements span " + model::formatDuration(plan.span_s) +
                                      " from t = 0, not one engine step: untick 'Run as long as the measurements'");
        r.duration_s = plan.span_s;
    }
    QStringList notes;
    if (!plan.unmapped.empty())
        notes << tr("%1 measured entities are not in the scenario and drive nothing (first: %2); name them in a map file")
                     .arg(plan.unmapped.size())
                     .arg(QString::fromStdString(plan.unmapped.front()));
    for (const auto& n : plan.notes) notes << QString::fromStdString(n);
    emit driveNote(tr("driven by %1 from %2: %3 of its %4 series drive")
                       .arg(QString::fromStdString(plan.measured_label), QString::fromStdString(model::formatIsoTime(plan.origin_unix)))
                       .arg(plan.series.size())
                       .arg(plan.measured_series),
                   notes);
    r.engine.drive = std::move(plan.series);
    r.meta.time_origin_unix = plan.origin_unix;
    r.meta.driven_by = plan.measured_label;
}

QString SimulationJob::runNote(const session::RunOutcome& o, const sim::EngineStats& st) {
    QString note = steadyNote(o);
    if (st.lattice_restarts > 0) {
        if (!note.isEmpty()) note += QStringLiteral("; ");
        note +=
            tr("the room air's lattice went unstable %n time(s) and started again from rest, each time at 1/√2 of its step: the air ran "
               "faster (up to %1 m/s) than the ports' jets let it expect",
               nullptr, st.lattice_restarts)
                .arg(st.max_air_speed_ms, 0, 'f', 1);
    }
    if (st.max_lattice_mach > sim::kLatticeMachNote) {
        if (!note.isEmpty()) note += QStringLiteral("; ");
        note += tr("the fastest air (%1 m/s) ran at lattice Mach %2, where the lattice's compressibility error is no longer small")
                    .arg(st.max_air_speed_ms, 0, 'f', 1)
                    .arg(st.max_lattice_mach, 0, 'f', 2);
    }
    return note;
}

QString SimulationJob::steadyNote(const session::RunOutcome& o) {
    if (o.end == session::RunEnd::NotSteady)
        return tr("not steady after %1: inlets still moved %2 K over one flow-through time")
            .arg(QString::fromStdString(model::formatDuration(o.sim_time_s)))
            .arg(o.last_change_k, 0, 'f', 2);
    if (o.end != session::RunEnd::Steady) return {};
    QString note = tr("steady after %1 simulated (%2 flow-through times of %3 s)")
                       .arg(QString::fromStdString(model::formatDuration(o.sim_time_s)))
                       .arg(o.sim_time_s / o.flow_through_s, 0, 'f', 1)
                       .arg(o.flow_through_s, 0, 'f', 1);
    const auto& in = o.steady_inlets;
    if (!in.empty())
        note += tr("; rack inlets averaged over the last %1: %2–%3 °C")
                    .arg(QString::fromStdString(model::formatDuration(o.averaging_s)))
                    .arg(*std::min_element(in.begin(), in.end()), 0, 'f', 1)
                    .arg(*std::max_element(in.begin(), in.end()), 0, 'f', 1);
    return note;
}

}  // namespace ct::app
