// Calibration (calibrate.hpp): runs in memory, scored on a window, fitted by NLopt's BOBYQA.
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/frame_series.hpp>
#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/measured.hpp>

#include <nlopt.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>

namespace ct::session {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Reads one series of a frame: the entry's index in its list and the table row's getter.
struct Probe {
    std::function<double(const model::Frame&)> get;
};

template <class E>
std::optional<Probe> probeIn(const std::vector<E> model::Frame::*list, const std::vector<runs::SeriesField<E>>& table,
                             const model::Frame& f, const std::string& entity, const std::string& metric) {
    const auto& entries = f.*list;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].id != entity) continue;
        for (const auto& row : table)
            if (row.metric == metric) return Probe{[list, i, get = row.get](const model::Frame& fr) { return get((fr.*list)[i]); }};
    }
    return std::nullopt;
}

/// The probe of a scored series in the engine's frames (frame_series.hpp's table: what a run records).
std::optional<Probe> probeOf(const model::Frame& f, const std::string& kind, const std::string& entity, const std::string& metric) {
    if (kind == "node") return probeIn(&model::Frame::nodes, runs::nodeSeries(), f, entity, metric);
    if (kind == "gpu") return probeIn(&model::Frame::gpus, runs::gpuSeries(), f, entity, metric);
    if (kind == "rack") return probeIn(&model::Frame::racks, runs::rackSeries(), f, entity, metric);
    if (kind == "cooling_unit") return probeIn(&model::Frame::cooling_units, runs::coolingUnitSeries(), f, entity, metric);
    if (kind == "cdu") return probeIn(&model::Frame::cdus, runs::cduSeries(), f, entity, metric);
    if (kind == "sensor") return probeIn(&model::Frame::sensors, runs::sensorSeries(), f, entity, metric);
    if (kind == "water_loop") return probeIn(&model::Frame::loops, runs::waterLoopSeries(), f, entity, metric);
    if (kind == "job") return probeIn(&model::Frame::jobs, runs::jobSeries(), f, entity, metric);
    return std::nullopt;
}

struct Evaluator {
    const CalibRequest& r;
    std::vector<PairedSeries> pairs;  ///< measured as requested; simulated per run
    runs::Points supply;
    sim::EngineOptions engine;  ///< r.engine, on the grid of the current stage
    int runs = 0;
    double longest_s = 0;
    bool stopped = false;

    /// Runs the scenario with parameters x up to `until_s`, sampling every scored series.
    void simulate(const std::vector<double>& x, double until_s) {
        model::Scenario s = r.scenario;
        model::Catalog c = r.catalog;
        applyCalibParams(s, c, r.params, x);
        const auto t0 = Clock::now();
        sim::Engine e(s, c, engine);
        std::vector<Probe> probes;
        for (const auto& p : pairs) {
            auto pr = probeOf(e.frame(), p.kind, p.entity, p.metric);
            if (!pr) throw InputError("calibrate: the twin has no " + p.metric + " of " + p.entity);
            probes.push_back(std::move(*pr));
        }
        for (auto& p : pairs) p.simulated.clear();
        auto sample = [&](const model::Frame& f) {
            for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i].simulated.emplace_back(f.time_s, probes[i].get(f));
        };
        sample(e.frame());
        double next = r.sample_s;
        while (e.timeS() + 1e-9 < until_s) {
            if (r.cancelled && r.cancelled()) {
                stopped = true;
                return;
            }
            const model::Frame& f = e.step();
            if (f.time_s + 1e-9 >= next || f.time_s + 1e-9 >= until_s) {
                sample(f);
                next += r.sample_s;
            }
        }
        offsets(x);
        ++runs;
        longest_s = std::max(longest_s, std::chrono::duration<double>(Clock::now() - t0).count());
    }

    /// sensor_offset: the twin's temperatures of the target entities read that much warmer.
    void offsets(const std::vector<double>& x) {
        for (std::size_t k = 0; k < r.params.size(); ++k) {
            if (r.params[k].name != "sensor_offset") continue;
            for (auto& p : pairs)
                if (p.unit == "degC" && (r.params[k].target == "*" || r.params[k].target == p.entity))
                    for (auto& pt : p.simulated) pt.second += x[k];
        }
    }

    runs::ErrorStats score(const Window& w) const {
        ScoreReport rep;
        scorePairs(pairs, supply, w.from_s, w.to_s, kInf, rep);
        if (rep.overall.size() == 1) return rep.overall.front().twin;
        runs::ErrorStats out;  // every metric together: the objective (temperatures, in K)
        double se = 0, ae = 0, be = 0;
        std::size_t n = 0;
        for (const auto& row : rep.overall) {
            const double k = static_cast<double>(row.twin.n);
            se += row.twin.rmse * row.twin.rmse * k;
            ae += row.twin.mae * k;
            be += row.twin.bias * k;
            n += row.twin.n;
        }
        out.n = n;
        if (n > 0) {
            out.rmse = std::sqrt(se / static_cast<double>(n));
            out.mae = ae / static_cast<double>(n);
            out.bias = be / static_cast<double>(n);
        }
        return out;
    }
};

