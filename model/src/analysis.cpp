#include <clustertwin/model/analysis.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

namespace ct::model {

ChainLoads chainLoads(const Scenario& s, const Catalog& c) {
    ChainLoads l;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks) {
                const double load = rackNameplatePowerW(rack, c);
                std::map<std::string, int> per_side;
                for (const auto& p : rack.pdus) per_side[p.feed]++;
                for (const auto& p : rack.pdus) {
                    l.normal.pdu[p.upstream] += load / static_cast<double>(rack.pdus.size());
                    l.failover.pdu[p.upstream] += load / per_side[p.feed];
                }
            }
    for (ChainLoad* k : {&l.normal, &l.failover}) {
        for (const auto& p : s.power.pdus) k->ups[p.ups] += k->pdu[p.id];
        for (const auto& u : s.power.ups) k->feed[u.feed] += k->ups[u.id];
        for (const auto& t : s.power.transformers) k->feed[t.feed] += k->feed[t.id] / (t.efficiency > 0 ? t.efficiency : 1);
    }
    return l;
}

double rackNameplatePowerW(const Rack& r, const Catalog& c) {
    double w = 0;
    for (const Node& n : r.nodes)
        if (const ServerModel* s = c.server(n.model)) w += s->max_power_w;
    return w;
}

double rackLiquidPowerW(const Rack& r, const Catalog& c) {
    double w = 0;
    for (const Node& n : r.nodes)
        if (const ServerModel* s = c.server(n.model)) w += s->max_power_w * s->liquid_fraction;
    return w;
}

double unservedLoad(const std::vector<double>& capacities, const std::vector<double>& loads, const std::vector<std::vector<int>>& links) {
    // Max-flow (Edmonds–Karp) on source → unit → consumer → sink.
    const int U = static_cast<int>(capacities.size()), L = static_cast<int>(loads.size());
    const int S = U + L, T = S + 1, N = T + 1;
    struct Edge {
        int to;
        double cap;
    };
    std::vector<Edge> edges;
    std::vector<std::vector<int>> adj(N);
    auto add = [&](int a, int b, double cap) {
        adj[a].push_back(static_cast<int>(edges.size()));
        edges.push_back({b, cap});
        adj[b].push_back(static_cast<int>(edges.size()));
        edges.push_back({a, 0});
    };
    double total = 0;
    for (int u = 0; u < U; ++u) add(S, u, capacities[u]);
    for (int l = 0; l < L; ++l) {
        add(U + l, T, loads[l]);
        total += loads[l];
        if (l < static_cast<int>(links.size()))
            for (int u : links[l])
                if (u >= 0 && u < U) add(u, U + l, std::numeric_limits<double>::infinity());
    }
    double flow = 0;
    const double eps = 1e-9 * std::max(1.0, total);
    for (;;) {
        std::vector<int> prev(N, -1);
        std::queue<int> q;
        q.push(S);
        prev[S] = -2;
        while (!q.empty() && prev[T] == -1) {
            const int v = q.front();
            q.pop();
            for (int ei : adj[v])
                if (edges[ei].cap > eps && prev[edges[ei].to] == -1) {
                    prev[edges[ei].to] = ei;
                    q.push(edges[ei].to);
                }
        }
        if (prev[T] == -1) break;
        double push = std::numeric_limits<double>::infinity();
        for (int v = T; v != S; v = edges[prev[v] ^ 1].to) push = std::min(push, edges[prev[v]].cap);
        for (int v = T; v != S; v = edges[prev[v] ^ 1].to) {
            edges[prev[v]].cap -= push;
            edges[prev[v] ^ 1].cap += push;
        }
        flow += push;
    }
    const double left = total - flow;
    return left > eps ? left : 0.0;
}

