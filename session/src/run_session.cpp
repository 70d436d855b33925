#include <clustertwin/session/run_session.hpp>

#include <clustertwin/runs/recorder.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/sim/hall_ranks.hpp>
#include <clustertwin/sim/steady.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <utility>

namespace ct::session {

struct RunSession::Impl {
    RunRequest req;
    std::unique_ptr<sim::Engine> engine;
    std::optional<runs::TelemetryStore> store;
    double record_s = 10, field_s = 0;
    bool fields = false;
    bool ran = false;
    /// Rank 0 records; the other ranks of a run spread over processes (EngineOptions::hall_ranks) step their
    /// halls in lockstep and write nothing.
    bool records = true;
};

RunSession::RunSession(RunRequest request) : d_(std::make_unique<Impl>()) {
    d_->req = std::move(request);
    RunRequest& r = d_->req;
    d_->engine = std::make_unique<sim::Engine>(r.scenario, r.catalog, r.engine);
    d_->engine->addEvents(r.extra_events);
    d_->records = !r.engine.hall_ranks || r.engine.hall_ranks->rank() == 0;
    if (d_->records) d_->store.emplace(runs::TelemetryStore::open(r.db_path));
    d_->record_s = std::max(r.engine.step_s, r.record_every_s);
    d_->field_s = r.field_every_s > 0 ? std::max(r.field_every_s, r.engine.step_s) : 0;
    d_->fields = d_->field_s > 0 && d_->engine->stats().grid_cells <= r.max_field_cells;
}

RunSession::~RunSession() = default;

const sim::EngineStats& RunSession::stats() const { return d_->engine->stats(); }

bool RunSession::storesFields() const { return d_->fields; }

namespace {

/// The metadata the session knows of: the engine's settings, added to what the front end said.
runs::RunMeta metaOf(const RunRequest& r, const sim::EngineStats& st) {
    runs::RunMeta m = r.meta;
    m.air = st.air_solver;
    m.air_summary = st.air_summary;
    m.backend = r.engine.backend;
    m.duration_s = r.duration_s;
    m.step_s = r.engine.step_s;
    m.cell_m = r.engine.cell_m;
    m.grid_cells = static_cast<std::int64_t>(st.grid_cells);
    m.steady = r.steady;
    return m;
}

/// What the outcome keeps of every step: energy, the hottest inlet, the first alert of each kind and entity.
struct Tally {
    RunOutcome& out;
    std::set<std::pair<std::string, std::string>> seen;
    void add(const model::Frame& f, double step_s) {
        out.it_energy_j += f.it_power_w * step_s;
        out.facility_energy_j += f.facility_power_w * step_s;
        for (const auto& g : f.gpus) {
            out.gpu_seconds += step_s;
            out.gpu_seconds_lost += g.failed ? step_s : (1 - std::clamp(g.throttle, 0.0, 1.0)) * step_s;
        }
        if (f.max_inlet_c > out.peak_inlet_c) {
            out.peak_inlet_c = f.max_inlet_c;
            out.peak_inlet_rack = f.max_inlet_rack;
        }
        for (const auto& al : f.alerts) {
            if (al.kind == "event" || !seen.insert({al.kind, al.entity}).second) continue;
            out.first_alerts.push_back(al);
            if (al.kind == "cooling_short") out.cooling_ok = false;
        }
    }
};

}  // namespace

RunOutcome RunSession::run(const RunCallbacks& cb) {
    if (d_->ran) throw sim::SimError("a run session runs once");
    d_->ran = true;
    const RunRequest& r = d_->req;
    sim::Engine& e = *d_->engine;
    const double step_s = r.engine.step_s;
    std::optional<runs::RunRecorder> rec;  // rank 0's (every run's without ranks)
    if (d_->records) rec.emplace(*d_->store, r.scenario, r.catalog, r.run_name, metaOf(r, e.stats()), &e.jobs());
    const sim::HallRanks* ranks = r.engine.hall_ranks.get();
    RunOutcome out;
    out.run = rec ? rec->run() : 0;
    out.peak_inlet_c = -std::numeric_limits<double>::infinity();
    if (rec) rec->record(e.frame());
    Tally tally{out, {}};
    sim::SteadyDetector detector(e.flowThroughTimeS());
    using clock = std::chrono::steady_clock;
    const auto wall0 = clock::now();
    auto last_live = wall0, last_checkpoint = wall0;
    auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    const auto steps = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(r.duration_s / step_s)));
    double next_record = d_->record_s, next_field = 0;
    bool reached = false, stopped = false;
    int last_pct = -1;
    for (std::int64_t s = 1; s <= steps; ++s) {
        // Every rank stops at the same step when any was asked to (mpirun passes SIGINT on to each).
        if (sim::anyRank(ranks, cb.cancelled && cb.cancelled())) {
            stopped = true;
            break;
        }
        const bool last = s == steps;
        const bool field_due = d_->fields && (e.timeS() + step_s + 1e-9 >= next_field || last);
        // A live view follows the wall clock, which ranks do not share: not over ranks.
        const bool live_due = !ranks && cb.live_frame && cb.live_every_s > 0 && seconds_since(last_live) >= cb.live_every_s;
        // Steady mode asks for the field every step: the step that turns out steady stores it.
        const model::Frame& f = e.step(field_due || (r.steady && d_->fields) || live_due);
        if (r.steady) reached = detector.update(f);
        if (d_->fields && (field_due || reached)) {  // every rank alike: the next field is asked of all at once
            if (f.air && rec) d_->store->writeAirFields(out.run, f);
            next_field = f.time_s + d_->field_s;
        }
        tally.add(f, step_s);
        if (rec) rec->collectAlerts(f);
        if (f.time_s + 1e-9 >= next_record || last || reached) {
            if (rec) rec->record(f);
            next_record += d_->record_s;
        } else if (rec && !f.alerts.empty()) {
            rec->recordAlerted(f);  // the alerting entities at the alert's moment, between the regular samples
        }
        if (live_due && f.air) {
            cb.live_frame(f);
            last_live = clock::now();
        }
        if (rec && cb.checkpoint && cb.checkpoint_every_s > 0 && seconds_since(last_checkpoint) >= cb.checkpoint_every_s && !last) {
            rec->checkpoint();  // a reader sees the run so far
            cb.checkpoint(out.run);
            last_checkpoint = clock::now();
        }
        if (reached) break;
        const int pct = static_cast<int>(100 * s / steps);
        if (pct != last_pct && cb.progress) cb.progress({pct, f.time_s, seconds_since(wall0)});
        last_pct = pct;
    }
    for (const auto& c : e.driveCounts())
        out.driven.push_back({sim::driveInputInfo(c.input).id, static_cast<std::int64_t>(c.series), static_cast<std::int64_t>(c.samples),
                              c.driven_steps, c.model_steps, c.gaps});
    if (rec) {
        if (stopped) rec->markInterrupted(e.timeS(), cb.cancel_reason);
        rec->meta().driven = out.driven;
        rec->finish(e.timeS());
    }
    out.end = stopped ? RunEnd::Cancelled : reached ? RunEnd::Steady : r.steady ? RunEnd::NotSteady : RunEnd::Finished;
    out.sim_time_s = e.timeS();
    out.wall_s = seconds_since(wall0);
    out.flow_through_s = detector.windowS();
    out.averaging_s = reached ? detector.averagingS() : 0.0;
    out.last_change_k = detector.lastChangeK();
    if (reached && detector.steadyInlets().size() == e.frame().racks.size()) out.steady_inlets = detector.steadyInlets();
    out.last = e.frame();
    out.last.air.reset();
    out.last.other_halls_air.clear();
    if (!std::isfinite(out.peak_inlet_c)) out.peak_inlet_c = out.last.max_inlet_c;
    return out;
}

}  // namespace ct::session
