// Alert rules on recorded series (alert_rules.hpp).
#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/format.hpp>
#include <clustertwin/importers/mapping.hpp>

#include <clustertwin/model/alerts.hpp>
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/time.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ct::importers {

namespace detail {

/// A rule's limit for one series: fixed, its GPU model's or another series of the same entity.
struct AlertLimit {
    double fixed = std::numeric_limits<double>::quiet_NaN();
    const runs::SeriesValues* other = nullptr;                 ///< metric:NAME (its new readings)
    double before = std::numeric_limits<double>::quiet_NaN();  ///< metric:NAME's reading before them
    std::string text;                                          ///< "the NVIDIA H100 SXM's slowdown temperature"
    double at(double t) const {
        if (!other) return fixed;
        const auto& p = other->points;
        auto it = std::upper_bound(p.begin(), p.end(), t, [](double x, const auto& pt) { return x < pt.first; });
        return it == p.begin() ? before : std::prev(it)->second;
    }
};

}  // namespace detail

using Limit = detail::AlertLimit;

namespace {

using nlohmann::json;

constexpr double kStaleS = 300;  // Prometheus' lookback: a longer gap is no evidence that the condition held
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The engine's rules (sim/engine/alerts.cpp, passes.hpp), as a rules file says them.
const char* kDefaultRules = R"json({
  "rules": [
    {"alert": "gpu_hot", "entity": "gpu", "metric": "temp_c", "above": "catalog:slowdown_temp_c", "clear": 2},
    {"alert": "gpu_shutdown", "entity": "gpu", "metric": "temp_c", "above": "catalog:shutdown_temp_c", "clear": 2},
    {"alert": "gpu_power_high", "entity": "gpu", "metric": "power_w", "above": "catalog:max_power_w", "for": "30s"},
    {"alert": "inlet_high", "entity": "rack", "metric": "inlet_max_c", "above": 27, "clear": 0.5},
    {"alert": "inlet_high", "entity": "node", "metric": "inlet_c", "above": 27, "clear": 0.5},
    {"alert": "breaker_high", "metric": "breaker_utilization", "above": 0.8},
    {"alert": "link_high", "entity": "link", "metric": "utilization", "above": 0.9}
  ]
})json";

struct CatalogField {
    const char* name;
    const char* what;
    double generic;  ///< for a GPU the catalog does not know; NaN: none
};
const CatalogField kCatalogFields[] = {{"slowdown_temp_c", "slowdown temperature", 87},
                                       {"shutdown_temp_c", "shutdown temperature", 92},
                                       {"max_power_w", "board power limit", kNaN},
                                       {"idle_power_w", "idle power", kNaN}};

const CatalogField* catalogField(const std::string& name) {
    for (const auto& f : kCatalogFields)
        if (name == f.name) return &f;
    return nullptr;
}

double fieldOf(const model::GpuModel& g, const std::string& name) {
    if (name == "slowdown_temp_c") return g.slowdown_temp_c;
    if (name == "shutdown_temp_c") return g.shutdown_temp_c;
    if (name == "max_power_w") return g.max_power_w;
    return g.idle_power_w;
}

[[noreturn]] void bad(const std::string& where, const std::string& why) { throw ImportError(where + ": " + why); }