namespace {

/// Losing each unit in turn: the worst shortfall. Consumers drawing on the same set of units are merged
/// first; when the merged groups share no unit (one air group per hall, one CDU manifold), each group's
/// shortfall is simply its load minus the capacity left to it, which keeps 100k-GPU halls instant. Otherwise
/// a max-flow per lost unit.
RedundancyResult nMinus1(const std::vector<std::string>& ids, const std::vector<double>& caps, const std::vector<double>& loads,
                         const std::vector<std::vector<int>>& links) {
    std::map<std::vector<int>, double> groups;
    for (std::size_t l = 0; l < loads.size(); ++l) {
        std::vector<int> key = l < links.size() ? links[l] : std::vector<int>{};
        std::sort(key.begin(), key.end());
        key.erase(std::unique(key.begin(), key.end()), key.end());
        groups[key] += loads[l];
    }
    std::vector<int> owner(caps.size(), -1);
    bool disjoint = true;
    std::vector<double> g_load, g_cap;
    std::vector<std::vector<int>> g_links;
    for (const auto& [key, load] : groups) {
        const int g = static_cast<int>(g_load.size());
        double cap = 0;
        for (int u : key) {
            if (owner[u] != -1) disjoint = false;
            owner[u] = g;
            cap += caps[u];
        }
        g_load.push_back(load);
        g_cap.push_back(cap);
        g_links.push_back(key);
    }
    RedundancyResult r;
    for (std::size_t k = 0; k < caps.size(); ++k) {
        double left = 0;
        if (disjoint) {
            for (std::size_t g = 0; g < g_load.size(); ++g) {
                const double cap = g_cap[g] - (owner[k] == static_cast<int>(g) ? caps[k] : 0.0);
                left += std::max(0.0, g_load[g] - cap);
            }
            if (left < 1e-9 * std::max(1.0, g_load.empty() ? 0.0 : g_load[0])) left = 0;
        } else {
            std::vector<double> c = caps;
            c[k] = 0;
            left = unservedLoad(c, g_load, g_links);
        }
        if (left > r.worst_shortfall_w) {
            r.worst_shortfall_w = left;
            r.worst_unit = ids[k];
        }
    }
    r.survives = r.worst_shortfall_w == 0;
    return r;
}

}  // namespace

ScenarioSummary summarize(const Scenario& s, const Catalog& c) {
    ScenarioSummary out;
    out.halls = static_cast<int>(s.halls.size());
    // Air: every unit of a hall serves every air-cooled rack of that hall (the room mixes). Liquid: a rack
    // draws only from the CDUs that list it.
    std::vector<std::string> air_ids, cdu_ids;
    std::vector<double> air_caps, air_loads, cdu_caps, cdu_loads;
    std::vector<std::vector<int>> air_links, cdu_links;
    for (const Hall& h : s.halls) {
        std::vector<int> hall_units;
        for (const CoolingUnit& u : h.cooling_units) {
            const CoolingUnitModel* m = c.coolingUnit(u.model);
            hall_units.push_back(static_cast<int>(air_caps.size()));
            air_ids.push_back(u.id);
            air_caps.push_back(m ? m->capacity_w : 0);
            out.air_cooling_capacity_w += m ? m->capacity_w : 0;
            out.cooling_airflow_m3s += m ? m->airflow_m3s : 0;
            ++out.cooling_units;
        }
        std::unordered_map<std::string, std::vector<int>> rack_cdus;
        for (const Cdu& cd : h.cdus) {
            const CduModel* m = c.cdu(cd.model);
            for (const auto& r : cd.racks) rack_cdus[r].push_back(static_cast<int>(cdu_caps.size()));
            cdu_ids.push_back(cd.id);
            cdu_caps.push_back(m ? m->capacity_w : 0);
            out.liquid_cooling_capacity_w += m ? m->capacity_w : 0;
            ++out.cdus;
        }
        double hall_air = 0;
        for (const Row& row : h.rows) {
            ++out.rows;
            for (const Rack& r : row.racks) {
                ++out.racks;
                for (const Node& n : r.nodes) {
                    ++out.nodes;
                    if (const ServerModel* sm = c.server(n.model)) {
                        out.gpus += sm->gpu_count;
                        if (sm->gpu_count > 0) out.gpus_by_model[sm->gpu_model] += sm->gpu_count;
                        out.server_airflow_m3s += sm->airflow_m3s;
                    }
                }
                const double p = rackNameplatePowerW(r, c), liq = rackLiquidPowerW(r, c);
                out.nameplate_it_power_w += p;
                out.liquid_heat_w += liq;
                out.air_heat_w += p - liq;
                hall_air += p - liq;
                if (liq > 0) {
                    cdu_loads.push_back(liq);
                    cdu_links.push_back(rack_cdus[r.id]);
                }
            }
        }
        air_loads.push_back(hall_air);
        air_links.push_back(hall_units);
    }
    out.air_n_minus_1 = nMinus1(air_ids, air_caps, air_loads, air_links);
    out.liquid_n_minus_1 = nMinus1(cdu_ids, cdu_caps, cdu_loads, cdu_links);
    // With no unit at all, a load is simply not carried.
    if (air_ids.empty() && unservedLoad(air_caps, air_loads, air_links) > 0) out.air_n_minus_1 = {false, "", out.air_heat_w};
    if (cdu_ids.empty() && out.liquid_heat_w > 0) out.liquid_n_minus_1 = {false, "", out.liquid_heat_w};
    return out;
}

}  // namespace ct::model