double objective(unsigned n, const double* u, double* /*grad*/, void* data) {
    auto& ev = *static_cast<Evaluator*>(data);
    std::vector<double> x(n);
    for (unsigned i = 0; i < n; ++i) x[i] = ev.r.params[i].min + u[i] * (ev.r.params[i].max - ev.r.params[i].min);
    ev.simulate(x, ev.r.train.to_s);
    if (ev.stopped) return HUGE_VAL;
    const runs::ErrorStats s = ev.score(ev.r.train);
    if (ev.r.progress) ev.r.progress(ev.runs, s.rmse);
    return std::isfinite(s.rmse) ? s.rmse : HUGE_VAL;
}

std::string stopReason(nlopt_result res) {
    switch (res) {
        case NLOPT_SUCCESS:
            return "converged";
        case NLOPT_FTOL_REACHED:
            return "the error stopped improving (ftol)";
        case NLOPT_XTOL_REACHED:
            return "the parameters stopped moving (xtol)";
        case NLOPT_MAXEVAL_REACHED:
            return "the most runs allowed";
        case NLOPT_FORCED_STOP:
            return "cancelled";
        default:
            return "NLopt result " + std::to_string(static_cast<int>(res));
    }
}

/// One stage of the search: the optimiser over the parameters scaled to [0, 1] from u (updated), first steps
/// `step` of each range, at most `max_runs` runs (BOBYQA; Subplex for one parameter, which BOBYQA cannot take).
nlopt_result search(Evaluator& ev, std::vector<double>& u, double step, int max_runs) {
    const unsigned n = static_cast<unsigned>(u.size());
    nlopt_opt opt = nlopt_create(n == 1 ? NLOPT_LN_SBPLX : NLOPT_LN_BOBYQA, n);
    std::vector<double> lo(n, 0.0), hi(n, 1.0), steps(n, step);
    nlopt_set_lower_bounds(opt, lo.data());
    nlopt_set_upper_bounds(opt, hi.data());
    nlopt_set_initial_step(opt, steps.data());
    nlopt_set_min_objective(opt, objective, &ev);
    nlopt_set_maxeval(opt, std::max(1, max_runs));
    nlopt_set_xtol_abs1(opt, 1e-3);
    nlopt_set_ftol_abs(opt, 1e-4);
    double best = 0;
    const nlopt_result res = nlopt_optimize(opt, u.data(), &best);
    nlopt_destroy(opt);
    for (double& v : u) v = std::clamp(v, 0.0, 1.0);
    return res;
}

nlohmann::json statsJson(const runs::ErrorStats& s) {
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    return {{"n", s.n}, {"rmse", num(s.rmse)}, {"mae", num(s.mae)}, {"bias", num(s.bias)}};
}

