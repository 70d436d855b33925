#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/units.hpp>

#include "json_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace ct::model {

// Generated at build time from resources/catalog/*.json (cmake/EmbedFiles.cmake).
namespace embedded {
struct File {
    const char* name;
    const char* text;
};
extern const File kCatalogFiles[];
extern const std::size_t kCatalogFilesCount;
}  // namespace embedded

using detail::json;
using detail::ObjReader;

double EfficiencyCurve::efficiencyAt(double load_fraction) const {
    if (points.empty()) throw ModelError("efficiency curve '" + id + "' has no points");
    if (load_fraction <= points.front().first) return points.front().second;
    if (load_fraction >= points.back().first) return points.back().second;
    auto hi = std::upper_bound(points.begin(), points.end(), load_fraction, [](double x, const auto& p) { return x < p.first; });
    auto lo = hi - 1;
    const double t = (load_fraction - lo->first) / (hi->first - lo->first);
    return lo->second + t * (hi->second - lo->second);
}

namespace {

void readCommon(ObjReader& r, std::string& name, std::string& source) {
    r.get("name", name);
    r.get("source", source);
}

void read(ObjReader& r, GpuModel& m) {
    readCommon(r, m.name, m.source);
    r.get("idle_power_w", m.idle_power_w);
    r.get("max_power_w", m.max_power_w);
    r.get("power_exponent", m.power_exponent);
    r.get("peak_bf16_tflops", m.peak_bf16_tflops);
    r.get("memory_gb", m.memory_gb);
    r.get("memory_bandwidth_tbs", m.memory_bandwidth_tbs);
    r.get("nvlink_gbs", m.nvlink_gbs);
    r.get("slowdown_temp_c", m.slowdown_temp_c);
    r.get("shutdown_temp_c", m.shutdown_temp_c);
    r.get("thermal_resistance_k_per_w", m.thermal_resistance_k_per_w);
    r.get("thermal_time_constant_s", m.thermal_time_constant_s);
    r.get("architecture", m.architecture);
    r.get("sm_count", m.sm_count);
    r.get("matmul_efficiency", m.matmul_efficiency);
    r.get("matmul_sustained", m.matmul_sustained);
    r.get("chip_spread", m.chip_spread);
    r.get("attention_efficiency", m.attention_efficiency);
    r.get("memory_efficiency", m.memory_efficiency);
}

void read(ObjReader& r, ServerModel& m) {
    readCommon(r, m.name, m.source);
    r.get("form_factor", m.form_factor);
    r.get("gpu_model", m.gpu_model);
    r.get("gpu_count", m.gpu_count);
    r.get("height_u", m.height_u);
    r.get("slots", m.slot_count);
    r.get("weight_kg", m.weight_kg);
    r.get("max_power_w", m.max_power_w);
    r.get("idle_power_w", m.idle_power_w);
    r.get("cpu_count", m.cpu_count);
    r.get("cpu_idle_power_w", m.cpu_idle_power_w);
    r.get("cpu_max_power_w", m.cpu_max_power_w);
    r.get("nic_power_w", m.nic_power_w);
    r.get("other_power_w", m.other_power_w);
    r.get("fan_max_power_w", m.fan_max_power_w);
    r.get("fan_max_rpm", m.fan_max_rpm);
    double cfm = 0;
    if (r.get("airflow_cfm", cfm)) m.airflow_m3s = units::cfmToM3s(cfm);
    r.get("liquid_fraction", m.liquid_fraction);
    r.get("psu_count", m.psu_count);
    r.get("psu_rating_w", m.psu_rating_w);
    r.get("psu_curve", m.psu_curve);
    r.get("nic_count", m.nic_count);
    r.get("nic_speed_gbps", m.nic_speed_gbps);
}

void read(ObjReader& r, RackModel& m) {
    readCommon(r, m.name, m.source);
    r.get("height_u", m.height_u);
    r.get("width_m", m.width_m);
    r.get("depth_m", m.depth_m);
    r.get("height_m", m.height_m);
    r.get("weight_kg", m.weight_kg);
    r.get("max_static_load_kg", m.max_static_load_kg);
    r.get("floor_gap_m", m.floor_gap_m);
}

void read(ObjReader& r, FloorTileModel& m) {
    readCommon(r, m.name, m.source);
    r.get("open_fraction", m.open_fraction);
    r.get("size_m", m.size_m);
}

void read(ObjReader& r, CoolingUnitModel& m) {
    readCommon(r, m.name, m.source);
    r.get("kind", m.kind);
    r.get("capacity_w", m.capacity_w);
    double cfm = 0;
    if (r.get("airflow_cfm", cfm)) m.airflow_m3s = units::cfmToM3s(cfm);
    r.get("airflow_m3s", m.airflow_m3s);
    r.get("fan_power_w", m.fan_power_w);
    r.get("fan_max_rpm", m.fan_max_rpm);
    r.get("width_m", m.width_m);
    r.get("depth_m", m.depth_m);
    r.get("height_m", m.height_m);
    r.get("min_supply_temp_c", m.min_supply_temp_c);
    r.get("max_supply_temp_c", m.max_supply_temp_c);
    r.get("supply_from_m", m.supply_from_m);
    r.get("supply_to_m", m.supply_to_m);
    r.get("return_side", m.return_side);
    r.get("return_from_m", m.return_from_m);
    r.get("return_to_m", m.return_to_m);
    r.get("control_time_constant_s", m.control_time_constant_s);
}

void read(ObjReader& r, RearDoorModel& m) {
    readCommon(r, m.name, m.source);
    r.get("kind", m.kind);
    r.get("capacity_w", m.capacity_w);
    r.get("rated_airflow_m3s", m.rated_airflow_m3s);
    r.get("rated_air_in_c", m.rated_air_in_c);
    r.get("rated_water_in_c", m.rated_water_in_c);
    r.get("max_capacity_w", m.max_capacity_w);
    r.get("fan_power_w", m.fan_power_w);
    r.get("water_flow_lpm", m.water_flow_lpm);
    r.get("depth_m", m.depth_m);
}

void read(ObjReader& r, ContainmentModel& m) {
    readCommon(r, m.name, m.source);
    r.get("leakage_fraction", m.leakage_fraction);
}

void read(ObjReader& r, BlankingModel& m) {
    readCommon(r, m.name, m.source);
    r.get("open_share", m.open_share);
    r.get("sides_sealed", m.sides_sealed);
    r.get("gaps_sealed", m.gaps_sealed);
    r.get("recirculation_fraction", m.recirculation_fraction);
}

void read(ObjReader& r, CduModel& m) {
    readCommon(r, m.name, m.source);
    r.get("capacity_w", m.capacity_w);
    r.get("coolant_flow_lpm", m.coolant_flow_lpm);
    r.get("pump_power_w", m.pump_power_w);
    r.get("approach_temp_k", m.approach_temp_k);
    r.get("width_m", m.width_m);
    r.get("depth_m", m.depth_m);
    r.get("height_m", m.height_m);
}

void read(ObjReader& r, SwitchModel& m) {
    readCommon(r, m.name, m.source);
    r.get("kind", m.kind);
    r.get("ports", m.ports);
    r.get("port_speed_gbps", m.port_speed_gbps);
    r.get("max_power_w", m.max_power_w);
    r.get("height_u", m.height_u);
    r.get("weight_kg", m.weight_kg);
    r.get("in_network_reduction", m.in_network_reduction);
    double cfm = 0;
    if (r.get("airflow_cfm", cfm)) m.airflow_m3s = units::cfmToM3s(cfm);
}

void read(ObjReader& r, FailureRate& m) {
    readCommon(r, m.name, m.source);
    r.get("per_1000_device_days", m.per_1000_device_days, true);
}

void read(ObjReader& r, UpsModel& m) {
    readCommon(r, m.name, m.source);
    r.get("capacity_w", m.capacity_w);
    r.get("efficiency_curve", m.efficiency_curve);
}

void read(ObjReader& r, EfficiencyCurve& m) {
    readCommon(r, m.name, m.source);
    const json* pts = r.member("points");
    if (!pts) return;
    const std::string ptr = r.pointer("points");
    std::vector<std::pair<double, double>> v;
    bool ok = pts->is_array();
    if (ok) {
        for (const auto& p : *pts) {
            if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) {
                ok = false;
                break;
            }
            v.emplace_back(p[0].get<double>(), p[1].get<double>());
        }
    }
    if (!ok) {
        r.error(ptr, "expected [[load_fraction, efficiency], ...]");
        return;
    }
    m.points = std::move(v);
}

