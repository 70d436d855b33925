// Prometheus samples (text exposition and the HTTP API) to ImportedSamples: hosts, GPUs and MIG instances
// from the DCGM exporter's labels or nvidia_gpu_exporter's uuid, names and units from the vocabulary, and
// series told apart by the labels the entity does not use.
#include "parse_common.hpp"
#include "vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace ct::importers::detail {

namespace {

struct MetricName {
    const char* name;
    const char* unit;
    double scale;
};

/// DCGM fields with the vocabulary's names (so imported and simulated runs replay alike); others keep their
/// own name, lowercased.
const std::unordered_map<std::string, MetricName>& dcgmNames() {
    static const std::unordered_map<std::string, MetricName> m = {
        {"DCGM_FI_DEV_GPU_TEMP", {"temp_c", "degC", 1}},
        {"DCGM_FI_DEV_MEMORY_TEMP", {"memory_temp_c", "degC", 1}},
        {"DCGM_FI_DEV_POWER_USAGE", {"power_w", "W", 1}},
        {"DCGM_FI_DEV_POWER_USAGE_INSTANT", {"power_instant_w", "W", 1}},
        {"DCGM_FI_DEV_POWER_MGMT_LIMIT", {"power_limit_sw_w", "W", 1}},
        {"DCGM_FI_DEV_ENFORCED_POWER_LIMIT", {"power_limit_w", "W", 1}},
        {"DCGM_FI_DEV_GPU_UTIL", {"utilization", "ratio", 0.01}},
        {"DCGM_FI_DEV_MEM_COPY_UTIL", {"mem_copy_utilization", "ratio", 0.01}},
        {"DCGM_FI_DEV_ENC_UTIL", {"encoder_utilization", "ratio", 0.01}},
        {"DCGM_FI_DEV_DEC_UTIL", {"decoder_utilization", "ratio", 0.01}},
        {"DCGM_FI_DEV_FAN_SPEED", {"fan_speed", "ratio", 0.01}},
        {"DCGM_FI_DEV_SM_CLOCK", {"sm_clock_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_MEM_CLOCK", {"mem_clock_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_VIDEO_CLOCK", {"video_clock_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_MAX_SM_CLOCK", {"sm_clock_max_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_MAX_MEM_CLOCK", {"mem_clock_max_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_PSTATE", {"pstate", "", 1}},
        {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {"energy_j", "J", 0.001}},
        {"DCGM_FI_DEV_FB_TOTAL", {"fb_total_mib", "MiB", 1}},
        {"DCGM_FI_DEV_FB_USED", {"fb_used_mib", "MiB", 1}},
        {"DCGM_FI_DEV_FB_FREE", {"fb_free_mib", "MiB", 1}},
        {"DCGM_FI_DEV_FB_RESERVED", {"fb_reserved_mib", "MiB", 1}},
        {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", {"gr_engine_active", "ratio", 1}},
        {"DCGM_FI_PROF_SM_ACTIVE", {"sm_active", "ratio", 1}},
        {"DCGM_FI_PROF_SM_OCCUPANCY", {"sm_occupancy", "ratio", 1}},
        {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", {"tensor_active", "ratio", 1}},
        {"DCGM_FI_PROF_DRAM_ACTIVE", {"dram_active", "ratio", 1}},
    };
    return m;
}

/// DCGM's "no data" sentinels (blank / not found / not supported / no permission) for int64, int32 and fp64.
bool isSentinel(double v) {
    if (v >= 9223372036854775792.0 && v <= 9223372036854775808.0) return true;
    if (v >= 2147483632.0 && v <= 2147483635.0) return true;
    if (v >= 140737488355328.0 && v <= 140737488355331.0) return true;
    return false;
}

/// Why a sample is no reading at all (DCGM's sentinels; the 0 °C memory temperature of GPUs without a memory
/// sensor: GDDR cards such as the T4, L4 and L40S, and vGPUs), or null. Counted as no_data, not stored, so no view
/// shows "Memory temperature 0.0 °C".
const char* noReading(std::string_view metric, double value) {
    if (isSentinel(value)) return "DCGM reports no data";
    if (value == 0 && metric == "DCGM_FI_DEV_MEMORY_TEMP") return "0, a GPU without a memory temperature sensor";
    return nullptr;
}

std::string lower(std::string_view v) {
    std::string s(v);
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

/// Labels that say which entity a sample belongs to, or describe it; any other label (pid, container, pod,
/// le, ...) may tell two series of one entity apart.
bool identityLabel(std::string_view k) {
    static const std::set<std::string_view> ids = {
        "__name__",       "Hostname", "hostname",  "instance",   "job",      "gpu",           "UUID",
        "uuid",           "device",   "modelName", "pci_bus_id", "GPU_I_ID", "GPU_I_PROFILE", "DCGM_FI_DRIVER_VERSION",
        "driver_version", "name",     "index"};
    return ids.count(k) != 0;
}

/// The family's name, unit and scale, looked up once per run of samples of one family.
void lookUpFamily(std::string_view metric, PromState& st) {
    st.metric.assign(metric);
    st.skip = false;
    st.scale = 1;
    st.unit.clear();
    const auto& names = dcgmNames();
    if (auto it = names.find(st.metric); it != names.end()) {
        st.name = it->second.name;
        st.unit = it->second.unit;
        st.scale = it->second.scale;
        return;
    }
    if (st.metric.rfind("nvidia_smi_", 0) == 0) {
        if ((st.metric.size() > 5 && st.metric.compare(st.metric.size() - 5, 5, "_info") == 0) ||
            smiIdentityField(std::string_view(st.metric).substr(11))) {
            st.skip = true;  // identity series (gpu_info, compute_app_info, index, serial): labels, not readings
            return;
        }
        if (const auto f = exporterField(st.metric)) {
            if (const auto term = smiTerm(f->field, f->unit)) {
                st.name = term->metric;
                st.unit = term->unit;
                st.scale = term->scale;
                return;
            }
        }
    }
    st.name = lower(metric);
}

/// "GPU-" + uuid as nvidia-smi writes it (nvidia_gpu_exporter drops the prefix).
std::string gpuUuid(const std::string& u) { return u.rfind("GPU-", 0) == 0 || u.rfind("MIG-", 0) == 0 ? u : "GPU-" + u; }

}  // namespace

bool addPromSample(std::string_view metric, const Labels& labels, double t, double value, const std::function<std::string()>& where,
                   ParseResult& res, PromState& st) {
    if (const char* why = noReading(metric, value)) {
        res.warnings.push_back({where(), "no_data", std::string(metric) + ": " + why});
        return false;
    }
    if (metric != st.metric) lookUpFamily(metric, st);
    const std::string* uuid_label = labels.find("uuid");  // nvidia_gpu_exporter
    if (st.skip) {
        if (metric == "nvidia_smi_gpu_info" && uuid_label) st.exporter_gpus[*uuid_label] = {labels.get("index"), labels.get("name")};
        return false;
    }
    const std::string* hp = labels.find("Hostname");
    if (!hp) hp = labels.find("hostname");
    if (!hp || hp->empty()) hp = labels.find("instance");
    const std::string& host = hp && !hp->empty() ? *hp : st.default_host;
    if (host != st.last_host) {  // scrapes name one host many times in a row
        st.last_host = host;
        if (st.seen.insert(host).second) res.entities.push_back({host, "node", "", host, {}});
    }
    std::string& entity = st.entity;
    entity = host;
    if (const std::string* gpu_label = labels.find("gpu")) {
        entity.append("/gpu").append(*gpu_label);
        if (st.seen.find(entity) == st.seen.end()) {
            st.seen.insert(entity);
            std::map<std::string, std::string> gl;
            if (const std::string* u = labels.find("UUID")) gl["uuid"] = *u;
            if (const std::string* b = labels.find("pci_bus_id")) gl["pci_bus_id"] = *b;
            res.entities.push_back({entity, "gpu", host, labels.get("modelName"), gl});
        }
        if (const std::string* gi = labels.find("GPU_I_ID"); gi && !gi->empty()) {
            const std::string gpu = entity;
            entity.append("/mig").append(*gi);
            if (st.seen.insert(entity).second) res.entities.push_back({entity, "mig", gpu, labels.get("GPU_I_PROFILE"), {}});
        }
    } else if (uuid_label && !uuid_label->empty()) {
        // nvidia_gpu_exporter labels its GPUs by uuid only: "<host>/gpu-<uuid>" until nvidia_smi_gpu_info
        // (which may come later in the scrape) gives the index.
        entity.append("/gpu-").append(*uuid_label);
        if (st.seen.insert(entity).second) {
            st.uuid_entity[*uuid_label] = entity;
            res.entities.push_back({entity, "gpu", host, "", {{"uuid", gpuUuid(*uuid_label)}}});
        }
    }
    // The labels beyond the entity's, as "k=v" pairs in key order: series that differ only there are
    // different series (processes, containers, histogram buckets). Consecutive samples carry the same label
    // names: which of them are extra is worked out once per list of names.
    st.tag.clear();
    bool same_keys = labels.size() == st.keys.size();
    for (std::size_t i = 0; same_keys && i < labels.size(); ++i) same_keys = labels[i].first == st.keys[i];
    if (!same_keys) {
        st.keys.resize(labels.size());
        st.extra.clear();
        for (std::size_t i = 0; i < labels.size(); ++i) {
            st.keys[i] = labels[i].first;
            if (!identityLabel(labels[i].first)) st.extra.push_back(i);
        }
        std::sort(st.extra.begin(), st.extra.end(), [&](std::size_t a, std::size_t b) { return labels[a].first < labels[b].first; });
    }
    for (std::size_t i : st.extra) st.tag.append(labels[i].first).append("=\"").append(labels[i].second).append("\",");
    if (!st.tag.empty()) {  // tag 0 is "no extra labels"
        auto [it, added] = st.tag_index.try_emplace(st.tag, static_cast<std::uint32_t>(st.tagsets.size()));
        if (added) st.tagsets.push_back(st.tag);
        if (st.tag_of.empty()) st.tag_of.assign(res.samples.size(), 0);
        st.tag_of.push_back(it->second);
    } else if (!st.tag_of.empty()) {
        st.tag_of.push_back(0);
    }
    ImportedSample& smp = res.samples.emplace_back();
    smp.entity = entity;
    smp.metric = st.name;
    smp.unit = st.unit;
    smp.t_s = t;
    smp.value = value * st.scale;
    return true;
}

void finishPromParse(ParseResult& res, PromState& st) {
    // nvidia_gpu_exporter: "<host>/gpu-<uuid>" → "<host>/gpu<index>".
    std::map<std::string, std::pair<std::string, std::string>> rename;  // old id → new id, model name
    for (const auto& [uuid, ent] : st.uuid_entity) {
        auto it = st.exporter_gpus.find(uuid);
        if (it == st.exporter_gpus.end() || it->second.first.empty()) continue;
        rename[ent] = {ent.substr(0, ent.rfind("/gpu-")) + "/gpu" + it->second.first, it->second.second};
    }
    if (!rename.empty()) {
        for (auto& e : res.entities)
            if (auto it = rename.find(e.id); it != rename.end()) {
                e.id = it->second.first;
                e.name = it->second.second;
            }
        for (auto& s : res.samples)
            if (auto it = rename.find(s.entity); it != rename.end()) s.entity = it->second.first;
    }
    if (st.tag_of.size() != res.samples.size() || st.tagsets.size() < 2) return;
    // Series of one entity and metric seen with different extra labels: where two of them give different
    // values at one time they are different series, and every sample of that entity and metric gets the
    // labels that differ among them in its name ("fb_used_mib{pid=\"11327\"}"). Equal values are one reading
    // told twice (a GPU listed once per pod that shares it): left alone, the store counts the repeat.
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < res.samples.size(); ++i) groups[{res.samples[i].entity, res.samples[i].metric}].push_back(i);
    auto parse_tag = [&](std::uint32_t k) {
        std::map<std::string, std::string> kv;
        const std::string& t = st.tagsets[k];
        for (std::size_t p = 0; p < t.size();) {
            const auto eq = t.find("=\"", p);
            const auto end = t.find("\",", eq);
            if (eq == std::string::npos || end == std::string::npos) break;
            kv[t.substr(p, eq - p)] = t.substr(eq + 2, end - eq - 2);
            p = end + 2;
        }
        return kv;
    };
    for (auto& [key, idx] : groups) {
        std::set<std::uint32_t> tags;
        for (std::size_t i : idx) tags.insert(st.tag_of[i]);
        if (tags.size() < 2) continue;
        std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return res.samples[a].t_s < res.samples[b].t_s; });
        bool conflict = false;
        for (std::size_t j = 1; j < idx.size() && !conflict; ++j) {
            const auto& a = res.samples[idx[j - 1]];
            const auto& b = res.samples[idx[j]];
            conflict = a.t_s == b.t_s && st.tag_of[idx[j - 1]] != st.tag_of[idx[j]] &&
                       !(a.value == b.value || (std::isnan(a.value) && std::isnan(b.value)));
        }
        if (!conflict) continue;
        std::map<std::uint32_t, std::map<std::string, std::string>> sets;
        std::set<std::string> keys;
        for (std::uint32_t k : tags)
            for (const auto& [lk, lv] : (sets[k] = parse_tag(k))) keys.insert(lk);
        std::vector<std::string> differing;
        for (const auto& k : keys) {
            std::set<std::string> values;
            for (const auto& [tk, kv] : sets) values.insert(kv.count(k) ? kv.at(k) : std::string("\x01"));
            if (values.size() > 1) differing.push_back(k);
        }
        std::map<std::uint32_t, std::string> suffix;
        for (const auto& [tk, kv] : sets) {
            std::string s = "{";
            for (const auto& k : differing)
                if (kv.count(k)) s += (s.size() > 1 ? "," : "") + k + "=\"" + kv.at(k) + "\"";
            suffix[tk] = s + "}";
        }
        for (std::size_t i : idx) res.samples[i].metric += suffix[st.tag_of[i]];
    }
}

}  // namespace ct::importers::detail