/// The calibrated scenario: the fitted values written in, and a "calibration" block that says where they came
/// from.
model::Scenario calibratedScenario(const CalibRequest& r, const CalibResult& out) {
    model::Scenario s = r.scenario;
    model::Catalog c = r.catalog;
    std::vector<double> x;
    for (const auto& p : out.params) x.push_back(p.value);
    applyCalibParams(s, c, out.params, x);
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : out.params)
        params.push_back({{"name", p.name}, {"target", p.target}, {"value", p.value}, {"start", p.start}, {"min", p.min}, {"max", p.max}});
    nlohmann::json block{{"by", "clustertwin-cli calibrate"},
                         {"at", model::formatIsoTime(static_cast<double>(std::time(nullptr)))},
                         {"train_s", {r.train.from_s, r.train.to_s}},
                         {"validate_s", {r.validate.from_s, r.validate.to_s}},
                         {"optimiser", "NLopt BOBYQA"},
                         {"runs", out.runs},
                         {"coarse", {{"cell_m", out.coarse_runs > 0 ? r.coarse_cell_m : 0.0}, {"runs", out.coarse_runs}}},
                         {"stop", out.stop},
                         {"parameters", params},
                         {"train", {{"before", statsJson(out.train_before)}, {"after", statsJson(out.train_after)}}},
                         {"validate", {{"before", statsJson(out.validate_before)}, {"after", statsJson(out.validate_after)}}}};
    if (r.engine.drive.size() > 0) block["driven_by"] = r.engine.drive.front().source.substr(0, r.engine.drive.front().source.find(": "));
    s.calibration_json = block.dump();
    return s;
}

}  // namespace

CalibResult calibrate(const CalibRequest& r) {
    if (r.params.empty()) throw InputError("calibrate: no parameters to fit");
    if (!(r.train.to_s > r.train.from_s) || !(r.validate.to_s > r.validate.from_s))
        throw InputError("calibrate: the training and validation windows must each end after they start");
    if (r.measured.series.empty()) throw InputError("calibrate: no measured series to score against");
    const auto t0 = Clock::now();
    Evaluator ev{r, r.measured.series, {}, r.engine};
    // The baseline's supply: the measured units' (scorePairs wants it for inlets; the objective ignores it).
    if (!r.measured.unit_supply.empty()) ev.supply = r.measured.unit_supply.front();
    const double end_s = std::max(r.train.to_s, r.validate.to_s);
    CalibResult out;
    out.params = r.params;
    std::vector<double> x0;
    for (const auto& p : r.params) x0.push_back(p.start);
    ev.simulate(x0, end_s);
    if (ev.stopped) {
        out.cancelled = true;
        return out;
    }
    out.train_before = ev.score(r.train);
    out.validate_before = ev.score(r.validate);
    if (out.train_before.n == 0 || out.validate_before.n == 0)
        throw InputError("calibrate: no measured sample falls in the " + std::string(out.train_before.n == 0 ? "training" : "validation") +
                         " window on the run's clock");
    // The search over the parameters scaled to [0, 1] from the starts, first steps a fifth of each range; with
    // a coarse grid, its runs first, then the fine grid's from where they ended with steps a twentieth.
    const unsigned n = static_cast<unsigned>(r.params.size());
    std::vector<double> u(n);
    for (unsigned i = 0; i < n; ++i) u[i] = (r.params[i].start - r.params[i].min) / (r.params[i].max - r.params[i].min);
    int fine_runs = r.max_runs;
    double fine_step = 0.2;
    if (r.coarse_cell_m > r.engine.cell_m) {
        const auto c0 = Clock::now();
        const int coarse = std::clamp(r.coarse_runs > 0 ? r.coarse_runs : r.max_runs / 2, 1, std::max(1, r.max_runs - 1));
        ev.engine.cell_m = r.coarse_cell_m;
        const int before = ev.runs;
        search(ev, u, 0.2, coarse);
        out.coarse_runs = ev.runs - before;
        out.coarse_wall_s = std::chrono::duration<double>(Clock::now() - c0).count();
        ev.engine.cell_m = r.engine.cell_m;
        fine_runs = std::max(1, r.max_runs - out.coarse_runs);
        fine_step = 0.05;
    }
    const nlopt_result res = ev.stopped ? NLOPT_FORCED_STOP : search(ev, u, fine_step, fine_runs);
    out.stop = ev.stopped ? "cancelled" : stopReason(res);
    out.cancelled = ev.stopped;
    std::vector<double> x(n);
    for (unsigned i = 0; i < n; ++i) {
        x[i] = r.params[i].min + u[i] * (r.params[i].max - r.params[i].min);
        out.params[i].value = x[i];
    }
    if (!out.cancelled) {
        ev.simulate(x, end_s);
        out.train_after = ev.score(r.train);
        out.validate_after = ev.score(r.validate);
    }
    out.runs = ev.runs;
    out.run_wall_s = ev.longest_s;
    out.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!out.cancelled) out.calibrated = calibratedScenario(r, out);
    return out;
}

}  // namespace ct::session
