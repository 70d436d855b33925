#include "simulate.hpp"
#include "job_input.hpp"
#include "simulate_drive.hpp"

#include "io.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/runs/run_checks.hpp>
#include <clustertwin/session/run_session.hpp>
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/air/lattice.hpp>
#include <clustertwin/sim/hall_ranks.hpp>
#include <clustertwin/sim/training.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace ct::cli {

namespace m = ct::model;
using json = nlohmann::ordered_json;

namespace {
const char* kSimulateHelpTemplate =
    R"(Usage: clustertwin-cli simulate SCENARIO (--duration 1h | --steady | --drive DB) --out RUN.sqlite [options]

Runs the coupled power / equipment heat / liquid / room-air model and records the run into a SQLite store
(the same store imported telemetry goes into, so both replay alike). Progress goes to stderr.
  --duration T        simulated time (90s, 15m, 1h, 1h30m); with --steady, the most to run (4h)
  --steady            run until no rack inlet drifts more than 0.05 K per flow-through time of the room
                      air (a line through the means of at least four flow-through windows, 95 % bound), then
                      stop, report how long it took and each rack's inlet averaged over those windows
                      (exit 1 if --duration ends it first)
%AIR%  --step T            engine step (1s)
  --events FILE       more events: a JSON array of {time_s, kind, target, value?} or {"events": [...]}
  --jobs FILE         more jobs, as in a scenario's "jobs" (an array or {"jobs": [...]}); jobs with a
                      "training" or "inference" description run on the network-coupled job model
  --out FILE          the run database (created or appended to)
  --drive DB          drive the run with a hall's measured telemetry (a database clustertwin-cli import
                      wrote): where a measured series has data it replaces the model's own value of node
                      power_w, GPU power_w, node fan_speed, fan_rpm (through the catalog's fan_max_rpm) or
                      airflow_m3s, cooling-unit supply_c, setpoint_c, airflow_m3s or fan_speed, CDU supply_c
                      and job utilization, interpolated in time; in a gap (samples further apart than
                      --drive-max-gap) the model's own value holds, counted. The run starts at the first
                      driving sample (or --drive-from) and lasts as long as the measurements (or --duration);
                      its metadata keeps the measured time of t = 0, for clustertwin-cli score
  --drive-run N       the imported run of DB to read (its latest)
  --drive-map FILE    names for what does not match by itself: {"entities": {"measured": "scenario id"},
                      "metrics": {"measured": "twin metric"}, "inputs": ["node_power", ...]} (only those)
  --drive-from T      the measured time of t = 0: Unix seconds or ISO 8601 (2026-03-01T08:00:00Z)
  --drive-max-gap T   bridge no gap between samples longer than T (3x each series' median spacing)
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
Over MPI ranks (mpirun -np N or srun, a build with Open MPI; docs/scale-out.md): the halls go to ranks by the
size of their air grid; with more ranks than halls, in lattice air on the CPU, the largest halls' lattices and
heat split into slabs of rows over several ranks. The run is the one process's to the bit; rank 0 records and
prints, and --json adds "ranks", "hall_ranks", "hall_slabs" and "exchanged_bytes_per_step".
Exit codes: 0 the run finished (even when cooling could not carry the load: see alerts), 1 runtime error (or
--steady not reached), 2 usage error or invalid input (scenario, events, a grid too fine for memory), 130
interrupted.
)";

/// `text` wrapped to `width` columns, every line after the first indented by `indent` spaces.
std::string wrapped(const std::string& text, std::size_t indent, std::size_t width) {
    std::string out, line;
    std::istringstream words(text);
    for (std::string w; words >> w;) {
        if (!line.empty() && indent + line.size() + 1 + w.size() > width) {
            out += line + "\n" + std::string(indent, ' ');
            line.clear();
        }
        line += (line.empty() ? "" : " ") + w;
    }
    return out + line + "\n";
}

}  // namespace

