#include "vocabulary.hpp"

#include <algorithm>
#include <map>

namespace ct::importers::detail {

namespace {

// Field → metric, the metric's unit, and the unit nvidia-smi writes the field in. Where two fields name one
// quantity (clocks.sm, clocks.current.sm) both are listed.
const std::vector<VocabularyRow> kRows = {
    {"temperature.gpu", "temp_c", "degC", "C"},
    {"temperature.memory", "memory_temp_c", "degC", "C"},
    {"temperature.gpu.tlimit", "temp_margin_c", "degC", "C"},
    {"power.draw", "power_w", "W", "W"},
    {"power.draw.average", "power_avg_w", "W", "W"},
    {"power.draw.instant", "power_instant_w", "W", "W"},
    {"enforced.power.limit", "power_limit_w", "W", "W"},
    {"power.limit", "power_limit_sw_w", "W", "W"},
    {"power.default_limit", "power_limit_default_w", "W", "W"},
    {"power.min_limit", "power_limit_min_w", "W", "W"},
    {"power.max_limit", "power_limit_max_w", "W", "W"},
    {"utilization.gpu", "utilization", "ratio", "%"},
    {"utilization.memory", "mem_copy_utilization", "ratio", "%"},
    {"utilization.encoder", "encoder_utilization", "ratio", "%"},
    {"utilization.decoder", "decoder_utilization", "ratio", "%"},
    {"fan.speed", "fan_speed", "ratio", "%"},
    {"clocks.current.sm", "sm_clock_mhz", "MHz", "MHz"},
    {"clocks.sm", "sm_clock_mhz", "MHz", "MHz"},
    {"clocks.current.graphics", "graphics_clock_mhz", "MHz", "MHz"},
    {"clocks.gr", "graphics_clock_mhz", "MHz", "MHz"},
    {"clocks.current.memory", "mem_clock_mhz", "MHz", "MHz"},
    {"clocks.mem", "mem_clock_mhz", "MHz", "MHz"},
    {"clocks.current.video", "video_clock_mhz", "MHz", "MHz"},
    {"clocks.video", "video_clock_mhz", "MHz", "MHz"},
    {"clocks.max.sm", "sm_clock_max_mhz", "MHz", "MHz"},
    {"clocks.max.graphics", "graphics_clock_max_mhz", "MHz", "MHz"},
    {"clocks.max.memory", "mem_clock_max_mhz", "MHz", "MHz"},
    {"memory.total", "fb_total_mib", "MiB", "MiB"},
    {"memory.used", "fb_used_mib", "MiB", "MiB"},
    {"memory.free", "fb_free_mib", "MiB", "MiB"},
    {"memory.reserved", "fb_reserved_mib", "MiB", "MiB"},
    {"pstate", "pstate", "", ""},
};

/// The factor from `from` to `to`; 0 when they do not convert.
double convert(std::string_view from, std::string_view to) {
    if (from == to) return 1;
    if (to == "ratio") return from == "%" ? 0.01 : 0;
    if (to == "degC") return from == "C" || from == "degC" || from == "Cel" ? 1 : 0;
    if (to == "MiB") return from == "bytes" || from == "B" ? 1.0 / 1048576.0 : from == "KiB" ? 1.0 / 1024.0 : from == "GiB" ? 1024.0 : 0;
    if (to == "MHz") return from == "Hz" ? 1e-6 : from == "kHz" ? 1e-3 : from == "GHz" ? 1e3 : 0;
    if (to == "W") return from == "mW" ? 1e-3 : from == "kW" ? 1e3 : 0;
    if (to == "s") return from == "us" ? 1e-6 : from == "ms" ? 1e-3 : 0;
    return 0;
}

const VocabularyRow* row(std::string_view field) {
    static const std::map<std::string_view, const VocabularyRow*> by_field = [] {
        std::map<std::string_view, const VocabularyRow*> m;
        for (const auto& r : kRows) m.emplace(r.field, &r);
        return m;
    }();
    auto it = by_field.find(field);
    return it == by_field.end() ? nullptr : it->second;
}

}  // namespace

std::optional<Term> smiTerm(std::string_view field, std::string_view source_unit) {
    const VocabularyRow* r = row(field);
    if (!r) return std::nullopt;
    const std::string_view from = source_unit.empty() ? r->smi_unit : source_unit;
    const double f = convert(from, r->unit);
    if (f == 0) return std::nullopt;  // a unit we cannot convert: kept under the field's own name
    return Term{r->metric, r->unit, f};
}

OwnTerm smiOwnTerm(std::string_view field, std::string_view source_unit) {
    std::string metric(field);
    std::replace(metric.begin(), metric.end(), '.', '_');
    if (source_unit == "%") return {std::move(metric), std::string("ratio"), 0.01};
    if (source_unit == "us") return {std::move(metric), std::string("s"), 1e-6};
    return {std::move(metric), std::string(source_unit), 1};
}

std::optional<ExporterField> exporterField(std::string_view name) {
    // The exporter names a field "nvidia_smi_" + field with '.' → '_' + a suffix for its unit, converting the
    // value to base units: [W] "_watts" (W), [%] "_ratio" (0..1), [MiB] "_bytes", [MHz] "_clock_hz" (Hz),
    // [us] "_seconds". Its names are matched against the vocabulary's fields made the same way.
    static const std::map<std::string, ExporterField, std::less<>> names = [] {
        std::map<std::string, ExporterField, std::less<>> m;
        for (const auto& r : kRows) {
            std::string n = "nvidia_smi_" + std::string(r.field);
            std::replace(n.begin(), n.end(), '.', '_');
            static const std::map<std::string_view, std::pair<std::string_view, std::string_view>> suffix = {
                {"W", {"_watts", "W"}}, {"%", {"_ratio", "ratio"}}, {"MiB", {"_bytes", "bytes"}}, {"MHz", {"_clock_hz", "Hz"}}};
            std::string_view unit = r.smi_unit;
            if (auto it = suffix.find(r.smi_unit); it != suffix.end()) {
                n.append(it->second.first);
                unit = it->second.second;
            }
            m.emplace(n, ExporterField{std::string(r.field), std::string(unit)});
        }
        return m;
    }();
    if (auto it = names.find(name); it != names.end()) return it->second;
    return std::nullopt;
}

bool smiIdentityField(std::string_view f) {
    auto starts = [&](std::string_view p) { return f.substr(0, p.size()) == p; };
    if (f == "index" || f == "count" || f == "serial" || f == "compute_cap" || f == "uuid" || f == "name") return true;
    if (f.find("version") != std::string_view::npos) return true;
    return starts("inforom") || starts("platform") || starts("fabric") || starts("pci.") || starts("pci_") || starts("accounting") ||
           starts("vgpu");
}

bool parsePstate(std::string_view v, double& out) {
    if (v.size() < 2 || v.size() > 3 || v[0] != 'P') return false;
    int n = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (v[i] < '0' || v[i] > '9') return false;
        n = n * 10 + (v[i] - '0');
    }
    if (n > 15) return false;
    out = n;
    return true;
}

const std::vector<VocabularyRow>& vocabulary() { return kRows; }

}  // namespace ct::importers::detail
