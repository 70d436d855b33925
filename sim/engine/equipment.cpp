// Equipment (models.md §2, §4): node power, fans and airflow from the workload, and GPU temperatures.
#include "engine/passes.hpp"

#include <clustertwin/model/geometry.hpp>
#include <clustertwin/sim/workload.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

namespace ct::sim::detail {

namespace {
std::string fixed1(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}
}  // namespace

void equipment(Site& s, const Workload& w, double t, Alerts& alerts) {
    std::atomic<bool> power_changed{false};
    s.forNodes([&](std::size_t ni) {
        s.prefetchNode(ni);
        NodeRt& n = s.nodes[ni];
        // Power first: a node runs while one of its rack PDUs is live (feedsAlive()).
        int alive = 0;
        for (int f : n.feeds) alive += s.rpdus[static_cast<std::size_t>(f)].alive ? 1 : 0;
        n.live_feeds = alive;
        n.was_powered = n.powered;
        n.powered = alive > 0;
        if (n.was_powered != n.powered || !n.powered) power_changed.store(true, std::memory_order_relaxed);
        const bool on = n.powered && !n.failed;
        double gpu_w = 0, util_sum = 0;
        for (int g = 0; g < static_cast<int>(n.gpus.size()); ++g) {
            GpuRt& gr = n.gpus[g];
            if (!on || gr.failed || gr.shutdown || !n.gpu) {
                gr.util = 0;
                gr.power_w = 0;
                gr.throttle = 1;
                continue;
            }
            const auto& gm = *n.gpu;
            // Above the slowdown temperature clocks drop: utilization (work done) and power fall with them.
            gr.throttle =
                gr.temp_c <= gm.slowdown_temp_c
                    ? 1.0
                    : std::clamp(1.0 - 0.8 * (gr.temp_c - gm.slowdown_temp_c) / (gm.shutdown_temp_c - gm.slowdown_temp_c), 0.2, 1.0);
            const double demand = n.override_util ? *n.override_util : w.gpuDemand(ni, g, t);
            gr.util = std::clamp(demand, 0.0, 1.0) * gr.throttle;
            if (gr.util != gr.util_at_power) {  // pow() for 100k GPUs is a large part of a campus step; util often holds
                gr.util_at_power = gr.util;
                gr.util_power = std::pow(gr.util, gm.power_exponent);
            }
            gr.power_w = gm.idle_power_w + (gm.max_power_w - gm.idle_power_w) * gr.util_power;
            gpu_w += gr.power_w;
            util_sum += gr.util;
        }
        if (!on) {
            n.power_dc_w = n.fan_power_w = n.airflow_m3s = n.heat_air_w = n.heat_liquid_w = 0;
            n.fan_speed = 0;
            nodePsus(n);
            return;
        }
        nodeLoad(n, gpu_w, n.gpus.empty() ? 0.0 : util_sum / static_cast<double>(n.gpus.size()));
        nodePsus(n);
    });
    // Nodes that lost (or got back) their power: alerts in node order, after the pass (rare: the pass only flags).
    if (power_changed.load())
        for (auto& n : s.nodes)
            if (n.was_powered != n.powered || !n.powered)
                alerts.set("node_unpowered", n.node->id, "node " + n.node->id + " lost all its power feeds", !n.powered);
}

void nodeLoad(NodeRt& n, double gpu_w, double u_mean) {
    const auto& sm = *n.server;
    const double gpu_max = n.gpu ? n.gpu->max_power_w * static_cast<double>(n.gpus.size()) : 0.0;
    n.cpu_w = sm.cpu_count * (sm.cpu_idle_power_w + (sm.cpu_max_power_w - sm.cpu_idle_power_w) * u_mean);
    const double other_w = sm.nic_power_w + sm.other_power_w * (0.5 + 0.5 * u_mean);
    const double compute_max = gpu_max + sm.cpu_count * sm.cpu_max_power_w;
    const double load_frac = compute_max > 0 ? (gpu_w + n.cpu_w) / compute_max : 0.0;
    // Fans follow load and inlet temperature; power by the affinity law (∝ speed³), airflow ∝ speed.
    n.fan_speed = fanSpeedFor(load_frac, n.inlet_c);
    n.fan_power_w = sm.fan_max_power_w * n.fan_speed * n.fan_speed * n.fan_speed;
    n.airflow_m3s = sm.airflow_m3s * n.fan_speed;
    n.power_dc_w = gpu_w + n.cpu_w + other_w + n.fan_power_w;
    n.heat_liquid_w = n.power_dc_w * sm.liquid_fraction;
}

double fanSpeedFor(double load_frac, double inlet_c) {
    return std::clamp(0.3 + 0.7 * load_frac + 0.04 * std::max(0.0, inlet_c - 25.0), 0.3, 1.0);
}

double gpuReference(const Site& s, const NodeRt& n, double& r_scale) {
    // Liquid-cooled GPUs sit on the coolant supply; without a live CDU their cold plates fail to the air,
    // badly (twice the resistance).
    r_scale = 1.0 / std::sqrt(std::max(n.fan_speed, 0.3));
    if (n.server->liquid_fraction <= 0) return n.inlet_c;
    const RackRt& rr = s.racks[static_cast<std::size_t>(n.rack)];
    double sup = 0;
    int live = 0;
    for (int c : rr.cdus)
        if (!s.cdus[c].failed) {
            sup += s.cdus[c].supply_c;
            ++live;
        }
    r_scale = live > 0 ? 1.0 : 2.0;
    return live > 0 ? sup / live : n.inlet_c;
}

void gpusAtSteadyState(Site& s, NodeRt& n) {
    if (!n.gpu) return;
    double r_scale = 1;
    const double ref = gpuReference(s, n, r_scale);
    for (GpuRt& gr : n.gpus) gr.temp_c = ref + gr.power_w * n.gpu->thermal_resistance_k_per_w * r_scale;
}

bool nodeTemperatures(Site& s, std::size_t ni, double dt) {
    NodeRt& n = s.nodes[ni];
    const RackRt& rr = s.racks[static_cast<std::size_t>(n.rack)];
    double qs = 0, ts = 0;
    for (const auto& [lvl, share] : n.levels) {
        qs += share;
        ts += share * rr.levels[lvl].inlet_c;
    }
    n.inlet_c = qs > 0 ? ts / qs : 20.0;
    n.gpu_alerts = false;
    if (!n.gpu) return false;
    const auto& gm = *n.gpu;
    double r_scale = 1;
    const double ref = gpuReference(s, n, r_scale);
    if (dt != n.lag_dt) {  // the lag's factor, per node once per step length
        n.lag_dt = dt;
        n.lag_a = 1.0 - std::exp(-dt / gm.thermal_time_constant_s);
    }
    const double a = n.lag_a;
    bool flagged = false;
    for (GpuRt& gr : n.gpus) {
        const double target = ref + gr.power_w * gm.thermal_resistance_k_per_w * r_scale;
        gr.temp_c += (target - gr.temp_c) * a;
        flagged = flagged || (!gr.shutdown && !gr.failed && gr.temp_c >= gm.shutdown_temp_c) ||
                  (gr.throttle < 1.0 && !gr.shutdown) != gr.throttle_alerted;
    }
    n.gpu_alerts = flagged;
    return flagged;
}

void gpuAlerts(Site& s, std::vector<model::GpuFrame>& gpus, const std::vector<std::size_t>& gpu0, Alerts& alerts) {
    for (std::size_t ni = 0; ni < s.nodes.size(); ++ni) {
        NodeRt& n = s.nodes[ni];
        if (!n.gpu || !n.gpu_alerts) continue;
        const auto& gm = *n.gpu;
        for (std::size_t g = 0; g < n.gpus.size(); ++g) {
            GpuRt& gr = n.gpus[g];
            if (!gr.shutdown && !gr.failed && gr.temp_c >= gm.shutdown_temp_c) {
                gr.shutdown = true;
                if (ni < gpu0.size() && gpu0[ni] + g < gpus.size()) gpus[gpu0[ni] + g].failed = true;
                const std::string gid = model::gpuId(n.node->id, static_cast<int>(g));
                alerts.event("gpu_shutdown", gid, "GPU " + gid + " shut down at " + fixed1(gr.temp_c) + " °C", gr.temp_c,
                             gm.shutdown_temp_c);
            }
            const bool throttling = gr.throttle < 1.0 && !gr.shutdown;
            if (throttling != gr.throttle_alerted) {
                const std::string gid = model::gpuId(n.node->id, static_cast<int>(g));
                alerts.onChange(
                    gr.throttle_alerted, "throttling", gid, throttling, [&] { return "GPU " + gid + " is throttling"; }, gr.throttle, 1.0);
            }
        }
    }
}

}  // namespace ct::sim::detail
