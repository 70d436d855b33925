// clustertwin-cli calibrate: fits a scenario's physical parameters to a hall's measurements (session/calibrate.hpp).
#include "calibrate.hpp"
#include "io.hpp"
#include "simulate_drive.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/runs/error.hpp>
#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/drive.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/sim/backend.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace ct::cli {

const char* kCalibrateHelp =
    R"(Usage: clustertwin-cli calibrate SCENARIO --measured DB --params P.json --train A..B --validate C..D -o OUT.json

Fits a few named physical parameters of the scenario so that runs driven by the hall's measured inputs (as
simulate --drive) reproduce its measured outputs (as score) on a training window, within bounds, and reports
the score on a validation window before and after: the
test of a fit is data it was not fitted to. Writes the calibrated scenario with the fitted values and a
"calibration" block (parameters, windows, measurements, scores). docs/calibration.md explains the loop.
  --measured DB       the hall's telemetry (clustertwin-cli import);  --measured-run N  its run (the latest)
  --map FILE          names that do not match by themselves (as simulate --drive-map)
  --params FILE       {"parameters": [{"name": N, "target"?: ID or "*", "min"?, "max"?, "start"?}]}; names:
%PARAMS%                      unit_airflow_scale with no "start" starts where the units' measured return air puts
                      their airflow (their heat balance), when it is measured
  --train A..B        the training window on the run's clock: durations from t = 0 (0..2h) or ISO 8601
  --validate C..D     the validation window, likewise (2h..3h)
  -o, --out FILE      the calibrated scenario (written atomically)
  --metric M          what is scored (repeatable; inlet_c)
  --air S, --cell M, --step T   the runs' room air (the scenario's, else lbm), grid and engine step (10s)
  --lattice-stride N  lbm: the lattice runs one interval in N once the flow has settled (4; as simulate's)
  --backend B         the runs' backend: cpu (the reference), cuda or auto, as simulate's
  --sample-every T    how often the runs sample the scored series (60s)
  --average T         fit each series' errors averaged over windows of T (0: every sample): what no parameter
                      decides, a lattice room's eddies, averages out (10min there). Scores stay per sample
  --method lm|bobyqa  lm (default): Levenberg-Marquardt on every scored sample's error, its Jacobian from
                      finite differences (a tenth of each range) kept current by Broyden's update: one run
                      per step. bobyqa: NLopt's derivative-free BOBYQA on the RMSE alone (many more runs)
  --weights W         lm: noise (default): each series' errors weighted by its own noise, estimated from how
                      much they change from one sample to the next in the start's run (a lattice room's
                      sensors over a hot aisle swing ten times more than its inlets); a series read in steps
                      (whole degrees) by its rounding's noise (0.29 K) and the eddies the twin's own series
                      show; equal: every sample alike
  --max-runs N        runs at --cell the optimiser may take (lm 20, bobyqa 60); one more scores the start
  --coarse-cell M     runs on this coarser grid where they are cheap: lm takes its Jacobian there (the runs
                      at --cell correct it); bobyqa searches there, corrected by runs at --cell (manifold
                      mapping); the fit and the scores are --cell's
  --coarse-runs N     bobyqa: the most runs of each coarse search (--max-runs / (--fine-runs + 1), >= 2n + 3)
  --fine-runs N       bobyqa: the most runs at --cell between the coarse searches (3)
  --drive-from T, --drive-max-gap T   as simulate's
  --json              the result as one JSON object on stdout
  -q, --quiet         no progress
Ctrl-C stops after the current run: nothing is written. Exit codes: 0 calibrated, 1 runtime error, 2 usage error
or input that does not fit together, 130 interrupted.
)";

std::string calibrateHelp() {
    std::string list;
    for (const auto& p : session::calibrationParameters()) {
        std::string target;  // "a rack", "an entity"
        if (p.target[0]) target = std::string(std::strchr("aeiou", p.target[0]) ? " (target: an " : " (target: a ") + p.target + ")";
        list += std::string("                        ") + p.name + target + ": " + p.help + "\n";
    }
    std::string h = kCalibrateHelp;
    h.replace(h.find("%PARAMS%"), 8, list);
    return h;
}

