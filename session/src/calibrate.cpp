// Calibration (calibrate.hpp): runs in memory, scored on a window, fitted by NLopt's BOBYQA; with a coarse grid,
// the search runs on it mapped onto the fine grid by a few fine runs (manifold mapping).
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/frame_series.hpp>
#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/least_squares.hpp>
#include <clustertwin/session/manifold_map.hpp>
#include <clustertwin/session/measured.hpp>

#include <nlopt.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <memory>
#include <numeric>

namespace ct::session {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// A parameter that belongs to the scoring, not to the runs.
bool scoringOnly(const CalibParam& p) { return p.name == "sensor_offset"; }

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

/// One evaluation's engine, kept so that a run can go on later (the best fine run to the validation window's end).
struct Run {
    std::vector<double> x;
    std::unique_ptr<sim::Engine> engine;
    std::vector<Probe> probes;
    std::vector<runs::Points> raw;  ///< the scored series as the engine gave them
    double next_sample = 0;
    /// Cooling units (index in the frame) whose airflow, return and supply each sample adds to a heat balance:
    /// the start run's, for heatBalanceStarts.
    std::vector<std::pair<std::size_t, UnitHeatBalance*>> watched;
};

struct Evaluator {
    const CalibRequest& r;
    std::vector<PairedSeries> pairs;  ///< measured as requested; simulated: the last run's, offset and corrected
    runs::Points supply;
    sim::EngineOptions engine;  ///< r.engine, on the grid of the current stage
    /// While set, each run's series are mapped onto the fine grid's (space mapping) at `times` (per pair).
    const ManifoldMap* mapping = nullptr;
    std::vector<std::vector<double>> times;
    /// Least squares: each pair's weight in the residuals (noiseWeights of the start's), or none (all 1).
    std::vector<double> weight;
    int runs = 0;
    double longest_s = 0, last_s = 0;
    bool stopped = false;

    /// A new run of the scenario with parameters x, at t = 0.
    Run start(const std::vector<double>& x) const {
        model::Scenario s = r.scenario;
        model::Catalog c = r.catalog;
        applyCalibParams(s, c, r.params, x);
        Run run{x, std::make_unique<sim::Engine>(s, c, engine), {}, std::vector<runs::Points>(pairs.size()), 0, {}};
        for (const auto& p : pairs) {
            auto pr = probeOf(run.engine->frame(), p.kind, p.entity, p.metric);
            if (!pr) throw InputError("calibrate: the twin has no " + p.metric + " of " + p.entity);
            run.probes.push_back(std::move(*pr));
        }
        return run;
    }

    /// Steps `run` up to `until_s`, sampling every scored series; pairs' simulated series become its own.
    void advance(Run& run, double until_s) {
        const auto t0 = Clock::now();
        auto sample = [&](const model::Frame& f) {
            for (std::size_t i = 0; i < run.probes.size(); ++i) run.raw[i].emplace_back(f.time_s, run.probes[i].get(f));
            for (auto& [i, b] : run.watched) {
                const model::CoolingUnitFrame& u = f.cooling_units[i];
                b->airflow.emplace_back(f.time_s, u.airflow_m3s);
                b->return_c.emplace_back(f.time_s, u.return_c);
                b->supply_c.emplace_back(f.time_s, u.supply_c);
            }
            run.next_sample += r.sample_s;
        };
        if (run.raw.front().empty()) sample(run.engine->frame());
        while (run.engine->timeS() + 1e-9 < until_s) {
            if (r.cancelled && r.cancelled()) {
                stopped = true;
                return;
            }
            const model::Frame& f = run.engine->step();
            if (f.time_s + 1e-9 >= run.next_sample || f.time_s + 1e-9 >= until_s) sample(f);
        }
        for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i].simulated = run.raw[i];
        offsets(run.x);
        corrected();
        last_s = std::chrono::duration<double>(Clock::now() - t0).count();
        longest_s = std::max(longest_s, last_s);
    }

    void report(const std::vector<double>& x, double rmse) const {
        if (r.progress) r.progress(runs, rmse);
        if (r.log) r.log({runs, engine.cell_m, x, rmse, last_s});
    }