template <class T>
void mergeSection(ObjReader& top, const char* key, std::vector<T>& list, Diagnostics& diags) {
    top.forEach(key, false, [&](const json& e, const std::string& ptr) {
        ObjReader r(e, ptr, diags);
        if (!r.valid()) return;
        std::string id;
        if (!r.get("id", id, true)) return;
        if (id.empty()) {
            diags.push_back({Severity::Error, r.pointer("id"), "id must not be empty"});
            return;
        }
        auto it = std::find_if(list.begin(), list.end(), [&](const T& x) { return x.id == id; });
        if (it == list.end()) {
            list.push_back(T{});
            list.back().id = id;
            it = list.end() - 1;
        }
        read(r, *it);
        r.finish();
    });
}

template <class T>
const T* findById(const std::vector<T>& v, std::string_view id) {
    auto it = std::find_if(v.begin(), v.end(), [&](const T& x) { return x.id == id; });
    return it == v.end() ? nullptr : &*it;
}

}  // namespace

void Catalog::merge(std::string_view json_text, const std::string& pointer_prefix, Diagnostics& diags) {
    const json doc = detail::parseJson(json_text, pointer_prefix.empty() ? "catalog" : pointer_prefix);
    ObjReader top(doc, pointer_prefix, diags);
    if (!top.valid()) return;
    mergeSection(top, "gpus", gpus, diags);
    mergeSection(top, "servers", servers, diags);
    mergeSection(top, "racks", racks, diags);
    mergeSection(top, "cooling_units", cooling_units, diags);
    mergeSection(top, "cdus", cdus, diags);
    mergeSection(top, "floor_tiles", floor_tiles, diags);
    mergeSection(top, "rear_doors", rear_doors, diags);
    mergeSection(top, "containments", containments, diags);
    mergeSection(top, "blankings", blankings, diags);
    mergeSection(top, "switches", switches, diags);
    mergeSection(top, "ups", ups, diags);
    mergeSection(top, "efficiency_curves", efficiency_curves, diags);
    mergeSection(top, "failure_rates", failure_rates, diags);
    top.member("format");  // optional marker, accepted and ignored
    top.finish();
}