std::string simulateHelp() {
    // The room-air solvers and their own settings, as the solver table (sim/air/air_solver.hpp) describes them.
    const auto solvers = sim::airSolvers();
    std::string what;
    for (std::size_t i = 0; i < solvers.size(); ++i)
        what += (i == 0                    ? ""
                 : i + 1 == solvers.size() ? " or "
                                           : ", ") +
                solvers[i].name + " (" + solvers[i].help + (i == 0 ? "; the default" : "") + ")";
    std::string air = "  --air S             " + wrapped("room-air solver: " + what + "; overrides the scenario's simulation.air", 22, 112);
    for (const auto& s : solvers)
        for (const auto& p : s.params) {
            std::string head = "  --" + p.option + " " + p.value;
            head += std::string(head.size() < 22 ? 22 - head.size() : 1, ' ');
            air += head + wrapped(s.name + ": " + p.help, 22, 112);
        }
    std::string h = kSimulateHelpTemplate;
    h.replace(h.find("%AIR%"), 5, air);
    return h;
}

std::vector<std::string> simulateSolverOptions() {
    std::vector<std::string> out;
    for (const auto& s : sim::airSolvers())
        for (const auto& p : s.params) out.push_back(p.option);
    return out;
}

/// The run's request from the command line (throws UsageError); inputs are loaded by loadInputs.
session::RunRequest simulateRequest(const Args& a) {
    const bool steady = a.flag("steady");
    const bool drive = a.has("drive");
    if (!a.has("duration") && !steady && !drive) throw UsageError("simulate needs --duration, --steady or --drive");
    session::RunRequest r;
    r.db_path = a.get("out");
    if (r.db_path.empty()) throw UsageError("simulate needs --out RUN.sqlite");
    auto duration = [&](const char* opt, const std::string& fallback) {
        try {
            return m::parseDurationS(a.get(opt, fallback));
        } catch (const m::ModelError& e) {
            throw UsageError(std::string("--") + opt + ": " + e.what());
        }
    };
    r.steady = steady;
    r.duration_s = a.has("duration") || !drive ? duration("duration", steady ? "4h" : "") : 0.0;  // driven: set by the measurements
    sim::EngineOptions& opt = r.engine;
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
    opt.lattice_stride_max_s = duration("lattice-stride-max", "16s");
    if (!(opt.lattice_stride_max_s >= 0)) throw UsageError("--lattice-stride-max must be >= 0");
    opt.lattice_mach = a.getDouble("lattice-mach", opt.lattice_mach);
    if (!(opt.lattice_mach >= 0.05 && opt.lattice_mach <= 0.2)) throw UsageError("--lattice-mach must be within 0.05–0.2");
    opt.lattice_levels = a.getInt("lattice-levels", opt.lattice_levels);
    if (opt.lattice_levels < 0 || opt.lattice_levels > 10) throw UsageError("--lattice-levels must be within 0–10");
    opt.lattice_soft_start = a.getDouble("lattice-soft-start", opt.lattice_soft_start);
    if (!(opt.lattice_soft_start >= 0 && opt.lattice_soft_start <= 100)) throw UsageError("--lattice-soft-start must be within 0–100");
    opt.heat_substep_s = duration("heat-substep", "0.05s");
    if (!(opt.heat_substep_s >= 0) || opt.heat_substep_s > 10) throw UsageError("--heat-substep must be within 0–10 s");
    opt.quick_substep_s = duration("quick-substep", "0.1s");
    if (!(opt.quick_substep_s >= 0) || opt.quick_substep_s > 10) throw UsageError("--quick-substep must be within 0–10 s");
    if (a.has("max-grid-memory")) {
        const double mib = a.getDouble("max-grid-memory", 0);
        if (!(mib > 0)) throw UsageError("--max-grid-memory must be > 0 (MiB)");
        opt.max_grid_bytes = static_cast<std::uint64_t>(mib * 1024 * 1024);
    }
    r.record_every_s = duration("record-every", "10s");
    r.field_every_s = duration("field-every", "60s");
    if (!(r.duration_s > 0) && !(drive && !a.has("duration"))) throw UsageError("--duration must be > 0");
    if (!(opt.step_s > 0) || (r.duration_s > 0 && opt.step_s > r.duration_s))
        throw UsageError("--step must be > 0 and not longer than the run");
    if (!(opt.cell_m >= 0.1 && opt.cell_m <= 0.5)) throw UsageError("--cell must be within 0.1–0.5 m");
    return r;
}

