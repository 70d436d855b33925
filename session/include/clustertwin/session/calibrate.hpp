#pragma once
// Calibration against a hall's measurements (issue 44; `clustertwin-cli calibrate`): a few named physical
// parameters fitted by a derivative-free optimiser with bounds (NLopt's BOBYQA) so that runs driven by the
// measured inputs reproduce the measured outputs on a training window; the score on a validation window, before
// and after, says whether the fit holds on data it was not fitted to. Each evaluation steps an engine in memory
// (no database) and samples the scored series from its frames.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/session/score_run.hpp>
#include <clustertwin/sim/engine.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ct::session {

/// A parameter a calibration can fit: its name, what its target names ("*": all), its default bounds and start.
struct CalibParamInfo {
    const char* name;
    const char* target;  ///< "cooling unit", "cooling-unit model", "server model", "rack", "containment", "entity", "" (none)
    double min, max, start;
    const char* help;
};
/// Every parameter, in the order docs/calibration.md lists them.
const std::vector<CalibParamInfo>& calibrationParameters();

struct CalibParam {
    std::string name;
    std::string target = "*";
    double min = 0, max = 0, start = 0;
    double value = 0;          ///< the fitted value (start before)
    bool start_given = false;  ///< the parameters file gave its start (else unit_airflow_scale may start from the heat balance)
};

/// The parameters file: {"parameters": [{"name": ..., "target"?: ..., "min"?: ..., "max"?: ..., "start"?: ...}]};
/// bounds and start default to the parameter's. Throws InputError naming the file and the pointer.
std::vector<CalibParam> loadCalibParams(const std::string& path);

/// The scenario and catalog with parameter i at x[i] (a parameter that belongs to the scoring, sensor_offset, is
/// not applied here). Throws InputError for a target the scenario does not have.
void applyCalibParams(model::Scenario& s, model::Catalog& c, const std::vector<CalibParam>& params, const std::vector<double>& x);

struct Window {
    double from_s = 0, to_s = 0;  ///< on the run's clock
};

/// "A..B": each side a duration from t = 0 ("0", "2h", "90min") or an ISO 8601 time, made relative to
/// `origin_unix` (the measured time of the run's t = 0). Throws InputError naming what it expected.
Window parseWindow(const std::string& text, double origin_unix);

/// How the parameters are searched: least squares on every scored sample (least_squares.hpp; a few runs, each
/// iteration one), or NLopt's BOBYQA on their RMSE alone (many runs; with a coarse grid, manifold mapping).
enum class CalibMethod { LeastSquares, Bobyqa };

struct CalibRequest {
    model::Scenario scenario;
    model::Catalog catalog;
    sim::EngineOptions engine;  ///< with the measured inputs that drive it (planDrive)
    MeasuredSet measured;       ///< what is scored, on the run's clock
    std::vector<CalibParam> params;
    Window train, validate;
    double sample_s = 60;  ///< how often each evaluation samples the scored series
    /// What the fit compares: each series' errors averaged over windows of this length (on the run's clock), so
    /// that what no parameter decides — the room's eddies, which per-minute samples resolve and each run
    /// realises anew — averages out; 0: every sample. The scores before and after stay per sample.
    double average_s = 0;
    int max_runs = 60;  ///< evaluations the optimiser may take (and one at the start, one at the result)
    CalibMethod method = CalibMethod::LeastSquares;
    /// Least squares: each series' residuals weighted by its noise (least_squares.hpp's noiseWeights of the
    /// start's residuals; a quantised series' σ its rounding's and the twin's eddies', quantisedSigma), the default;
    /// false: every sample alike. The scores before and after are unweighted either way.
    bool noise_weights = true;
    /// Least squares: the runs of its Jacobians on this coarser grid when above engine.cell_m (max_runs bounds
    /// the fine runs then). BOBYQA, multi-fidelity (manifold mapping, manifold_map.hpp): the optimiser searches with
    /// runs on this coarser (cheaper) grid, each mapped onto engine.cell_m's through the pairs of fine and coarse
    /// runs so far; each search's result is run on engine.cell_m and makes the next pair, at most fine_runs
    /// times. The fit and both scores are engine.cell_m's. 0: every run on engine.cell_m.
    double coarse_cell_m = 0;
    int coarse_runs = 0;  ///< the most runs of each coarse search; 0: max_runs / (fine_runs + 1), at least 2n + 3
    int fine_runs = 3;    ///< the most fine runs after the start's
    std::function<void(int run, double train_rmse)> progress;
    /// Each run as it ends, for a log: its number, grid, parameters (as applied), its training RMSE (mapped
    /// onto the fine grid for a coarse search's run) and its wall time.
    struct RunLog {
        int run = 0;
        double cell_m = 0;
        std::vector<double> x;
        double train_rmse = 0, wall_s = 0;
    };
    std::function<void(const RunLog&)> log;
    std::function<bool()> cancelled;
};

