#include "clustertwin/model/metrics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ct::model {

namespace {

MetricInfo power(const char* id, const char* name, int rank, const char* about) {
    return {id, name, "W", "W", 1, 1, rank, MetricScale::Power, about, true};
}
MetricInfo temp(const char* id, const char* name, int rank, const char* about) {
    return {id, name, "degC", "°C", 1, 1, rank, MetricScale::Fixed, about, true};
}
MetricInfo share(const char* id, const char* name, int rank, const char* about, int decimals = 0) {
    return {id, name, "ratio", "%", 100, decimals, rank, MetricScale::Fixed, about, true};
}
MetricInfo fixed(const char* id, const char* name, const char* stored, const char* unit, double factor, int decimals, int rank,
                 const char* about) {
    return {id, name, stored, unit, factor, decimals, rank, MetricScale::Fixed, about, true};
}

std::vector<MetricInfo> makeTable() {
    return {
        // Power first: what a planner sizes and an operator watches.
        power("power_w", "Power", 10, "electrical power drawn (GPU: board power; node: AC input; rack: all its nodes)"),
        power("it_power_w", "IT power", 11, "power of all IT equipment on the site"),
        power("facility_power_w", "Facility power", 12, "IT power plus cooling and distribution losses"),
        power("cooling_power_w", "Cooling power", 13, "fans, pumps and chillers"),
        power("load_w", "Load", 14,
              "heat a cooling unit or CDU removes (or a water loop carries); power a PDU, UPS or transformer carries"),
        power("loss_w", "Losses", 15, "conversion losses of a UPS or transformer"),
        power("fan_power_w", "Fan power", 16, "a cooling unit's fan power"),
        power("module_power_w", "Module power", 17, "power of a whole GPU module (nvidia-smi)"),
        power("power_avg_w", "Power, average", 18, "power averaged by the device over its own window"),
        power("power_limit_w", "Power limit", 19, "the enforced power cap"),
        power("heat_in_w", "Heat into the air", 20, "heat the IT puts into the room air"),
        power("heat_removed_w", "Heat removed", 21, "heat the cooling takes out of the room (or a loop)"),
        power("heat_w", "Heat", 22, "heat flow reported by a cooling device"),
        power("rear_door_w", "Rear door heat", 24, "heat a rack's rear door takes from its exhaust into water"),
        power("rear_door_heat_w", "Rear doors' heat", 25, "heat all rear doors take from the racks' exhaust into water"),
        fixed("pue", "PUE", "ratio", "", 1, 2, 23, "power usage effectiveness: facility power / IT power"),
        // Temperatures.
        temp("inlet_max_c", "Inlet, hottest", 30, "the rack's hottest intake point: what the alerts, the floor plan and the report read"),
        temp("inlet_c", "Inlet", 31, "air temperature at the server's intake, averaged over its height"),
        temp("inlet_mean_c", "Inlet, mean", 32, "mean server inlet of the rack"),
        temp("max_inlet_c", "Hottest inlet", 33, "the hottest rack inlet of the site"),
        temp("temp_c", "Temperature", 34, "GPU die (or sensor) temperature"),
        temp("memory_temp_c", "Memory temperature", 35, "GPU HBM temperature"),
        temp("exhaust_c", "Exhaust", 36, "air leaving the rack's (or the server's) rear"),
        temp("supply_c", "Supply", 37, "air or coolant a unit supplies"),
        temp("return_c", "Return", 38, "air or coolant returning to a unit"),
        temp("temp_max_c", "Temperature, max", 39, "highest temperature a switch reports"),
        temp("temp_slowdown_c", "Slowdown temperature", 40, "where the GPU starts to slow its clocks"),
        temp("temp_shutdown_c", "Shutdown temperature", 41, "where the GPU shuts down"),
        // Utilisation and how work runs.
        share("utilization", "Utilisation", 50, "share of time busy (GPU, job, link)"),
        share("breaker_utilization", "Breaker load", 51, "current as a share of the breaker rating (alert above 80 %)"),
        share("throttle", "Clocks, share of full", 52, "100 % = full clocks; lower means the GPU is throttling"),
        share("fan_speed", "Fan speed", 53, "share of the fan's top speed"),
        share("pump_speed", "Pump speed", 54, "share of the pump's top speed"),
        share("mem_copy_utilization", "Memory copy utilisation", 55, "share of time the memory controller is busy"),
        share("gr_engine_active", "Graphics engine active", 56, "DCGM: share of time a kernel was running"),
        share("tensor_active", "Tensor cores active", 57, "DCGM: share of cycles the tensor pipe was busy"),
        share("dram_active", "DRAM active", 58, "DCGM: share of cycles the memory interface was busy"),
        share("mfu", "Model FLOPs utilisation", 59, "achieved / peak tensor FLOP/s of a job", 1),
        share("comm_share", "Communication share", 60, "share of a job's step spent in exposed communication"),
        fixed("step_time_s", "Step time", "s", "s", 1, 3, 61, "time of one training step"),
        share("bubble_share", "Pipeline bubble", 69, "share of a training step its pipeline stages wait to fill and drain"),
        fixed("interruptions", "Interruptions", "count", "", 1, 0, 70, "failures that stopped a training job so far"),
        fixed("tokens_per_s", "Output tokens per second", "1/s", "/s", 1, 0, 71, "a served model's output tokens per second"),
        fixed("ttft_p99_s", "Time to first token, p99", "s", "s", 1, 3, 72, "99th percentile from a request's arrival to its first token"),
        fixed("tpot_p99_s", "Time per output token, p99", "s", "ms", 1000, 1, 73, "99th percentile of the time between a request's tokens"),
        share("recirculation", "Recirculation", 74,
              "share of a rack's server air that came back from its rear through the rack (negative: air passing it front to back)", 1),
        share("capture_index", "Capture index", 62, "share of the rack's exhaust the cooling captures directly"),
        fixed("rci_hi", "RCI high", "percent", "%", 1, 0, 63, "Rack Cooling Index, high side (100 % = no inlet above 27 °C)"),
        fixed("rci_lo", "RCI low", "percent", "%", 1, 0, 64, "Rack Cooling Index, low side (100 % = no inlet below 18 °C)"),
        fixed("rti", "Return temperature index", "percent", "%", 1, 0, 65, "100 % = no bypass and no recirculation"),
        fixed("shi", "Supply heat index", "ratio", "", 1, 2, 66, "0 = inlets at supply temperature"),
        share("humidity", "Relative humidity", 67, "relative humidity of the air"),
        share("percent", "Reading", 68, "a Redfish sensor that reports a percentage"),
        // Clocks, memory, I/O.
        fixed("sm_clock_mhz", "SM clock", "MHz", "MHz", 1, 0, 80, "streaming multiprocessor clock"),
        fixed("graphics_clock_mhz", "Graphics clock", "MHz", "MHz", 1, 0, 81, "graphics clock"),
        fixed("mem_clock_mhz", "Memory clock", "MHz", "MHz", 1, 0, 82, "memory clock"),
        fixed("fb_used_mib", "Memory used", "MiB", "MiB", 1, 0, 83, "GPU memory in use"),
        fixed("fb_free_mib", "Memory free", "MiB", "MiB", 1, 0, 84, "GPU memory free"),
        fixed("fb_total_mib", "Memory total", "MiB", "MiB", 1, 0, 85, "GPU memory size"),
        fixed("pcie_rx_kbps", "PCIe receive", "KB/s", "KB/s", 1, 0, 86, "PCIe receive throughput"),
        fixed("pcie_tx_kbps", "PCIe transmit", "KB/s", "KB/s", 1, 0, 87, "PCIe transmit throughput"),
        {"energy_j", "Energy", "J", "J", 1, 1, 88, MetricScale::Energy, "energy counted since the device started", true},
        fixed("pressure_kpa", "Pressure", "kPa", "kPa", 1, 1, 89, "coolant pressure"),
    };
}

bool integral(double v) { return std::abs(v) < 1e15 && v == std::floor(v); }

std::string fixedText(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s[0] == '-' && std::strtod(s.c_str(), nullptr) == 0) s.erase(0, 1);  // "-0.0" shows a sign where there is none
    return s;
}