AlertRule ruleFrom(const json& j, const std::string& where) {
    if (!j.is_object()) bad(where, "a rule is an object");
    static const std::set<std::string> keys = {"alert", "entity", "metric", "above", "below", "for", "clear", "severity", "summary"};
    for (const auto& [k, v] : j.items())
        if (!keys.count(k))
            bad(where + "/" + k, "unknown key (a rule has alert, entity, metric, above or below, for, clear, severity, summary)");
    AlertRule r;
    r.where = where;
    auto text = [&](const char* key, std::string& out, bool required) {
        if (!j.contains(key)) {
            if (required) bad(where, std::string("a rule needs \"") + key + "\"");
            return;
        }
        if (!j[key].is_string() || j[key].get<std::string>().empty()) bad(where + "/" + key, "a non-empty string");
        out = j[key].get<std::string>();
    };
    text("alert", r.alert, true);
    for (char c : r.alert)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) bad(where + "/alert", "lower-case letters, digits and _ only");
    text("entity", r.entity_kind, false);
    text("metric", r.metric, true);
    text("summary", r.summary, false);
    text("severity", r.severity, false);
    if (!r.severity.empty() && !model::parseSeverity(r.severity)) bad(where + "/severity", "info, warning or critical");
    if (j.contains("above") == j.contains("below")) bad(where, "a rule needs one of \"above\" and \"below\"");
    r.above = j.contains("above");
    const std::string side = r.above ? "above" : "below";
    const json& lim = j[side];
    if (lim.is_number()) {
        if (!std::isfinite(lim.get<double>())) bad(where + "/" + side, "a finite number");
        std::ostringstream o;
        o.precision(17);
        o << lim.get<double>();
        r.limit = o.str();
    } else if (lim.is_string()) {
        r.limit = lim.get<std::string>();
        if (r.limit.rfind("catalog:", 0) == 0) {
            if (!catalogField(r.limit.substr(8)))
                bad(where + "/" + side, "catalog:slowdown_temp_c, catalog:shutdown_temp_c, catalog:max_power_w or catalog:idle_power_w");
            if (r.entity_kind != "gpu") bad(where + "/" + side, "catalog limits are a GPU model's: the rule needs \"entity\": \"gpu\"");
        } else if (r.limit.rfind("metric:", 0) != 0 || r.limit.size() == 7) {
            bad(where + "/" + side, "a number, \"catalog:FIELD\" or \"metric:NAME\"");
        }
    } else {
        bad(where + "/" + side, "a number, \"catalog:FIELD\" or \"metric:NAME\"");
    }
    if (j.contains("for")) {
        try {
            r.for_s = j["for"].is_number() ? j["for"].get<double>() : model::parseDurationS(j["for"].get<std::string>());
        } catch (const std::exception&) {
            bad(where + "/for", "a duration: seconds, or \"30s\", \"5m\", \"1h\"");
        }
        if (!(r.for_s >= 0) || !std::isfinite(r.for_s)) bad(where + "/for", "a duration of zero or more");
    }
    if (j.contains("clear")) {
        if (!j["clear"].is_number() || !(j["clear"].get<double>() >= 0))
            bad(where + "/clear", "a number of zero or more, in the metric's units");
        r.clear = j["clear"].get<double>();
    }
    return r;
}

AlertRuleSet parseRules(const std::string& text, const std::string& file) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        const auto upto = text.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(e.byte, text.size()));
        bad(file + ":" + std::to_string(1 + std::count(text.begin(), upto, '\n')), std::string("not JSON: ") + e.what());
    }
    if (!doc.is_object() || !doc.contains("rules") || !doc["rules"].is_array()) bad(file, "a rules file is {\"rules\": [ ... ]}");
    for (const auto& [k, v] : doc.items())
        if (k != "rules") bad(file + ": /" + k, "unknown key (a rules file has \"rules\")");
    AlertRuleSet set;
    set.source = file;
    for (std::size_t i = 0; i < doc["rules"].size(); ++i)
        set.rules.push_back(ruleFrom(doc["rules"][i], file + ": /rules/" + std::to_string(i)));
    return set;
}

std::string fmt(double v, const std::string& metric, const std::string& unit) {
    return model::formatMetric(v, model::metricInfo(metric, unit));
}

std::string sentence(const AlertRule& r, const std::string& entity, double v, double lim, const Limit& l, const std::string& unit) {
    const std::string value = fmt(v, r.metric, unit), limit = fmt(lim, r.metric, unit);
    if (!r.summary.empty()) {
        std::string s = r.summary;
        for (const auto& [tok, rep] : {std::pair<std::string, std::string>{"{entity}", entity}, {"{value}", value}, {"{limit}", limit}})
            for (std::size_t at = s.find(tok); at != std::string::npos; at = s.find(tok, at + rep.size())) s.replace(at, tok.size(), rep);
        return s;
    }
    return model::alertKind(r.alert).title + ": " + entity + " read " + value + ", " + (r.above ? "above " : "below ") +
           (l.text.empty() ? limit : l.text + " of " + limit);
}

}  // namespace

AlertRuleSet defaultAlertRules() {
    AlertRuleSet s = parseRules(kDefaultRules, "built-in rules");
    s.source = "built-in";
    return s;
}

std::string defaultAlertRulesJson() { return std::string(kDefaultRules) + "\n"; }

AlertRuleSet loadAlertRules(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ImportError(path + ": cannot read the alert rules file");
    std::ostringstream buf;
    buf << in.rdbuf();
    return parseRules(buf.str(), path);
}

AlertEvaluator::AlertEvaluator(AlertRuleSet rules) : rules_(std::move(rules)) {}

