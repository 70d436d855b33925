#include "simulate.hpp"
#include "job_input.hpp"

#include "io.hpp"

#include <clustertwin/importers/recorder.hpp>
#include <clustertwin/importers/run_checks.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/engine.hpp>
#include <clustertwin/sim/steady.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace ct::cli {

namespace m = ct::model;
using json = nlohmann::ordered_json;

const char* kSimulateHelp = R"(Usage: clustertwin-cli simulate SCENARIO (--duration 1h | --steady) --out RUN.sqlite [options]

Runs the coupled power / equipment heat / liquid / room-air model and records the run into a SQLite store
(the same store imported telemetry goes into, so both replay alike). Progress goes to stderr.
  --duration T        simulated time (90s, 15m, 1h, 1h30m); with --steady, the most to run (4h)
  --steady            run until no rack inlet drifts more than 0.05 K per flow-through time of the room
                      air (a line through the means of at least four flow-through windows, 95 % bound), then
                      stop, report how long it took and each rack's inlet averaged over those windows
                      (exit 1 if --duration ends it first)
  --air S             room-air solver: lbm (lattice Boltzmann with turbulence and buoyancy; the default) or
                      quick (potential flow: no momentum or buoyancy, approximate, fast); overrides the
                      scenario's simulation.air
  --lattice-stride N  lbm: once the flow has settled, run the lattice one step in N and carry heat on its
                      mean flow in between (4; 1 = every step)
  --quick-substep T   quick: the heat transport's sub-step (0.1s); cells whose air would leave faster hold it
                      that long (same steady state, fastest transport delayed); 0 = the explicit limit
  --step T            engine step (1s)
  --events FILE       more events: a JSON array of {time_s, kind, target, value?} or {"events": [...]}
  --jobs FILE         more jobs, as in a scenario's "jobs" (an array or {"jobs": [...]}); jobs with a
                      "training" or "inference" description run on the network-coupled job model
  --out FILE          the run database (created or appended to)
  --cell M            air grid cell size in metres, 0.1–0.5 (0.25)
  --threads N         grid threads (all hardware threads)
  --record-every T    how often samples are recorded (10s; at least one step)
  --field-every T     how often the 3D air field is stored for replay (60s; 0 = never; grids over
                      8M cells are not stored)
  --backend B         cpu (the reference), cuda, or auto (CUDA when a device is present); asking for
                      cuda where there is none is an error that says why
  --max-grid-memory M refuse air grids needing more than M MiB (default: 80 % of physical memory)
  --json              print a summary object on stdout
  -q, --quiet         no progress and no notes on stderr (warnings and errors still)
Progress is redrawn in place on a terminal and printed as plain lines every 10 % otherwise. Ctrl-C (SIGINT)
or SIGTERM stops the run after the current step: what ran is kept in the database, marked interrupted
(its metadata and an "interrupted" event), and the command exits 130.
Exit codes: 0 the run finished (even when cooling could not carry the load: see alerts), 1 runtime error (or
--steady not reached), 2 usage error or invalid input (scenario, events, a grid too fine for memory), 130
interrupted.
)";

namespace {

} // namespace