/// Words an id is made of, as a person writes them.
std::string wordFor(const std::string& w) {
    static const std::pair<const char*, const char*> kWords[] = {{"ecc", "ECC"},
                                                                 {"gpu", "GPU"},
                                                                 {"cpu", "CPU"},
                                                                 {"sm", "SM"},
                                                                 {"pcie", "PCIe"},
                                                                 {"nvlink", "NVLink"},
                                                                 {"xid", "XID"},
                                                                 {"dram", "DRAM"},
                                                                 {"pue", "PUE"},
                                                                 {"fb", "FB"},
                                                                 {"hbm", "HBM"},
                                                                 {"mig", "MIG"},
                                                                 {"id", "ID"},
                                                                 {"ib", "InfiniBand"},
                                                                 {"util", "utilisation"},
                                                                 {"dec", "decoder"},
                                                                 {"enc", "encoder"},
                                                                 {"vgpu", "vGPU"},
                                                                 {"rx", "receive"},
                                                                 {"tx", "transmit"},
                                                                 {"nvml", "NVML"},
                                                                 {"utilization", "utilisation"},
                                                                 {"temp", "temperature"}};
    for (const auto& [from, to] : kWords)
        if (w == from) return to;
    return w;
}

struct Suffix {
    const char* suffix;
    const char* unit;
};

}  // namespace