bool loadEventsChecked(const std::string& file, const m::Scenario& s, const m::Catalog& c, double duration_s, std::vector<m::Event>& out) {
    m::EventsResult er = m::loadEventsFile(file);
    m::Diagnostics d = er.diagnostics;
    const m::Diagnostics sem = m::validateEvents(s, c, er.events, er.pointer_prefix, duration_s);
    d.insert(d.end(), sem.begin(), sem.end());
    for (const auto& x : d) std::cerr << file << ": " << x.toString() << "\n";
    out = std::move(er.events);
    return !m::hasErrors(d);
}

/// The scenario, more events and more jobs into the request; every problem printed with its file. False when
/// any is an error.
bool loadSimulateInputs(const Args& a, const std::string& file, session::RunRequest& r, std::ostream& note) {
    m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    bool valid = !m::hasErrors(rep.diagnostics);
    if (valid && a.has("drive")) {  // first: a driven run lasts as long as its measurements
        r.scenario = rep.scenario;
        r.catalog = rep.catalog;
        if (!planDriveFor(a, r, note)) return false;
    }
    // The scenario's own timeline may run past a shorter run: those events just do not happen; one line says how
    // many and from where (a per-minute timeline printed one line each, tens of thousands).
    std::size_t after = 0, first = 0;
    for (std::size_t i = 0; i < rep.scenario.events.size(); ++i)
        if (rep.scenario.events[i].time_s > r.duration_s && after++ == 0) first = i;
    if (after > 0)
        std::cerr << file << ": warning: " << after << " of " << rep.scenario.events.size() << " event(s) come after the end of this run ("
                  << m::formatDuration(r.duration_s) << "; the first /events/" << first << " at "
                  << m::formatDuration(rep.scenario.events[first].time_s) << "): they will not happen\n";
    if (a.has("events")) valid = loadEventsChecked(a.get("events"), rep.scenario, rep.catalog, r.duration_s, r.extra_events) && valid;
    // The scenario's file (absolute, so that the app can offer to open it) and fingerprint: the app shows a run
    // only on the scenario it was computed for. The fingerprint is the file's, taken before --jobs adds the run's
    // own jobs (they are this run's, as --events are; with them in, every such run of an unedited file was
    // said to be of "another version" of it), and the run's options say what it added.
    r.meta.source = "clustertwin-cli simulate";
    r.meta.scenario_file = file == "-" ? file : std::filesystem::absolute(file).lexically_normal().string();
    r.meta.scenario_json = m::scenarioToJson(rep.scenario);
    r.meta.scenario_hash = m::scenarioHash(rep.scenario);
    if (a.has("jobs")) {
        const std::size_t before = rep.scenario.jobs.size();
        valid = addJobsFile(rep, a.get("jobs")) && valid;
        r.meta.run_options_json = json{{"extra_jobs", rep.scenario.jobs.size() - before}, {"extra_events", r.extra_events.size()}}.dump();
    } else if (!r.extra_events.empty()) {
        r.meta.run_options_json = json{{"extra_events", r.extra_events.size()}}.dump();
    }
    r.run_name = (a.has("drive") ? "driven " : "simulate ") + rep.scenario.id;
    r.scenario = std::move(rep.scenario);
    r.catalog = std::move(rep.catalog);
    return valid;
}

