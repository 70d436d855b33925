// The variants of a sweep and one variant's run (sweep.hpp).
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/session/sweep.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace ct::session {

namespace {

void addFailures(std::vector<SweepVariant>& out, const std::string& kind, const std::string& what, const std::string& id, double at_s) {
    SweepVariant v;
    v.name = id + " fails";
    v.events.push_back({at_s, kind, id, std::nullopt, {}});
    v.changes.push_back(what + " " + id + " fails at " + model::formatDuration(at_s));
    out.push_back(std::move(v));
}

/// "a.b.0.c" or "/a/b/0/c" as a JSON pointer.
std::string pointerOf(const std::string& key) {
    if (key.empty()) throw InputError("--vary: an empty key");
    if (key.front() == '/') return key;
    std::string p = "/";
    for (char c : key) p += c == '.' ? '/' : c;
    return p;
}

/// A value as JSON: itself when it parses, else a string.
std::string valueJson(const std::string& v) {
    const nlohmann::json j = nlohmann::json::parse(v, nullptr, false);
    return j.is_discarded() ? nlohmann::json(v).dump() : j.dump();
}

}  // namespace

std::vector<SweepVariant> nMinusOneVariants(const model::Scenario& s, double at_s) {
    std::vector<SweepVariant> out{{"baseline", {}, {}, {}}};
    for (const auto& f : s.power.feeds) addFailures(out, "feed_fail", "utility feed", f.id, at_s);
    for (const auto& t : s.power.transformers) addFailures(out, "feed_fail", "transformer", t.id, at_s);
    for (const auto& u : s.power.ups) addFailures(out, "feed_fail", "UPS", u.id, at_s);
    for (const auto& p : s.power.pdus) addFailures(out, "feed_fail", "PDU", p.id, at_s);
    for (const auto& l : s.plant.loops) addFailures(out, "loop_fail", "water loop", l.id, at_s);
    for (const auto& h : s.halls) {
        for (const auto& u : h.cooling_units) addFailures(out, "cooling_unit_fail", "cooling unit", u.id, at_s);
        for (const auto& c : h.cdus) addFailures(out, "cdu_fail", "CDU", c.id, at_s);
    }
    return out;
}

std::vector<SweepVariant> varyVariants(const std::vector<std::string>& specs) {
    std::vector<SweepVariant> out{{"baseline", {}, {}, {}}};
    std::vector<SweepVariant> combos{{}};
    for (const auto& spec : specs) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq + 1 >= spec.size())
            throw InputError("--vary " + spec + ": expected KEY=V1,V2,... (a JSON pointer or dotted path, then values)");
        const std::string ptr = pointerOf(spec.substr(0, eq));
        std::vector<std::string> values;
        std::string cur;
        for (char c : spec.substr(eq + 1) + ",") {
            if (c != ',') {
                cur += c;
                continue;
            }
            if (cur.empty()) throw InputError("--vary " + spec + ": an empty value");
            values.push_back(cur);
            cur.clear();
        }
        std::vector<SweepVariant> next;
        for (const auto& base : combos)
            for (const auto& v : values) {
                SweepVariant x = base;
                x.name += (x.name.empty() ? "" : " ") + ptr + "=" + v;
                x.settings.emplace_back(ptr, valueJson(v));
                x.changes.push_back(ptr + " set to " + v);
                next.push_back(std::move(x));
            }
        combos = std::move(next);
    }
    out.insert(out.end(), combos.begin(), combos.end());
    return out;
}

SweepVariant whatIfVariant(const std::string& file, std::vector<model::Event> events) {
    SweepVariant v;
    v.name = std::filesystem::path(file).filename().string();
    for (const auto& e : events) v.changes.push_back(e.kind + " " + e.target + " at " + model::formatDuration(e.time_s));
    v.events = std::move(events);
    return v;
}

std::string withSettings(const std::string& scenario_json, const SweepVariant& v) {
    if (v.settings.empty()) return scenario_json;
    nlohmann::json j = nlohmann::json::parse(scenario_json);
    for (const auto& [ptr, value] : v.settings) {
        nlohmann::json::json_pointer p;
        try {
            p = nlohmann::json::json_pointer(ptr);
        } catch (const nlohmann::json::exception& e) {
            throw InputError(ptr + ": not a JSON pointer (" + e.what() + ")");
        }
        // Missing objects on the way are made (a scenario without "simulation" takes /simulation/x); a missing
        // array element, or a value on the way that holds nothing, is the pointer's error.
        nlohmann::json::json_pointer at;
        std::vector<std::string> tokens;
        for (nlohmann::json::json_pointer q = p; !q.empty(); q = q.parent_pointer()) tokens.insert(tokens.begin(), q.back());
        const nlohmann::json* node = &j;
        for (std::size_t i = 0; i + 1 < tokens.size() && node; ++i) {
            at /= tokens[i];
            if (node->is_object()) {
                node = node->contains(tokens[i]) ? &(*node)[tokens[i]] : nullptr;
            } else if (node->is_array()) {
                const bool index = !tokens[i].empty() && tokens[i].find_first_not_of("0123456789") == std::string::npos;
                if (!index || std::stoul(tokens[i]) >= node->size())
                    throw InputError(ptr + ": the scenario has no " + at.to_string() + " (an array of " + std::to_string(node->size()) +
                                     ")");
                node = &(*node)[std::stoul(tokens[i])];
            } else {
                throw InputError(ptr + ": " + at.parent_pointer().to_string() + " holds a value, not an object or array");
            }
        }
        if (node && !node->is_object() && !node->is_array())
            throw InputError(ptr + ": " + p.parent_pointer().to_string() + " holds a value, not an object or array");
        j[p] = nlohmann::json::parse(value);
    }
    return j.dump();
}

