// The fabric of a scenario: generated from its network parameters over its nodes in cabling order, or built
// link by link from an explicit description; link overrides applied. Also the cables for the 3D view.
#include <clustertwin/model/fabric.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <map>

namespace ct::sim::net {

namespace {

Routing routingOf(const model::Network& n, const model::Catalog& c) {
    if (!n.routing.empty()) return routingFromString(n.routing);
    const model::SwitchModel* sw = n.switch_model.empty() ? nullptr : c.switchModel(n.switch_model);
    return sw && sw->kind == "ethernet" ? Routing::Ecmp : Routing::DModK;
}

/// Whether every switch reduces in the network (SHARP): the network's switch model, and each explicit switch's own
/// where it names one.
bool inNetworkReduction(const model::Network& n, const model::Catalog& c) {
    auto reduces = [&](const std::string& id) {
        const model::SwitchModel* sw = id.empty() ? nullptr : c.switchModel(id);
        return sw && sw->in_network_reduction;
    };
    if (!reduces(n.switch_model)) return false;
    for (const auto& sw : n.switches)
        if (!sw.model.empty() && !reduces(sw.model)) return false;
    return true;
}

LinkKind linkKindOf(const model::Network& n, const model::Catalog& c) {
    const model::SwitchModel* sw = n.switch_model.empty() ? nullptr : c.switchModel(n.switch_model);
    return sw && sw->kind == "ethernet" ? LinkKind::Ethernet : LinkKind::InfiniBand;
}

/// The explicit fabric's switches and cables onto a topology that already has every GPU (and NVSwitch).
void buildExplicit(Topology& t, const model::Network& n, const model::Catalog& c) {
    const LinkKind kind = linkKindOf(n, c);
    for (const auto& s : n.switches) t.addNode(s.id, NodeKind::Switch, s.level, s.rack);
    auto end = [&](const std::string& id, std::size_t i, const char* which) {
        const int v = t.find(id);
        if (v < 0) throw SimError("network: /network/links/" + std::to_string(i) + "/" + which + ": no switch or GPU port '" + id + "'");
        return v;
    };
    // A GPU's fabric address: its switch's place among the switches hosts are cabled to, times the most host
    // ports any switch has, plus its port there (the order its cable is listed in).
    std::map<int, int> host_switch, ports_used, switch_ordinal;
    int max_ports = 1;
    for (std::size_t i = 0; i < n.links.size(); ++i) {
        const model::NetworkLink& l = n.links[i];
        const int a = end(l.a, i, "a"), b = end(l.b, i, "b");
        const double cap = l.speed_gbps.value_or(n.link_speed_gbps) * 1e9 / 8;
        const double lat = l.latency_s.value_or(n.link_latency_s);
        for (int k = 0; k < std::max(1, l.count); ++k) t.addLink(a, b, cap, lat, kind);
        for (auto [h, s] : {std::pair{a, b}, std::pair{b, a}})
            if (t.node(h).kind == NodeKind::Host && t.node(s).kind == NodeKind::Switch) {
                host_switch[h] = s;
                switch_ordinal.emplace(s, static_cast<int>(switch_ordinal.size()));
                max_ports = std::max(max_ports, ++ports_used[s]);
            }
    }
    std::map<int, int> next_port;
    for (std::size_t i = 0; i < n.links.size(); ++i)
        for (const std::string* e : {&n.links[i].a, &n.links[i].b}) {
            const int h = t.find(*e);
            auto it = host_switch.find(h);
            if (it == host_switch.end() || t.node(h).address >= 0) continue;
            t.setAddress(h, switch_ordinal[it->second] * max_ports + next_port[it->second]++);
        }
    // Up/down routing when the fabric is layered as a fat tree: hosts on level-1 switches only, switches
    // cabled only to the level above or below.
    bool layered = !host_switch.empty();
    for (int a = 0; a < t.arcCount() && layered; a += 2) {
        const Arc& x = t.arc(a);
        const NetNode &p = t.node(x.from), &q = t.node(x.to);
        if (p.kind == NodeKind::NvSwitch || q.kind == NodeKind::NvSwitch) continue;
        if (p.kind == NodeKind::Host || q.kind == NodeKind::Host) layered = (p.kind == NodeKind::Host ? q : p).level == 1;
        else layered = std::abs(p.level - q.level) == 1;
    }
    t.setLayered(layered);
}

void applyOverrides(Topology& t, const model::Network& n) {
    for (std::size_t i = 0; i < n.link_overrides.size(); ++i) {
        const model::LinkOverride& o = n.link_overrides[i];
        std::vector<int> cables = t.cablesByName(o.link);
        if (cables.empty()) {  // either way round
            const auto sep = o.link.find("<->");
            if (sep != std::string::npos) {
                std::string second = o.link.substr(sep + 3), suffix;
                if (const auto hash = second.rfind('#'); hash != std::string::npos) {
                    suffix = second.substr(hash);
                    second.resize(hash);
                }
                cables = t.cablesByName(second + "<->" + o.link.substr(0, sep) + suffix);
            }
        }
        if (cables.empty())
            throw SimError("network: /network/link_overrides/" + std::to_string(i) + "/link: no link '" + o.link +
                           "' in the fabric (links are named a<->b, e.g. leaf0<->spine3)");
        for (int cable : cables) {
            if (o.speed_gbps) t.setCableCapacity(cable, *o.speed_gbps * 1e9 / 8);
            if (o.latency_s) t.setCableLatency(cable, *o.latency_s);
        }
    }
}

}  // namespace

ScenarioFabric buildScenarioFabric(const model::Scenario& s, const model::Catalog& c) {
    const model::Network& n = s.network;
    if (n.topology == "none") throw SimError("the scenario has no network (network.topology is \"none\")");
    const bool explicit_fabric = n.topology == "explicit";
    ClusterParams p;
    p.topology = explicit_fabric ? "none" : n.topology;
    p.routing = routingOf(n, c);
    p.levels = n.levels;
    p.radix = n.radix;
    p.oversubscription = n.oversubscription;
    p.nic_Bps = n.link_speed_gbps * 1e9 / 8;
    p.latency_s = n.link_latency_s;
    int gpn = -1;
    double nvlink = 0;
    bool mixed_gpus = false;
    ScenarioFabric f;
    std::map<std::string, int> index_of;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& node : r.nodes) {
                    index_of.emplace(node.id, static_cast<int>(f.node_ids.size()));
                    f.node_ids.push_back(node.id);
                }
    for (const model::NodeRef& ref : model::nodesInCablingOrder(s)) {
        const model::Rack& r = s.halls[ref.hall].rows[ref.row].racks[ref.rack];
        const model::Node& node = r.nodes[ref.node];
        const model::ServerModel& sm = c.requireServer(node.model);
        if (gpn >= 0 && sm.gpu_count != gpn)
            throw SimError("network: servers with different GPU counts in one fabric are not supported yet");
        gpn = sm.gpu_count;
        if (const auto* g = c.gpu(sm.gpu_model)) {
            nvlink = g->nvlink_gbs * 1e9;
            if (f.cabling_order.empty()) f.gpu_architecture = g->architecture;
            mixed_gpus = mixed_gpus || f.gpu_architecture != g->architecture;
        }
        p.node_ids.push_back(node.id);
        p.node_racks.push_back(r.id);
        f.cabling_order.push_back(index_of[node.id]);
    }
    if (gpn <= 0) throw SimError("network: the scenario has no GPU servers");
    if (mixed_gpus) f.gpu_architecture.clear();
    p.nodes = static_cast<int>(p.node_ids.size());
    p.gpus_per_node = gpn;
    if (nvlink > 0) p.nvlink_Bps = nvlink;
    f.topology = buildCluster(p);
    if (explicit_fabric) buildExplicit(f.topology, n, c);
    applyOverrides(f.topology, n);
    for (const auto& id : f.node_ids) {
        std::vector<int> g;
        g.reserve(static_cast<std::size_t>(gpn));
        for (int i = 0; i < gpn; ++i) g.push_back(f.topology.find(id + "/gpu" + std::to_string(i)));
        f.gpus_of_node.push_back(std::move(g));
    }
    f.in_network_reduction = inNetworkReduction(n, c);
    return f;
}

std::vector<model::FabricLink> fabricLinks(const model::Scenario& s, const model::Catalog& c) {
    std::vector<model::FabricLink> out;
    if (s.network.topology == "none") return out;
    const ScenarioFabric f = buildScenarioFabric(s, c);
    const Topology& t = f.topology;
    auto end = [&](int n) {
        const NetNode& nn = t.node(n);
        model::FabricLinkEnd e{nn.id, nn.rack, "", nn.level};
        if (nn.kind != NodeKind::Switch) e.node = nn.id.substr(0, nn.id.rfind('/'));
        return e;
    };
    out.reserve(t.cableCount());
    for (int cable = 0; cable < t.cableCount(); ++cable) {
        const Arc& a = t.arc(2 * cable);
        out.push_back({t.cableId(cable), toString(a.kind), end(a.from), end(a.to)});
    }
    return out;
}

}  // namespace ct::sim::net
