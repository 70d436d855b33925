#include <clustertwin/sim/impact.hpp>

#include "impact_parts.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <queue>
#include <set>

namespace ct::sim {

namespace {

std::string kw(double w) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f kW", w / 1000);
    return b;
}

/// Power: which gear is down, then which nodes lose every feed, then the failover loads (nameplate, split
/// evenly over a node's live feeds) against the surviving gear's capacity.
void power(const model::Scenario& s, const model::Catalog& c, const std::string& id, ImpactReport& r) {
    std::set<std::string> down{id};
    for (const auto& t : s.power.transformers)
        if (down.count(t.feed)) down.insert(t.id);
    for (const auto& u : s.power.ups)
        if (down.count(u.feed)) down.insert(u.id);
    for (const auto& p : s.power.pdus)
        if (down.count(p.ups)) down.insert(p.id);
    std::map<std::string, double> load;  // rack PDU, floor PDU, UPS, feed -> W
    std::map<std::string, std::string> pdu_ups, ups_feed, tx_feed;
    for (const auto& p : s.power.pdus) pdu_ups[p.id] = p.ups;
    for (const auto& u : s.power.ups) ups_feed[u.id] = u.feed;
    for (const auto& t : s.power.transformers) tx_feed[t.id] = t.feed;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks) {
                std::map<std::string, const model::RackPdu*> rpdu;
                for (const auto& p : rack.pdus) {
                    rpdu[p.id] = &p;
                    if (down.count(p.upstream)) down.insert(p.id);
                }
                int unpowered = 0;
                bool single = false;
                for (const auto& n : rack.nodes) {
                    std::vector<std::string> feeds = n.feeds;
                    if (feeds.empty())
                        for (const auto& p : rack.pdus) feeds.push_back(p.id);
                    std::vector<const model::RackPdu*> live;
                    std::set<std::string> sides, live_sides;
                    for (const auto& f : feeds) {
                        auto it = rpdu.find(f);
                        if (it == rpdu.end()) continue;
                        sides.insert(it->second->feed);
                        if (!down.count(f)) {
                            live.push_back(it->second);
                            live_sides.insert(it->second->feed);
                        }
                    }
                    if (live.empty()) {
                        r.nodes_unpowered.push_back(n.id);
                        ++unpowered;
                        continue;
                    }
                    if (sides.size() > 1 && live_sides.size() == 1) single = true;
                    const model::ServerModel* sm = c.server(n.model);
                    const double w = sm ? sm->max_power_w : 0;
                    for (const auto* p : live) {
                        const double share = w / static_cast<double>(live.size());
                        load[p->id] += share;
                        load[p->upstream] += share;
                        load[pdu_ups[p->upstream]] += share;
                        const std::string& up = ups_feed[pdu_ups[p->upstream]];
                        load[up] += share;
                        if (tx_feed.count(up)) load[tx_feed[up]] += share;
                    }
                }
                if (!rack.nodes.empty() && unpowered == static_cast<int>(rack.nodes.size())) r.racks_unpowered.push_back(rack.id);
                else if (single) r.racks_single_fed.push_back(rack.id);
                for (const auto& p : rack.pdus)
                    if (!down.count(p.id) && load[p.id] > p.ratedPowerW())
                        r.overloaded.push_back(p.id + " (" + kw(load[p.id]) + " on a " + kw(p.ratedPowerW()) + " breaker)");
            }
    for (const auto& p : s.power.pdus)
        if (!down.count(p.id) && load[p.id] > p.capacity_w)
            r.overloaded.push_back(p.id + " (" + kw(load[p.id]) + " of " + kw(p.capacity_w) + ")");
    for (const auto& u : s.power.ups) {
        const model::UpsModel* m = c.upsModel(u.model);
        const double cap = m ? m->capacity_w * u.modules : 0;
        if (!down.count(u.id) && load[u.id] > cap) r.overloaded.push_back(u.id + " (" + kw(load[u.id]) + " of " + kw(cap) + ")");
    }
    for (const auto& t : s.power.transformers)
        if (!down.count(t.id) && load[t.id] > t.capacity_w)
            r.overloaded.push_back(t.id + " (" + kw(load[t.id]) + " of " + kw(t.capacity_w) + ")");
    for (const auto& f : s.power.feeds)
        if (!down.count(f.id) && load[f.id] > f.capacity_w)
            r.overloaded.push_back(f.id + " (" + kw(load[f.id]) + " of " + kw(f.capacity_w) + ")");
    if (!r.overloaded.empty()) r.notes.push_back("overloaded gear trips in turn: the racks it feeds are at risk of losing power");
}

