#pragma once
// Which scenario a run belongs to (issue 16: one document, one truth). A simulated run records its scenario's
// id, file and content hash; imported telemetry names a scenario or none and is matched by entity id. The app
// shows a run only on the scenario it belongs to, says so when the scenario was edited since, and offers the
// run's own scenario otherwise.
#include <QString>

#include <map>
#include <string>

namespace ct::runs {
class RunReplay;
}
namespace ct::model {
struct Scenario;
struct Catalog;
}  // namespace ct::model

namespace ct::app {

struct RunMatch {
    enum class Kind {
        Same,           ///< recorded for this scenario, content unchanged (or no hash recorded)
        Edited,         ///< same scenario id, different content: values matched by id
        Imported,       ///< telemetry whose entities are (partly) this scenario's
        OtherScenario,  ///< recorded for another scenario: not to be shown here
        Unmatched,      ///< telemetry none of whose entities this scenario has
    };
    Kind kind = Kind::Same;
    QString run_scenario;      ///< the scenario id the run names ("" for telemetry of no scenario)
    QString scenario_file;     ///< the file the run was computed from, when its metadata says (may be gone)
    bool has_version = false;  ///< the run kept the scenario it was computed for (RunMeta::scenario_json)
    int entities = 0;          ///< entities with series in the run
    int matched = 0;           ///< of those, how many the scenario has

    bool shown() const { return kind == Kind::Same || kind == Kind::Edited || kind == Kind::Imported; }
    /// One sentence for the notice bar or the prompt ("" when there is nothing to say).
    QString describe(const QString& scenario_id) const;
};

/// Compares a loaded run with the open scenario. `scenario_hash` is model::scenarioHash of it.
RunMatch matchRun(const runs::RunReplay& run, const model::Scenario& s, const model::Catalog& c, const std::string& scenario_hash);

/// Host name -> node id of the scenario's nodes whose host name differs from their id, for
/// RunReplay::mapHosts (telemetry names hosts; an imported skeleton calls them n0001 with that hostname).
std::map<std::string, std::string> hostAliases(const model::Scenario& s);

/// Whether `path` is one of the sample scenarios shipped with the program (never overwritten by Save).
bool isShippedSample(const QString& path);

}  // namespace ct::app
