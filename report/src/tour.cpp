#include <clustertwin/model/time.hpp>
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

Tour loadTour(const std::string& path, const std::string& scenarios_dir) {
    std::ifstream in(path);
    if (!in) throw render::RenderError(path + ": cannot read the tour");
    std::stringstream ss;
    ss << in.rdbuf();
    json j = json::parse(ss.str(), nullptr, false);
    if (j.is_discarded()) throw render::RenderError(path + ": not valid JSON");
    auto fail = [&](const std::string& ptr, const std::string& why) -> void { throw render::RenderError(path + ": " + ptr + ": " + why); };
    if (!j.is_object()) fail("", "a tour is a JSON object");
    auto str = [&](const json& o, const char* key, const std::string& ptr, bool required = false) {
        if (!o.contains(key)) {
            if (required) fail(ptr + "/" + key, "missing");
            return std::string();
        }
        if (!o[key].is_string()) fail(ptr + "/" + key, "expected a string");
        return o[key].get<std::string>();
    };
    auto duration = [&](const json& o, const char* key, const std::string& ptr) -> std::optional<double> {
        if (!o.contains(key)) return std::nullopt;
        if (o[key].is_number()) return o[key].get<double>();
        if (!o[key].is_string()) fail(ptr + "/" + key, "expected a duration (\"9m\") or seconds");
        try {
            return model::parseDurationS(o[key].get<std::string>());
        } catch (const std::exception& e) {
            fail(ptr + "/" + key, e.what());
        }
        return std::nullopt;
    };
    Tour t;
    t.title = str(j, "title", "", true);
    t.description = str(j, "description", "");
    const std::string sc = str(j, "scenario", "", true);
    const fs::path beside = fs::path(path).parent_path() / sc;
    if (fs::exists(beside)) t.scenario = beside.string();
    else if (!scenarios_dir.empty() && fs::exists(fs::path(scenarios_dir) / sc)) t.scenario = (fs::path(scenarios_dir) / sc).string();
    else fail("/scenario", "no scenario '" + sc + "' beside the tour or among the samples");
    t.simulate_s = duration(j, "simulate", "");
    if (!j.contains("steps") || !j["steps"].is_array() || j["steps"].empty()) fail("/steps", "a tour needs at least one step");
    for (std::size_t i = 0; i < j["steps"].size(); ++i) {
        const json& s = j["steps"][i];
        const std::string p = "/steps/" + std::to_string(i);
        if (!s.is_object()) fail(p, "a step is a JSON object");
        TourStep st;
        st.caption = str(s, "caption", p, true);
        if (s.contains("seconds")) {
            if (!s["seconds"].is_number() || s["seconds"].get<double>() <= 0) fail(p + "/seconds", "expected a positive number");
            st.seconds = s["seconds"].get<double>();
        }
        st.camera = str(s, "camera", p);
        if (!st.camera.empty() && st.camera != "iso" && st.camera != "top" && st.camera != "aisle") fail(p + "/camera", "iso, top or aisle");
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
        if ((st.time_s || st.play_to_s) && !t.simulate_s) fail(p + "/time", "times need a run: give the tour a \"simulate\" duration");
        if (st.play_to_s && st.time_s && *st.play_to_s < *st.time_s) fail(p + "/play_to", "before the step's time");
        if (s.contains("streamlines")) {
            if (!s["streamlines"].is_boolean()) fail(p + "/streamlines", "expected true or false");
            st.streamlines = s["streamlines"].get<bool>();
        }
        if (s.contains("links")) {
            if (!s["links"].is_boolean()) fail(p + "/links", "expected true or false");
            st.links = s["links"].get<bool>();
        }
        if (s.contains("slice")) {
            if (!s["slice"].is_number()) fail(p + "/slice", "expected a height in metres (negative: off)");
            st.slice_m = s["slice"].get<double>();
        }
        t.steps.push_back(std::move(st));
    }
    return t;
}

} // namespace ct::report