namespace {

/// How a steady-mode run ended, in words (stderr or the notes).
void printSteady(const session::RunOutcome& o, std::ostream& note) {
    if (o.end == session::RunEnd::Steady)
        note << "simulate: steady after " << m::formatDuration(o.sim_time_s) << " simulated (" << o.sim_time_s / o.flow_through_s
             << " flow-through times of " << o.flow_through_s << " s; over the last " << m::formatDuration(o.averaging_s)
             << " no rack inlet drifts more than " << o.last_change_k << " K per flow-through time, 95 % bound)\n";
    else if (std::isfinite(o.last_change_k))
        std::cerr << "simulate: not steady after " << m::formatDuration(o.sim_time_s) << ": rack inlets may still drift " << o.last_change_k
                  << " K per flow-through time (95 % bound; limit 0.05 K)\n";
    else
        std::cerr << "simulate: not steady after " << m::formatDuration(o.sim_time_s) << ": fewer than four flow-through times of "
                  << o.flow_through_s << " s ran\n";
}

/// Each rack's answer: its inlet averaged over the steady period when steady, else the last frame's.
double rackAnswer(const session::RunOutcome& o, std::size_t i) {
    return o.steady_inlets.empty() ? o.last.racks[i].inlet_mean_c : o.steady_inlets[i];
}

/// The planner's answer in one line: the range of rack inlets and the weakest Capture Index.
void printInlets(const session::RunOutcome& o, std::ostream& note) {
    const auto& racks = o.last.racks;
    if (racks.empty()) return;
    std::size_t lo = 0, hi = 0;
    for (std::size_t i = 1; i < racks.size(); ++i) {
        if (rackAnswer(o, i) < rackAnswer(o, lo)) lo = i;
        if (rackAnswer(o, i) > rackAnswer(o, hi)) hi = i;
    }
    const m::RackFrame* worst = nullptr;
    for (const auto& r : racks)
        if (!std::isnan(r.capture_index) && (!worst || r.capture_index < worst->capture_index)) worst = &r;
    note << "simulate: rack inlets (airflow-weighted" << (o.steady_inlets.empty() ? "" : ", mean over the steady period") << ") "
         << std::fixed << std::setprecision(1) << rackAnswer(o, lo) << " to " << rackAnswer(o, hi) << " °C (hottest " << racks[hi].id
         << ")";
    if (worst) note << "; lowest Capture Index " << std::setprecision(0) << 100 * worst->capture_index << " % (" << worst->id << ")";
    note << std::defaultfloat << std::setprecision(6) << "\n";
}

/// Results outside what the model represents (issue 16): the same findings the app shows in its banner.
json findingsOf(const session::RunOutcome& o) {
    json findings = json::array();
    for (const auto& al : o.first_alerts)
        if (al.kind == "physics_range")
            findings.push_back({{"level", "error"}, {"time_s", al.time_s}, {"entity", al.entity}, {"text", al.message}});
    // What leaves the air: the units and the rear doors (whose heat goes into water at the racks' backs).
    const m::Frame& f = o.last;
    const double removed_w = f.heat_removed_w + f.rear_door_heat_w;
    if (o.end == session::RunEnd::Steady && f.heat_in_w > 0 &&
        std::abs(f.heat_in_w - removed_w) / f.heat_in_w > ct::runs::kHeatImbalanceLimit) {
        std::ostringstream t;
        t << std::fixed << std::setprecision(0) << "at steady state the cooling removes " << removed_w / 1e3 << " kW of the "
          << f.heat_in_w / 1e3 << " kW put into the air (" << 100 * std::abs(f.heat_in_w - removed_w) / f.heat_in_w
          << " % apart, more than 5 %): energy is not balanced";
        findings.push_back({{"level", "warning"}, {"time_s", o.sim_time_s}, {"entity", ""}, {"text", t.str()}});
    }
    return findings;
}

/// The jobs, the ten busiest links, each rack's inlets, the cooling units and the water loops at the end.
void addEntities(json& j, const session::RunOutcome& o) {
    const m::Frame& f = o.last;
    json jobs = json::array();
    for (const auto& x : f.jobs)
        jobs.push_back({{"id", x.id},
                        {"running", x.running},
                        {"stalled", x.stalled},
                        {"step_time_s", x.step_time_s},
                        {"comm_share", x.comm_share},
                        {"mfu", x.mfu},
                        {"utilization", x.utilization}});
    j["jobs"] = jobs;
    json links = json::array();
    for (std::size_t i = 0; i < f.links.size() && i < 10; ++i)
        links.push_back({{"link", f.links[i].id}, {"utilization", f.links[i].utilization}, {"failed", f.links[i].failed}});
    j["busiest_links"] = links;
    double ci_min = std::nan("");
    for (const auto& r : f.racks)
        if (!std::isnan(r.capture_index) && !(r.capture_index >= ci_min)) ci_min = r.capture_index;
    j["min_capture_index"] = std::isnan(ci_min) ? json(nullptr) : json(ci_min);
    json inlets = json::array();
    for (std::size_t i = 0; i < f.racks.size(); ++i) {
        const auto& r = f.racks[i];
        json x{{"rack", r.id},
               {"inlet_mean_c", r.inlet_mean_c},
               {"inlet_max_c", r.inlet_max_c},
               {"capture_index", std::isnan(r.capture_index) ? json(nullptr) : json(r.capture_index)},
               {"airflow_m3s", r.airflow_m3s},
               {"heat_to_air_w", r.heat_to_air_w}};
        if (!o.steady_inlets.empty()) x["inlet_steady_c"] = o.steady_inlets[i];
        inlets.push_back(std::move(x));
    }
    j["rack_inlets"] = inlets;
    json units = json::array();
    for (const auto& u : f.cooling_units)
        units.push_back(
            {{"unit", u.id}, {"airflow_m3s", u.airflow_m3s}, {"supply_c", u.supply_c}, {"return_c", u.return_c}, {"load_w", u.load_w}});
    j["cooling_units"] = units;
    if (!f.loops.empty()) {
        json loops = json::array();
        for (const auto& l : f.loops) loops.push_back({{"loop", l.id}, {"load_w", l.load_w}, {"failed", l.failed}});
        j["loops"] = loops;
    }
}

/// How each training job's compute is timed (docs/workloads.md): from the kernels' rooflines with the GPU's
/// shares, or with the job's overrides; and where the model is unchecked (on stderr, as `training` says it).
json jobComputeNotes(const m::Scenario& sc, const m::Catalog& cat, std::ostream& note) {
    json out = json::object();
    for (const m::Job& job : sc.jobs) {
        std::optional<sim::TrainingStep> st;
        try {
            st = sim::jobCompute(sc, cat, job);
        } catch (const sim::SimError&) {
            continue;  // the run itself says why the job cannot be laid out
        }
        if (!st) continue;
        const std::string from = st->overrides.empty() ? "the kernels' rooflines with the " + st->gpu + "'s shares" : st->overrides.front();
        note << "simulate: job " << job.id << ": compute from " << from << "\n";
        for (const auto& w : st->warnings) std::cerr << "simulate: warning: job " << job.id << ": " << w << "\n";
        out[job.id] = {{"compute_from", from}, {"slowest_chip", st->slowest_chip}, {"warnings", st->warnings}};
    }
    return out;
}

/// The summary object of --json: the site at the end, the air solver's figures, the first alerts.
json outcomeJson(const session::RunOutcome& o, const sim::EngineStats& st, const std::string& out, bool steady, const json& findings) {
    const m::Frame& f = o.last;
    json alerts = json::array();
    for (const auto& al : o.first_alerts)
        alerts.push_back({{"kind", al.kind}, {"entity", al.entity}, {"time_s", al.time_s}, {"message", al.message}});
    json j{{"run", o.run},
           {"database", out},
           {"sim_time_s", o.sim_time_s},
           {"wall_s", o.wall_s},
           {"it_power_w", f.it_power_w},
           {"facility_power_w", f.facility_power_w},
           {"cooling_power_w", f.cooling_power_w},
           {"ups_loss_w", f.ups_loss_w},
           {"pue", f.pue},
           {"max_inlet_c", f.max_inlet_c},
           {"max_inlet_rack", f.max_inlet_rack},
           {"peak_inlet_c", o.peak_inlet_c},
           {"peak_inlet_rack", o.peak_inlet_rack},
           {"heat_in_w", f.heat_in_w},
           {"heat_removed_w", f.heat_removed_w},
           {"liquid_heat_w", f.liquid_heat_w},
           {"rear_door_heat_w", f.rear_door_heat_w},
           {"transformer_loss_w", f.transformer_loss_w},
           {"it_energy_kwh", o.it_energy_j / 3.6e6},
           {"facility_energy_kwh", o.facility_energy_j / 3.6e6},
           {"rci_hi", f.rci_hi},
           {"rci_lo", f.rci_lo},
           {"rti", f.rti},
           {"shi", f.shi},
           {"cooling_ok", o.cooling_ok},
           {"grid_cells", st.grid_cells},
           {"air_substeps", st.air_substeps},
           {"flow_solves", st.flow_solves},
           {"flow_iterations", st.flow_iterations},
           {"flow_s", st.flow_seconds},
           {"steps", st.steps},
           {"air_s", st.air_seconds},
           {"air", st.air_solver},
           {"air_approximate", st.air_approximate},
           {"air_summary", st.air_summary},
           {"lattice_steps", st.lattice_steps},
           {"max_air_speed_ms", st.max_air_speed_ms},
           {"max_lattice_mach", st.max_lattice_mach},
           {"lattice_restarts", st.lattice_restarts},
           {"lattice_rescales", st.lattice_rescales},
           {"lattice_mean_step_ms", st.lattice_steps > 0 ? 1e3 * st.lattice_seconds / static_cast<double>(st.lattice_steps) : 0.0},
           {"ranks", st.ranks},
           {"hall_ranks", st.hall_ranks},
           {"hall_slabs", st.hall_slabs},
           {"halls_side_by_side", st.halls_side_by_side},
           {"exchanged_bytes_per_step", st.steps > 0 ? static_cast<double>(st.exchanged_bytes) / static_cast<double>(st.steps) : 0.0},
           {"alerts", alerts},
           {"findings", findings}};
    addEntities(j, o);
    if (steady)
        j["steady"] = {{"reached", o.end == session::RunEnd::Steady},
                       {"time_s", o.sim_time_s},
                       {"flow_through_s", o.flow_through_s},
                       {"averaging_s", o.averaging_s},
                       {"last_change_k", std::isfinite(o.last_change_k) ? o.last_change_k : -1.0}};
    return j;
}

/// The halls over MPI ranks (sim::HallRanks) through the command's ranks::World.
/// A hall's lattice split over a group of ranks: its edge rows between neighbours without blocking.
class GroupSlabs : public sim::LatticeSlabs {
public:
    explicit GroupSlabs(std::unique_ptr<ranks::Group> g) : g_(std::move(g)) {}
    int index() const override { return g_->rank(); }
    int count() const override { return g_->size(); }
    void start(const int peer[2], const std::vector<float>* const out[2], std::vector<float>* const in[2]) override {
        for (int s = 0; s < 2; ++s) {
            if (peer[s] < 0) continue;
            g_->receive(in[s]->data(), in[s]->size(), peer[s], 1 - s);
            bytes_in_ += in[s]->size() * sizeof(float);
            g_->send(out[s]->data(), out[s]->size(), peer[s], s);
        }
    }
    void finish() override {
        g_->wait();
        received_ += bytes_in_;
        bytes_in_ = 0;
    }
    std::vector<std::string> allGather(const std::string& mine) override {
        auto all = g_->allGather(mine);
        for (std::size_t s = 0; s < all.size(); ++s)
            if (static_cast<int>(s) != g_->rank()) received_ += all[s].size();
        return all;
    }

private:
    std::unique_ptr<ranks::Group> g_;
    std::uint64_t bytes_in_ = 0;  ///< posted, counted once they arrive
};

class WorldHallRanks : public sim::HallRanks {
public:
    explicit WorldHallRanks(const ranks::World& w) : w_(w) {}
    int rank() const override { return w_.rank(); }
    int size() const override { return w_.size(); }
    std::vector<std::string> allGather(const std::string& mine) const override { return w_.allGather(mine); }
    std::vector<std::string> gather(const std::string& mine) const override { return w_.gather(mine); }
    std::unique_ptr<sim::LatticeSlabs> slabs(const std::vector<int>& members) const override {
        const auto at = std::find(members.begin(), members.end(), w_.rank());
        auto g = w_.split(at == members.end() ? -1 : 0, static_cast<int>(at - members.begin()));
        return g ? std::make_unique<GroupSlabs>(std::move(g)) : nullptr;
    }

private:
    const ranks::World& w_;
};

}  // namespace