    /// A run with parameters x up to `until_s` (one evaluation).
    void simulate(const std::vector<double>& x, double until_s) {
        Run run = start(x);
        advance(run, until_s);
        if (!stopped) ++runs;
    }

    /// sensor_offset: the twin's temperatures of the target entities read that much warmer.
    void offsets(const std::vector<double>& x) {
        for (std::size_t k = 0; k < r.params.size(); ++k) {
            if (!scoringOnly(r.params[k])) continue;
            for (auto& p : pairs)
                if (p.unit == "degC" && (r.params[k].target == "*" || r.params[k].target == p.entity))
                    for (auto& pt : p.simulated) pt.second += x[k];
        }
    }

    /// The simulated series at `times`, one after another: a run's response.
    std::vector<double> response(const std::vector<runs::Points>& series) const {
        std::vector<double> out;
        for (std::size_t i = 0; i < times.size(); ++i)
            for (double t : times[i]) out.push_back(runs::interpolateAt(series[i], t));
        return out;
    }

    void corrected() {
        if (!mapping) return;
        const std::vector<double> mapped = mapping->map(response(series()));
        std::size_t n = 0;
        for (std::size_t i = 0; i < times.size(); ++i) {
            pairs[i].simulated.clear();
            for (double t : times[i]) pairs[i].simulated.emplace_back(t, mapped[n++]);
        }
    }

    std::vector<runs::Points> series() const {
        std::vector<runs::Points> out;
        for (const auto& p : pairs) out.push_back(p.simulated);
        return out;
    }

    /// The last run's residuals on `w`, series by series: simulated − measured at every measured sample scored
    /// there (0 where the run has no value: no error there). With `averaged` and r.average_s, each series'
    /// residuals averaged over its windows (multiples of average_s on the run's clock), one per window.
    std::vector<std::vector<double>> seriesResiduals(const Window& w, bool averaged) const {
        std::vector<std::vector<double>> all;
        for (const auto& p : pairs) {
            std::vector<double>& out = all.emplace_back();
            long long window = std::numeric_limits<long long>::min();
            double sum = 0;
            int n = 0;
            auto close = [&] {
                if (n > 0) out.push_back(sum / n);
                sum = 0;
                n = 0;
            };
            for (const auto& [t, y] : p.measured) {
                if (t < w.from_s || t > w.to_s || std::isnan(y)) continue;
                const double s = runs::interpolateAt(p.simulated, t);
                const double e = std::isnan(s) ? 0.0 : s - y;
                if (!(averaged && r.average_s > 0)) {
                    out.push_back(e);
                    continue;
                }
                const auto k = static_cast<long long>(std::floor(t / r.average_s));
                if (k != window) close();
                window = k;
                sum += e;
                ++n;
            }
            close();
        }
        return all;
    }

    /// What the fit minimises the squares of: seriesResiduals (averaged), each series' times its weight, the
    /// series one after another.
    std::vector<double> residuals(const Window& w) const {
        std::vector<double> out;
        const auto all = seriesResiduals(w, true);
        for (std::size_t i = 0; i < all.size(); ++i)
            for (double e : all[i]) out.push_back(weight.empty() ? e : weight[i] * e);
        return out;
    }

    /// The residuals' derivative by parameter k when it only offsets scored temperatures (sensor_offset): 1 for
    /// each sample it offsets.
    std::vector<double> offsetColumn(std::size_t k, const Window& w) const {
        std::vector<double> out;
        const CalibParam& prm = r.params[k];
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const PairedSeries& p = pairs[i];
            const double v = p.unit == "degC" && (prm.target == "*" || prm.target == p.entity) ? (weight.empty() ? 1.0 : weight[i]) : 0.0;
            long long window = std::numeric_limits<long long>::min();
            for (const auto& [t, y] : p.measured) {
                if (t < w.from_s || t > w.to_s || std::isnan(y)) continue;
                // One per residual: a sample, or a window's mean.
                const bool averaged = r.average_s > 0;
                const long long k2 = averaged ? static_cast<long long>(std::floor(t / r.average_s)) : 0;
                if (!averaged || k2 != window) out.push_back(v);
                window = k2;
            }
        }
        return out;
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
    ev.report(x, s.rmse);
    return std::isfinite(s.rmse) ? s.rmse : HUGE_VAL;
}

