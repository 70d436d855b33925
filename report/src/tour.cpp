#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/render/overlays.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/tour.hpp>

#include <nlohmann/json.hpp>

#include <clustertwin/runs/replay.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace ct::report {

namespace fs = std::filesystem;
using json = nlohmann::json;

double Tour::seconds() const {
    double s = 0;
    for (const auto& st : steps) s += st.seconds;
    return s;
}

namespace {

/// Reads a tour file's JSON, every problem a RenderError naming the file and the JSON pointer.
class TourReader {
public:
    explicit TourReader(std::string path) : path_(std::move(path)) {}

    [[noreturn]] void fail(const std::string& ptr, const std::string& why) const {
        throw render::RenderError(path_ + ": " + ptr + ": " + why);
    }

    std::string str(const json& o, const char* key, const std::string& ptr, bool required = false) const {
        if (!o.contains(key)) {
            if (required) fail(ptr + "/" + key, "missing");
            return std::string();
        }
        if (!o[key].is_string()) fail(ptr + "/" + key, "expected a string");
        return o[key].get<std::string>();
    }

    std::optional<double> duration(const json& o, const char* key, const std::string& ptr) const {
        if (!o.contains(key)) return std::nullopt;
        if (o[key].is_number()) return o[key].get<double>();
        if (!o[key].is_string()) fail(ptr + "/" + key, "expected a duration (\"9m\") or seconds");
        try {
            return model::parseDurationS(o[key].get<std::string>());
        } catch (const std::exception& e) {
            fail(ptr + "/" + key, e.what());
        }
    }

    /// Step `s` at pointer p; `timed`: the tour has a run, so steps may give times.
    TourStep step(const json& s, const std::string& p, bool timed) const {
        if (!s.is_object()) fail(p, "a step is a JSON object");
        TourStep st;
        st.caption = str(s, "caption", p, true);
        if (s.contains("seconds")) {
            if (!s["seconds"].is_number() || s["seconds"].get<double>() <= 0) fail(p + "/seconds", "expected a positive number");
            st.seconds = s["seconds"].get<double>();
        }
        st.camera = str(s, "camera", p);
        if (!st.camera.empty() && st.camera != "iso" && st.camera != "top" && st.camera != "aisle")
            fail(p + "/camera", "iso, top or aisle");
        st.focus = str(s, "focus", p);
        st.select = str(s, "select", p);
        st.metric = str(s, "metric", p);
        if (!st.metric.empty()) try {
                render::metricInfo(st.metric);
            } catch (const render::RenderError& e) {
                fail(p + "/metric", e.what());
            }
        if (s.contains("highlight")) {
            if (!s["highlight"].is_array()) fail(p + "/highlight", "expected an array of entity ids");
            for (const auto& h : s["highlight"]) {
                if (!h.is_string()) fail(p + "/highlight", "expected an array of entity ids");
                st.highlight.push_back(h.get<std::string>());
            }
        }
        st.time_s = duration(s, "time", p);
        st.play_to_s = duration(s, "play_to", p);
        if ((st.time_s || st.play_to_s) && !timed) fail(p + "/time", "times need a run: give the tour a \"simulate\" duration");
        if (st.play_to_s && st.time_s && *st.play_to_s < *st.time_s) fail(p + "/play_to", "before the step's time");
        if (s.contains("checks")) {
            if (!s["checks"].is_array() || !timed) fail(p + "/checks", "an array of claims, in a tour that replays a run");
            for (std::size_t k = 0; k < s["checks"].size(); ++k)
                st.checks.push_back(check(s["checks"][k], p + "/checks/" + std::to_string(k)));
        }
        for (const render::OverlayInfo& info : render::overlayTable()) {
            if (!s.contains(info.id)) continue;
            const json& v = s[info.id];
            if (info.value && !v.is_number()) fail(p + "/" + info.id, "expected " + info.value_name + " (negative: off)");
            if (!info.value && !v.is_boolean()) fail(p + "/" + info.id, "expected true or false");
            st.overlays[info.id] = info.value ? v.get<double>() : (v.get<bool>() ? 1.0 : 0.0);
        }
        return st;
    }

