#include <clustertwin/runs/run_meta.hpp>

#include <nlohmann/json.hpp>

namespace ct::runs {

namespace {
using json = nlohmann::json;

void take(json& j, const char* key, std::string& out) {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (it->is_string()) out = it->get<std::string>();
    j.erase(it);
}
template <class T>
void take(json& j, const char* key, std::optional<T>& out) {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (it->is_number()) out = it->get<T>();
    j.erase(it);
}
void take(json& j, const char* key, bool& out) {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (it->is_boolean()) out = it->get<bool>();
    j.erase(it);
}
}  // namespace

RunMeta RunMeta::parse(const std::string& text) {
    RunMeta m;
    json j = json::parse(text.empty() ? "{}" : text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return m;
    take(j, "source", m.source);
    take(j, "scenario_file", m.scenario_file);
    take(j, "scenario_hash", m.scenario_hash);
    take(j, "mapped_onto", m.mapped_onto);
    take(j, "air", m.air);
    take(j, "air_summary", m.air_summary);
    take(j, "backend", m.backend);
    take(j, "duration_s", m.duration_s);
    take(j, "step_s", m.step_s);
    take(j, "cell_m", m.cell_m);
    take(j, "grid_cells", m.grid_cells);
    take(j, "steady", m.steady);
    take(j, "interrupted", m.interrupted);
    take(j, "interrupted_at_s", m.interrupted_at_s);
    take(j, "interrupted_by", m.interrupted_by);
    take(j, "time_origin_unix", m.time_origin_unix);
    take(j, "driven_by", m.driven_by);
    take(j, "whatif_baseline", m.whatif_baseline);
    if (auto it = j.find("whatif_changes"); it != j.end()) {
        if (it->is_array())
            for (const auto& x : *it)
                if (x.is_string()) m.whatif_changes.push_back(x.get<std::string>());
        j.erase(it);
    }
    if (auto it = j.find("driven"); it != j.end()) {
        if (it->is_array())
            for (const auto& x : *it) {
                if (!x.is_object() || !x.contains("input") || !x["input"].is_string()) continue;
                Driven d{x["input"].get<std::string>()};
                for (auto [key, field] :
                     {std::pair{"series", &d.series}, std::pair{"samples", &d.samples}, std::pair{"driven_steps", &d.driven_steps},
                      std::pair{"model_steps", &d.model_steps}, std::pair{"gaps", &d.gaps}})
                    if (x.contains(key) && x[key].is_number()) *field = x[key].get<std::int64_t>();
                m.driven.push_back(std::move(d));
            }
        j.erase(it);
    }
    if (auto it = j.find("run_options"); it != j.end()) {
        if (it->is_object()) m.run_options_json = it->dump();
        j.erase(it);
    }
    if (auto it = j.find("job_nodes"); it != j.end()) {
        if (it->is_object())
            for (const auto& [id, nodes] : it->items()) {
                if (!nodes.is_array()) continue;
                auto& out = m.job_nodes[id];
                for (const auto& x : nodes)
                    if (x.is_string()) out.push_back(x.get<std::string>());
            }
        j.erase(it);
    }
    if (auto it = j.find("job_collectives"); it != j.end()) {
        if (it->is_object())
            for (const auto& [id, lines] : it->items())
                if (lines.is_string()) m.job_collectives[id] = lines.get<std::string>();
        j.erase(it);
    }
    if (!j.empty()) m.other_json = j.dump();
    return m;
}

std::string RunMeta::toJson() const {
    json j = json::object();
    if (!other_json.empty()) {
        json o = json::parse(other_json, nullptr, false);
        if (o.is_object()) j = std::move(o);
    }
    auto put = [&](const char* key, const std::string& v) {
        if (!v.empty()) j[key] = v;
    };
    put("source", source);
    put("scenario_file", scenario_file);
    put("scenario_hash", scenario_hash);
    put("mapped_onto", mapped_onto);
    put("air", air);
    put("air_summary", air_summary);
    put("backend", backend);
    if (duration_s) j["duration_s"] = *duration_s;
    if (step_s) j["step_s"] = *step_s;
    if (cell_m) j["cell_m"] = *cell_m;
    if (grid_cells) j["grid_cells"] = *grid_cells;
    if (steady) j["steady"] = true;
    if (!run_options_json.empty()) {
        json o = json::parse(run_options_json, nullptr, false);
        if (o.is_object()) j["run_options"] = std::move(o);
    }
    if (!job_nodes.empty()) j["job_nodes"] = job_nodes;
    if (!job_collectives.empty()) j["job_collectives"] = job_collectives;
    if (time_origin_unix) j["time_origin_unix"] = *time_origin_unix;
    put("driven_by", driven_by);
    put("whatif_baseline", whatif_baseline);
    if (!whatif_changes.empty()) j["whatif_changes"] = whatif_changes;
    if (!driven.empty()) {
        json a = json::array();
        for (const auto& d : driven)
            a.push_back({{"input", d.input},
                         {"series", d.series},
                         {"samples", d.samples},
                         {"driven_steps", d.driven_steps},
                         {"model_steps", d.model_steps},
                         {"gaps", d.gaps}});
        j["driven"] = std::move(a);
    }
    if (interrupted) {
        j["interrupted"] = true;
        if (interrupted_at_s) j["interrupted_at_s"] = *interrupted_at_s;
        put("interrupted_by", interrupted_by);
    }
    return j.dump();
}

}  // namespace ct::runs
