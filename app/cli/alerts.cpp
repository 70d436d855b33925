#include "alerts.hpp"

#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/format.hpp>
#include <clustertwin/model/alerts.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/store.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

namespace ct::cli {

using json = nlohmann::ordered_json;

const char* kAlertsHelp = R"(Usage: clustertwin-cli alerts --db DB [--run N] [--rules RULES.json] [--json]
       clustertwin-cli alerts --default-rules

Evaluates alert rules on a run (the latest by default) — imported telemetry, a followed Prometheus or a
simulation — and stores the alerts it raises in the run, where the app's Alerts dock, query and the report
read them; alerts the run already holds are not raised twice. Without --rules the built-in rules apply: the
ones the simulation raises (a GPU past its model's slowdown or shutdown temperature from the catalog, above
its board power limit, a rack or node inlet above 27 °C, a breaker above 80 %, a link above 90 %). A rules
file lists rules like {"alert": "gpu_hot", "entity": "gpu", "metric": "temp_c", "above":
"catalog:slowdown_temp_c", "for": "1m", "clear": 2, "severity": "critical"}: the limit a number (in the
metric's stored units), a GPU model's catalog figure or another metric of the same entity; "for" how long it
must hold; "clear" how far back it must come before it fires again (docs/importers.md, "Alert rules").
  --run N           the run (the latest)
  --rules FILE      the rules (default: the built-in ones)
  --default-rules   print the built-in rules as a rules file to start one's own from, and exit
  --json            {"run", "rules", "raised": [{t_s, time, alert, entity, value, limit, severity, message}],
                    "stored_before", "notes"}
Exit codes: 0 evaluated (also when nothing fired), 2 no such database or run, or a bad rules file.
)";

std::shared_ptr<const importers::AlertRuleSet> loadRulesOption(const std::string& path) {
    try {
        return std::make_shared<const importers::AlertRuleSet>(importers::loadAlertRules(path));
    } catch (const importers::ImportError& e) {
        throw model::ModelError(e.what());  // invalid input: exit 2
    }
}

int cmdAlerts(const Args& a) {
    if (a.flag("default-rules")) {
        std::cout << importers::defaultAlertRulesJson();
        return 0;
    }
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("alerts needs --db DB (or --default-rules)");
    if (!a.positional().empty()) throw UsageError("alerts takes no positional arguments");
    if (std::error_code ec; !std::filesystem::is_regular_file(db, ec)) throw UsageError("--db: " + db + " does not exist");
    const auto rules =
        a.has("rules") ? loadRulesOption(a.get("rules")) : std::make_shared<const importers::AlertRuleSet>(importers::defaultAlertRules());
    auto store = runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing);
    const auto all = store.runs();
    if (all.empty()) {
        std::cerr << db << ": no runs\n";
        return 2;
    }
    const std::int64_t run = a.has("run") ? a.getInt("run", 0) : all.back().id;
    const auto info = std::find_if(all.begin(), all.end(), [&](const runs::RunInfo& r) { return r.id == run; });
    if (info == all.end()) throw UsageError("--run: " + db + " has no run " + std::to_string(run));
    const auto before = store.eventCount(run);
    const importers::AlertRunResult res = importers::raiseAlerts(store, run, *rules);
    const bool measured = info->kind == "imported";  // its times are Unix seconds
    auto when = [&](double t) { return measured ? model::formatIsoTime(t) : model::formatDuration(t); };
    if (a.flag("json")) {
        json raised = json::array();
        for (const auto& e : res.raised)
            raised.push_back({{"t_s", e.t_s},
                              {"time", when(e.t_s)},
                              {"alert", e.kind},
                              {"entity", e.target},
                              {"value", e.value ? json(*e.value) : json(nullptr)},
                              {"limit", e.threshold ? json(*e.threshold) : json(nullptr)},
                              {"severity", model::toString(model::severityOf(e.kind, e.severity))},
                              {"message", e.message}});
        std::cout << json{{"run", run}, {"rules", rules->source}, {"raised", raised}, {"stored_before", before}, {"notes", res.notes}}.dump(
                         2)
                  << "\n";
        return 0;
    }
    std::cout << "run " << run << " of " << db << ", rules: " << rules->source << " (" << rules->rules.size() << ")\n";
    for (const auto& e : res.raised)
        std::cout << "  " << when(e.t_s) << "  " << model::toString(model::severityOf(e.kind, e.severity)) << "  " << e.message << "\n";
    std::cout << res.raised.size() << " alert(s) raised";
    if (before > 0) std::cout << " (the run held " << before << " event(s) before)";
    std::cout << "\n";
    for (const auto& n : res.notes) std::cout << "note: " << n << "\n";
    return 0;
}

}  // namespace ct::cli