void cooling(const model::Scenario& s, const model::Catalog& c, const std::string& id, ImpactReport& r) {
    detail::airCoolingImpact(s, c, id, r);
    for (const auto& h : s.halls) {
        for (const auto& cd : h.cdus) {
            if (cd.id != id) continue;
            // The racks it served, and the capacity of the other CDUs that serve any of them: a max-flow
            // decides whether what is left carries them.
            std::vector<std::string> racks = cd.racks;
            std::vector<double> caps, loads;
            std::vector<std::vector<int>> links;
            std::map<std::string, int> cdu_index;
            for (const auto& other : h.cdus) {
                if (other.id == id) continue;
                const auto* m = c.cdu(other.model);
                cdu_index[other.id] = static_cast<int>(caps.size());
                caps.push_back(m ? m->capacity_w : 0);
            }
            // Every rack that uses a surviving CDU counts, or shared capacity would be counted twice.
            for (const auto& row : h.rows)
                for (const auto& rack : row.racks) {
                    const double liq = model::rackLiquidPowerW(rack, c);
                    if (liq <= 0) continue;
                    std::vector<int> l;
                    bool served_by_failed = false;
                    for (const auto& other : h.cdus) {
                        if (std::find(other.racks.begin(), other.racks.end(), rack.id) == other.racks.end()) continue;
                        if (other.id == id) served_by_failed = true;
                        else l.push_back(cdu_index[other.id]);
                    }
                    if (l.empty() && !served_by_failed) continue;
                    loads.push_back(liq);
                    links.push_back(l);
                    if (served_by_failed) r.liquid_heat_w += liq;
                }
            for (double x : caps) r.liquid_capacity_left_w += x;
            const double unserved = model::unservedLoad(caps, loads, links);
            if (unserved > 1e-6) {
                for (const auto& row : h.rows)
                    for (const auto& rack : row.racks)
                        if (std::find(racks.begin(), racks.end(), rack.id) != racks.end() && model::rackLiquidPowerW(rack, c) > 0)
                            r.racks_cooling_short.push_back(rack.id);
                r.notes.push_back(kw(unserved) + " of liquid heat is left without a CDU to carry it");
            } else {
                r.notes.push_back("the other CDUs carry the liquid heat of the racks " + id + " served");
            }
        }
    }
}

