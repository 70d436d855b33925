// Calibration's default search (calibrate.hpp, least_squares.hpp): Levenberg–Marquardt on the training window's
// residuals, its Jacobian from finite differences, every run judged with its offsets at their best.
#include <clustertwin/session/least_squares.hpp>

#include "calibrate_eval.hpp"

namespace ct::session::calib {

namespace {

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
        FineRun f = fineRun(ev, fromUnit(r.params, at), r.train.to_s, nullptr, false);
        if (ev.stopped) return std::nullopt;
        std::vector<double> rr = ev.residuals(r.train);
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

/// The training residuals' columns for the parameters that only offset scored temperatures (sensor_offset),
/// scaled to [0, 1] as the search's are, and which those are; the other columns are left empty.
std::pair<Jacobian, std::vector<bool>> exactColumns(const Evaluator& ev) {
    const CalibRequest& r = ev.r;
    Jacobian cols(r.params.size());
    std::vector<bool> exact(r.params.size(), false);
    for (std::size_t k = 0; k < r.params.size(); ++k)
        if (scoringOnly(r.params[k])) {
            exact[k] = true;
            cols[k] = ev.offsetColumn(k, r.train);
            for (double& v : cols[k]) v *= r.params[k].max - r.params[k].min;
        }
    return {std::move(cols), std::move(exact)};
}

/// A fine run judged as the least-squares search judges it (fitExact): its offsets at their best for its training
/// residuals, its series offset by them, its score and sum of squares again, and (`announce`) the run reported so.
/// Returns the residuals before.
std::vector<double> judge(Evaluator& ev, FineRun& f, const std::pair<Jacobian, std::vector<bool>>& exact, bool announce = true) {
    const CalibRequest& r = ev.r;
    auto offsetBy = [&](const std::vector<double>& x) {
        for (std::size_t i = 0; i < ev.pairs.size(); ++i) ev.pairs[i].simulated = f.run.raw[i];
        ev.offsets(x);
    };
    offsetBy(f.run.x);
    std::vector<double> before = ev.residuals(r.train), res = before;
    std::vector<double> u = toUnit(r.params, f.run.x);
    f.sse = fitExact(exact.first, exact.second, u, res);
    const std::vector<double> x = fromUnit(r.params, u);
    for (std::size_t k = 0; k < x.size(); ++k)
        if (exact.second[k]) f.run.x[k] = x[k];
    offsetBy(f.run.x);
    f.series = ev.series();
    f.train = ev.score(r.train);
    if (announce) ev.report(f.run.x, f.train.rmse);  // the run as judged: its offsets and score
    return before;
}

/// Each series weighted by its noise as the start's residuals show it (noiseWeights): a lattice room's strip
/// sensors over its hot aisle swing by a kelvin from minute to minute, its inlets and the units' return air by a
/// tenth, and unweighted the swings of the few would drown what the others say about the parameters. A series
/// whose sensor reads whole degrees says nothing of its noise by its steps (it repeats a reading, or flips between
/// two): its σ is its rounding's and the room's eddies as the twin's own series show them (quantisedSigma).
/// `ev.pairs` hold the start's simulated series.
void weighBySeriesNoise(Evaluator& ev, CalibResult& out) {
    const Window& train = ev.r.train;
    std::vector<std::vector<double>> measured, simulated;
    for (const auto& pair : ev.pairs) {
        std::vector<double>& values = measured.emplace_back();
        std::vector<double>& sim = simulated.emplace_back();
        for (const auto& [t, y] : pair.measured) {
            if (t < train.from_s || t > train.to_s || std::isnan(y)) continue;
            values.push_back(y);
            const double s = runs::interpolateAt(pair.simulated, t);
            if (!std::isnan(s)) sim.push_back(s);
        }
    }
    const std::vector<double> floors = quantisationFloors(measured);
    std::vector<double> sigma(floors.size());
    for (std::size_t i = 0; i < floors.size(); ++i) sigma[i] = quantisedSigma(floors[i], simulated[i]);
    ev.weight = noiseWeights(ev.seriesResiduals(train, false), sigma);
    std::vector<double> steps;
    for (double f : floors)
        if (f > 0) steps.push_back(f * std::sqrt(12.0));
    if (!steps.empty()) {
        std::nth_element(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(steps.size() / 2), steps.end());
        out.quantised_series = static_cast<int>(steps.size());
        out.resolution = steps[steps.size() / 2];
    }
    const auto [lo, hi] = std::minmax_element(ev.weight.begin(), ev.weight.end());
    out.weight_min = *lo;
    out.weight_max = *hi;
}

}  // namespace

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
    if (r.noise_weights) weighBySeriesNoise(ev, out);
    // Each run judged with its offsets at their best, as the search judges it (variable projection).
    const auto exact = exactColumns(ev);
    judge(ev, best, exact, false);  // reported as it was run
    const std::vector<double> r0 = ev.residuals(r.train);
    p.residuals = [&](const std::vector<double>& u) -> std::optional<std::vector<double>> {
        FineRun cur = fineRun(ev, fromUnit(r.params, u), r.train.to_s, nullptr, false);
        if (ev.stopped) return std::nullopt;
        ++out.fine_runs;
        std::vector<double> res = judge(ev, cur, exact);
        if (cur.sse < best.sse) best = std::move(cur);
        return res;
    };
    auto keep = [&](FineRun&& f) {
        judge(ev, f, exact);
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

}  // namespace ct::session::calib
