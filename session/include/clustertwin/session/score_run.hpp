#pragma once
// How far a simulated run is from what a hall measured (issue 44; `clustertwin-cli score`): every measured series
// paired with the run's series of the same scenario entity and metric, on the run's clock (measured time minus
// the run's time origin), with runs/score.hpp's statistics per series, per entity kind, per time window and
// overall — and the same for a naive baseline (every inlet at the cooling's supply temperature), so the twin's
// skill shows.
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/score.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ct::runs {
class TelemetryStore;
}

namespace ct::session {

struct ScoreRequest {
    std::string run_db;  ///< the simulated run's database
    std::optional<std::int64_t> run;
    std::string measured_db;  ///< the measurements (clustertwin-cli import)
    std::optional<std::int64_t> measured_run;
    std::string map_path;                       ///< optional, as for driving (measured.hpp)
    const model::Scenario* scenario = nullptr;  ///< for hostnames, names and mapping rules; ids match without it
    std::vector<std::string> metrics;           ///< only these of the twin's metrics (all that pair when empty)
    std::optional<double> from_s, to_s;         ///< on the run's clock
    double window_s = 3600;                     ///< the time windows' length
    std::optional<double> origin_unix;          ///< measured time of the run's t = 0 (default: the run's metadata)
    bool include_driven = false;                ///< also score the series that drove the run (they match by design)
};

struct ScoreRow {
    std::string key;     ///< entity id, entity kind, window ("0 s–1 h") or "all"
    std::string metric;  ///< the twin's metric id
    std::string unit;    ///< its stored unit
    runs::ErrorStats twin;
    std::optional<runs::ErrorStats> baseline;  ///< inlet metrics: every inlet at the supply temperature
};

struct ScoreReport {
    std::int64_t run = 0, measured_run = 0;
    double origin_unix = 0;
    std::vector<ScoreRow> series, kinds, windows, overall;
    std::size_t measured_series = 0, paired_series = 0;
    std::vector<std::string> unpaired;  ///< measured "entity metric" with nothing simulated to pair with
    std::vector<std::string> driven;    ///< measured series left out because they drove the run
    std::string baseline_source;        ///< where the baseline's supply temperature came from
};

struct PairedSeries;
/// Throws InputError (runs that are not there, no time origin, nothing pairs) and runs::StoreError. With
/// `pairs`, also the paired series themselves (the app charts them and colours the residuals).
ScoreReport scoreRun(const ScoreRequest& r, std::vector<PairedSeries>* pairs = nullptr);

/// A measured series and the simulated one it pairs with, both on the run's clock and in the stored unit.
struct PairedSeries {
    std::string entity, kind, metric, unit;
    runs::Points measured, simulated;
};

/// The statistics of paired series into `out` (series, kinds, windows, overall): every measured sample within
/// [from_s, to_s] against the simulation at its time; for inlet metrics also against `supply` (the baseline;
/// none when empty). Windows of `window_s` start at the first scored sample's window boundary (multiples of
/// window_s on the run's clock). In memory: `clustertwin-bench score` times it.
void scorePairs(const std::vector<PairedSeries>& pairs, const runs::Points& supply, double from_s, double to_s, double window_s,
                ScoreReport& out);

struct EntityRef;
class MeasuredMap;

/// The measured series of an imported run that a twin can be scored on, on the run's clock (measured time −
/// `origin_unix`), in the twin's units; `simulated` left empty.
struct MeasuredSet {
    std::vector<PairedSeries> series;
    std::vector<runs::Points> unit_supply;      ///< the cooling units' measured supply (the baseline's)
    std::vector<std::string> unpaired, driven;  ///< "entity metric" matched to nothing, or skipped as driven
    std::size_t total = 0;                      ///< series in the measured run
};
/// The twin's stored unit of an entity's metric; nullopt when the twin has no such series.
using UnitOf = std::function<std::optional<std::string>(const EntityRef&, const std::string& metric)>;
/// Reads the measured run's series whose entity maps (`map`) and whose metric is among `metrics` (all when
/// empty); those of (kind, metric) in `skip` (the inputs that drove the run) are listed in `driven` instead.
MeasuredSet loadMeasured(const runs::TelemetryStore& meas, std::int64_t run, const MeasuredMap& map,
                         const std::vector<std::string>& metrics, double origin_unix,
                         const std::set<std::pair<std::string, std::string>>& skip, const UnitOf& unit_of);

/// Whether a metric is an inlet temperature, which the baseline predicts as the supply temperature.
bool isInletMetric(const std::string& metric);

}  // namespace ct::session