namespace {

using json = nlohmann::ordered_json;
namespace m = ct::model;

/// "A..B" (session::parseWindow), its problems as usage errors naming the option.
session::Window windowArg(const Args& a, const char* opt, double origin) {
    try {
        return session::parseWindow(a.get(opt), origin);
    } catch (const session::InputError& e) {
        throw UsageError(std::string("--") + opt + ": " + e.what());
    }
}

json statsJson(const runs::ErrorStats& s) {
    auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    return {{"n", s.n}, {"rmse", num(s.rmse)}, {"mae", num(s.mae)}, {"bias", num(s.bias)}};
}

/// The request from the options and the loaded scenario: the drive, what is scored, the parameters.
session::CalibRequest requestFor(const Args& a, m::ValidationReport& rep, session::DrivePlan& plan) {
    session::DriveRequest d;
    d.db_path = a.get("measured");
    if (a.has("measured-run")) d.run = a.getInt("measured-run", 0);
    d.map_path = a.get("map", "");
    if (a.has("drive-from")) d.from_unix = instantArg(a, "drive-from");
    if (a.has("drive-max-gap")) d.max_gap_s = m::parseDurationS(a.get("drive-max-gap"));
    session::CalibRequest r = session::calibrationRequest(rep.scenario, rep.catalog, d, a.all("metric"), plan);
    r.engine.step_s = m::parseDurationS(a.get("step", "10s"));
    r.engine.cell_m = a.getDouble("cell", r.engine.cell_m);
    r.engine.air = a.get("air", "");
    r.engine.lattice_stride = a.getInt("lattice-stride", r.engine.lattice_stride);
    if (r.engine.lattice_stride < 1) throw UsageError("--lattice-stride must be >= 1");
    r.engine.backend = a.get("backend", "cpu");
    if (r.engine.backend != "cpu" && r.engine.backend != "cuda" && r.engine.backend != "auto")
        throw UsageError("--backend must be cpu, cuda or auto");
    sim::chooseBackend(r.engine.backend);  // no device: an error that says why, before the first run
    r.sample_s = m::parseDurationS(a.get("sample-every", "60s"));
    r.average_s = m::parseDurationS(a.get("average", "0"));
    if (!(r.average_s >= 0)) throw UsageError("--average must be >= 0");
    const std::string method = a.get("method", "lm");
    if (method != "lm" && method != "bobyqa") throw UsageError("--method must be lm or bobyqa");
    r.method = method == "lm" ? session::CalibMethod::LeastSquares : session::CalibMethod::Bobyqa;
    r.max_runs = a.getInt("max-runs", method == "lm" ? 20 : 60);
    const std::string weights = a.get("weights", "noise");
    if (weights != "noise" && weights != "equal") throw UsageError("--weights must be noise or equal");
    r.noise_weights = weights == "noise";
    if (!(r.sample_s > 0) || r.max_runs < 1) throw UsageError("--sample-every must be > 0 and --max-runs >= 1");
    r.coarse_cell_m = a.getDouble("coarse-cell", 0);
    r.coarse_runs = a.getInt("coarse-runs", 0);
    if (a.has("coarse-cell") && !(r.coarse_cell_m > r.engine.cell_m))
        throw UsageError("--coarse-cell must be coarser than the runs' grid (" + std::to_string(r.engine.cell_m).substr(0, 4) + " m)");
    if (r.coarse_runs < 0 || r.coarse_runs >= r.max_runs)
        throw UsageError("--coarse-runs must be within 0.." + std::to_string(r.max_runs - 1));
    r.fine_runs = a.getInt("fine-runs", r.fine_runs);
    if (r.fine_runs < 1) throw UsageError("--fine-runs must be >= 1");
    r.train = windowArg(a, "train", plan.origin_unix);
    r.validate = windowArg(a, "validate", plan.origin_unix);
    r.params = session::loadCalibParams(a.get("params"));
    return r;
}

void printResult(const session::CalibResult& res, const std::string& out) {
    std::printf("calibrate: %d runs (the longest %.1f s), %.0f s in all; stopped: %s\n", res.runs, res.run_wall_s, res.wall_s,
                res.stop.c_str());
    if (res.iterations > 0)
        std::printf(
            "calibrate: least squares, %d steps and %d Jacobians (%d of them went on from one of their own runs); %d runs on the "
            "runs' grid besides the start's, %d on the coarse grid (%.0f s)\n",
            res.iterations, res.jacobians, res.moved, res.fine_runs, res.coarse_runs, res.coarse_wall_s);
    else if (res.coarse_runs > 0)
        std::printf("calibrate: %d of them on the coarse grid (%.0f s), corrected by %d on the runs' grid (manifold mapping, %.0f s)\n",
                    res.coarse_runs, res.coarse_wall_s, res.fine_runs, res.space_mapping_s - res.coarse_wall_s);
    for (const auto& [name, v] : res.heat_balance_starts)
        std::printf(
            "calibrate: the search started %s at %.4g, the airflow the units' measured return air says they moved at the "
            "busiest time (their heat balance)\n",
            name.c_str(), v);
    if (res.iterations > 0 && res.weight_max > res.weight_min)
        std::printf("calibrate: each series weighted by its noise, %.3g to %.3g (1: the median series)\n", res.weight_min, res.weight_max);
    if (res.quantised_series > 0)
        std::printf(
            "calibrate: %d series read in steps of %.3g: their noise is the rounding's (a step over sqrt(12)) and the "
            "eddies the twin's own series show, not their steps\n",
            res.quantised_series, res.resolution);
    std::printf("%-22s %-14s %10s %10s %10s\n", "parameter", "target", "start", "fitted", "bounds");
    for (const auto& p : res.params)
        std::printf("%-22s %-14s %10.4g %10.4g  %g..%g\n", p.name.c_str(), p.target.c_str(), p.start, p.value, p.min, p.max);
    std::printf("%-22s %10s %10s %10s %10s\n", "RMSE / MAE / bias", "before", "", "after", "");
    auto line = [](const char* what, const runs::ErrorStats& b, const runs::ErrorStats& a) {
        std::printf("%-10s (n %6zu)  RMSE %.3f -> %.3f   MAE %.3f -> %.3f   bias %+.3f -> %+.3f\n", what, b.n, b.rmse, a.rmse, b.mae, a.mae,
                    b.bias, a.bias);
    };
    line("training", res.train_before, res.train_after);
    line("validation", res.validate_before, res.validate_after);
    std::printf("calibrate: the calibrated scenario is %s\n", out.c_str());
}

}  // namespace

