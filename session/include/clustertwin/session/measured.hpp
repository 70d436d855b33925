#pragma once
// Measured telemetry as the twin reads it (issue 44), for driving a run (drive.hpp) and scoring one
// (score_run.hpp): which scenario entity a measured entity is, which of the twin's metrics a measured metric is,
// and its values in the twin's stored unit. A measured database is any the importers wrote (`clustertwin-cli
// import`), mapped onto the scenario at import or not: entities are matched by the map file's names, then as
// imports match them (the scenario's telemetry_mapping rules, node ids, hostnames and names, "<host>/gpuN",
// unit, CDU and job ids and names).
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/store.hpp>

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ct::session {

/// Bad input to a driven or scored run: a map file, a database without the run asked for. The message names the
/// file and the JSON pointer or option.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A scenario entity: its id and kind ("node", "gpu", "rack", "cooling_unit", "cdu", "job", ...).
struct EntityRef {
    std::string id, kind;
};

/// The map file (`--drive-map` / `--map`), a JSON object, every member optional:
///   {"entities": {"<measured entity id or name>": "<scenario id>", ...},
///    "metrics":  {"<measured metric id>": "<the twin's metric id>", ...},
///    "inputs":   ["node_power", "unit_supply", ...]}       (driving: only these inputs; default all found)
struct MeasuredMapFile {
    std::map<std::string, std::string> entities, metrics;
    std::vector<std::string> inputs;
    /// Reads and checks it (throws InputError "FILE: /entities/x: ..."); an empty path is an empty map.
    static MeasuredMapFile load(const std::string& path);
};

class MeasuredMap {
public:
    /// Throws InputError when a telemetry_mapping rule of the scenario is not a regular expression.
    MeasuredMap(const model::Scenario& s, MeasuredMapFile file);
    ~MeasuredMap();
    MeasuredMap(MeasuredMap&&) noexcept;

    /// Entities a measured one may be besides the scenario's (a simulated run's, when scoring without its
    /// scenario): by id, with their kind.
    void addIds(const std::vector<runs::EntityInfo>& entities);
    /// The scenario entity a measured one is; nullopt when none.
    std::optional<EntityRef> entity(const runs::EntityInfo& e) const;
    /// The twin's metric id of a measured metric (the map's name, else the same id).
    std::string metric(const std::string& measured) const;
    const MeasuredMapFile& file() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

/// A value in `from_unit` converted to the twin's `to_unit` (W, degC, ratio, m3/s, s): W/kW/MW, °C/°F/K,
/// ratio/percent, m³/s, m³/h, l/s, CFM. nullopt when they do not convert (and the same unit, or an empty one,
/// as it is).
std::optional<double> toStoredUnit(double v, const std::string& from_unit, const std::string& to_unit);

/// The latest run of `kind` ("imported", "simulated") in the store, or the one asked for; throws InputError
/// naming the database when there is none or `want` is not of that kind.
runs::RunInfo pickRun(const runs::TelemetryStore& store, const std::string& kind, std::optional<std::int64_t> want);

}  // namespace ct::session
