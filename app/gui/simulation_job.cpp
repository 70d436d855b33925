#include "simulation_job.hpp"

#include <clustertwin/importers/recorder.hpp>
#include <clustertwin/sim/engine.hpp>

#include <QElapsedTimer>

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
        sim::Engine engine(scenario_, catalog_, opt);
        engine.addEvents(extra_);
        auto store = importers::TelemetryStore::open(db_.toStdString());
        importers::RunRecorder rec(store, scenario_, catalog_, "app " + scenario_.id, "{\"source\": \"clustertwin app\"}");
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
            const bool field = (store_fields && engine.timeS() + opt.step_s + 1e-9 >= next_field) || live.elapsed() > 250 || last;
            const model::Frame& f = engine.step(field);
            rec.collectAlerts(f);
            if (f.time_s + 1e-9 >= next_record || last) {
                rec.record(f);
                next_record += record_s;
            }
            if (f.air && store_fields && f.time_s + 1e-9 >= next_field) {
                store.writeAirField(rec.run(), f.time_s, *f.air);
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
        rec.finish(engine.timeS());
        emit succeeded(db_, rec.run());
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

} // namespace ct::app