int cmdCalibrate(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    for (const char* need : {"measured", "params", "train", "validate", "out"})
        if (!a.has(need)) throw UsageError(std::string("calibrate needs --") + need);
    const std::string file = a.positional()[0], out = a.get("out");
    m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (m::hasErrors(rep.diagnostics)) return 2;
    session::DrivePlan plan;
    session::CalibRequest req;
    try {
        req = requestFor(a, rep, plan);
    } catch (const session::InputError& e) {
        std::cerr << "calibrate: " << e.what() << "\n";
        return 2;
    } catch (const m::ModelError& e) {
        throw UsageError(e.what());
    }
    const bool quiet = a.flag("quiet");
    if (!quiet)
        std::cerr << "calibrate: " << req.params.size() << " parameters against " << req.measured.series.size() << " measured series of "
                  << plan.measured_label << " (t = 0 at " << m::formatIsoTime(plan.origin_unix) << "), driven by " << plan.series.size()
                  << " measured inputs\n";
    catchInterrupt();
    req.cancelled = [] { return interrupted(); };
    if (!quiet)
        req.log = [](const session::CalibRequest::RunLog& l) {
            std::string x;
            for (double v : l.x) x += (x.empty() ? "" : ", ") + std::to_string(v).substr(0, 6);
            std::fprintf(stderr, "calibrate: run %d (%.2f m, %.1f s) at %s: training RMSE %.4f\n", l.run, l.cell_m, l.wall_s, x.c_str(),
                         l.train_rmse);
        };
    session::CalibResult res;
    try {
        res = session::calibrate(req);
    } catch (const session::InputError& e) {
        std::cerr << "calibrate: " << e.what() << "\n";
        return 2;
    }
    if (res.cancelled) {
        std::cerr << "calibrate: interrupted after " << res.runs << " runs; nothing was written\n";
        return 130;
    }
    m::saveScenarioFile(res.calibrated, out);
    if (a.flag("json")) {
        json params = json::array();
        for (const auto& p : res.params)
            params.push_back(
                {{"name", p.name}, {"target", p.target}, {"start", p.start}, {"value", p.value}, {"min", p.min}, {"max", p.max}});
        json starts = json::array();
        for (const auto& [name, v] : res.heat_balance_starts) starts.push_back({{"name", name}, {"start", v}});
        std::cout << json{{"runs", res.runs},
                          {"wall_s", res.wall_s},
                          {"longest_run_s", res.run_wall_s},
                          {"coarse_runs", res.coarse_runs},
                          {"fine_runs", res.fine_runs},
                          {"coarse_wall_s", res.coarse_wall_s},
                          {"method", req.method == session::CalibMethod::LeastSquares ? "lm" : "bobyqa"},
                          {"iterations", res.iterations},
                          {"jacobians", res.jacobians},
                          {"moved", res.moved},
                          {"weights",
                           {{"noise", req.noise_weights && req.method == session::CalibMethod::LeastSquares},
                            {"min", res.weight_min},
                            {"max", res.weight_max},
                            {"quantised", res.quantised_series},
                            {"resolution", res.resolution}}},
                          {"stop", res.stop},
                          {"heat_balance_starts", starts},
                          {"parameters", params},
                          {"train", {{"before", statsJson(res.train_before)}, {"after", statsJson(res.train_after)}}},
                          {"validate", {{"before", statsJson(res.validate_before)}, {"after", statsJson(res.validate_after)}}},
                          {"out", out}}
                         .dump(2)
                  << "\n";
    } else {
        printResult(res, out);
    }
    return 0;
}

}  // namespace ct::cli
