// Equipment (models.md §2, §4): node power and heat, fans, the power chain, liquid loops, GPU temperatures.
#include "engine_impl.hpp"

#include <clustertwin/model/geometry.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>

namespace ct::sim {

namespace u = model::units;

namespace {
std::string fixed1(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}
} // namespace

// ------------------------------------------------------------------ equipment (models.md §2, §4)

void Engine::Impl::equipment() {
    std::atomic<bool> power_changed{false};
    forNodes([&](std::size_t ni) {
        prefetchNode(ni);
        NodeRt& n = nodes[ni];
        // Power first: a node runs while one of its rack PDUs is live (feedsAlive()).
        int alive = 0;
        for (int f : n.feeds) alive += rpdus[static_cast<std::size_t>(f)].alive ? 1 : 0;
        n.live_feeds = alive;
        n.was_powered = n.powered;
        n.powered = alive > 0;
        if (n.was_powered != n.powered || !n.powered) power_changed.store(true, std::memory_order_relaxed);
        const auto& sm = *n.server;
        const bool on = n.powered && !n.failed;
        double gpu_w = 0, util_sum = 0, gpu_max = 0;
        for (int g = 0; g < static_cast<int>(n.gpus.size()); ++g) {
            GpuRt& gr = n.gpus[g];
            gpu_max += n.gpu ? n.gpu->max_power_w : 0;
            if (!on || gr.failed || gr.shutdown || !n.gpu) {
                gr.util = 0;
                gr.power_w = 0;
                gr.throttle = 1;
                continue;
            }
            const auto& gm = *n.gpu;
            // Above the slowdown temperature clocks drop: utilization (work done) and power fall with them.
            gr.throttle = gr.temp_c <= gm.slowdown_temp_c
                              ? 1.0
                              : std::clamp(1.0 - 0.8 * (gr.temp_c - gm.slowdown_temp_c) / (gm.shutdown_temp_c - gm.slowdown_temp_c), 0.2, 1.0);
            const double demand = n.override_util ? *n.override_util : workload->gpuDemand(ni, g, t);
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
        const double u_mean = n.gpus.empty() ? 0.0 : util_sum / static_cast<double>(n.gpus.size());
        const double cpu_w = sm.cpu_count * (sm.cpu_idle_power_w + (sm.cpu_max_power_w - sm.cpu_idle_power_w) * u_mean);
        const double other_w = sm.nic_power_w + sm.other_power_w * (0.5 + 0.5 * u_mean);
        const double compute_max = gpu_max + sm.cpu_count * sm.cpu_max_power_w;
        const double load_frac = compute_max > 0 ? (gpu_w + cpu_w) / compute_max : 0.0;
        // Fans follow load and inlet temperature; power by the affinity law (∝ speed³), airflow ∝ speed.
        n.fan_speed = std::clamp(0.3 + 0.7 * load_frac + 0.04 * std::max(0.0, n.inlet_c - 25.0), 0.3, 1.0);
        n.fan_power_w = sm.fan_max_power_w * n.fan_speed * n.fan_speed * n.fan_speed;
        n.airflow_m3s = sm.airflow_m3s * n.fan_speed;
        n.power_dc_w = gpu_w + cpu_w + other_w + n.fan_power_w;
        n.heat_liquid_w = n.power_dc_w * sm.liquid_fraction;
        nodePsus(n);
    });
    // Nodes that lost (or got back) their power: alerts in node order, after the pass (rare: the pass only flags).
    if (power_changed.load())
        for (auto& n : nodes)
            if (n.was_powered != n.powered || !n.powered)
                alert("node_unpowered", n.node->id, "node " + n.node->id + " lost all its power feeds", !n.powered);
}

// ------------------------------------------------------------------ power chain (models.md §2)

void Engine::Impl::nodePsus(NodeRt& n) const {
    if (!n.powered || n.failed) {
        n.power_ac_w = n.psu_loss_w = 0;
        n.heat_air_w = 0;
        return;
    }
    // PSUs on the live feeds share the load; efficiency at their load fraction.
    const auto& sm = *n.server;
    const int psus = std::max(1, static_cast<int>(std::lround(sm.psu_count * static_cast<double>(n.live_feeds) / n.feeds.size())));
    const double frac = n.power_dc_w / (psus * sm.psu_rating_w);
    const double eta = n.psu_curve ? n.psu_curve->efficiencyAt(frac) : 1.0;
    n.power_ac_w = n.power_dc_w / eta;
    n.psu_loss_w = n.power_ac_w - n.power_dc_w;
    n.heat_air_w = n.power_ac_w - n.heat_liquid_w;
}

void Engine::Impl::feedsAlive() {
    for (auto& f : feeds) f.alive = !f.failed;
    for (auto& x : txs) x.alive = !x.failed && x.parent >= 0 && feeds[x.parent].alive;
    for (auto& x : ups) x.alive = !x.failed && (x.via >= 0 ? txs[x.via].alive : x.parent >= 0 && feeds[x.parent].alive);
    for (auto& x : pdus) x.alive = !x.failed && x.parent >= 0 && ups[x.parent].alive;
    for (auto& r : rpdus) r.alive = !r.failed && r.upstream >= 0 && pdus[r.upstream].alive;
}

void Engine::Impl::powerChain() {
    // What each rack PDU carries: its nodes' PSU draw, added in node order (rack PDU by rack PDU across the pool).
    if (rpdu_nodes.size() != rpdus.size()) {
        rpdu_nodes.assign(rpdus.size(), {});
        for (std::size_t ni = 0; ni < nodes.size(); ++ni)
            for (int f : nodes[ni].feeds) rpdu_nodes[static_cast<std::size_t>(f)].push_back(static_cast<int>(ni));
    }
    forEach(rpdus.size(), [&](std::size_t pi) {
        RackPduRt& r = rpdus[pi];
        r.load_w = 0;
        r.phase_w = {0, 0, 0};
        if (!r.alive) return;
        for (int nid : rpdu_nodes[pi]) {
            const std::size_t ni = static_cast<std::size_t>(nid);
            const NodeRt& n = nodes[ni];
            if (!n.powered || n.failed) continue;
            // Each live feed takes an equal share; a 3-phase PDU's share is spread over its phases PSU by PSU.
            const int alive = n.live_feeds;
            const int psus = std::max(1, static_cast<int>(std::lround(n.server->psu_count * static_cast<double>(alive) / n.feeds.size())));
            const double share = n.power_ac_w / static_cast<double>(alive);
            const int psus_per_feed = std::max(1, psus / alive);
            r.load_w += share;
            if (r.pdu->phases == 3) {
                for (int p = 0; p < psus_per_feed; ++p) r.phase_w[(ni + static_cast<std::size_t>(p)) % 3] += share / psus_per_feed;
            } else {
                r.phase_w[0] += share;
            }
        }
    });
    for (auto& x : pdus) x.load_w = x.loss_w = 0;
    for (auto& x : ups) x.load_w = x.loss_w = 0;
    for (auto& x : feeds) x.load_w = x.loss_w = 0;
    for (auto& x : txs) x.load_w = x.loss_w = 0;
    for (const auto& r : rpdus)
        if (r.alive) pdus[r.upstream].load_w += r.load_w;
    for (const auto& p : pdus)
        if (p.alive && p.parent >= 0) ups[p.parent].load_w += p.load_w;
    for (auto& x : ups) {
        if (!x.alive || x.load_w <= 0) continue;
        const double eta = x.curve ? x.curve->efficiencyAt(x.load_w / x.capacity_w) : 1.0;
        x.loss_w = x.load_w * (1.0 / eta - 1.0);
        if (x.via >= 0) txs[x.via].load_w += x.load_w + x.loss_w;
        else if (x.parent >= 0) feeds[x.parent].load_w += x.load_w + x.loss_w;
    }
    for (auto& x : txs) {
        if (!x.alive || x.load_w <= 0) continue;
        x.loss_w = x.load_w * (1.0 / x.efficiency - 1.0);
        if (x.parent >= 0) feeds[x.parent].load_w += x.load_w + x.loss_w;
    }
}

void Engine::Impl::liquid() {
    std::vector<int> live_cdus_of_rack(racks.size(), 0);
    for (std::size_t ri = 0; ri < racks.size(); ++ri)
        for (int c : racks[ri].cdus) live_cdus_of_rack[ri] += cdus[c].failed ? 0 : 1;
    for (auto& c : cdus) c.load_w = 0;
    for (std::size_t ri = 0; ri < racks.size(); ++ri) {
        const double q = racks[ri].heat_liquid_w;  // its nodes' sum (airflowTargets())
        if (live_cdus_of_rack[ri] == 0) continue;
        for (int c : racks[ri].cdus)
            if (!cdus[c].failed) cdus[c].load_w += q / live_cdus_of_rack[ri];
    }
    for (auto& c : cdus) {
        const double mdot = u::lpmToM3s(c.model->coolant_flow_lpm) * u::kWaterDensityKgM3;
        if (c.failed) {
            c.load_w = 0;
            c.supply_c = c.return_c = c.setpoint_c;
            c.over_capacity = false;
            continue;
        }
        // Beyond capacity the excess warms the secondary supply.
        c.over_capacity = c.load_w > c.model->capacity_w;
        c.supply_c = c.setpoint_c + (c.over_capacity ? (c.load_w - c.model->capacity_w) / (mdot * u::kWaterCpJPerKgK) : 0.0);
        c.return_c = c.supply_c + c.load_w / (mdot * u::kWaterCpJPerKgK);
        alert("cooling_short", c.cdu->id, "CDU " + c.cdu->id + " carries more than its capacity", c.over_capacity);
    }
}

void Engine::Impl::gpuTemperatures(double dt) {
    ensureFrameIds();
    std::atomic<bool> any_alert{false};
    auto temps = [&](std::size_t ni) {
        NodeRt& n = nodes[ni];
        const RackRt& rr = racks[n.rack];
        double qs = 0, ts = 0;
        for (const auto& [lvl, share] : n.levels) {
            qs += share;
            ts += share * rr.levels[lvl].inlet_c;
        }
        n.inlet_c = qs > 0 ? ts / qs : 20.0;
        if (!n.gpu) return;
        const auto& gm = *n.gpu;
        // Liquid-cooled GPUs sit on the coolant supply; without a live CDU their cold plates fail to the air,
        // badly (twice the resistance).
        double ref = n.inlet_c, r_scale = 1.0 / std::sqrt(std::max(n.fan_speed, 0.3));
        if (n.server->liquid_fraction > 0) {
            double sup = 0;
            int live = 0;
            for (int c : rr.cdus)
                if (!cdus[c].failed) {
                    sup += cdus[c].supply_c;
                    ++live;
                }
            if (live > 0) {
                ref = sup / live;
                r_scale = 1.0;
            } else {
                r_scale = 2.0;
            }
        }
        if (dt != n.lag_dt) {  // the lag's factor, per node once per step length
            n.lag_dt = dt;
            n.lag_a = 1.0 - std::exp(-dt / gm.thermal_time_constant_s);
        }
        const double a = n.lag_a;
        bool alerts = false;
        for (GpuRt& gr : n.gpus) {
            const double target = ref + gr.power_w * gm.thermal_resistance_k_per_w * r_scale;
            gr.temp_c += (target - gr.temp_c) * a;
            alerts = alerts || (!gr.shutdown && !gr.failed && gr.temp_c >= gm.shutdown_temp_c) ||
                     (gr.throttle < 1.0 && !gr.shutdown) != gr.throttle_alerted;
        }
        n.gpu_alerts = alerts;
        if (alerts) any_alert.store(true, std::memory_order_relaxed);
    };
    // The node's entries of the frame in the same pass: its state is final for this step but for shutdowns,
    // which the loop below writes into the frame too.
    forNodes([&](std::size_t ni) {
        prefetchNode(ni);
        temps(ni);
        writeNodeFrame(ni);
    });
    node_frame_fresh = true;
    // Shutdowns and throttling alerts, in GPU order (the pass only flags the nodes that have some).
    if (!any_alert.load()) return;
    for (auto& n : nodes) {
        if (!n.gpu || !n.gpu_alerts) continue;
        const auto& gm = *n.gpu;
        for (std::size_t g = 0; g < n.gpus.size(); ++g) {
            GpuRt& gr = n.gpus[g];
            if (!gr.shutdown && !gr.failed && gr.temp_c >= gm.shutdown_temp_c) {
                gr.shutdown = true;
                frame.gpus[node_gpu0[static_cast<std::size_t>(&n - nodes.data())] + g].failed = true;
                const std::string gid = model::gpuId(n.node->id, static_cast<int>(g));
                frame.alerts.push_back({t, "gpu_shutdown", gid, "GPU " + gid + " shut down at " + fixed1(gr.temp_c) + " °C", gr.temp_c,
                                        gm.shutdown_temp_c});
            }
            const bool throttling = gr.throttle < 1.0 && !gr.shutdown;
            if (throttling != gr.throttle_alerted) {
                const std::string gid = model::gpuId(n.node->id, static_cast<int>(g));
                alertOnChange(gr.throttle_alerted, "throttling", gid, throttling, [&] { return "GPU " + gid + " is throttling"; },
                              gr.throttle, 1.0);
            }
        }
    }
}
} // namespace ct::sim
