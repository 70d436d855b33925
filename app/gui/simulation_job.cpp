#include "simulation_job.hpp"

#include <clustertwin/importers/recorder.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/sim/engine.hpp>
#include <clustertwin/sim/steady.hpp>

#include <nlohmann/json.hpp>

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace ct::app {

SimulationJob::SimulationJob(model::Scenario s, model::Catalog c, double duration_s, QString db_path, std::vector<model::Event> extra_events,
                             QObject* parent)
    : QThread(parent), scenario_(std::move(s)), catalog_(std::move(c)), duration_s_(duration_s), extra_(std::move(extra_events)),
      db_(std::move(db_path)) {
    qRegisterMetaType<ct::model::Frame>();
}

void SimulationJob::run() {
    try {
        sim::EngineOptions opt;
        opt.threads = std::max(1, QThread::idealThreadCount() - 1);  // leave a core to the GUI
        opt.air = air_;
        opt.step_s = step_s_;
        sim::Engine engine(scenario_, catalog_, opt);
        engine.addEvents(extra_);
        emit airSolver(QString::fromStdString(engine.stats().air_summary), engine.stats().air_approximate);
        sim::SteadyDetector steady(engine.flowThroughTimeS());
        auto store = importers::TelemetryStore::open(db_.toStdString());
        nlohmann::json meta{{"source", "clustertwin app"}, {"air", engine.stats().air_solver}, {"steady", steady_}, {"step_s", opt.step_s}};
        if (!scenario_file_.isEmpty()) meta["scenario_file"] = QFileInfo(scenario_file_).absoluteFilePath().toStdString();
        if (!scenario_hash_.empty()) meta["scenario_hash"] = scenario_hash_;
        if (!options_json_.empty()) meta["run_options"] = nlohmann::json::parse(options_json_, nullptr, false);
        importers::RunRecorder rec(store, scenario_, catalog_, "app " + scenario_.id, meta.dump(), &engine.jobs());
        rec.record(engine.frame());
        const auto steps = static_cast<std::int64_t>(std::llround(duration_s_ / opt.step_s));
        const double record_s = 10, field_s = 60;
        double next_record = record_s, next_field = 0;
        const bool store_fields = engine.stats().grid_cells <= 8'000'000;
        QElapsedTimer live;
        live.start();
        int last_pct = -1;
        for (std::int64_t s = 1; s <= steps; ++s) {
            if (cancel_) {
                rec.finish(engine.timeS());
                emit cancelled(db_, rec.run());
                return;
            }
            const bool last = s == steps;
            // Steady mode asks for the field every step: the step that settles stores it.
            const bool field = (store_fields && (engine.timeS() + opt.step_s + 1e-9 >= next_field || steady_)) || live.elapsed() > 250 || last;
            const model::Frame& f = engine.step(field);
            rec.collectAlerts(f);
            if (steady_ && steady.update(f)) {
                note_ = tr("steady after %1 simulated (%2 flow-through times of %3 s)")
                            .arg(QString::fromStdString(model::formatDuration(f.time_s)))
                            .arg(f.time_s / steady.windowS(), 0, 'f', 1)
                            .arg(steady.windowS(), 0, 'f', 1);
                const auto& in = steady.steadyInlets();
                if (!in.empty())
                    note_ += tr("; rack inlets averaged over the last %1: %2–%3 °C")
                                 .arg(QString::fromStdString(model::formatDuration(steady.averagingS())))
                                 .arg(*std::min_element(in.begin(), in.end()), 0, 'f', 1)
                                 .arg(*std::max_element(in.begin(), in.end()), 0, 'f', 1);
                rec.record(f);
                if (f.air && store_fields) store.writeAirFields(rec.run(), f);
                break;
            }
            if (f.time_s + 1e-9 >= next_record || last) {
                rec.record(f);
                next_record += record_s;
            }
            if (f.air && store_fields && f.time_s + 1e-9 >= next_field) {
                store.writeAirFields(rec.run(), f);
                next_field = f.time_s + field_s;
            }
            if (f.air && live.elapsed() > 250) {
                emit liveFrame(f);
                live.restart();
            }
            const int pct = static_cast<int>(100 * s / steps);
            if (pct != last_pct) {
                emit progress(pct);
                last_pct = pct;
            }
        }
        if (steady_ && note_.isEmpty())
            note_ = tr("not steady after %1: inlets still moved %2 K over one flow-through time")
                        .arg(QString::fromStdString(model::formatDuration(engine.timeS())))
                        .arg(steady.lastChangeK(), 0, 'f', 2);
        rec.finish(engine.timeS());
        emit succeeded(db_, rec.run());
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

} // namespace ct::app