std::string stopReason(nlopt_result res) {
    switch (res) {
        case NLOPT_SUCCESS:
            return "converged";
        case NLOPT_FTOL_REACHED:
            return "the error stopped improving, NLopt's ftol";
        case NLOPT_XTOL_REACHED:
            return "the parameters stopped moving, NLopt's xtol";
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
nlopt_result search(Evaluator& ev, std::vector<double>& u, double step, int max_runs, double xtol = 1e-3, double ftol_rel = 0) {
    const unsigned n = static_cast<unsigned>(u.size());
    nlopt_opt opt = nlopt_create(n == 1 ? NLOPT_LN_SBPLX : NLOPT_LN_BOBYQA, n);
    std::vector<double> lo(n, 0.0), hi(n, 1.0), steps(n, step);
    nlopt_set_lower_bounds(opt, lo.data());
    nlopt_set_upper_bounds(opt, hi.data());
    nlopt_set_initial_step(opt, steps.data());
    nlopt_set_min_objective(opt, objective, &ev);
    nlopt_set_maxeval(opt, std::max(1, max_runs));
    nlopt_set_xtol_abs1(opt, xtol);
    nlopt_set_ftol_abs(opt, 1e-4);
    if (ftol_rel > 0) nlopt_set_ftol_rel(opt, ftol_rel);
    double best = 0;
    const nlopt_result res = nlopt_optimize(opt, u.data(), &best);
    nlopt_destroy(opt);
    for (double& v : u) v = std::clamp(v, 0.0, 1.0);
    return res;
}

}  // namespace

namespace {

/// A run on the fine grid, kept so that it can go on: what it gave (offset, not corrected) and how it scored.
struct FineRun {
    Run run;
    std::vector<runs::Points> series;
    runs::ErrorStats train, validate;
    double sse = kInf;  ///< least squares: the sum of squares of its (weighted) training residuals
};

double sumOfSquares(const std::vector<double>& v) { return std::inner_product(v.begin(), v.end(), v.begin(), 0.0); }

std::vector<double> toUnit(const std::vector<CalibParam>& ps, const std::vector<double>& x) {
    std::vector<double> u(ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) u[i] = std::clamp((x[i] - ps[i].min) / (ps[i].max - ps[i].min), 0.0, 1.0);
    return u;
}

std::vector<double> fromUnit(const std::vector<CalibParam>& ps, const std::vector<double>& u) {
    std::vector<double> x(ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) x[i] = ps[i].min + u[i] * (ps[i].max - ps[i].min);
    return x;
}

/// Steps a fine run on to `until_s` (from where it is) and scores it: on the training window, and on the
/// validation window once it got there.
void goOn(Evaluator& ev, FineRun& f, double until_s) {
    ev.mapping = nullptr;
    ev.advance(f.run, until_s);
    f.series = ev.series();
    f.train = ev.score(ev.r.train);
    if (f.run.engine->timeS() + 1e-9 >= ev.r.validate.to_s) f.validate = ev.score(ev.r.validate);
}

FineRun fineRun(Evaluator& ev, const std::vector<double>& x, double until_s, std::vector<HeatBalanceStart>* watch = nullptr) {
    FineRun f{ev.start(x), {}, {}, {}};
    if (watch) {  // the start run: the units a heat balance may start from, as the twin moves them
        const auto& units = f.run.engine->frame().cooling_units;
        for (auto& h : *watch)
            for (std::size_t k = 0; k < h.units.size(); ++k)
                for (std::size_t i = 0; i < units.size(); ++i)
                    if (units[i].id == h.units[k]) f.run.watched.emplace_back(i, &h.balance[k]);
    }
    goOn(ev, f, until_s);
    f.run.watched.clear();
    if (ev.stopped) return f;
    ++ev.runs;
    ev.report(x, f.train.rmse);
    return f;
}

/// Space mapping by manifold mapping (manifold_map.hpp): the optimiser searches on the coarse grid, each coarse
/// run's series mapped onto the fine grid's through the pairs of fine and coarse runs so far (at first: shifted
/// to equal the fine run at the start). Each search's result is run on the fine grid over the training window,
/// with a coarse run there it makes the next pair, until the parameters stop moving, the fine error stops
/// falling or `fine_runs` fine runs are spent. Returns the best fine run (`start` when none beat it); only that
/// one goes on through the validation window.
FineRun spaceMapped(Evaluator& ev, FineRun start, CalibResult& out, nlopt_result& res) {
    const CalibRequest& r = ev.r;
    const auto t0 = Clock::now();
    // By default the runs are shared between the searches, each at least BOBYQA's 2n + 1 to start and two steps.
    const int n = static_cast<int>(r.params.size());
    const int per_search = r.coarse_runs > 0 ? r.coarse_runs : std::max(2 * n + 3, r.max_runs / (std::max(1, r.fine_runs) + 1));
    ev.times.assign(ev.pairs.size(), {});
    for (std::size_t i = 0; i < ev.pairs.size(); ++i)
        for (const auto& pt : start.series[i])
            if (pt.first <= r.train.to_s + 1e-9) ev.times[i].push_back(pt.first);
    ManifoldMap map(r.params.size());
    std::vector<double> x = start.run.x;
    std::vector<runs::Points> fine = start.series;
    FineRun best = std::move(start);
    for (int k = 0; k < std::max(1, r.fine_runs) && !ev.stopped; ++k) {
        const int left = r.max_runs - ev.runs + 1;  // the start's run is not counted
        if (left < 3) break;
        ev.engine.cell_m = r.coarse_cell_m;
        ev.mapping = nullptr;
        const auto c0 = Clock::now();
        const int before = ev.runs;
        ev.simulate(x, r.train.to_s);
        if (ev.stopped) break;
        map.add(ev.response(fine), ev.response(ev.series()));
        ev.mapping = &map;
        std::vector<double> u = toUnit(r.params, x);
        const std::vector<double> u0 = u;
        // The mapped model is only as good as the fine runs behind it: no need to pin its optimum closer than
        // the next fine run will move it.
        res = search(ev, u, k == 0 ? 0.2 : 0.05, std::min(per_search, left - 2), 5e-3, 1e-3);
        out.coarse_runs += ev.runs - before;
        out.coarse_wall_s += std::chrono::duration<double>(Clock::now() - c0).count();
        ev.mapping = nullptr;
        ev.engine.cell_m = r.engine.cell_m;
        double moved = 0;
        for (std::size_t i = 0; i < u.size(); ++i) moved = std::max(moved, std::abs(u[i] - u0[i]));
        if (ev.stopped || moved < 2e-3) break;  // the mapped model's optimum is where the fine run was
        x = fromUnit(r.params, u);
        FineRun cur = fineRun(ev, x, r.train.to_s);
        ++out.fine_runs;
        if (ev.stopped) break;
        fine = cur.series;
        const double prev = best.train.rmse;
        if (cur.train.rmse < prev) best = std::move(cur);
        if (prev - best.train.rmse < 0.01 * prev && k > 0) break;  // the fine error hardly falls any more
    }
    out.space_mapping_s = std::chrono::duration<double>(Clock::now() - t0).count();
    return best;
}

/// A Jacobian of the training residuals at u (parameters scaled to [0, 1]), where the runs' grid gives `res`
/// (least_squares.hpp's differenceJacobian): on the coarse grid when there is one (its own base run there, a
/// secant for every parameter), the scoring's own parameters (sensor_offset) exact. On the runs' grid its runs
/// are scored like any other and `keep` offered each (the best run so far may be one of them) with `seen`
/// their residuals; `fine_runs`: the runs it took on the runs' grid.
std::optional<Jacobian> differences(Evaluator& ev, const std::vector<double>& u, const std::vector<double>& res, CalibResult& out,
                                    int& fine_runs, std::vector<Evaluation>& seen, const std::function<void(FineRun&&)>& keep) {
    const CalibRequest& r = ev.r;
    const bool coarse = r.coarse_cell_m > r.engine.cell_m;
    const auto c0 = Clock::now();
    const int before = ev.runs;
    DifferenceProblem dp;
    dp.secant_always = coarse;
    dp.run = [&](const std::vector<double>& at) -> std::optional<std::vector<double>> {
        ev.mapping = nullptr;
        if (coarse) {
            ev.simulate(fromUnit(r.params, at), r.train.to_s);
            if (ev.stopped) return std::nullopt;
            ev.report(fromUnit(r.params, at), ev.score(r.train).rmse);
            return ev.residuals(r.train);
        }
        FineRun f = fineRun(ev, fromUnit(r.params, at), r.train.to_s);
        if (ev.stopped) return std::nullopt;
        std::vector<double> rr = ev.residuals(r.train);
        f.sse = sumOfSquares(rr);
        keep(std::move(f));
        return rr;
    };
    for (const auto& prm : r.params) dp.exact.push_back(scoringOnly(prm));
    dp.exact_column = [&](std::size_t k) {
        std::vector<double> col = ev.offsetColumn(k, r.train);
        for (double& v : col) v *= r.params[k].max - r.params[k].min;
        return col;
    };
    ev.engine.cell_m = coarse ? r.coarse_cell_m : r.engine.cell_m;
    std::vector<double> base = res;
    if (coarse) {
        auto b = dp.run(u);
        if (!b) return std::nullopt;
        base = std::move(*b);
    }
    auto dj = differenceJacobian(dp, u, base);
    ev.engine.cell_m = r.engine.cell_m;
    if (!dj) return std::nullopt;
    fine_runs = coarse ? 0 : ev.runs - before;
    if (coarse) {
        out.coarse_runs += ev.runs - before;
        out.coarse_wall_s += std::chrono::duration<double>(Clock::now() - c0).count();
    } else {
        out.fine_runs += fine_runs;
        seen = std::move(dj->runs);
    }
    return std::move(dj->jac);
}

/// The default method (least_squares.hpp): Levenberg–Marquardt on the training window's residuals, each
/// iteration one run on the runs' grid, its Jacobian from `differences` (on the coarse grid the fine runs then
/// correct it by Broyden's update). Returns the best fine run (`start` when none beat it).
FineRun leastSquares(Evaluator& ev, FineRun start, CalibResult& out) {
    const CalibRequest& r = ev.r;
    const auto t0 = Clock::now();
    LeastSquaresProblem p;
    p.n = r.params.size();
    p.max_runs = r.max_runs;
    for (const auto& prm : r.params) p.exact.push_back(scoringOnly(prm));
    FineRun best = std::move(start);
    for (std::size_t i = 0; i < ev.pairs.size(); ++i) ev.pairs[i].simulated = best.series[i];
    // Each series weighted by its noise as the start's residuals show it (noiseWeights): a lattice room's strip
    // sensors over its hot aisle swing by a kelvin from minute to minute, its inlets and the units' return air by
    // a tenth, and unweighted the swings of the few would drown what the others say about the parameters.
    if (r.noise_weights) {
        ev.weight = noiseWeights(ev.seriesResiduals(r.train, false));
        const auto [lo, hi] = std::minmax_element(ev.weight.begin(), ev.weight.end());
        out.weight_min = *lo;
        out.weight_max = *hi;
    }
    const std::vector<double> r0 = ev.residuals(r.train);
    best.sse = sumOfSquares(r0);
    p.residuals = [&](const std::vector<double>& u) -> std::optional<std::vector<double>> {
        FineRun cur = fineRun(ev, fromUnit(r.params, u), r.train.to_s);
        if (ev.stopped) return std::nullopt;
        ++out.fine_runs;
        std::vector<double> res = ev.residuals(r.train);
        cur.sse = sumOfSquares(res);
        if (cur.sse < best.sse) best = std::move(cur);
        return res;
    };
    auto keep = [&](FineRun&& f) {
        if (f.sse < best.sse) best = std::move(f);
    };
    p.jacobian = [&](const std::vector<double>& u, const std::vector<double>& res, int& fine_runs, std::vector<Evaluation>& seen) {
        return differences(ev, u, res, out, fine_runs, seen, keep);
    };
    const LeastSquaresResult lsq = levenbergMarquardt(p, toUnit(r.params, best.run.x), r0);
    out.stop = lsq.stop;
    out.iterations = lsq.iterations;
    out.jacobians = lsq.jacobians;
    out.moved = lsq.moved;
    out.space_mapping_s = std::chrono::duration<double>(Clock::now() - t0).count();
    return best;
}

}  // namespace

CalibResult calibrate(const CalibRequest& r) {
    if (r.params.empty()) throw InputError("calibrate: no parameters to fit");
    if (!(r.train.to_s > r.train.from_s) || !(r.validate.to_s > r.validate.from_s))
        throw InputError("calibrate: the training and validation windows must each end after they start");
    if (r.measured.series.empty()) throw InputError("calibrate: no measured series to score against");
    const auto t0 = Clock::now();
    Evaluator ev{r, r.measured.series, {}, r.engine, nullptr, {}, {}};
    // The baseline's supply: the measured units' (scorePairs wants it for inlets; the objective ignores it).
    if (!r.measured.unit_supply.empty()) ev.supply = r.measured.unit_supply.front();
    const double end_s = std::max(r.train.to_s, r.validate.to_s);
    CalibResult out;
    out.params = r.params;
    std::vector<double> x0;
    for (const auto& p : r.params) x0.push_back(p.start);
    std::vector<HeatBalanceStart> balances = heatBalanceStarts(r);
    FineRun start = fineRun(ev, x0, end_s, &balances);
    if (ev.stopped) {
        out.cancelled = true;
        return out;
    }
    out.train_before = start.train;
    out.validate_before = start.validate;
    if (out.train_before.n == 0 || out.validate_before.n == 0)
        throw InputError("calibrate: no measured sample falls in the " + std::string(out.train_before.n == 0 ? "training" : "validation") +
                         " window on the run's clock");
    // A coolers' airflow scale the search would not see move (the hinge) starts where their heat balance puts
    // it: one more run, there, to start from.
    std::vector<double> from = x0;
    for (const auto& h : balances)
        if (const auto scale = airflowScaleFromHeatBalance(h.balance, r.train)) {
            const CalibParam& p = r.params[h.param];
            from[h.param] = std::clamp(*scale, p.min, p.max);
            out.heat_balance_starts.emplace_back(p.name, from[h.param]);
        }
    if (from != x0 && (r.method == CalibMethod::LeastSquares || r.coarse_cell_m > r.engine.cell_m)) {  // BOBYQA runs its own
        start = fineRun(ev, from, r.train.to_s);
        if (ev.stopped) {
            out.cancelled = true;
            return out;
        }
    }
    // The search over the parameters scaled to [0, 1], first steps a fifth of each range: on the runs' grid, or
    // on a coarse grid corrected by the fine one (space mapping), whose best fine run is the result.
    nlopt_result res = NLOPT_SUCCESS;
    FineRun result;
    if (r.method == CalibMethod::LeastSquares) {
        result = leastSquares(ev, std::move(start), out);
        if (!ev.stopped) goOn(ev, result, end_s);
    } else if (r.coarse_cell_m > r.engine.cell_m) {
        result = spaceMapped(ev, std::move(start), out, res);
        if (!ev.stopped) goOn(ev, result, end_s);  // through the validation window
    } else {
        std::vector<double> u = toUnit(r.params, from);
        res = search(ev, u, 0.2, r.max_runs);
        if (!ev.stopped) result = fineRun(ev, fromUnit(r.params, u), end_s);
    }
    out.stop = ev.stopped ? "cancelled" : r.method == CalibMethod::LeastSquares ? out.stop : stopReason(res);
    out.cancelled = ev.stopped;
    if (!out.cancelled) {
        for (std::size_t i = 0; i < out.params.size(); ++i) out.params[i].value = result.run.x[i];
        out.train_after = result.train;
        out.validate_after = result.validate;
    }
    out.runs = ev.runs;
    out.run_wall_s = ev.longest_s;
    out.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!out.cancelled) out.calibrated = calibratedScenario(r, out);
    return out;
}

}  // namespace ct::session
