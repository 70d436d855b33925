// The power chain (models.md §2): which stages are live, what each node draws at its PSUs, and what every rack
// PDU, PDU, UPS, transformer and feed carries and loses.
#include "engine/passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::sim::detail {

void nodePsus(NodeRt& n) {
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

void feedsAlive(Site& s) {
    for (auto& f : s.feeds) f.alive = !f.failed;
    for (auto& x : s.txs) x.alive = !x.failed && x.parent >= 0 && s.feeds[x.parent].alive;
    for (auto& x : s.ups) x.alive = !x.failed && (x.via >= 0 ? s.txs[x.via].alive : x.parent >= 0 && s.feeds[x.parent].alive);
    for (auto& x : s.pdus) x.alive = !x.failed && x.parent >= 0 && s.ups[x.parent].alive;
    for (auto& r : s.rpdus) r.alive = !r.failed && r.upstream >= 0 && s.pdus[r.upstream].alive;
}

void powerChain(Site& s) {
    // What each rack PDU carries: its nodes' PSU draw, added in node order (rack PDU by rack PDU across the pool).
    if (s.rpdu_nodes.size() != s.rpdus.size()) {
        s.rpdu_nodes.assign(s.rpdus.size(), {});
        for (std::size_t ni = 0; ni < s.nodes.size(); ++ni)
            for (int f : s.nodes[ni].feeds) s.rpdu_nodes[static_cast<std::size_t>(f)].push_back(static_cast<int>(ni));
    }
    s.forEach(s.rpdus.size(), [&](std::size_t pi) {
        RackPduRt& r = s.rpdus[pi];
        r.load_w = 0;
        r.phase_w = {0, 0, 0};
        if (!r.alive) return;
        for (int nid : s.rpdu_nodes[pi]) {
            const std::size_t ni = static_cast<std::size_t>(nid);
            const NodeRt& n = s.nodes[ni];
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
    for (auto& x : s.pdus) x.load_w = x.loss_w = 0;
    for (auto& x : s.ups) x.load_w = x.loss_w = 0;
    for (auto& x : s.feeds) x.load_w = x.loss_w = 0;
    for (auto& x : s.txs) x.load_w = x.loss_w = 0;
    for (const auto& r : s.rpdus)
        if (r.alive) s.pdus[r.upstream].load_w += r.load_w;
    for (const auto& p : s.pdus)
        if (p.alive && p.parent >= 0) s.ups[p.parent].load_w += p.load_w;
    for (auto& x : s.ups) {
        if (!x.alive || x.load_w <= 0) continue;
        const double eta = x.curve ? x.curve->efficiencyAt(x.load_w / x.capacity_w) : 1.0;
        x.loss_w = x.load_w * (1.0 / eta - 1.0);
        if (x.via >= 0) s.txs[x.via].load_w += x.load_w + x.loss_w;
        else if (x.parent >= 0) s.feeds[x.parent].load_w += x.load_w + x.loss_w;
    }
    for (auto& x : s.txs) {
        if (!x.alive || x.load_w <= 0) continue;
        x.loss_w = x.load_w * (1.0 / x.efficiency - 1.0);
        if (x.parent >= 0) s.feeds[x.parent].load_w += x.load_w + x.loss_w;
    }
}

void feedRampAlerts(const Site& s, const std::vector<double>& limit_w_per_s, double step_s, std::vector<double>& prev_w, Alerts& alerts) {
    // A large job's synchronous phases (or its stop on a failure) swing a feed by megawatts within seconds;
    // utilities limit the ramp.
    if (prev_w.size() == s.feeds.size()) {
        for (std::size_t i = 0; i < s.feeds.size(); ++i) {
            const double limit = i < limit_w_per_s.size() ? limit_w_per_s[i] : 0.0;
            const double ramp = std::fabs(s.feeds[i].load_w - prev_w[i]) / step_s;
            char buf[96];
            std::snprintf(buf, sizeof buf, " changes by %.0f kW/s, above its ramp limit of %.0f kW/s", ramp / 1e3, limit / 1e3);
            alerts.set("power_ramp", s.feeds[i].id, "feed " + s.feeds[i].id + buf, limit > 0 && ramp > limit, ramp, limit);
        }
    }
    prev_w.resize(s.feeds.size());
    for (std::size_t i = 0; i < s.feeds.size(); ++i) prev_w[i] = s.feeds[i].load_w;
}

}  // namespace ct::sim::detail
