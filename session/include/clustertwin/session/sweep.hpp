#pragma once
// Many variants of one scenario (issue 42; `clustertwin-cli sweep`): every single failure of the site's
// infrastructure (N-1), what-if files, or settings varied over values; each variant one run of the same run
// session, and a summary row per variant (its hottest inlet, PUE, the GPU capacity lost, its alerts). Where the
// variants run (one process, or spread over MPI ranks) is the front end's business: this is what each does.
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/session/run_session.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ct::session {

struct SweepVariant {
    std::string name;                  ///< "baseline", "crah-01 fails", "/simulation/supply_c=18"
    std::vector<model::Event> events;  ///< besides the scenario's own and the run's
    /// Settings, each a JSON pointer into the scenario file and the value's JSON text.
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<std::string> changes;  ///< what it changes against the baseline, one line each
};

/// The baseline (the scenario as it is), then every single failure of the site's infrastructure — utility
/// feeds, transformers, UPS, floor PDUs, water loops, cooling units, CDUs — at `at_s` for the rest of the run.
std::vector<SweepVariant> nMinusOneVariants(const model::Scenario& s, double at_s);

/// "KEY=V1,V2,...", KEY a JSON pointer (/simulation/unit_airflow_margin) or dotted path (simulation.supply_c,
/// halls.0.cooling_units.1.setpoint_c), each V JSON (a number, true, "text") or else a string: the baseline,
/// then one variant per combination of every spec's values. Throws InputError naming the spec.
std::vector<SweepVariant> varyVariants(const std::vector<std::string>& specs);

/// A variant of one what-if file's events (loaded and checked by the caller), named after the file.
SweepVariant whatIfVariant(const std::string& file, std::vector<model::Event> events);

/// The scenario file's JSON text with the variant's settings in it. Throws InputError naming the pointer when
/// a setting's parent is not there.
std::string withSettings(const std::string& scenario_json, const SweepVariant& v);

/// One variant's answer.
struct SweepRow {
    std::size_t index = 0;  ///< the variant's place in the sweep
    std::string variant;
    std::int64_t run = 0;  ///< in the database it was recorded into (0: not run)
    std::string end;       ///< "finished", "steady", "not steady", "interrupted", "error"
    std::string error;     ///< why it did not run
    double peak_inlet_c = 0;
    std::string peak_inlet_rack;
    double pue = 0;             ///< facility / IT energy over the run
    double gpu_lost_share = 0;  ///< GPU time lost to failures, lost power and throttling, of all GPU time
    int alerts = 0;             ///< first alerts (one per kind and entity)
    std::string first_alert;    ///< the earliest, "kind entity"
    bool cooling_ok = true;
    double wall_s = 0;
    int rank = 0;  ///< the MPI rank that ran it
};

/// Runs one variant of `base` (its scenario, engine, duration and database) as a new run named after it;
/// `scenario_json` is the scenario file's text the settings apply to. Problems with the variant itself (a
/// setting the scenario refuses) come back in the row, not as exceptions; the run database's do throw.
SweepRow runVariant(const RunRequest& base, const std::string& scenario_json, const SweepVariant& v, const RunCallbacks& cb = {});

/// The row as one line of JSON and back (what ranks send to rank 0).
std::string rowToJson(const SweepRow& r);
SweepRow rowFromJson(const std::string& text);

}  // namespace ct::session