    /// A claim, checked for form here (its meaning against the run in checkTour); kept as compact JSON.
    std::string check(const json& c, const std::string& p) const {
        static const std::set<std::string> keys = {"event", "target", "at",  "metric", "of",   "entities",
                                                   "stat",  "min",    "max", "share",  "from", "to"};
        if (!c.is_object()) fail(p, "a claim is a JSON object");
        for (const auto& [k, v] : c.items())
            if (!keys.count(k)) fail(p + "/" + k, "unknown key");
        if (c.contains("event") == c.contains("metric")) fail(p, "a claim is about an \"event\" or a \"metric\"");
        for (const char* k : {"at", "from", "to"}) duration(c, k, p);
        if (c.contains("metric")) {
            if (c.contains("of") == c.contains("entities")) fail(p, "name the entities (\"entities\") or their kind (\"of\")");
            if (c.contains("from") != c.contains("to")) fail(p, "a change needs \"from\" and \"to\"");
            if (!c.contains("min") && !c.contains("max")) fail(p, "a claim needs \"min\" or \"max\"");
            for (const char* k : {"min", "max", "share"})
                if (c.contains(k) && !c[k].is_number()) fail(p + "/" + k, "expected a number");
            const std::string stat = c.value("stat", std::string("each"));
            if (stat != "each" && stat != "max" && stat != "min" && stat != "mean") fail(p + "/stat", "each, max, min or mean");
        }
        return c.dump();
    }

private:
    std::string path_;
};

/// The tour's "jobs": a jobs file's, or an array's; every problem a RenderError with its pointer.
std::vector<model::Job> tourJobs(const TourReader& r, const json& v, const std::string& path, const std::string& scenarios_dir,
                                 bool timed) {
    if (!timed) r.fail("/jobs", "jobs need a run: give the tour a \"simulate\" duration");
    model::JobsResult jr;
    std::string where = path;
    try {
        if (v.is_string()) {
            const std::string name = v.get<std::string>();
            const fs::path beside = fs::path(path).parent_path() / name;
            const fs::path shared = scenarios_dir.empty() ? fs::path() : fs::path(scenarios_dir).parent_path() / "jobs" / name;
            if (fs::exists(beside)) where = beside.string();
            else if (!shared.empty() && fs::exists(shared)) where = shared.string();
            else r.fail("/jobs", "no jobs file '" + name + "' beside the tour or among the workload files");
            jr = model::loadJobsFile(where);
        } else if (v.is_array()) {
            jr = model::parseJobs(v.dump(), path);
        } else {
            r.fail("/jobs", "a jobs file's name or an array of jobs");
        }
    } catch (const model::ModelError& e) {  // not JSON, not readable
        throw render::RenderError(e.what());
    }
    // A file's findings point into it; an array's into the tour, under /jobs.
    for (const auto& d : jr.diagnostics)
        if (d.severity == model::Severity::Error)
            throw render::RenderError(where + ": " + (v.is_string() ? "" : "/jobs") + d.location + ": " + d.message);
    return jr.jobs;
}

}  // namespace

Tour loadTour(const std::string& path, const std::string& scenarios_dir) {
    std::ifstream in(path);
    if (!in) throw render::RenderError(path + ": cannot read the tour");
    std::stringstream ss;
    ss << in.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (j.is_discarded()) throw render::RenderError(path + ": not valid JSON");
    const TourReader r(path);
    if (!j.is_object()) r.fail("", "a tour is a JSON object");
    Tour t;
    t.title = r.str(j, "title", "", true);
    t.description = r.str(j, "description", "");
    const std::string sc = r.str(j, "scenario", "", true);
    const fs::path beside = fs::path(path).parent_path() / sc;
    if (fs::exists(beside)) t.scenario = beside.string();
    else if (!scenarios_dir.empty() && fs::exists(fs::path(scenarios_dir) / sc)) t.scenario = (fs::path(scenarios_dir) / sc).string();
    else r.fail("/scenario", "no scenario '" + sc + "' beside the tour or among the samples");
    t.simulate_s = r.duration(j, "simulate", "");
    if (j.contains("events")) {
        if (!t.simulate_s) r.fail("/events", "events need a run: give the tour a \"simulate\" duration");
        const model::EventsResult ev = model::parseEvents(j["events"].dump(), path);
        for (const auto& d : ev.diagnostics)
            if (d.severity == model::Severity::Error) r.fail("/events" + d.location, d.message);
        t.events = ev.events;
    }
    if (j.contains("jobs")) t.jobs = tourJobs(r, j["jobs"], path, scenarios_dir, t.simulate_s.has_value());
    if (j.contains("air")) {
        t.air = r.str(j, "air", "");
        if (t.air != "quick" && t.air != "lbm") r.fail("/air", "quick or lbm");
    }
    if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty()) r.fail("/steps", "a tour needs at least one step");
    for (std::size_t i = 0; i < j["steps"].size(); ++i)
        t.steps.push_back(r.step(j["steps"][i], "/steps/" + std::to_string(i), t.simulate_s.has_value()));
    return t;
}