void fabric(const model::Scenario& s, const model::Catalog& c, const std::string& id, ImpactReport& r) {
    if (s.network.topology == "none") return;
    net::ScenarioFabric f = net::buildScenarioFabric(s, c);
    net::Topology& t = f.topology;
    const int node = t.find(id);
    const int cable = node < 0 ? t.cableByName(id) : -1;
    if (node >= 0) t.setNodeFailed(node, true);
    if (cable >= 0) t.setCableFailed(cable, true);
    // A whole server failing takes its GPUs and NVSwitch with it.
    for (std::size_t n = 0; n < f.node_ids.size(); ++n)
        if (f.node_ids[n] == id) {
            for (int g : f.gpus_of_node[n]) t.setNodeFailed(g, true);
            if (int nvs = t.find(id + "/nvswitch"); nvs >= 0) t.setNodeFailed(nvs, true);
        }
    if (node < 0 && cable < 0 && std::find(f.node_ids.begin(), f.node_ids.end(), id) == f.node_ids.end()) return;
    for (int g : t.hosts()) {
        bool has_fabric = false, any_live = false;
        for (int a : t.out(g)) {
            if (t.arc(a).kind == net::LinkKind::NvLink) continue;
            has_fabric = true;
            if (t.arcUp(a)) any_live = true;
        }
        const std::string& gid = t.node(g).id;
        const std::string owner = gid.substr(0, gid.rfind('/'));
        if (has_fabric && !any_live && owner != id) r.gpus_without_fabric_link.push_back(gid);
    }
    // Reachability between servers over live arcs (NVLink included: traffic may detour through a sibling GPU).
    std::vector<int> comp(t.nodeCount(), -1);
    int ncomp = 0;
    for (int start = 0; start < t.nodeCount(); ++start) {
        if (comp[start] >= 0) continue;
        std::queue<int> q;
        q.push(start);
        comp[start] = ncomp;
        while (!q.empty()) {
            const int u = q.front();
            q.pop();
            for (int a : t.out(u))
                if (t.arcUp(a) && comp[t.arc(a).to] < 0) {
                    comp[t.arc(a).to] = ncomp;
                    q.push(t.arc(a).to);
                }
        }
        ++ncomp;
    }
    std::map<int, int> servers_in;
    std::vector<int> node_comp(f.node_ids.size(), -1);
    for (std::size_t n = 0; n < f.node_ids.size(); ++n) {
        if (f.node_ids[n] == id || f.gpus_of_node[n].empty()) continue;
        node_comp[n] = comp[f.gpus_of_node[n].front()];
        ++servers_in[node_comp[n]];
    }
    int biggest = -1, most = 0;
    for (auto [cp, k] : servers_in)
        if (k > most) {
            most = k;
            biggest = cp;
        }
    for (std::size_t n = 0; n < f.node_ids.size(); ++n)
        if (node_comp[n] >= 0 && node_comp[n] != biggest) r.nodes_disconnected.push_back(f.node_ids[n]);
    if (!r.gpus_without_fabric_link.empty() && r.nodes_disconnected.empty())
        r.notes.push_back(std::to_string(r.gpus_without_fabric_link.size()) +
                          " GPUs lose their own fabric link; their traffic can still detour over NVLink through a sibling GPU, at a cost");
}

}  // namespace

std::vector<std::string> ImpactReport::affected() const {
    std::vector<std::string> out;
    for (const auto* v : {&racks_unpowered, &nodes_unpowered, &racks_single_fed, &racks_cooling_short, &nodes_disconnected,
                          &gpus_without_fabric_link, &nodes_lost, &gpus_lost})
        out.insert(out.end(), v->begin(), v->end());
    return out;
}

namespace {
/// What is lost with `nodes` and `gpus` (a failed node's, a rack's, or one GPU), and the jobs placed on them.
void computeLost(const model::Scenario& s, const model::Catalog& c, const std::vector<std::string>& nodes, const std::string& gpu,
                 ImpactReport& r) {
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks)
                for (const auto& n : rack.nodes) {
                    if (std::find(nodes.begin(), nodes.end(), n.id) == nodes.end()) continue;
                    r.nodes_lost.push_back(n.id);
                    if (const auto* sm = c.server(n.model))
                        for (int g = 0; g < sm->gpu_count; ++g) r.gpus_lost.push_back(model::gpuId(n.id, g));
                }
    if (!gpu.empty()) r.gpus_lost.push_back(gpu);
    const std::string gpu_node = gpu.empty() ? std::string() : gpu.substr(0, gpu.rfind("/gpu"));
    bool unplaced = false;
    for (const auto& j : s.jobs) {
        if (j.nodes.empty()) unplaced = true;
        for (const auto& n : j.nodes)
            if (n == gpu_node || std::find(nodes.begin(), nodes.end(), n) != nodes.end()) {
                r.jobs_hit.push_back(j.id);
                break;
            }
    }
    if (unplaced)
        r.notes.push_back("jobs without listed nodes are placed when the run starts: which of them would be hit shows in a what-if");
}