const std::vector<MetricInfo>& knownMetrics() {
    static const std::vector<MetricInfo> table = makeTable();
    return table;
}

MetricInfo metricInfo(std::string_view id, std::string_view stored_unit) {
    for (const auto& m : knownMetrics())
        if (m.id == id && (stored_unit.empty() || stored_unit == m.stored_unit)) return m;
    MetricInfo m;
    m.id = std::string(id);
    m.stored_unit = std::string(stored_unit);
    // A unit the id carries in its last word: temp_c, foo_w, clock_mhz.
    static const Suffix kSuffixes[] = {{"_c", "degC"},  {"_w", "W"}, {"_mhz", "MHz"},     {"_mib", "MiB"},
                                       {"_s", "s"},     {"_j", "J"}, {"_pct", "percent"}, {"_percent", "percent"},
                                       {"_kpa", "kPa"}, {"_v", "V"}, {"_a", "A"}};
    std::string base(id);
    // Exporters' prefixes say where a metric came from, not what it is.
    for (const char* prefix : {"dcgm_fi_dev_", "dcgm_fi_prof_", "dcgm_fi_", "nvidia_smi_", "nvidia_"}) {
        const std::string p = prefix;
        if (base.size() > p.size() && base.compare(0, p.size(), p) == 0) {
            base.erase(0, p.size());
            break;
        }
    }
    for (const auto& s : kSuffixes) {
        const std::string suf = s.suffix;
        if (base.size() > suf.size() && base.compare(base.size() - suf.size(), suf.size(), suf) == 0) {
            if (m.stored_unit.empty()) m.stored_unit = s.unit;
            base.erase(base.size() - suf.size());
            break;
        }
    }
    // The name: words joined by spaces, known abbreviations written as people write them, the first letter capital.
    std::string name, word;
    auto flush = [&] {
        if (word.empty()) return;
        if (!name.empty()) name += ' ';
        name += wordFor(word);
        word.clear();
    };
    for (char c : base) {
        if (c == '_' || c == '.' || c == '-' || c == ' ') flush();
        else word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    flush();
    if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    m.name = name.empty() ? std::string(id) : name;
    const std::string& u = m.stored_unit;
    if (u == "degC" || u == "Cel" || u == "C") m.unit = "°C";
    else if (u == "ratio") {
        m.unit = "%";
        m.factor = 100;
        m.decimals = 0;
    } else if (u == "percent" || u == "%") {
        m.unit = "%";
        m.decimals = 0;
    } else if (u == "W") m.scale = MetricScale::Power, m.unit = "W";
    else if (u == "J") m.scale = MetricScale::Energy, m.unit = "J";
    else if (u == "count" || u.empty()) m.unit.clear(), m.decimals = 0;
    else m.unit = u;
    return m;
}

AxisUnit axisUnit(const MetricInfo& m, double max_abs) {
    if (m.scale == MetricScale::Fixed) return {m.factor, m.unit};
    const char* base = m.scale == MetricScale::Power ? "W" : "J";
    const double a = std::abs(max_abs);
    if (a >= 1e9) return {1e-9, std::string("G") + base};
    if (a >= 1e6) return {1e-6, std::string("M") + base};
    if (a >= 1e3) return {1e-3, std::string("k") + base};
    return {1, base};
}

std::string formatMetric(double v, const MetricInfo& m) {
    if (std::isnan(v)) return "—";
    std::string text;
    std::string unit = m.unit;
    if (m.scale != MetricScale::Fixed) {
        const AxisUnit a = axisUnit(m, v);
        unit = a.unit;
        const double shown = v * a.factor;
        // Three significant figures at most: 712 W, 10.4 kW, 1.23 MW.
        const int decimals = a.factor == 1 ? 0 : std::abs(shown) >= 100 ? 0 : std::abs(shown) >= 10 ? 1 : 2;
        text = fixedText(shown, decimals);
    } else {
        const double shown = v * m.factor;
        if (m.known) text = fixedText(shown, m.decimals);
        else if (integral(shown)) text = fixedText(shown, 0);  // counts and ids: 590350000, never 5.9035e+08
        else {
            // An unknown quantity: four significant figures, no exponent.
            const double a = std::abs(shown);
            text = fixedText(shown, a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : 3);
        }
    }
    return unit.empty() ? text : text + (unit == "%" ? " %" : " " + unit);
}

void sortMetrics(std::vector<std::string>& ids) {
    std::vector<std::pair<MetricInfo, std::string>> keyed;
    keyed.reserve(ids.size());
    for (const auto& id : ids) keyed.emplace_back(metricInfo(id), id);
    std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
        if (a.first.rank != b.first.rank) return a.first.rank < b.first.rank;
        return a.first.name < b.first.name;
    });
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = keyed[i].second;
}

