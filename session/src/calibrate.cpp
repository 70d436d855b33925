// Calibration (calibrate.hpp): runs in memory (calibrate_eval.hpp), scored on a window, fitted by least squares
// (calibrate_lsq.cpp, the default) or NLopt's BOBYQA; with a coarse grid, the search runs on it mapped onto the
// fine grid by a few fine runs (manifold mapping).
#include <clustertwin/model/time.hpp>
#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/manifold_map.hpp>
#include <clustertwin/session/measured.hpp>

#include <nlopt.h>
#include <nlohmann/json.hpp>

#include "calibrate_eval.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>
#include <memory>

namespace ct::session {

using namespace calib;

namespace {

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
