#include <clustertwin/model/time.hpp>
#include <clustertwin/render/overlays.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/tour.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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
        for (const render::OverlayInfo& info : render::overlayTable()) {
            if (!s.contains(info.id)) continue;
            const json& v = s[info.id];
            if (info.value && !v.is_number()) fail(p + "/" + info.id, "expected " + info.value_name + " (negative: off)");
            if (!info.value && !v.is_boolean()) fail(p + "/" + info.id, "expected true or false");
            st.overlays[info.id] = info.value ? v.get<double>() : (v.get<bool>() ? 1.0 : 0.0);
        }
        return st;
    }

private:
    std::string path_;
};

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
    if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty()) r.fail("/steps", "a tour needs at least one step");
    for (std::size_t i = 0; i < j["steps"].size(); ++i)
        t.steps.push_back(r.step(j["steps"][i], "/steps/" + std::to_string(i), t.simulate_s.has_value()));
    return t;
}

}  // namespace ct::report