const Catalog& Catalog::builtin() {
    static const Catalog catalog = [] {
        Catalog c;
        Diagnostics d;
        for (std::size_t i = 0; i < embedded::kCatalogFilesCount; ++i)
            c.merge(embedded::kCatalogFiles[i].text, std::string(embedded::kCatalogFiles[i].name) + "#", d);
        if (hasErrors(d)) {
            std::string msg = "built-in catalog is invalid:";
            for (const auto& x : d) msg += "\n  " + x.toString();
            throw ModelError(msg);
        }
        return c;
    }();
    return catalog;
}

const GpuModel* Catalog::gpu(std::string_view id) const { return findById(gpus, id); }
const ServerModel* Catalog::server(std::string_view id) const { return findById(servers, id); }
const RackModel* Catalog::rack(std::string_view id) const { return findById(racks, id); }
const CoolingUnitModel* Catalog::coolingUnit(std::string_view id) const { return findById(cooling_units, id); }
const CduModel* Catalog::cdu(std::string_view id) const { return findById(cdus, id); }
const FloorTileModel* Catalog::floorTile(std::string_view id) const { return findById(floor_tiles, id); }
const RearDoorModel* Catalog::rearDoor(std::string_view id) const { return findById(rear_doors, id); }
const ContainmentModel* Catalog::containment(std::string_view id) const { return findById(containments, id); }
const BlankingModel* Catalog::blanking(std::string_view id) const { return findById(blankings, id); }

