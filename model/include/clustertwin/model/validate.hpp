#pragma once
// Semantic validation of a scenario against a catalog. Reports every problem, each with its JSON pointer.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::model {

/// The catalog a scenario sees: `base` with the scenario's own `catalog` section merged in. Problems in that
/// section are appended to `diags` under "/catalog".
Catalog effectiveCatalog(const Scenario& s, const Catalog& base, Diagnostics& diags);

/// Semantic checks: ids unique and non-empty; positive finite sizes; racks and units inside their hall and
/// not overlapping; nodes inside their rack; every model reference in the catalog; rack load against its
/// breakers (80 % rule, and one side carrying all when the other fails); every rack on a power feed whose
/// chain reaches a utility feed, and with a cooling source (air unit, or a CDU where its servers need one);
/// jobs and events naming existing entities. Never throws.
Diagnostics validateScenario(const Scenario& s, const Catalog& catalog);

/// Checks events against a scenario: known kinds, targets of the right kind, values where needed, and times
/// within [0, run_end_s] when a run length is given. Pointers are `pointer_prefix` + "/<index>/...".
Diagnostics validateEvents(const Scenario& s, const Catalog& catalog, const std::vector<Event>& events, const std::string& pointer_prefix,
                           std::optional<double> run_end_s = std::nullopt);

/// Load-time (structural) plus semantic diagnostics for a file: the usual entry point for tools.
/// Throws ModelError / ParseError like loadScenarioFile.
struct ValidationReport {
    Scenario scenario;
    Catalog catalog;          ///< effective catalog
    Diagnostics diagnostics;  ///< structural first, then catalog section, then semantic
};
ValidationReport loadAndValidate(const std::string& path, const Catalog& base = Catalog::builtin());
/// The same for scenario JSON text (a run's kept scenario); `name` names it in messages. Throws ParseError.
ValidationReport parseAndValidate(std::string_view json_text, const std::string& name, const Catalog& base = Catalog::builtin());

}  // namespace ct::model