void AlertEvaluator::evaluateSeries(const AlertRule& r, State& st, const runs::SeriesValues& sv, const detail::AlertLimit& l,
                                    std::vector<runs::StoredEvent>& out) {
    for (const auto& [t, v] : sv.points) {
        const double lim = l.at(t);
        if (t <= until_ || !std::isfinite(v) || !std::isfinite(lim)) continue;
        if (std::isfinite(st.last_t) && t - st.last_t > kStaleS) st.pending = kNaN;
        st.last_t = t;
        const bool crossing = r.above ? v > lim : v < lim;
        if (st.armed) {
            if (!crossing) {
                st.pending = kNaN;
                continue;
            }
            if (!std::isfinite(st.pending)) st.pending = t;
            if (t - st.pending + 1e-9 < r.for_s) continue;
            st.armed = false;
            st.pending = kNaN;
            runs::StoredEvent e{t, r.alert, sv.key.entity, v, sentence(r, sv.key.entity, v, lim, l, sv.key.unit), lim};
            e.severity = r.severity;
            out.push_back(std::move(e));
        } else if (r.clear > 0 ? (r.above ? v < lim - r.clear : v > lim + r.clear) : !crossing) {
            st.armed = true;
        }
    }
}

AlertRunResult AlertEvaluator::evaluate(runs::TelemetryStore& store, std::int64_t run) {
    std::map<std::string, runs::EntityInfo> entity;
    for (auto& e : store.entities()) entity[e.id] = e;
    std::map<std::string, std::vector<runs::SeriesValues>> by_metric;  // each metric's new readings, read once
    auto series = [&](const std::string& metric) -> const std::vector<runs::SeriesValues>& {
        auto it = by_metric.find(metric);
        if (it == by_metric.end()) it = by_metric.emplace(metric, store.values(run, metric, {}, std::max(until_, -1e300), 1e300)).first;
        return it->second;
    };
    std::vector<runs::StoredEvent> out;
    std::map<std::string, int> unknown_limit;  // rule alert → entities without the limit
    double newest = until_;
    for (std::size_t ri = 0; ri < rules_.rules.size(); ++ri) {
        const AlertRule& r = rules_.rules[ri];
        const bool from_catalog = r.limit.rfind("catalog:", 0) == 0, from_metric = r.limit.rfind("metric:", 0) == 0;
        for (const auto& sv : series(r.metric)) {
            const auto en = entity.find(sv.key.entity);
            if (!r.entity_kind.empty() && (en == entity.end() || en->second.kind != r.entity_kind)) continue;
            State& st = state_[{ri, sv.key.entity}];
            Limit l;
            if (from_catalog) {
                const CatalogField& f = *catalogField(r.limit.substr(8));
                const std::string name = en->second.name;
                const std::string id = catalogGpuFor(name);
                if (const model::GpuModel* g = id.empty() ? nullptr : model::Catalog::builtin().gpu(id)) {
                    l.fixed = fieldOf(*g, f.name);
                    l.text = "the " + g->name + "'s " + f.what;
                } else if (std::isfinite(f.generic)) {
                    l.fixed = f.generic;
                    l.text = std::string("a data-centre GPU's generic ") + f.what + " (the catalog does not know '" + name + "')";
                }
                if (!(l.fixed > 0)) {
                    ++unknown_limit[r.alert];
                    continue;
                }
            } else if (from_metric) {
                const std::string other = r.limit.substr(7);
                for (const auto& o : series(other))
                    if (o.key.entity == sv.key.entity) l.other = &o;
                l.before = st.limit;
                if (!l.other && !std::isfinite(l.before)) continue;  // no limit for this entity: nothing to compare
                if (l.other && !l.other->points.empty()) st.limit = l.other->points.back().second;
                l.text = "its " + model::metricInfo(other).name;
            } else {
                l.fixed = std::stod(r.limit);
            }
            evaluateSeries(r, st, sv, l, out);
            if (!sv.points.empty()) newest = std::max(newest, sv.points.back().first);
        }
    }
    until_ = newest;
    // Alerts already stored (an earlier import of the same data) are not raised again.
    std::set<std::tuple<long long, std::string, std::string>> known;
    for (const auto& e : store.events(run)) known.insert({std::llround(e.t_s * 1000), e.kind, e.target});
    AlertRunResult res;
    for (auto& e : out)
        if (known.insert({std::llround(e.t_s * 1000), e.kind, e.target}).second) res.raised.push_back(std::move(e));
    std::stable_sort(res.raised.begin(), res.raised.end(), [](const auto& a, const auto& b) { return a.t_s < b.t_s; });
    if (!res.raised.empty()) store.writeEvents(run, res.raised);
    for (const auto& [alert, n] : unknown_limit)
        res.notes.push_back(alert + ": " + std::to_string(n) + " GPU(s) of a model whose limit the catalog does not give: not checked");
    return res;
}

AlertRunResult raiseAlerts(runs::TelemetryStore& store, std::int64_t run, const AlertRuleSet& rules) {
    AlertEvaluator e(rules);
    return e.evaluate(store, run);
}

}  // namespace ct::importers