double RearDoorModel::effectiveness() const {
    const double dt = rated_air_in_c - rated_water_in_c;
    if (capacity_w <= 0 || rated_airflow_m3s <= 0 || dt <= 0) return 0;
    return capacity_w / (units::kAirDensityKgM3 * units::kAirCpJPerKgK * rated_airflow_m3s * dt);
}
const SwitchModel* Catalog::switchModel(std::string_view id) const { return findById(switches, id); }
const FailureRate* Catalog::failureRate(std::string_view id) const { return findById(failure_rates, id); }
const UpsModel* Catalog::upsModel(std::string_view id) const { return findById(ups, id); }
const EfficiencyCurve* Catalog::curve(std::string_view id) const { return findById(efficiency_curves, id); }

const ServerModel& Catalog::requireServer(std::string_view id) const {
    if (auto* s = server(id)) return *s;
    throw ModelError("unknown server model '" + std::string(id) + "'");
}

const GpuModel& Catalog::requireGpu(std::string_view id) const {
    if (auto* g = gpu(id)) return *g;
    throw ModelError("unknown GPU model '" + std::string(id) + "'");
}

namespace {

struct Checker {
    Diagnostics& d;
    std::string where;
    void err(const std::string& field, const std::string& msg) { d.push_back({Severity::Error, where + "/" + field, msg}); }
    void positive(const std::string& field, double v) {
        if (!(v > 0) || !std::isfinite(v)) err(field, "must be > 0 (is " + fmt(v) + ")");
    }
    void nonNegative(const std::string& field, double v) {
        if (!(v >= 0) || !std::isfinite(v)) err(field, "must be >= 0 (is " + fmt(v) + ")");
    }
    static std::string fmt(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return buf;
    }
    void common(const std::string& name, const std::string& source) {
        if (name.empty()) err("name", "missing name");
        if (source.empty()) err("source", "missing source (where the figures come from)");
    }
};

/// Checks one catalog entry beyond its name and source (Catalog::check does those and the ids).
void checkGpu(Checker& c, const GpuModel& g, const Catalog& /*cat*/) {
    c.positive("idle_power_w", g.idle_power_w);
    c.positive("max_power_w", g.max_power_w);
    if (g.idle_power_w >= g.max_power_w) c.err("idle_power_w", "idle power must be below max power");
    c.positive("power_exponent", g.power_exponent);
    c.positive("peak_bf16_tflops", g.peak_bf16_tflops);
    c.positive("memory_gb", g.memory_gb);
    c.positive("memory_bandwidth_tbs", g.memory_bandwidth_tbs);
    c.positive("nvlink_gbs", g.nvlink_gbs);
    c.positive("slowdown_temp_c", g.slowdown_temp_c);
    if (g.shutdown_temp_c <= g.slowdown_temp_c) c.err("shutdown_temp_c", "must be above slowdown_temp_c");
    c.positive("thermal_resistance_k_per_w", g.thermal_resistance_k_per_w);
    c.positive("thermal_time_constant_s", g.thermal_time_constant_s);
    if (g.sm_count < 0) c.err("sm_count", "must be >= 0 (0 = unknown)");
    for (const auto& [key, v] :
         {std::pair{"matmul_efficiency", g.matmul_efficiency}, std::pair{"attention_efficiency", g.attention_efficiency},
          std::pair{"memory_efficiency", g.memory_efficiency}})
        if (v < 0 || v > 1) c.err(key, "must be within 0..1 (0 = unknown)");
    if (g.chip_spread < 0 || g.chip_spread > 0.2) c.err("chip_spread", "must be within 0..0.2 (0 = unknown)");
}

void checkServer(Checker& c, const ServerModel& s, const Catalog& cat) {
    if (s.form_factor != "node" && s.form_factor != "rack") c.err("form_factor", "must be 'node' or 'rack'");
    const GpuModel* g = cat.gpu(s.gpu_model);
    if (s.gpu_count > 0 && !g) c.err("gpu_model", "unknown GPU model '" + s.gpu_model + "'");
    if (s.gpu_count < 0) c.err("gpu_count", "must be >= 0");
    if (s.cpu_count < 0) c.err("cpu_count", "must be >= 0");
    c.nonNegative("cpu_idle_power_w", s.cpu_idle_power_w);
    c.nonNegative("cpu_max_power_w", s.cpu_max_power_w);
    if (s.cpu_idle_power_w > s.cpu_max_power_w) c.err("cpu_idle_power_w", "idle power must not exceed max power");
    if (s.height_u < 1) c.err("height_u", "must be >= 1");
    if (s.slot_count < 1 || s.slot_count > 32) c.err("slots", "must be within 1..32 (servers side by side across a rack's width)");
    c.positive("weight_kg", s.weight_kg);
    c.positive("max_power_w", s.max_power_w);
    c.positive("idle_power_w", s.idle_power_w);
    if (s.idle_power_w >= s.max_power_w) c.err("idle_power_w", "idle power must be below max power");
    c.positive("airflow_m3s", s.airflow_m3s);
    if (s.liquid_fraction < 0 || s.liquid_fraction > 1) c.err("liquid_fraction", "must be within 0..1");
    if (s.psu_count < 1) c.err("psu_count", "must be >= 1");
    c.positive("psu_rating_w", s.psu_rating_w);
    if (!cat.curve(s.psu_curve)) c.err("psu_curve", "unknown efficiency curve '" + s.psu_curve + "'");
    c.nonNegative("nic_power_w", s.nic_power_w);
    c.nonNegative("other_power_w", s.other_power_w);
    c.nonNegative("fan_max_power_w", s.fan_max_power_w);
    c.nonNegative("fan_max_rpm", s.fan_max_rpm);
    // The component budget must add up to the published maximum (within 2 %).
    const double sum =
        (g ? s.gpu_count * g->max_power_w : 0) + s.cpu_count * s.cpu_max_power_w + s.nic_power_w + s.other_power_w + s.fan_max_power_w;
    if (std::fabs(sum - s.max_power_w) > 0.02 * s.max_power_w)
        c.err("max_power_w", "components add up to " + Checker::fmt(sum) + " W, not " + Checker::fmt(s.max_power_w) + " W");
    if (s.psu_count * s.psu_rating_w < s.max_power_w) c.err("psu_rating_w", "PSUs together cannot deliver max_power_w");
}

void checkRack(Checker& c, const RackModel& r, const Catalog& /*cat*/) {
    if (r.height_u < 1) c.err("height_u", "must be >= 1");
    c.positive("width_m", r.width_m);
    c.positive("depth_m", r.depth_m);
    c.positive("height_m", r.height_m);
    c.positive("weight_kg", r.weight_kg);
    c.positive("max_static_load_kg", r.max_static_load_kg);
    if (r.height_u * units::kRackUnitM > r.height_m) c.err("height_u", "more U than fit in height_m");
    if (!(r.floor_gap_m >= 0 && r.floor_gap_m <= 0.2)) c.err("floor_gap_m", "must be within 0..0.2 m");
}

void checkFloorTile(Checker& c, const FloorTileModel& t, const Catalog& /*cat*/) {
    if (!(t.open_fraction > 0 && t.open_fraction <= 1)) c.err("open_fraction", "must be within (0, 1]");
    c.positive("size_m", t.size_m);
}

void checkCoolingUnit(Checker& c, const CoolingUnitModel& u, const Catalog& /*cat*/) {
    if (u.kind != "crah" && u.kind != "crac" && u.kind != "in-row") c.err("kind", "must be 'crah', 'crac' or 'in-row'");
    c.positive("capacity_w", u.capacity_w);
    c.positive("airflow_m3s", u.airflow_m3s);
    c.positive("fan_power_w", u.fan_power_w);
    c.nonNegative("fan_max_rpm", u.fan_max_rpm);
    c.positive("width_m", u.width_m);
    c.positive("depth_m", u.depth_m);
    c.positive("height_m", u.height_m);
    if (u.max_supply_temp_c <= u.min_supply_temp_c) c.err("max_supply_temp_c", "must be above min_supply_temp_c");
    // Openings: within the unit's height, the supply's and a front return's spans apart.
    auto span = [&](const char* from, double a, const char* to, double b) {
        if (a == 0 && b == 0) return;
        if (a < 0 || b <= a || b > u.height_m + 1e-9)
            c.err(to, std::string("the opening [") + from + ", " + to + ") must lie within the unit's height (0–" +
                          Checker::fmt(u.height_m) + " m)");
    };
    span("supply_from_m", u.supply_from_m, "supply_to_m", u.supply_to_m);
    span("return_from_m", u.return_from_m, "return_to_m", u.return_to_m);
    c.positive("control_time_constant_s", u.control_time_constant_s);
    if (u.return_side != "top" && u.return_side != "front" && u.return_side != "back")
        c.err("return_side", "must be 'top', 'front' or 'back'");
    if (u.return_side == "top" && (u.return_from_m != 0 || u.return_to_m != 0))
        c.err("return_from_m", "a return through the top has no span up the unit; give return_side front or back");
    const double s0 = u.supply_to_m > 0 ? u.supply_from_m : 0, s1 = u.supply_to_m > 0 ? u.supply_to_m : u.height_m / 2;
    const double r0 = u.return_to_m > 0 ? u.return_from_m : u.height_m / 2, r1 = u.return_to_m > 0 ? u.return_to_m : u.height_m;
    if (u.return_side == "front" && s0 < r1 - 1e-9 && r0 < s1 - 1e-9) c.err("return_from_m", "the front return overlaps the supply grille");
}

void checkRearDoor(Checker& c, const RearDoorModel& r, const Catalog& /*cat*/) {
    if (r.kind != "passive" && r.kind != "active") c.err("kind", "must be 'passive' or 'active'");
    c.positive("capacity_w", r.capacity_w);
    c.positive("rated_airflow_m3s", r.rated_airflow_m3s);
    if (r.rated_air_in_c <= r.rated_water_in_c) c.err("rated_air_in_c", "must be above rated_water_in_c");
    if (r.max_capacity_w < r.capacity_w) c.err("max_capacity_w", "must be at least capacity_w");
    if (r.effectiveness() > 1) c.err("capacity_w", "more than the air can give up at the rated conditions (effectiveness above 1)");
    c.nonNegative("fan_power_w", r.fan_power_w);
    if (r.kind == "active") c.positive("fan_power_w", r.fan_power_w);
    c.positive("water_flow_lpm", r.water_flow_lpm);
    c.nonNegative("depth_m", r.depth_m);
}

void checkContainment(Checker& c, const ContainmentModel& m, const Catalog& /*cat*/) {
    if (m.leakage_fraction < 0 || m.leakage_fraction >= 1) c.err("leakage_fraction", "must be within 0..1");
}

void checkBlanking(Checker& c, const BlankingModel& m, const Catalog& /*cat*/) {
    if (!(m.open_share >= 0 && m.open_share <= 1)) c.err("open_share", "must be within 0..1");
    if (m.recirculation_fraction && !(*m.recirculation_fraction >= 0 && *m.recirculation_fraction <= 0.9))
        c.err("recirculation_fraction", "must be within 0..0.9");
}

void checkCdu(Checker& c, const CduModel& u, const Catalog& /*cat*/) {
    c.positive("capacity_w", u.capacity_w);
    c.positive("coolant_flow_lpm", u.coolant_flow_lpm);
    c.positive("pump_power_w", u.pump_power_w);
    c.nonNegative("approach_temp_k", u.approach_temp_k);
    c.positive("width_m", u.width_m);
    c.positive("depth_m", u.depth_m);
    c.positive("height_m", u.height_m);
}

void checkSwitch(Checker& c, const SwitchModel& s, const Catalog& /*cat*/) {
    if (s.ports < 1) c.err("ports", "must be >= 1");
    c.positive("port_speed_gbps", s.port_speed_gbps);
    c.positive("max_power_w", s.max_power_w);
    if (s.height_u < 1) c.err("height_u", "must be >= 1");
    c.positive("weight_kg", s.weight_kg);
    c.positive("airflow_m3s", s.airflow_m3s);
}

void checkFailureRate(Checker& c, const FailureRate& f, const Catalog& /*cat*/) {
    static const std::set<std::string, std::less<>> kinds{"gpu", "hbm", "nvlink", "nic", "node", "switch", "cable"};
    c.nonNegative("per_1000_device_days", f.per_1000_device_days);
    if (!kinds.count(f.id)) c.err("id", "unknown component kind (gpu, hbm, nvlink, nic, node, switch, cable)");
}

void checkUps(Checker& c, const UpsModel& u, const Catalog& cat) {
    c.positive("capacity_w", u.capacity_w);
    if (!cat.curve(u.efficiency_curve)) c.err("efficiency_curve", "unknown efficiency curve '" + u.efficiency_curve + "'");
}

void checkCurve(Checker& c, const EfficiencyCurve& e, const Catalog& /*cat*/) {
    if (e.points.size() < 2) c.err("points", "needs at least two points");
    for (std::size_t i = 0; i < e.points.size(); ++i) {
        const auto [x, y] = e.points[i];
        if (x < 0 || x > 1.5 || y <= 0 || y > 1) c.err("points/" + std::to_string(i), "load fraction must be 0..1.5 and efficiency 0..1");
        if (i > 0 && x <= e.points[i - 1].first) c.err("points/" + std::to_string(i), "load fractions must ascend");
    }
}

/// Every entry of one section: its id unique, its name and source given, then its own checks.
template <class T>
void checkSection(Diagnostics& d, std::set<std::string>& ids, const char* section, const std::vector<T>& items, const Catalog& cat,
                  void (*check)(Checker&, const T&, const Catalog&)) {
    for (const auto& x : items) {
        const std::string where = std::string(section) + "/" + x.id;
        if (!ids.insert(where).second) d.push_back({Severity::Error, where, "duplicate id"});
        Checker c{d, where};
        c.common(x.name, x.source);
        check(c, x, cat);
    }
}

}  // namespace

Diagnostics Catalog::check() const {
    Diagnostics d;
    std::set<std::string> ids;
    checkSection(d, ids, "gpus", gpus, *this, checkGpu);
    checkSection(d, ids, "servers", servers, *this, checkServer);
    checkSection(d, ids, "racks", racks, *this, checkRack);
    checkSection(d, ids, "floor_tiles", floor_tiles, *this, checkFloorTile);
    checkSection(d, ids, "cooling_units", cooling_units, *this, checkCoolingUnit);
    checkSection(d, ids, "rear_doors", rear_doors, *this, checkRearDoor);
    checkSection(d, ids, "containments", containments, *this, checkContainment);
    checkSection(d, ids, "blankings", blankings, *this, checkBlanking);
    checkSection(d, ids, "cdus", cdus, *this, checkCdu);
    checkSection(d, ids, "switches", switches, *this, checkSwitch);
    checkSection(d, ids, "failure_rates", failure_rates, *this, checkFailureRate);
    checkSection(d, ids, "ups", ups, *this, checkUps);
    checkSection(d, ids, "efficiency_curves", efficiency_curves, *this, checkCurve);
    return d;
}

}  // namespace ct::model