/// One cooling unit's samples for airflowScaleFromHeatBalance: the twin's airflow, return and supply air at its
/// sample times, and the measured return air (on the run's clock).
struct UnitHeatBalance {
    double rated_m3s = 0;  ///< the model's rating at scale 1
    runs::Points airflow, return_c, supply_c, measured_return_c;
};

/// The units' rating scale their measured return air implies: at each measured sample the airflow that carries the
/// twin's heat over the measured rise (the twin's airflow times its return-minus-supply over the measured return
/// minus the twin's supply, a driven run's being the measured one); the median of each window of `window_s`
/// within `w`, and the largest of them over the rating. nullopt when no window has five samples with both rises
/// over 1 K.
/// A unit on the airflow rule moves its rating only while its racks ask for more, so its measured airflow at the
/// busiest time is its rating if the rating ever bound, and at most the rating if not.
std::optional<double> airflowScaleFromHeatBalance(const std::vector<UnitHeatBalance>& units, const Window& w, double window_s = 1800);

/// A unit_airflow_scale parameter with no start in the parameters file and the units it can start from: those of
/// its target on the airflow rule (no fan_speed held, neither airflow nor fan signal driven) whose return air is
/// measured. `balance` holds their rating and measured return; the start run adds the twin's side.
struct HeatBalanceStart {
    std::size_t param = 0;
    std::vector<std::string> units;
    std::vector<UnitHeatBalance> balance;
};
std::vector<HeatBalanceStart> heatBalanceStarts(const CalibRequest& r);

struct CalibResult {
    std::vector<CalibParam> params;  ///< value: fitted
    runs::ErrorStats train_before, train_after, validate_before, validate_after;
    int runs = 0;
    int coarse_runs = 0;                    ///< of them, on the coarse grid
    int fine_runs = 0;                      ///< of them, on the fine grid besides the start's
    double coarse_wall_s = 0;               ///< the coarse runs' time
    double space_mapping_s = 0;             ///< the coarse searches and the fine runs between them
    double wall_s = 0, run_wall_s = 0;      ///< the whole calibration; the longest evaluation
    int iterations = 0, jacobians = 0;      ///< least squares: its steps, and the Jacobians it took
    double weight_min = 1, weight_max = 1;  ///< least squares: the series' weights (noise_weights), least and most
    /// noise_weights: series whose measurements are quantised (quantisationFloors; their σ quantisedSigma's, not
    /// their steps'), and the median of their steps q in the series' unit (1 for whole degrees); 0 and 0 when none is.
    int quantised_series = 0;
    double resolution = 0;
    int moved = 0;  ///< least squares: times a Jacobian's own run was better and the search went on from it
    /// Parameters the search started from the units' heat balance (heatBalanceStarts), with that start: one more run.
    std::vector<std::pair<std::string, double>> heat_balance_starts;
    std::string stop;  ///< why the optimiser stopped
    bool cancelled = false;
    model::Scenario calibrated;  ///< the scenario with the fitted values and its "calibration" block
};

/// Throws InputError (a window outside the measurements, nothing to score), sim::SimError.
CalibResult calibrate(const CalibRequest& r);

/// The calibrated scenario: the fitted values written in, and a "calibration" block that says where they came from.
model::Scenario calibratedScenario(const CalibRequest& r, const CalibResult& out);

struct DriveRequest;
struct DrivePlan;
/// A calibration's request as far as the measurements make it, for every front end (the CLI's calibrate, the
/// app's Simulation > Calibrate): the scenario and catalog, the engine driven by the measured inputs (`plan`
/// says how), and what is scored — the measured series of `metrics` (inlet_c when empty) that did not drive the
/// run, matched as score matches them. The caller adds the parameters, the windows and the run settings.
/// Throws InputError and runs::StoreError as planDrive and loadMeasured do.
CalibRequest calibrationRequest(const model::Scenario& s, const model::Catalog& c, const DriveRequest& drive,
                                const std::vector<std::string>& metrics, DrivePlan& plan);

}  // namespace ct::session
