#include <clustertwin/importers/parse.hpp>

#include "parse_common.hpp"

#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace ct::importers {

namespace detail {
struct MetricName {
    const char* name;
    const char* unit;
    double scale;
};
} // namespace detail

namespace {

using detail::MetricName;

/// DCGM fields with engine names (so imported and simulated runs replay alike); others keep their own name.
const std::unordered_map<std::string, MetricName>& dcgmNames() {
    static const std::unordered_map<std::string, MetricName> m = {
        {"DCGM_FI_DEV_GPU_TEMP", {"temp_c", "degC", 1}},
        {"DCGM_FI_DEV_MEMORY_TEMP", {"memory_temp_c", "degC", 1}},
        {"DCGM_FI_DEV_POWER_USAGE", {"power_w", "W", 1}},
        {"DCGM_FI_DEV_GPU_UTIL", {"utilization", "ratio", 0.01}},
        {"DCGM_FI_DEV_MEM_COPY_UTIL", {"mem_copy_utilization", "ratio", 0.01}},
        {"DCGM_FI_DEV_SM_CLOCK", {"sm_clock_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_MEM_CLOCK", {"mem_clock_mhz", "MHz", 1}},
        {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {"energy_j", "J", 0.001}},
        {"DCGM_FI_DEV_FB_USED", {"fb_used_mib", "MiB", 1}},
        {"DCGM_FI_DEV_FB_FREE", {"fb_free_mib", "MiB", 1}},
        {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", {"gr_engine_active", "ratio", 1}},
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

std::string lower(std::string_view v) {
    std::string s(v);
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

/// [A-Za-z0-9_] without the locale lookups of std::isalnum.
inline bool wordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// Parses `{a="x",b="y"}` starting at s[i] == '{'; leaves i after '}'. False on a syntax error.
bool parseLabels(const std::string& s, std::size_t& i, detail::Labels& labels, std::string& err) {
    ++i;  // '{'
    for (;;) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
        if (i < s.size() && s[i] == '}') {
            ++i;
            return true;
        }
        const std::size_t k0 = i;
        while (i < s.size() && wordChar(s[i])) ++i;
        if (i == k0 || i >= s.size() || s[i] != '=') {
            err = "expected label=\"value\"";
            return false;
        }
        const std::string_view key(s.data() + k0, i - k0);
        ++i;
        if (i >= s.size() || s[i] != '"') {
            err = "label value must be quoted";
            return false;
        }
        ++i;
        std::string& val = labels.add(key);
        for (;;) {
            // Plain runs are copied whole; escapes one at a time.
            std::size_t j = i;
            while (j < s.size() && s[j] != '"' && s[j] != '\\') ++j;
            val.append(s, i, j - i);
            i = j;
            if (i >= s.size()) {
                err = "unterminated label value";
                return false;
            }
            const char c = s[i++];
            if (c == '"') break;
            if (i < s.size()) {  // a backslash: \n, \\, \"
                const char e = s[i++];
                val += e == 'n' ? '\n' : e;
            }
        }
    }
}

} // namespace

namespace detail {

/// Turns one Prometheus sample (name, labels, time, value) into an ImportedSample with DCGM names and units,
/// recording host/GPU/MIG entities once. False (with a warning) for DCGM no-data sentinels.
bool addPromSample(std::string_view metric, const Labels& labels, double t, double value, const std::function<std::string()>& where,
                   ParseResult& res, PromState& st) {
    if (isSentinel(value)) {
        res.warnings.push_back({where(), "no_data", std::string(metric) + ": DCGM reports no data"});
        return false;
    }
    const std::string* hp = labels.find("Hostname");
    if (!hp) hp = labels.find("hostname");
    if (!hp || hp->empty()) hp = labels.find("instance");
    static const std::string unknown = "unknown-host";
    const std::string& host = hp && !hp->empty() ? *hp : unknown;
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
    }
    if (metric != st.metric) {  // a metric family's samples come together: look its name up once
        st.metric.assign(metric);
        const auto& names = dcgmNames();
        auto it = names.find(st.metric);
        st.mapped = it != names.end() ? &it->second : nullptr;
        st.lowered = st.mapped ? std::string(st.mapped->name) : lower(metric);
    }
    ImportedSample& smp = res.samples.emplace_back();
    smp.entity = entity;
    smp.metric = st.lowered;
    smp.t_s = t;
    if (st.mapped) {
        smp.unit = st.mapped->unit;
        smp.value = value * st.mapped->scale;
    } else {
        smp.value = value;
    }
    return true;
}

} // namespace detail

ParseResult parsePrometheusText(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::PromState state;
    std::string line, metric;
    detail::Labels labels;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    auto warn = [&](std::size_t l, const char* kind, std::string msg) { res.warnings.push_back({detail::loc(opt, l), kind, std::move(msg)}); };
    while (reader.next(line)) {
        const std::size_t lineno = reader.lineno();
        if (line.empty() || line[0] == '#') continue;
        std::size_t i = 0;
        while (i < line.size() && (wordChar(line[i]) || line[i] == ':')) ++i;
        if (i == 0) {
            warn(lineno, "syntax", "expected a metric name");
            continue;
        }
        metric.assign(line, 0, i);
        labels.clear();
        if (i < line.size() && line[i] == '{') {
            std::string err;
            if (!parseLabels(line, i, labels, err)) {
                warn(lineno, "syntax", metric + ": " + err);
                continue;
            }
        }
        // value [timestamp_ms]
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t v0 = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        double value = 0;
        if (!detail::parseNumber(std::string_view(line).substr(v0, i - v0), value)) {
            warn(lineno, "bad_value", metric + ": not a number: '" + line.substr(v0, i - v0) + "'");
            continue;
        }
        double t = opt.default_time_s;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i < line.size()) {
            double ms = 0;
            if (!detail::parseNumber(std::string_view(line).substr(i), ms) || !std::isfinite(ms)) {
                warn(lineno, "syntax", metric + ": bad timestamp");
                continue;
            }
            t = ms / 1000.0;
        }
        if (std::isnan(t)) {
            warn(lineno, "missing_field", metric + ": no timestamp and no scrape time");
            continue;
        }
        detail::addPromSample(metric, labels, t, value, [&] { return detail::loc(opt, lineno); }, res, state);
    }
    return res;
}

} // namespace ct::importers