SweepRow runVariant(const RunRequest& base, const std::string& scenario_json, const SweepVariant& v, const RunCallbacks& cb) {
    SweepRow row;
    row.variant = v.name;
    RunRequest r = base;
    try {
        if (!v.settings.empty()) {
            model::ValidationReport rep = model::parseAndValidate(withSettings(scenario_json, v), v.name);
            std::string errors;
            for (const auto& d : rep.diagnostics)
                if (d.severity == model::Severity::Error) errors += (errors.empty() ? "" : "; ") + d.toString();
            if (!errors.empty()) throw InputError(errors);
            r.scenario = std::move(rep.scenario);
            r.catalog = std::move(rep.catalog);
            r.meta.scenario_json = model::scenarioToJson(r.scenario);
            r.meta.scenario_hash = model::scenarioHash(r.scenario);
        }
        const model::Diagnostics bad = model::validateEvents(r.scenario, r.catalog, v.events, "/events", r.duration_s);
        for (const auto& d : bad)
            if (d.severity == model::Severity::Error) throw InputError(d.toString());
    } catch (const InputError& e) {
        row.end = "error";
        row.error = e.what();
        return row;
    } catch (const model::ModelError& e) {
        row.end = "error";
        row.error = e.what();
        return row;
    }
    r.extra_events.insert(r.extra_events.end(), v.events.begin(), v.events.end());
    r.run_name = "sweep " + r.scenario.id + ": " + v.name;
    r.meta.whatif_changes = v.changes;
    RunSession session(std::move(r));
    const RunOutcome o = session.run(cb);
    row.run = o.run;
    row.end = o.end == RunEnd::Finished    ? "finished"
              : o.end == RunEnd::Steady    ? "steady"
              : o.end == RunEnd::NotSteady ? "not steady"
                                           : "interrupted";
    row.peak_inlet_c = o.peak_inlet_c;
    row.peak_inlet_rack = o.peak_inlet_rack;
    row.pue = o.it_energy_j > 0 ? o.facility_energy_j / o.it_energy_j : 0;
    row.gpu_lost_share = o.gpu_seconds > 0 ? o.gpu_seconds_lost / o.gpu_seconds : 0;
    row.alerts = static_cast<int>(o.first_alerts.size());
    if (!o.first_alerts.empty()) row.first_alert = o.first_alerts.front().kind + " " + o.first_alerts.front().entity;
    row.cooling_ok = o.cooling_ok;
    row.wall_s = o.wall_s;
    return row;
}

std::string rowToJson(const SweepRow& r) {
    return nlohmann::json{{"index", r.index},
                          {"variant", r.variant},
                          {"run", r.run},
                          {"end", r.end},
                          {"error", r.error},
                          {"peak_inlet_c", r.peak_inlet_c},
                          {"peak_inlet_rack", r.peak_inlet_rack},
                          {"pue", r.pue},
                          {"gpu_lost_share", r.gpu_lost_share},
                          {"alerts", r.alerts},
                          {"first_alert", r.first_alert},
                          {"cooling_ok", r.cooling_ok},
                          {"wall_s", r.wall_s},
                          {"rank", r.rank}}
        .dump();
}

SweepRow rowFromJson(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text);
    SweepRow r;
    r.index = j.at("index").get<std::size_t>();
    r.variant = j.at("variant").get<std::string>();
    r.run = j.at("run").get<std::int64_t>();
    r.end = j.at("end").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.peak_inlet_c = j.at("peak_inlet_c").get<double>();
    r.peak_inlet_rack = j.at("peak_inlet_rack").get<std::string>();
    r.pue = j.at("pue").get<double>();
    r.gpu_lost_share = j.at("gpu_lost_share").get<double>();
    r.alerts = j.at("alerts").get<int>();
    r.first_alert = j.at("first_alert").get<std::string>();
    r.cooling_ok = j.at("cooling_ok").get<bool>();
    r.wall_s = j.at("wall_s").get<double>();
    r.rank = j.at("rank").get<int>();
    return r;
}

}  // namespace ct::session