int cmdSimulate(const Args& a, const ranks::World& w) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    session::RunRequest req = simulateRequest(a);
    if (w.size() > 1) req.engine.hall_ranks = std::make_shared<WorldHallRanks>(w);
    const bool root = w.rank() == 0;  // the other ranks step their halls and say nothing (rank 0 speaks for all)
    const bool quiet = a.flag("quiet") || !root, steady = req.steady;
    std::ostringstream discard;
    std::ostream& note = quiet ? static_cast<std::ostream&>(discard) : std::cerr;  // informational lines
    if (!loadSimulateInputs(a, file, req, note)) {
        std::cerr << "simulate: invalid input; nothing was run\n";
        return 2;
    }
    const json compute = root ? jobComputeNotes(req.scenario, req.catalog, note) : json::object();
    if (w.size() > 1) {  // the run's options say how many processes made it
        json opts = req.meta.run_options_json.empty() ? json::object() : json::parse(req.meta.run_options_json);
        opts["ranks"] = w.size();
        req.meta.run_options_json = opts.dump();
    }
    const double duration_s = req.duration_s;
    const bool want_fields = req.field_every_s > 0;
    const double time_origin = req.meta.time_origin_unix.value_or(0);
    const std::string out = req.db_path;
    std::unique_ptr<session::RunSession> run;
    try {
        run = std::make_unique<session::RunSession>(std::move(req));
    } catch (const sim::SimError& e) {
        if (root) std::cerr << "simulate: " << e.what() << "\n";
        return 2;
    }
    const sim::EngineStats& st = run->stats();
    note << "simulate: room air: " << st.air_summary << "\n";
    if (st.air_approximate)
        note << "simulate: quick mode is approximate: potential flow has no momentum or buoyancy, so jets do not cross "
                "the room (docs/simulation.md); use --air lbm for answers to plan with\n";
    if (want_fields && !run->storesFields())
        std::cerr << "simulate: the air grid has " << st.grid_cells << " cells; its field is not stored\n";

    Progress progress("simulate: ", quiet);
    catchInterrupt();
    session::RunCallbacks cb;
    cb.cancelled = [] { return interrupted(); };
    cb.cancel_reason = "SIGINT/SIGTERM";
    cb.progress = [&](const session::RunProgress& p) {
        if (p.percent % 5 == 0)
            progress.update(p.percent, std::to_string(p.percent) + "% (" + m::formatDuration(p.sim_time_s) + " of " +
                                           m::formatDuration(duration_s) + "), " + m::formatDuration(p.wall_s) + " wall");
    };
    session::RunOutcome o;
    try {
        o = run->run(cb);
    } catch (const sim::SimError&) {  // every rank raises a hall's failure at the same step: rank 0 says it
        if (root) throw;
        return 1;  // main's runtime error
    }
    progress.finish();
    if (!root) return o.end == session::RunEnd::Cancelled ? 130 : o.end == session::RunEnd::NotSteady ? 1 : 0;
    if (o.end == session::RunEnd::Cancelled) {
        std::cerr << "simulate: interrupted after " << m::formatDuration(o.sim_time_s) << " of " << m::formatDuration(duration_s)
                  << " simulated; the partial run " << o.run << " is kept in " << out << ", marked interrupted\n";
        return 130;
    }
    if (steady) printSteady(o, note);
    printInlets(o, note);
    if (!o.cooling_ok) std::cerr << "simulate: cooling could not carry the load during the run (see alerts)\n";
    if (st.lattice_restarts > 0)
        std::cerr << "simulate: room air: the lattice went unstable " << st.lattice_restarts
                  << " time(s) and started again from rest, each time at 1/√2 of its step: the air ran faster (up to "
                  << std::setprecision(3) << st.max_air_speed_ms << std::defaultfloat << std::setprecision(6)
                  << " m/s) than the ports' jets let it expect; --lattice-mach sets the step from the start\n";
    if (st.max_lattice_mach > sim::kLatticeMachNote)
        std::cerr << "simulate: room air: the fastest air (" << std::setprecision(3) << st.max_air_speed_ms << " m/s) ran at lattice Mach "
                  << std::setprecision(2) << st.max_lattice_mach << std::defaultfloat << std::setprecision(6)
                  << ", where the lattice's compressibility error (∝ Mach²) is no longer small; the ports' jets are at --lattice-mach "
                     "(lower it to slow the lattice's air everywhere)\n";
    const json findings = findingsOf(o);
    for (const auto& x : findings) std::cerr << "simulate: warning: " << x["text"].get<std::string>() << "\n";
    note << "simulate: run " << o.run << " recorded in " << out << " (" << st.steps << " steps, " << st.air_substeps << " air sub-steps, "
         << st.flow_solves << " flow solves, " << o.wall_s << " s)\n";
    printDriven(o.driven, note);
    if (a.flag("json")) {
        json j = outcomeJson(o, st, out, steady, findings);
        for (json& job : j["jobs"])
            if (compute.contains(job["id"].get<std::string>())) job["compute"] = compute[job["id"].get<std::string>()];
        if (!o.driven.empty()) {  // as the run's metadata says it (RunMeta::toJson), one shape for both
            runs::RunMeta m;
            m.time_origin_unix = time_origin;
            m.driven = o.driven;
            const json mj = json::parse(m.toJson());
            j["time_origin_unix"] = mj.at("time_origin_unix");
            j["driven"] = mj.at("driven");
        }
        std::cout << j.dump(2) << "\n";
    }
    return o.end == session::RunEnd::NotSteady ? 1 : 0;
}

}  // namespace ct::cli
