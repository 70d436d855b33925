#include <clustertwin/model/fabric.hpp>
#include <clustertwin/sim/network.hpp>

#include <algorithm>
#include <cmath>

namespace ct::sim::net {

const char* toString(LinkKind k) {
    switch (k) {
        case LinkKind::NvLink:
            return "nvlink";
        case LinkKind::InfiniBand:
            return "infiniband";
        case LinkKind::Ethernet:
            return "ethernet";
    }
    return "?";
}

const char* toString(Routing r) { return r == Routing::DModK ? "dmodk" : "ecmp"; }

Routing routingFromString(const std::string& s) {
    if (s == "dmodk" || s.empty()) return Routing::DModK;
    if (s == "ecmp") return Routing::Ecmp;
    throw SimError("network: unknown routing '" + s + "' (dmodk, ecmp)");
}

int Topology::addNode(std::string id, NodeKind kind, int level, std::string rack) {
    const int i = static_cast<int>(nodes_.size());
    if (!by_id_.emplace(id, i).second) throw SimError("network: duplicate node id '" + id + "'");
    nodes_.push_back({std::move(id), kind, level, std::move(rack)});
    out_.emplace_back();
    node_failed_.push_back(0);
    return i;
}

int Topology::addLink(int a, int b, double cap, double lat, LinkKind kind) {
    if (a < 0 || b < 0 || a >= nodeCount() || b >= nodeCount() || a == b) throw SimError("network: bad link endpoints");
    if (!(cap > 0)) throw SimError("network: link capacity must be > 0");
    const int cable = static_cast<int>(arcs_.size() / 2);
    int ordinal = 1;
    for (int x : out_[a]) ordinal += arcs_[x].to == b;
    out_[a].push_back(static_cast<int>(arcs_.size()));
    arcs_.push_back({a, b, cap, lat, kind, cable, ordinal});
    out_[b].push_back(static_cast<int>(arcs_.size()));
    arcs_.push_back({b, a, cap, lat, kind, cable, ordinal});
    cable_failed_.push_back(0);
    return cable;
}

int Topology::find(const std::string& id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? -1 : it->second;
}

std::string Topology::cableId(int cable) const {
    const Arc& a = arcs_[2 * cable];
    std::string id = nodes_[a.from].id + "<->" + nodes_[a.to].id;
    if (a.ordinal > 1) id += "#" + std::to_string(a.ordinal);
    return id;
}

std::vector<int> Topology::cablesByName(const std::string& id) const {
    std::vector<int> out;
    const auto sep = id.find("<->");
    if (sep == std::string::npos) return out;
    std::string second = id.substr(sep + 3);
    int want = 0;  // 0 = every parallel cable
    if (const auto hash = second.rfind('#'); hash != std::string::npos) {
        const std::string k = second.substr(hash + 1);
        if (!k.empty() && k.find_first_not_of("0123456789") == std::string::npos && k.size() < 9) {
            want = std::stoi(k);
            second.resize(hash);
        }
    }
    const int a = find(id.substr(0, sep)), b = find(second);
    if (a < 0 || b < 0) return out;
    for (int arc : out_[a])
        if (arcs_[arc].to == b && (want == 0 || arcs_[arc].ordinal == want)) out.push_back(arcs_[arc].cable);
    return out;
}

int Topology::cableByName(const std::string& id) const {
    const std::vector<int> c = cablesByName(id);
    return c.empty() ? -1 : c.front();
}

void Topology::setCableCapacity(int cable, double cap) {
    if (!(cap > 0)) throw SimError("network: link capacity must be > 0");
    arcs_.at(2 * cable).capacity_Bps = arcs_.at(2 * cable + 1).capacity_Bps = cap;
    ++version_;
}

void Topology::setCableLatency(int cable, double lat) {
    if (!(lat >= 0)) throw SimError("network: link latency must be >= 0");
    arcs_.at(2 * cable).latency_s = arcs_.at(2 * cable + 1).latency_s = lat;
    ++version_;
}

void Topology::setCableFailed(int cable, bool failed) {
    cable_failed_.at(cable) = failed;
    ++version_;
}

void Topology::setNodeFailed(int node, bool failed) {
    node_failed_.at(node) = failed;
    ++version_;
}

std::vector<int> Topology::hosts() const {
    std::vector<int> h;
    for (int i = 0; i < nodeCount(); ++i)
        if (nodes_[i].kind == NodeKind::Host) h.push_back(i);
    return h;
}

void buildFatTree(Topology& t, const std::vector<int>& hosts, const FatTreeParams& p) {
    const int H = static_cast<int>(hosts.size());
    if (H == 0) return;
    t.setLayered(true);
    const model::FatTreeShape shape = model::fatTreeShape(p.radix, p.levels, p.oversubscription);
    if (!shape.error.empty()) throw SimError("network: " + shape.error);
    const std::string too_many = model::fatTreeCapacityError(shape, p.radix, p.levels, p.oversubscription, H);
    if (!too_many.empty()) throw SimError("network: " + too_many);
    const int down = shape.down, up = shape.up;
    const int leaves = (H + down - 1) / down;
    // Switches are placed with what they serve (the 3D view draws them there): a leaf in the rack of its first
    // host, a spine or aggregation switch with its first leaf, a core with its first aggregation switch.
    auto sw = [&](const std::string& name, int level, const std::string& rack) {
        return t.addNode(p.prefix + name, NodeKind::Switch, level, rack);
    };
    std::vector<int> leaf(leaves);
    for (int l = 0; l < leaves; ++l) leaf[l] = sw("leaf" + std::to_string(l), 1, t.node(hosts[l * down]).rack);
    for (int h = 0; h < H; ++h) {
        t.addLink(hosts[h], leaf[h / down], p.link_Bps, p.latency_s, LinkKind::InfiniBand);
        t.setAddress(hosts[h], h);
    }
    if (leaves == 1) return;
    if (p.levels == 2) {
        // The fewest spines that take every uplink, dividing a leaf's uplinks evenly (parallel cables).
        int spines = up;
        for (int s = 1; s <= up; ++s)
            if (up % s == 0 && static_cast<long long>(s) * p.radix >= static_cast<long long>(leaves) * up) {
                spines = s;
                break;
            }
        std::vector<int> spine(spines);
        for (int s = 0; s < spines; ++s) spine[s] = sw("spine" + std::to_string(s), 2, t.node(leaf[s % leaves]).rack);
        for (int l = 0; l < leaves; ++l)
            for (int port = 0; port < up; ++port) t.addLink(leaf[l], spine[port % spines], p.link_Bps, p.latency_s, LinkKind::InfiniBand);
        return;
    }
    // Three levels: pods of radix/2 edge switches and `up` aggregation switches; aggregation j of every pod
    // connects to the radix/2 core switches of group j.
    const int edges_per_pod = p.radix / 2, agg_up = p.radix / 2;
    const int pods = (leaves + edges_per_pod - 1) / edges_per_pod;
    std::vector<std::vector<int>> core(up, std::vector<int>(agg_up));
    for (int g = 0; g < up; ++g)
        for (int c = 0; c < agg_up; ++c) core[g][c] = sw("core" + std::to_string(g) + "-" + std::to_string(c), 3, t.node(leaf[0]).rack);
    for (int pod = 0; pod < pods; ++pod) {
        std::vector<int> agg(up);
        for (int a = 0; a < up; ++a) {
            agg[a] = sw("pod" + std::to_string(pod) + "-agg" + std::to_string(a), 2, t.node(leaf[pod * edges_per_pod]).rack);
            for (int c = 0; c < agg_up; ++c) t.addLink(agg[a], core[a][c], p.link_Bps, p.latency_s, LinkKind::InfiniBand);
        }
        for (int e = pod * edges_per_pod; e < std::min(leaves, (pod + 1) * edges_per_pod); ++e)
            for (int a = 0; a < up; ++a) t.addLink(leaf[e], agg[a], p.link_Bps, p.latency_s, LinkKind::InfiniBand);
    }
}

Topology smallFatTree(int hosts_per_leaf, int leaves, int spines, double bw, double lat) {
    Topology t;
    t.setLayered(true);
    std::vector<int> leaf(leaves);
    for (int h = 0; h < hosts_per_leaf * leaves; ++h) t.setAddress(t.addNode("h" + std::to_string(h), NodeKind::Host), h);
    for (int l = 0; l < leaves; ++l) leaf[l] = t.addNode("leaf" + std::to_string(l), NodeKind::Switch, 1);
    for (int h = 0; h < hosts_per_leaf * leaves; ++h) t.addLink(h, leaf[h / hosts_per_leaf], bw, lat, LinkKind::InfiniBand);
    for (int s = 0; s < spines; ++s) {
        const int sp = t.addNode("spine" + std::to_string(s), NodeKind::Switch, 2);
        for (int l = 0; l < leaves; ++l) t.addLink(leaf[l], sp, bw, lat, LinkKind::InfiniBand);
    }
    return t;
}

Topology buildCluster(const ClusterParams& p) {
    if (p.nodes < 1) throw SimError("network: nodes must be >= 1");
    if (p.gpus_per_node < 1) throw SimError("network: gpus_per_node must be >= 1");
    if (!(p.nic_Bps > 0) || !(p.nvlink_Bps > 0)) throw SimError("network: link speeds must be > 0");
    Topology t;
    t.setRouting(p.routing);
    std::vector<std::vector<int>> gpus(p.nodes);
    for (int n = 0; n < p.nodes; ++n) {
        const std::string name = n < static_cast<int>(p.node_ids.size()) ? p.node_ids[n] : "n" + std::to_string(n);
        const std::string rack = n < static_cast<int>(p.node_racks.size()) ? p.node_racks[n] : std::string();
        const int nvs = p.gpus_per_node > 1 ? t.addNode(name + "/nvswitch", NodeKind::NvSwitch, -1, rack) : -1;
        for (int g = 0; g < p.gpus_per_node; ++g) {
            gpus[n].push_back(t.addNode(name + "/gpu" + std::to_string(g), NodeKind::Host, 0, rack));
            if (nvs >= 0) t.addLink(gpus[n][g], nvs, p.nvlink_Bps, p.nvlink_latency_s, LinkKind::NvLink);
        }
    }
    FatTreeParams f;
    f.radix = p.radix;
    f.levels = p.levels;
    f.oversubscription = p.oversubscription;
    f.link_Bps = p.nic_Bps;
    f.latency_s = p.latency_s;
    if (p.topology == "rail-optimized" || p.topology == "nvl72") {
        // Rail-major host order: GPU i of consecutive nodes share leaf switches (leaf i, "rail i"); the
        // spines (and cores) are common to all rails, so traffic between rails crosses the spine.
        std::vector<int> all;
        for (int r = 0; r < p.gpus_per_node; ++r)
            for (int n = 0; n < p.nodes; ++n) all.push_back(gpus[n][r]);
        buildFatTree(t, all, f);
    } else if (p.topology == "fat-tree") {
        std::vector<int> all;
        for (const auto& g : gpus) all.insert(all.end(), g.begin(), g.end());
        buildFatTree(t, all, f);
    } else if (p.topology != "none") {
        throw SimError("network: unknown topology '" + p.topology + "'");
    }
    return t;
}

}  // namespace ct::sim::net