Ticks niceTicks(double lo, double hi, int max_ticks) {
    Ticks t;
    if (!std::isfinite(lo) || !std::isfinite(hi)) return t;
    if (hi < lo) std::swap(lo, hi);
    max_ticks = std::max(max_ticks, 2);
    double span = hi - lo;
    if (span <= 0) span = std::max(std::abs(lo), 1.0) * 1e-3;
    const double rough = span / (max_ticks - 1);
    const double mag = std::pow(10.0, std::floor(std::log10(rough)));
    double step = 10 * mag;
    for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (f * mag >= rough * (1 - 1e-9)) {
            step = f * mag;
            break;
        }
    // Fewer than max_ticks: the first tick at or after lo, the last at or before hi.
    t.step = step;
    t.first = std::ceil(lo / step - 1e-9) * step;
    t.count = static_cast<int>(std::floor((hi - t.first) / step + 1e-9)) + 1;
    if (t.count < 1) t.count = 1;
    // Decimals that tell the ticks apart: the step's (2.5 × 10^n needs one more).
    const double exp10 = std::floor(std::log10(step) + 1e-9);
    const double mant = step / std::pow(10.0, exp10);
    const int needed = static_cast<int>(-exp10) + (std::abs(mant - 2.5) < 1e-6 ? 1 : 0);
    t.decimals = std::max(0, needed);
    return t;
}

}  // namespace ct::model