int cmdSimulate(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    const bool steady = a.flag("steady");
    if (!a.has("duration") && !steady) throw UsageError("simulate needs --duration or --steady");
    const std::string out = a.get("out");
    if (out.empty()) throw UsageError("simulate needs --out RUN.sqlite");
    auto duration = [&](const char* opt, const std::string& fallback) {
        try {
            return m::parseDurationS(a.get(opt, fallback));
        } catch (const m::ModelError& e) {
            throw UsageError(std::string("--") + opt + ": " + e.what());
        }
    };
    const double duration_s = duration("duration", steady ? "4h" : "");
    sim::EngineOptions opt;
    opt.step_s = duration("step", "1s");
    opt.cell_m = a.getDouble("cell", opt.cell_m);
    opt.threads = a.getInt("threads", 0);
    opt.backend = a.get("backend", "cpu");
    opt.air = a.get("air", "");
    try {
        sim::requireAirSolver(opt.air);
    } catch (const sim::SimError& e) {
        throw UsageError(std::string("--air: ") + e.what());
    }
    opt.lattice_stride = a.getInt("lattice-stride", opt.lattice_stride);
    if (opt.lattice_stride < 1) throw UsageError("--lattice-stride must be >= 1");
    opt.quick_substep_s = duration("quick-substep", "0.1s");
    if (!(opt.quick_substep_s >= 0) || opt.quick_substep_s > 10) throw UsageError("--quick-substep must be within 0–10 s");
    if (a.has("max-grid-memory")) {
        const double mib = a.getDouble("max-grid-memory", 0);
        if (!(mib > 0)) throw UsageError("--max-grid-memory must be > 0 (MiB)");
        opt.max_grid_bytes = static_cast<std::uint64_t>(mib * 1024 * 1024);
    }
    const double record_s = std::max(opt.step_s, duration("record-every", "10s"));
    double field_s = duration("field-every", "60s");
    if (field_s > 0) field_s = std::max(field_s, opt.step_s);
    if (!(duration_s > 0)) throw UsageError("--duration must be > 0");
    if (!(opt.step_s > 0) || opt.step_s > duration_s) throw UsageError("--step must be > 0 and not longer than the run");
    if (!(opt.cell_m >= 0.1 && opt.cell_m <= 0.5)) throw UsageError("--cell must be within 0.1–0.5 m");

    m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    bool invalid = m::hasErrors(rep.diagnostics);
    // The scenario's own timeline may run past a shorter run: those events just do not happen.
    for (std::size_t i = 0; i < rep.scenario.events.size(); ++i)
        if (rep.scenario.events[i].time_s > duration_s)
            std::cerr << file << ": warning: /events/" << i << "/time_s: after the end of this run; it will not happen\n";
    std::vector<m::Event> extra;
    if (a.has("events")) {
        const std::string ef = a.get("events");
        m::EventsResult er = m::loadEventsFile(ef);
        m::Diagnostics d = er.diagnostics;
        const m::Diagnostics sem = m::validateEvents(rep.scenario, rep.catalog, er.events, er.pointer_prefix, duration_s);
        d.insert(d.end(), sem.begin(), sem.end());
        for (const auto& x : d) std::cerr << ef << ": " << x.toString() << "\n";
        invalid = invalid || m::hasErrors(d);
        extra = std::move(er.events);
    }
    if (a.has("jobs")) invalid = !addJobsFile(rep, a.get("jobs")) || invalid;
    if (invalid) {
        std::cerr << "simulate: invalid input; nothing was run\n";
        return 2;
    }

    std::unique_ptr<sim::Engine> engine;
    try {
        engine = std::make_unique<sim::Engine>(rep.scenario, rep.catalog, opt);
    } catch (const sim::SimError& e) {
        std::cerr << "simulate: " << e.what() << "\n";
        return 2;
    }
    engine->addEvents(extra);
    const bool quiet = a.flag("quiet");
    std::ostringstream discard;
    std::ostream& note = quiet ? static_cast<std::ostream&>(discard) : std::cerr;  // informational lines
    note << "simulate: room air: " << engine->stats().air_summary << "\n";
    if (engine->stats().air_approximate)
        note << "simulate: quick mode is approximate: potential flow has no momentum or buoyancy, so jets do not cross "
                     "the room (docs/simulation.md); use --air lbm for answers to plan with\n";

    auto store = importers::TelemetryStore::open(out);
    // The scenario's file (absolute, so that the app can offer to open it) and fingerprint: the app shows a run
    // only on the scenario it was computed for.
    json meta{{"scenario_file", file == "-" ? file : std::filesystem::absolute(file).lexically_normal().string()},
              {"scenario_hash", m::scenarioHash(rep.scenario)}, {"duration_s", duration_s}, {"step_s", opt.step_s}, {"cell_m", opt.cell_m},
              {"backend", opt.backend}, {"grid_cells", engine->stats().grid_cells}, {"air", engine->stats().air_solver},
              {"air_summary", engine->stats().air_summary}, {"steady", steady}};
    importers::RunRecorder rec(store, rep.scenario, rep.catalog, "simulate " + rep.scenario.id, meta.dump(), &engine->jobs());
    const std::int64_t run = rec.run();
    rec.record(engine->frame());
    if (field_s > 0 && engine->stats().grid_cells > 8'000'000) {
        std::cerr << "simulate: the air grid has " << engine->stats().grid_cells << " cells; its field is not stored\n";
        field_s = 0;
    }

    const auto wall0 = std::chrono::steady_clock::now();
    const auto steps = static_cast<std::int64_t>(std::llround(duration_s / opt.step_s));
    std::map<std::string, json> alerts;  // first occurrence per kind and entity
    double next_record = record_s, next_field = 0, peak_inlet = -1e9, it_energy = 0, fac_energy = 0;
    std::string peak_rack;
    Progress progress("simulate: ", quiet);
    sim::SteadyDetector detector(engine->flowThroughTimeS());
    bool reached_steady = false, stopped = false;
    catchInterrupt();
    for (std::int64_t s = 1; s <= steps; ++s) {
        if (interrupted()) {
            stopped = true;
            break;
        }
        const bool field_due = field_s > 0 && (engine->timeS() + opt.step_s + 1e-9 >= next_field || s == steps);
        // Steady mode asks for the field every step: the step that turns out steady stores it.
        const m::Frame& f = engine->step(field_due || (steady && field_s > 0));
        if (steady) reached_steady = detector.update(f);
        if (f.air && (field_due || reached_steady)) {
            store.writeAirFields(run, f);
            next_field = f.time_s + field_s;
        }
        it_energy += f.it_power_w * opt.step_s;
        fac_energy += f.facility_power_w * opt.step_s;
        if (f.max_inlet_c > peak_inlet) {
            peak_inlet = f.max_inlet_c;
            peak_rack = f.max_inlet_rack;
        }
        rec.collectAlerts(f);
        for (const auto& al : f.alerts) {
            const std::string key = al.kind + '\x1f' + al.entity;
            if (al.kind != "event" && !alerts.count(key))
                alerts[key] = json{{"kind", al.kind}, {"entity", al.entity}, {"time_s", al.time_s}, {"message", al.message}};
        }
        if (f.time_s + 1e-9 >= next_record || s == steps || reached_steady) {
            rec.record(f);
            next_record += record_s;
        }
        if (reached_steady) break;
        const int pct = static_cast<int>(100 * s / steps);
        if (pct % 5 == 0 || s == steps) {
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
            progress.update(pct, std::to_string(pct) + "% (" + m::formatDuration(f.time_s) + " of " + m::formatDuration(duration_s) + "), " +
                                     m::formatDuration(wall) + " wall");
        }
    }
    progress.finish();
    if (stopped) {
        // Keep what ran and say so where the run is read: its metadata and its event list.
        meta["interrupted"] = true;
        meta["interrupted_at_s"] = engine->timeS();
        store.setRunMeta(run, meta.dump());
        rec.addEvent({engine->timeS(), "interrupted", "", std::nullopt, "run interrupted (SIGINT/SIGTERM) before its end"});
    }
    rec.finish(engine->timeS());
    if (stopped) {
        std::cerr << "simulate: interrupted after " << m::formatDuration(engine->timeS()) << " of " << m::formatDuration(duration_s)
                  << " simulated; the partial run " << run << " is kept in " << out << ", marked interrupted\n";
        return 130;
    }
    if (steady) {
        if (reached_steady)
            note << "simulate: steady after " << m::formatDuration(engine->timeS()) << " simulated ("
                      << engine->timeS() / detector.windowS() << " flow-through times of " << detector.windowS()
                      << " s; over the last " << m::formatDuration(detector.averagingS()) << " no rack inlet drifts more than "
                      << detector.lastChangeK() << " K per flow-through time, 95 % bound)\n";
        else if (std::isfinite(detector.lastChangeK()))
            std::cerr << "simulate: not steady after " << m::formatDuration(engine->timeS()) << ": rack inlets may still drift "
                      << detector.lastChangeK() << " K per flow-through time (95 % bound; limit 0.05 K)\n";
        else
            std::cerr << "simulate: not steady after " << m::formatDuration(engine->timeS()) << ": fewer than four flow-through times of "
                      << detector.windowS() << " s ran\n";
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    const m::Frame& f = engine->frame();
    // At steady state the answer is each rack's inlet averaged over the steady period, not the last frame's flicker.
    const bool averaged = reached_steady && detector.steadyInlets().size() == f.racks.size();
    auto answer = [&](std::size_t i) { return averaged ? detector.steadyInlets()[i] : f.racks[i].inlet_mean_c; };
    if (!f.racks.empty()) {
        // The planner's answer in one line: the range of rack inlets and the weakest Capture Index.
        std::size_t lo = 0, hi = 0;
        for (std::size_t i = 1; i < f.racks.size(); ++i) {
            if (answer(i) < answer(lo)) lo = i;
            if (answer(i) > answer(hi)) hi = i;
        }
        const m::RackFrame* worst = nullptr;
        for (const auto& r : f.racks)
            if (!std::isnan(r.capture_index) && (!worst || r.capture_index < worst->capture_index)) worst = &r;
        note << "simulate: rack inlets (airflow-weighted" << (averaged ? ", mean over the steady period" : "") << ") " << std::fixed
                  << std::setprecision(1) << answer(lo) << " to " << answer(hi) << " °C (hottest " << f.racks[hi].id << ")";
        if (worst) note << "; lowest Capture Index " << std::setprecision(0) << 100 * worst->capture_index << " % (" << worst->id << ")";
        note << std::defaultfloat << std::setprecision(6) << "\n";
    }
    bool cooling_ok = true;
    json alert_list = json::array();
    for (auto& [k, v] : alerts) {
        if (v["kind"] == "cooling_short") cooling_ok = false;
        alert_list.push_back(v);
    }
    if (!cooling_ok) std::cerr << "simulate: cooling could not carry the load during the run (see alerts)\n";
    // Results outside what the model represents say so (issue 16): the same findings the app shows in its banner.
    json findings = json::array();
    for (const auto& [k, v] : alerts)
        if (v["kind"] == "physics_range") findings.push_back({{"level", "error"}, {"time_s", v["time_s"]}, {"entity", v["entity"]}, {"text", v["message"]}});
    // What leaves the air: the units and the rear doors (whose heat goes into water at the racks' backs).
    const double removed_w = f.heat_removed_w + f.rear_door_heat_w;
    if (reached_steady && f.heat_in_w > 0 && std::abs(f.heat_in_w - removed_w) / f.heat_in_w > ct::importers::kHeatImbalanceLimit) {
        std::ostringstream t;
        t << std::fixed << std::setprecision(0) << "at steady state the cooling removes " << removed_w / 1e3 << " kW of the "
          << f.heat_in_w / 1e3 << " kW put into the air (" << 100 * std::abs(f.heat_in_w - removed_w) / f.heat_in_w
          << " % apart, more than 5 %): energy is not balanced";
        findings.push_back({{"level", "warning"}, {"time_s", engine->timeS()}, {"entity", ""}, {"text", t.str()}});
    }
    for (const auto& x : findings) std::cerr << "simulate: warning: " << x["text"].get<std::string>() << "\n";
    note << "simulate: run " << run << " recorded in " << out << " (" << engine->stats().steps << " steps, "
              << engine->stats().air_substeps << " air sub-steps, " << engine->stats().flow_solves << " flow solves, "
              << wall << " s)\n";
    if (a.flag("json")) {
        json o{{"run", run},
               {"database", out},
               {"sim_time_s", engine->timeS()},
               {"wall_s", wall},
               {"it_power_w", f.it_power_w},
               {"facility_power_w", f.facility_power_w},
               {"cooling_power_w", f.cooling_power_w},
               {"ups_loss_w", f.ups_loss_w},
               {"pue", f.pue},
               {"max_inlet_c", f.max_inlet_c},
               {"max_inlet_rack", f.max_inlet_rack},
               {"peak_inlet_c", peak_inlet},
               {"peak_inlet_rack", peak_rack},
               {"heat_in_w", f.heat_in_w},
               {"heat_removed_w", f.heat_removed_w},
               {"liquid_heat_w", f.liquid_heat_w},
               {"rear_door_heat_w", f.rear_door_heat_w},
               {"transformer_loss_w", f.transformer_loss_w},
               {"it_energy_kwh", it_energy / 3.6e6},
               {"facility_energy_kwh", fac_energy / 3.6e6},
               {"rci_hi", f.rci_hi},
               {"rci_lo", f.rci_lo},
               {"rti", f.rti},
               {"shi", f.shi},
               {"cooling_ok", cooling_ok},
               {"grid_cells", engine->stats().grid_cells},
               {"air_substeps", engine->stats().air_substeps},
               {"flow_solves", engine->stats().flow_solves},
               {"flow_iterations", engine->stats().flow_iterations},
               {"flow_s", engine->stats().flow_seconds},
               {"air", engine->stats().air_solver},
               {"air_approximate", engine->stats().air_approximate},
               {"air_summary", engine->stats().air_summary},
               {"lattice_steps", engine->stats().lattice_steps},
               {"alerts", alert_list},
               {"findings", findings}};
        json jobs = json::array();
        for (const auto& j : f.jobs)
            jobs.push_back({{"id", j.id}, {"running", j.running}, {"stalled", j.stalled}, {"step_time_s", j.step_time_s},
                            {"comm_share", j.comm_share}, {"mfu", j.mfu}, {"utilization", j.utilization}});
        o["jobs"] = jobs;
        json links = json::array();
        for (std::size_t i = 0; i < f.links.size() && i < 10; ++i)
            links.push_back({{"link", f.links[i].id}, {"utilization", f.links[i].utilization}, {"failed", f.links[i].failed}});
        o["busiest_links"] = links;
        if (steady)
            o["steady"] = {{"reached", reached_steady},
                           {"time_s", engine->timeS()},
                           {"flow_through_s", detector.windowS()},
                           {"averaging_s", reached_steady ? detector.averagingS() : 0.0},
                           {"last_change_k", std::isfinite(detector.lastChangeK()) ? detector.lastChangeK() : -1.0}};
        double ci_min = std::nan("");
        for (const auto& r : f.racks)
            if (!std::isnan(r.capture_index) && !(r.capture_index >= ci_min)) ci_min = r.capture_index;
        o["min_capture_index"] = std::isnan(ci_min) ? json(nullptr) : json(ci_min);
        json inlets = json::array();
        for (std::size_t i = 0; i < f.racks.size(); ++i) {
            const auto& r = f.racks[i];
            json x{{"rack", r.id}, {"inlet_mean_c", r.inlet_mean_c}, {"inlet_max_c", r.inlet_max_c},
                   {"capture_index", std::isnan(r.capture_index) ? json(nullptr) : json(r.capture_index)},
                   {"airflow_m3s", r.airflow_m3s}, {"heat_to_air_w", r.heat_to_air_w}};
            if (averaged) x["inlet_steady_c"] = answer(i);
            inlets.push_back(std::move(x));
        }
        o["rack_inlets"] = inlets;
        json units = json::array();
        for (const auto& u : f.cooling_units)
            units.push_back({{"unit", u.id}, {"airflow_m3s", u.airflow_m3s}, {"supply_c", u.supply_c}, {"return_c", u.return_c}, {"load_w", u.load_w}});
        o["cooling_units"] = units;
        if (!f.loops.empty()) {
            json loops = json::array();
            for (const auto& l : f.loops) loops.push_back({{"loop", l.id}, {"load_w", l.load_w}, {"failed", l.failed}});
            o["loops"] = loops;
        }
        std::cout << o.dump(2) << "\n";
    }
    return steady && !reached_steady ? 1 : 0;
}

} // namespace ct::cli
