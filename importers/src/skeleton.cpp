// A scenario from telemetry alone (mapping.hpp, skeletonScenario): the hosts' real hardware, as the telemetry
// names it, with the catalog's figures for it; servers the catalog does not have are added to the scenario's own
// catalog section, and a GPU the catalog does not know gets a generic entry that says so.
#include <clustertwin/importers/mapping.hpp>

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/catalog.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace ct::importers {

namespace {

/// The upper-case alphanumeric tokens of a name: "NVIDIA H100 80GB HBM3" → NVIDIA, H100, 80GB, HBM3.
std::set<std::string> tokensOf(const std::string& name) {
    std::set<std::string> out;
    std::string cur;
    for (char ch : name + " ") {
        if (std::isalnum(static_cast<unsigned char>(ch))) {
            cur += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        } else if (!cur.empty()) {
            out.insert(cur);
            cur.clear();
        }
    }
    return out;
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

/// "telemetry-gpu-" + the name's letters and digits, lower case.
std::string slug(const std::string& name) {
    std::string out;
    for (char ch : name)
        if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        else if (!out.empty() && out.back() != '-') out += '-';
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? "unnamed" : out;
}

/// What one host reports: its GPUs' catalog model (or a generated one) and how many.
struct HostHardware {
    std::string gpu;  ///< catalog or generated GPU id; "" for a host without GPUs
    std::string gpu_name;
    int count = 0;
};

/// The scenario's own catalog section as it is built: generated GPU and server entries.
class SkeletonCatalog {
public:
    explicit SkeletonCatalog(std::vector<std::string>* notes) : notes_(notes) {}

    /// The GPU id for a telemetry name, adding a generic entry for one the catalog does not know.
    std::string gpuFor(const std::string& host, const std::string& name) {
        std::string guess;
        std::string id = catalogGpuFor(name, &guess);
        if (!guess.empty()) note(host + ": GPU '" + name + "': " + guess);
        if (!id.empty()) return id;
        id = "telemetry-gpu-" + slug(name);
        if (!gpus_.count(id)) {
            // Generic figures of a data-centre PCIe card, named as such: they are not this GPU's.
            gpus_[id] = {{"id", id},
                         {"name", "Unknown GPU '" + name + "' (generic figures)"},
                         {"idle_power_w", 30},
                         {"max_power_w", 300},
                         {"power_exponent", 1},
                         {"peak_bf16_tflops", 100},
                         {"memory_gb", 24},
                         {"memory_bandwidth_tbs", 0.9},
                         {"nvlink_gbs", 32},  // PCIe Gen4 x16 between GPUs
                         {"slowdown_temp_c", 87},
                         {"shutdown_temp_c", 92},
                         {"thermal_resistance_k_per_w", 0.15},
                         {"thermal_time_constant_s", 30},
                         {"source", "not in the catalog: the telemetry names '" + name +
                                        "'; every figure is a generic data-centre PCIe GPU's (300 W, 87 / 92 °C), not this GPU's. "
                                        "Add the GPU to the scenario's catalog section for its own."}};
            note(host + ": GPU '" + name + "' is not in the catalog; a generic GPU entry '" + id +
                 "' (300 W, generic figures) stands for it: give it its real figures in the scenario's catalog section");
        }
        return id;
    }

    /// The server for `count` GPUs of `gpu`: a DGX / HGX system for eight of its SXM GPUs, else one of the scenario's.
    std::string serverFor(const HostHardware& hw) {
        static const std::map<std::string, std::string> kEightWay = {
            {"a100-sxm4-80gb", "dgx-a100"}, {"h100-sxm5-80gb", "dgx-h100"}, {"b200-sxm-180gb", "hgx-b200"}};
        if (hw.count == 8)
            if (auto it = kEightWay.find(hw.gpu); it != kEightWay.end()) return it->second;
        std::string id = hw.count > 0 ? "telemetry-" + std::to_string(hw.count) + "x-" + hw.gpu : "telemetry-cpu-only";
        if (!servers_.count(id)) servers_[id] = genericServer(id, hw);
        return id;
    }

    /// The section as a scenario's "catalog" object ("" when nothing was generated).
    std::string json() const {
        if (gpus_.empty() && servers_.empty()) return "";
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        if (!gpus_.empty()) {
            out["gpus"] = nlohmann::ordered_json::array();
            for (const auto& [id, g] : gpus_) out["gpus"].push_back(g);
        }
        if (!servers_.empty()) {
            out["servers"] = nlohmann::ordered_json::array();
            for (const auto& [id, sv] : servers_) out["servers"].push_back(sv);
        }
        return out.dump();
    }

    double gpuMaxPower(const std::string& id) const {
        if (auto it = gpus_.find(id); it != gpus_.end()) return it->second["max_power_w"].get<double>();
        const model::GpuModel* g = model::Catalog::builtin().gpu(id);
        return g ? g->max_power_w : 0.0;
    }
    double gpuIdlePower(const std::string& id) const {
        if (auto it = gpus_.find(id); it != gpus_.end()) return it->second["idle_power_w"].get<double>();
        const model::GpuModel* g = model::Catalog::builtin().gpu(id);
        return g ? g->idle_power_w : 0.0;
    }

private:
    void note(const std::string& n) {
        if (notes_ && std::find(notes_->begin(), notes_->end(), n) == notes_->end()) notes_->push_back(n);
    }

    /// A two-socket server around the host's GPUs: the GPUs' figures from the catalog, the rest generic and said so.
    nlohmann::ordered_json genericServer(const std::string& id, const HostHardware& hw) const {
        const double gpu_w = hw.count * gpuMaxPower(hw.gpu);
        const double cpu_max = 205, cpu_idle = 60, nic = 25, other = 150 + 20.0 * hw.count;
        const double fans = std::round(60 + 0.08 * gpu_w);
        const double max_w = gpu_w + 2 * cpu_max + nic + other + fans;
        const double idle_w = std::round(hw.count * gpuIdlePower(hw.gpu) + 2 * cpu_idle + nic + 0.4 * other + 0.15 * fans);
        const double psu = std::ceil(max_w / 200.0) * 200.0;  // two, each carrying the whole server (1+1)
        const int height = hw.count <= 2 ? 1 : (hw.count <= 4 ? 2 : 4);
        const std::string what = hw.count > 0 ? std::to_string(hw.count) + " × " + hw.gpu_name : "no GPU";
        return {{"id", id},
                {"name", "Server with " + what + " (from telemetry)"},
                {"form_factor", "node"},
                {"gpu_model", hw.gpu},
                {"gpu_count", hw.count},
                {"height_u", height},
                {"weight_kg", 18 + 2.0 * hw.count},
                {"max_power_w", max_w},
                {"idle_power_w", idle_w},
                {"cpu_count", 2},
                {"cpu_idle_power_w", cpu_idle},
                {"cpu_max_power_w", cpu_max},
                {"nic_power_w", nic},
                {"other_power_w", other},
                {"fan_max_power_w", fans},
                // Front to back at a 15 K rise under full load (1 CFM = 0.000471947 m³/s).
                {"airflow_cfm", std::round(max_w / (1200.0 * 15.0) / 0.000471947)},
                {"liquid_fraction", 0},
                {"psu_count", 2},
                {"psu_rating_w", psu},
                {"psu_curve", "psu-80plus-platinum-230v"},
                {"source", "built by import --skeleton from the telemetry: " + what +
                               " (the GPUs' figures from the catalog); the CPUs (2 × 205 W), memory, storage, NIC, fans, "
                               "PSUs (1+1), height and weight are a generic two-socket server's, not this host's"}};
    }

    std::vector<std::string>* notes_;
    std::map<std::string, nlohmann::ordered_json> gpus_, servers_;
};

}  // namespace

std::string catalogGpuFor(const std::string& telemetry_name, std::string* guess) {
    const std::set<std::string> t = tokensOf(telemetry_name);
    const std::string u = upper(telemetry_name);
    auto has = [&](const char* tok) { return t.count(tok) > 0; };
    auto contains = [&](const char* s) { return u.find(s) != std::string::npos; };
    auto assume = [&](const std::string& why) {
        if (guess) *guess = why;
    };
    if (guess) guess->clear();
    if (contains("GB200")) return "gb200-blackwell-186gb";
    if (contains("B200")) return "b200-sxm-180gb";
    if (contains("H200")) return "h200-sxm-141gb";
    if (contains("H100")) {
        if (has("NVL") || contains("H100NVL")) return "h100-nvl-94gb";
        if (contains("PCIE")) return "h100-pcie-80gb";
        if (!contains("SXM") && !has("HBM3")) assume("an H100 named without its form factor: taken as the SXM5 module");
        return "h100-sxm5-80gb";
    }
    if (contains("A100")) {
        // vGPU profiles: "GRID A100-40C", "A100-20C" (a token of digits and a profile letter).
        const bool vgpu =
            contains("GRID") || std::any_of(t.begin(), t.end(), [](const std::string& x) {
                return x.size() >= 2 && std::isdigit(static_cast<unsigned char>(x[0])) && x.back() == 'C' &&
                       std::all_of(x.begin(), x.end() - 1, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
            });
        const bool forty = contains("40GB") || contains("-40") || has("40C") || contains("A100-40");
        if (contains("PCIE")) return forty || !contains("80") ? "a100-pcie-40gb" : "a100-pcie-80gb";
        if (contains("SXM")) {
            if (forty) assume("an A100 SXM4 40GB: the catalog has the 80 GB module; taken as it");
            return "a100-sxm4-80gb";
        }
        if (vgpu || forty) {
            assume(std::string(vgpu ? "a vGPU profile of " : "") +
                   "a 40 GB A100 named without its form factor: taken as the A100 PCIe 40GB" + (vgpu ? " (the whole physical GPU)" : ""));
            return "a100-pcie-40gb";
        }
        assume("an A100 named without its form factor: taken as the A100 SXM4 80GB");
        return "a100-sxm4-80gb";
    }
    if (has("L40S")) return "l40s-pcie-48gb";
    if (has("L4")) return "l4-pcie-24gb";
    if (has("T4")) return "t4-pcie-16gb";
    return "";
}

model::Scenario skeletonScenario(const std::vector<ImportedEntity>& entities, std::vector<std::string>* notes) {
    // Hosts and their GPUs (id → model name as the telemetry gives it).
    std::map<std::string, std::map<std::string, std::string>> hosts;
    for (const auto& e : entities) {
        if (e.kind == "node") hosts[e.id];
        if (e.kind == "gpu" && !e.parent.empty()) hosts[e.parent][e.id] = e.name;
    }
    if (hosts.empty()) throw ImportError("the telemetry names no hosts; nothing to build a scenario from");
    SkeletonCatalog cat(notes);
    std::map<std::string, std::string> server_of;  // host → server id
    std::map<std::string, int> models;
    for (const auto& [host, gpus] : hosts) {
        // The host's GPU model: the one most of its GPUs report (a host mixing models is said to be one).
        std::map<std::string, int> names;
        for (const auto& [id, name] : gpus) ++names[name];
        HostHardware hw;
        hw.count = static_cast<int>(gpus.size());
        if (!names.empty()) {
            hw.gpu_name = std::max_element(names.begin(), names.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
            if (names.size() > 1 && notes)
                notes->push_back(host + ": GPUs of " + std::to_string(names.size()) + " models; modelled as " + hw.gpu_name);
            hw.gpu = cat.gpuFor(host, hw.gpu_name.empty() ? "unnamed GPU" : hw.gpu_name);
        }
        server_of[host] = cat.serverFor(hw);
        ++models[server_of[host]];
    }
    model::Catalog merged = model::Catalog::builtin();
    const std::string section = cat.json();
    if (!section.empty()) {
        model::Diagnostics diags;
        merged.merge(section, "/catalog", diags);
        for (const auto& d : diags)
            if (d.severity == model::Severity::Error)
                throw ImportError("the skeleton's generated catalog entries: " + d.location + ": " + d.message);
        for (const auto& d : merged.check())
            if (d.severity == model::Severity::Error)
                throw ImportError("the skeleton's generated catalog entries are inconsistent: " + d.location + ": " + d.message);
    }
    const int n = static_cast<int>(hosts.size());
    model::HallParams p;
    p.id = "imported";
    p.name = "Hall built from telemetry";
    p.nodes_per_rack = 4;
    const int racks = (n + 3) / 4;
    p.racks_per_row = std::min(racks, 8);
    p.rows = (racks + p.racks_per_row - 1) / p.racks_per_row;
    p.topology = "none";
    // The majority model sizes cooling and power; each node then gets its own model.
    p.server_model = std::max_element(models.begin(), models.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
    model::Scenario s = model::buildHall(p, merged);
    s.id = "imported";
    s.name = "Scenario built from telemetry";
    s.description = "Skeleton from imported telemetry: " + std::to_string(n) +
                    " host(s) with the GPU models and counts they report. Positions, cooling and power are the hall builder's defaults.";
    s.catalog_json = section;
    auto it = hosts.begin();
    for (auto& h : s.halls)
        for (auto& row : h.rows)
            for (auto& rack : row.racks) {
                std::vector<model::Node> kept;
                for (auto& node : rack.nodes) {
                    if (it == hosts.end()) break;
                    node.hostname = it->first;
                    node.name = it->first;
                    node.model = server_of[it->first];
                    kept.push_back(node);
                    ++it;
                }
                rack.nodes = std::move(kept);
            }
    s.linkParents();
    return s;
}

}  // namespace ct::importers
