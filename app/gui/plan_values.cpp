#include "plan_values.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/render/scene.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ct::app {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Folds values: max, min, sum or mean, ignoring NaN; NaN when none.
struct Fold {
    enum Kind { Max, Min, Sum, Mean } kind;
    double acc = kNaN;
    int n = 0;
    void add(double v) {
        if (!std::isfinite(v)) return;
        if (n == 0) acc = v;
        else if (kind == Max) acc = std::max(acc, v);
        else if (kind == Min) acc = std::min(acc, v);
        else acc += v;
        ++n;
    }
    double value() const { return kind == Mean && n > 0 ? acc / n : acc; }
};
}  // namespace

PlanValues planValues(const model::Scenario& s, const model::Catalog& c, const model::Frame* f, const std::string& metric) {
    PlanValues out;
    const render::MetricInfo& mi = render::metricInfo(metric);
    out.label = mi.label;
    out.lo = mi.lo;
    out.hi = mi.hi;
    out.high_is_good = mi.high_is_good;
    std::map<std::string, std::string> rack_of_node;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks) {
                out.rack[r.id] = kNaN;
                for (const auto& n : r.nodes) rack_of_node[n.id] = r.id;
            }
    std::map<std::string, Fold> fold;
    auto node = [&](const std::string& node_id, Fold::Kind k, double v) {
        const auto it = rack_of_node.find(node_id);
        if (it == rack_of_node.end()) return;
        fold.try_emplace(it->second, Fold{k}).first->second.add(v);
    };
    if (metric == "nameplate_kw") {
        for (const auto& h : s.halls)
            for (const auto& row : h.rows)
                for (const auto& r : row.racks) out.rack[r.id] = model::rackNameplatePowerW(r, c) / 1e3;
    } else if (f) {
        if (metric == "inlet_c") {
            // A rack's inlet is its hottest intake point, as the inspector, the alerts and the report read it
            // (a node's inlet is a mean over its height, cooler); the hottest node where the rack has none.
            for (const auto& n : f->nodes) node(n.id, Fold::Max, n.inlet_c);
            for (const auto& fd : fold) out.rack[fd.first] = fd.second.value();
            fold.clear();
            for (const auto& r : f->racks)
                if (out.rack.count(r.id) && std::isfinite(r.inlet_max_c)) out.rack[r.id] = r.inlet_max_c;
        } else if (metric == "inlet_delta_c") {
            for (const auto& n : f->nodes) node(n.id, Fold::Max, n.inlet_c);
        } else if (metric == "inlet_residual_c") {  // signed: the rack's mean, so that too cold shows as cold
            for (const auto& n : f->nodes) node(n.id, Fold::Mean, n.inlet_c);
        } else if (metric == "power_kw") {
            for (const auto& n : f->nodes) node(n.id, Fold::Sum, n.power_ac_w / 1e3);
            out.label = "Rack power, its nodes (kW)";
        } else if (metric == "gpu_temp_c" || metric == "gpu_util" || metric == "throttle") {
            for (const auto& g : f->gpus) {
                const std::string n = g.id.substr(0, g.id.rfind('/'));
                if (metric == "gpu_temp_c") node(n, Fold::Max, g.temp_c);
                else if (metric == "gpu_util") node(n, Fold::Mean, 100 * g.utilization);
                else node(n, Fold::Min, 100 * g.throttle);
            }
        } else {
            for (const auto& r : f->racks) {
                double v = kNaN;
                if (metric == "rack_power_kw") v = r.power_w / 1e3;
                else if (metric == "rack_inlet_c") v = std::isfinite(r.inlet_max_c) ? r.inlet_max_c : r.inlet_mean_c;
                else if (metric == "exhaust_c") v = r.exhaust_c;
                else if (metric == "capture_index") v = 100 * r.capture_index;
                if (out.rack.count(r.id)) out.rack[r.id] = v;
            }
        }
        for (const auto& [id, fd] : fold) out.rack[id] = fd.value();
        for (const auto& u : f->cooling_units)
            if (u.failed) out.failed_units.insert(u.id);
    }
    if (metric == "inlet_c") out.label = "Rack inlet, hottest intake (°C)";
    out.ashrae = metric == "inlet_c" || metric == "rack_inlet_c";
    if (metric == "gpu_temp_c") out.label = "GPU temperature, hottest in the rack (°C)";
    if (metric == "gpu_util") out.label = "GPU utilization, rack mean (%)";
    if (metric == "throttle") out.label = "GPU clocks, lowest in the rack (%)";
    if (metric == "inlet_delta_c") out.label = "Inlet change vs baseline, largest (K)";
    if (metric == "inlet_residual_c") out.label = "Inlet, simulated − measured, rack mean (K)";
    if (metric == "nameplate_kw") out.label = "Rack nameplate (kW)";
    if (!(out.hi > out.lo)) {  // no fixed range: the values' own, from zero
        double hi = 0;
        for (const auto& [id, v] : out.rack)
            if (std::isfinite(v)) hi = std::max(hi, v);
        out.lo = 0;
        out.hi = hi > 0 ? hi : 1;
    }
    out.decimals = out.hi - out.lo >= 20 ? 0 : 1;
    return out;
}

}  // namespace ct::app