std::optional<double> stepStartS(const Tour& t, std::size_t i) {
    std::optional<double> at;
    for (std::size_t k = 0; k <= i && k < t.steps.size(); ++k) {
        const TourStep& st = t.steps[k];
        if (st.time_s) at = st.time_s;
        if (k < i && st.play_to_s) at = st.play_to_s;
    }
    return at;
}

namespace {

std::string fmt(double v) {
    std::ostringstream o;
    o.precision(3);
    o << v;
    return o.str();
}

/// One claim against the run: "" when it holds, else what the run shows.
std::string verify(const json& c, const runs::RunReplay& run, std::optional<double> step_at) {
    auto time = [&](const char* key) -> std::optional<double> {
        if (!c.contains(key)) return key == std::string("at") ? step_at : std::nullopt;
        return c[key].is_number() ? c[key].get<double>() : model::parseDurationS(c[key].get<std::string>());
    };
    const auto at = time("at");
    if (c.contains("event")) {
        const std::string kind = c["event"], target = c.value("target", std::string());
        for (const auto& e : run.events())  // an alert of that kind, or a scheduled event (kind "event", its kind as message)
            if ((e.kind == kind || (e.kind == "event" && e.message == kind)) && (target.empty() || e.target == target) &&
                (!at || std::abs(e.t_s - run.startS() - *at) < 1.0))
                return {};
        return "no " + kind + (target.empty() ? "" : " of " + target) + (at ? " at " + model::formatDuration(*at) : "") + " in the run";
    }
    const std::string metric = c["metric"];
    std::vector<std::string> ids;
    if (c.contains("entities"))
        for (const auto& e : c["entities"]) ids.push_back(e.get<std::string>());
    else
        for (const auto& e : run.entities())
            if (run.kindOf(e) == c["of"].get<std::string>() && run.series(e, metric)) ids.push_back(e);
    const auto from = time("from"), to = time("to");
    if (!from && !at) return "no time to read " + metric + " at";
    std::vector<double> v;
    for (const auto& id : ids) {
        const auto* pts = run.series(id, metric);
        if (!pts) return id + " has no " + metric;
        v.push_back(from ? runs::valueAt(*pts, run.startS() + *to + 1e-6) - runs::valueAt(*pts, run.startS() + *from + 1e-6)
                         : runs::valueAt(*pts, run.startS() + *at + 1e-6));
    }
    if (v.empty()) return "no entity with " + metric;
    const double lo = c.value("min", -1e300), hi = c.value("max", 1e300);
    const std::string stat = c.value("stat", std::string("each"));
    const std::string what = from ? metric + " change" : metric;
    if (stat == "each") {
        const auto inside = std::count_if(v.begin(), v.end(), [&](double x) { return x >= lo && x <= hi; });
        const double share = c.value("share", 1.0);
        if (static_cast<double>(inside) + 1e-9 >= share * static_cast<double>(v.size())) return {};
        const auto [mn, mx] = std::minmax_element(v.begin(), v.end());
        return std::to_string(inside) + " of " + std::to_string(v.size()) + " " + what + " within the bounds (they range " + fmt(*mn) +
               " to " + fmt(*mx) + ")";
    }
    double x = stat == "max" ? *std::max_element(v.begin(), v.end()) : stat == "min" ? *std::min_element(v.begin(), v.end()) : 0;
    if (stat == "mean") {
        for (double y : v) x += y;
        x /= static_cast<double>(v.size());
    }
    return x >= lo && x <= hi ? std::string() : "the " + stat + " " + what + " is " + fmt(x);
}

}  // namespace

std::vector<TourCheckFailure> checkTour(const Tour& t, const runs::RunReplay& run) {
    std::vector<TourCheckFailure> out;
    for (std::size_t i = 0; i < t.steps.size(); ++i)
        for (const std::string& claim : t.steps[i].checks) {
            const std::string found = verify(json::parse(claim), run, stepStartS(t, i));
            if (!found.empty()) out.push_back({i, claim, found});
        }
    return out;
}

}  // namespace ct::report