/// "n0001/gpu3" of a node of the scenario whose server has that GPU: the node's id, else "".
std::string gpuNode(const model::Scenario& s, const model::Catalog& c, const std::string& id) {
    const auto slash = id.rfind("/gpu");
    if (slash == std::string::npos) return {};
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks)
                for (const auto& n : rack.nodes)
                    if (n.id == id.substr(0, slash))
                        if (const auto* sm = c.server(n.model))
                            for (int g = 0; g < sm->gpu_count; ++g)
                                if (model::gpuId(n.id, g) == id) return n.id;
    return {};
}
}  // namespace

ImpactReport impactOf(const model::Scenario& s, const model::Catalog& c, const std::string& id) {
    ImpactReport r;
    r.failed = id;
    for (const auto& f : s.power.feeds)
        if (f.id == id) r.kind = "utility_feed";
    for (const auto& u : s.power.ups)
        if (u.id == id) r.kind = "ups";
    for (const auto& t : s.power.transformers)
        if (t.id == id) r.kind = "transformer";
    for (const auto& l : s.plant.loops)
        if (l.id == id) r.kind = "water_loop";
    for (const auto& p : s.power.pdus)
        if (p.id == id) r.kind = "pdu";
    for (const auto& h : s.halls) {
        for (const auto& u : h.cooling_units)
            if (u.id == id) r.kind = "cooling_unit";
        for (const auto& u : h.cdus)
            if (u.id == id) r.kind = "cdu";
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks) {
                if (rack.id == id) r.kind = "rack";
                for (const auto& p : rack.pdus)
                    if (p.id == id) r.kind = "rack_pdu";
                for (const auto& n : rack.nodes)
                    if (n.id == id) r.kind = "node";
            }
    }
    if (r.kind.empty() && !gpuNode(s, c, id).empty()) r.kind = "gpu";  // a GPU is a vertex of the fabric, not a switch
    if (r.kind.empty() && s.network.topology != "none") {
        const net::ScenarioFabric f = net::buildScenarioFabric(s, c);
        if (f.topology.find(id) >= 0) r.kind = "switch";
        else if (f.topology.cableByName(id) >= 0) r.kind = "link";
    }
    if (r.kind.empty())
        throw SimError("nothing that can fail has the id '" + id +
                       "' (power gear, cooling units, water loops, CDUs, racks, nodes, GPUs, switches, links)");
    if (r.kind == "gpu") {
        // One GPU fails: it and its links are gone, its node runs on with the others, and a job on it loses a rank.
        computeLost(s, c, {}, id, r);
        r.gpus_without_fabric_link.push_back(id);
        r.notes.push_back("node " + gpuNode(s, c, id) + " runs on with its other GPUs; a job on it stops or restarts without this rank");
        return r;
    }
    if (r.kind == "rack") {
        // A rack failing (its PDUs tripped) loses its nodes.
        for (const auto& h : s.halls)
            for (const auto& row : h.rows)
                for (const auto& rack : row.racks)
                    if (rack.id == id) {
                        r.racks_unpowered.push_back(rack.id);
                        std::vector<std::string> ids;
                        for (const auto& n : rack.nodes) ids.push_back(n.id);
                        computeLost(s, c, ids, "", r);
                        for (const auto& n : rack.nodes) {
                            r.nodes_unpowered.push_back(n.id);
                            ImpactReport sub = impactOf(s, c, n.id);
                            for (const auto& d : sub.nodes_disconnected)
                                if (std::find(r.nodes_disconnected.begin(), r.nodes_disconnected.end(), d) == r.nodes_disconnected.end())
                                    r.nodes_disconnected.push_back(d);
                        }
                    }
        return r;
    }
    power(s, c, id, r);
    cooling(s, c, id, r);
    fabric(s, c, id, r);
    if (r.kind == "node") {
        r.nodes_unpowered.clear();  // a failed server is not a power loss to others, but it and its GPUs are lost
        computeLost(s, c, {id}, "", r);
    }
    return r;
}

}  // namespace ct::sim
