#pragma once
// What a run says about itself (the runs table's meta column, a JSON object): where it came from, what it was
// computed for and how it ended. One typed reader and writer for every part of the program (recorder, run
// session, import session, overview, report, the app); keys it does not know are kept as they were.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ct::runs {

struct RunMeta {
    std::string source;         ///< what made it: "clustertwin-cli simulate", "clustertwin app", "tour", ...
    std::string scenario_file;  ///< the scenario's file (absolute; "-" for standard input), when known
    std::string scenario_hash;  ///< model::scenarioHash of what was simulated: runs are shown on that scenario only
    /// The scenario as hashed (model::scenarioToJson), so that the app can open the very version a run was
    /// computed for (an unsaved edit, a file changed since). Kept beside the run (TelemetryStore::runScenario),
    /// not in the meta text: parse() leaves it empty.
    std::string scenario_json;
    std::string mapped_onto;                           ///< imported telemetry mapped onto this scenario id
    std::string air, air_summary, backend;             ///< the room-air solver, its one-line summary, the compute backend
    std::optional<double> duration_s, step_s, cell_m;  ///< asked for (a run may stop earlier: interrupted)
    std::optional<std::int64_t> grid_cells;
    bool steady = false;  ///< run until steady (with duration_s as the most)
    /// The app's run options (jobs added, events left out) as a JSON object's text; empty when none.
    std::string run_options_json;
    /// Where the run placed jobs that the scenario does not place: job id -> node ids.
    std::map<std::string, std::vector<std::string>> job_nodes;
    /// How each training job's collectives ran (model::JobFrame::collectives, the run's last): job id -> lines.
    std::map<std::string, std::string> job_collectives;
    /// Stopped before its end (the app's Cancel, Ctrl-C or SIGTERM on the command line): how, and when.
    bool interrupted = false;
    std::optional<double> interrupted_at_s;
    std::string interrupted_by;  ///< "cancelled", "SIGINT/SIGTERM"
    /// A run driven by measured telemetry (issue 44): the measured time (Unix s) of its t = 0, what it read
    /// ("measured.sqlite, run 2") and how each input ran (sim::DriveCount).
    std::optional<double> time_origin_unix;
    std::string driven_by;
    struct Driven {
        std::string input;
        std::int64_t series = 0, samples = 0, driven_steps = 0, model_steps = 0, gaps = 0;
        bool operator==(const Driven&) const = default;
    };
    std::vector<Driven> driven;
    /// A what-if (the app's Simulation > What-if): its baseline run ("<database>, run N") and what it changed
    /// against it, one line each ("crah-01 fails at 1m 00s"). Empty for other runs.
    std::string whatif_baseline;
    std::vector<std::string> whatif_changes;
    /// Keys this program does not know (a newer version's), kept as a JSON object's text.
    std::string other_json;

    /// From the stored text. Tolerant: empty or malformed text, or a value of the wrong type, reads as not
    /// given (old runs and other programs' runs still open).
    static RunMeta parse(const std::string& json);
    /// As stored: a JSON object with the keys that are set.
    std::string toJson() const;
};

}  // namespace ct::runs
