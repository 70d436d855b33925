#pragma once
// Alert rules on recorded series (issue 40): the rules the engine applies to a simulated run — a GPU past its
// model's slowdown or shutdown temperature, an inlet above 27 °C, a breaker above 80 %, a link above 90 % —
// applied to what a hall measured (an import, a followed Prometheus) or to any run, with the limits of the real
// GPU model the telemetry names (catalogGpuFor). Users write their own in a rules file (docs/importers.md,
// "Alert rules"): threshold, how long it must hold, hysteresis and severity, as Prometheus' alerting rules do.
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ct::importers {

namespace detail {
struct AlertLimit;  ///< a rule's limit for one series (alert_rules.cpp)
}

struct AlertRule {
    std::string alert;        ///< the kind of alert it raises ("gpu_hot"; a new name is a kind of its own)
    std::string entity_kind;  ///< only series of entities of this kind ("gpu", "node", "rack", "link"); "" any
    std::string metric;       ///< the series it watches ("temp_c"), in stored units
    bool above = true;        ///< fires above the limit (false: below)
    /// The limit: a number ("27"), "catalog:FIELD" (the entity's GPU model: slowdown_temp_c, shutdown_temp_c,
    /// max_power_w, idle_power_w) or "metric:NAME" (the same entity's series NAME at that time).
    std::string limit;
    double for_s = 0;      ///< the condition holds this long (every sample in between) before it fires
    double clear = 0;      ///< re-armed once this far back inside the limit (0: as soon as it is inside)
    std::string severity;  ///< "info", "warning", "critical"; "" = the kind's own (model/alerts)
    std::string summary;   ///< the message; {entity}, {value}, {limit} are replaced; "" = a sentence of its own
    std::string where;     ///< "FILE: /rules/3" for messages about the rule
};

struct AlertRuleSet {
    std::vector<AlertRule> rules;
    std::string source = "built-in";  ///< the rules file, or "built-in"
};

/// The engine's own rules, for measured data (docs/importers.md lists them).
AlertRuleSet defaultAlertRules();
/// The built-in rules as a rules file, to start one's own from (clustertwin-cli alerts --default-rules).
std::string defaultAlertRulesJson();
/// Reads a rules file; throws ImportError naming the file and the JSON pointer of what is wrong.
AlertRuleSet loadAlertRules(const std::string& path);

struct AlertRunResult {
    std::vector<runs::StoredEvent> raised;  ///< new alerts (already stored ones are not raised again), by time
    std::vector<std::string> notes;         ///< limits that could not be had ("gpu_power_high: 3 GPUs of unknown models")
};

/// Rules evaluated reading by reading, each rule's state (armed, waiting since, the last reading) kept per entity
/// between calls, so a followed server's polls continue where the last one stopped and each costs what it adds.
/// A rule fires at the reading where its condition has held for `for_s` (a gap of more than 5 minutes between
/// readings starts the wait again) and again only once it came `clear` back inside.
class AlertEvaluator {
public:
    explicit AlertEvaluator(AlertRuleSet rules);
    /// Evaluates the readings of `run` newer than the last call's newest (every reading the first time) and
    /// stores the alerts the run does not hold yet (an earlier import of the same data raised them).
    AlertRunResult evaluate(runs::TelemetryStore& store, std::int64_t run);
    const AlertRuleSet& rules() const { return rules_; }

private:
    struct State {
        bool armed = true;
        double pending = std::numeric_limits<double>::quiet_NaN();  ///< waiting since
        double last_t = std::numeric_limits<double>::quiet_NaN();
        double limit = std::numeric_limits<double>::quiet_NaN();  ///< metric:NAME's last reading
    };
    void evaluateSeries(const AlertRule& r, State& st, const runs::SeriesValues& sv, const detail::AlertLimit& l,
                        std::vector<runs::StoredEvent>& out);
    AlertRuleSet rules_;
    std::map<std::pair<std::size_t, std::string>, State> state_;  ///< (rule, entity)
    double until_ = -std::numeric_limits<double>::infinity();     ///< the newest reading evaluated
};

/// All of `run` at once (AlertEvaluator's first call).
AlertRunResult raiseAlerts(runs::TelemetryStore& store, std::int64_t run, const AlertRuleSet& rules);

}  // namespace ct::importers
