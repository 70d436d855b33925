#include <clustertwin/sim/collectives.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace ct::sim::net {

CollectiveOp collectiveFromString(const std::string& s) {
    if (s == "allreduce" || s == "all-reduce") return CollectiveOp::AllReduce;
    if (s == "hierarchical-allreduce" || s == "hierarchical") return CollectiveOp::HierarchicalAllReduce;
    if (s == "allgather" || s == "all-gather") return CollectiveOp::AllGather;
    if (s == "reducescatter" || s == "reduce-scatter") return CollectiveOp::ReduceScatter;
    if (s == "alltoall" || s == "all-to-all") return CollectiveOp::AllToAll;
    throw SimError("unknown collective '" + s + "' (allreduce, hierarchical-allreduce, allgather, reducescatter, alltoall)");
}

const char* toString(CollectiveOp op) {
    switch (op) {
    case CollectiveOp::AllReduce: return "allreduce";
    case CollectiveOp::HierarchicalAllReduce: return "hierarchical-allreduce";
    case CollectiveOp::AllGather: return "allgather";
    case CollectiveOp::ReduceScatter: return "reducescatter";
    case CollectiveOp::AllToAll: return "alltoall";
    }
    return "?";
}

namespace {

struct Accum {
    const Topology& t;
    Router& r;
    std::vector<double> arc_bytes;
    double time = 0;
    int steps = 0;
    int stalled = 0;

    /// One synchronous step of transfers (src, dst, bytes), repeated `times` times (identical steps give
    /// identical rates, so one is simulated).
    void step(const std::vector<std::tuple<int, int, double>>& xfers, int times) {
        if (times <= 0 || xfers.empty()) return;
        std::vector<Flow> flows;
        flows.reserve(xfers.size());
        for (const auto& [s, d, b] : xfers) flows.push_back({s, d, b, 0.0, {}});
        const FlowSimResult res = simulateFlows(t, r, flows);
        stalled = std::max(stalled, res.stalled);
        for (std::size_t a = 0; a < arc_bytes.size(); ++a) arc_bytes[a] += res.arc_bytes[a] * times;
        time += res.end_s * times;
        steps += times;
    }
};

std::vector<std::tuple<int, int, double>> ringStep(const std::vector<int>& ring, double chunk) {
    std::vector<std::tuple<int, int, double>> x;
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n && n > 1; ++i) x.emplace_back(ring[i], ring[(i + 1) % n], chunk);
    return x;
}

} // namespace

CollectiveResult runCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks, double bytes,
                               const std::vector<int>& node_of_rank) {
    if (ranks.empty()) throw SimError("collective: ranks must not be empty");
    if (!(bytes > 0)) throw SimError("collective: bytes must be > 0");
    for (int h : ranks)
        if (h < 0 || h >= t.nodeCount()) throw SimError("collective: rank on an unknown node");
    const int n = static_cast<int>(ranks.size());
    Accum acc{t, r, std::vector<double>(static_cast<std::size_t>(t.arcCount()), 0.0)};
    double factor = 1;
    switch (op) {
    case CollectiveOp::AllReduce:
        // Ring: reduce-scatter then all-gather, 2(n−1) steps of S/n.
        acc.step(ringStep(ranks, bytes / n), 2 * (n - 1));
        factor = 2.0 * (n - 1) / n;
        break;
    case CollectiveOp::AllGather:
    case CollectiveOp::ReduceScatter:
        acc.step(ringStep(ranks, bytes / n), n - 1);
        factor = static_cast<double>(n - 1) / n;
        break;
    case CollectiveOp::AllToAll: {
        if (n > 4096) throw SimError("collective: all-to-all is limited to 4096 ranks (n² flows)");
        // Pairwise exchange: in step k every rank sends S/n to rank i + k.
        for (int k = 1; k < n; ++k) {
            std::vector<std::tuple<int, int, double>> x;
            for (int i = 0; i < n; ++i) x.emplace_back(ranks[i], ranks[(i + k) % n], bytes / n);
            acc.step(x, 1);
        }
        factor = static_cast<double>(n - 1) / n;
        break;
    }
    case CollectiveOp::HierarchicalAllReduce: {
        if (node_of_rank.size() != ranks.size()) throw SimError("collective: hierarchical all-reduce needs each rank's node");
        std::map<int, std::vector<int>> by_node;
        for (int i = 0; i < n; ++i) by_node[node_of_rank[i]].push_back(ranks[i]);
        const std::size_t g = by_node.begin()->second.size();
        for (const auto& [node, rs] : by_node)
            if (rs.size() != g) throw SimError("collective: hierarchical all-reduce needs the same number of ranks on every node");
        const int N = static_cast<int>(by_node.size());
        // 1) reduce-scatter inside every node (NVLink), g−1 steps of S/g, all nodes at once;
        std::vector<std::tuple<int, int, double>> intra;
        for (const auto& [node, rs] : by_node) {
            auto x = ringStep(rs, bytes / static_cast<double>(g));
            intra.insert(intra.end(), x.begin(), x.end());
        }
        acc.step(intra, static_cast<int>(g) - 1);
        // 2) all-reduce of each S/g shard across nodes, local rank j with local rank j (one ring per rail);
        std::vector<std::tuple<int, int, double>> inter;
        for (std::size_t j = 0; j < g && N > 1; ++j) {
            std::vector<int> ring;
            for (const auto& [node, rs] : by_node) ring.push_back(rs[j]);
            auto x = ringStep(ring, bytes / static_cast<double>(g) / N);
            inter.insert(inter.end(), x.begin(), x.end());
        }
        acc.step(inter, 2 * (N - 1));
        // 3) all-gather inside every node.
        acc.step(intra, static_cast<int>(g) - 1);
        factor = 2.0 * (n - 1) / n;
        break;
    }
    }
    CollectiveResult res;
    res.op = op;
    res.ranks = n;
    res.bytes = bytes;
    res.time_s = acc.time;
    res.steps = acc.steps;
    res.stalled_pairs = acc.stalled;
    res.algbw_Bps = acc.time > 0 ? bytes / acc.time : 0;
    res.busbw_Bps = res.algbw_Bps * factor;
    res.arc_bytes = std::move(acc.arc_bytes);
    std::vector<int> order;
    for (int a = 0; a < t.arcCount(); ++a)
        if (res.arc_bytes[a] > 0) order.push_back(a);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return res.arc_bytes[a] > res.arc_bytes[b] || (res.arc_bytes[a] == res.arc_bytes[b] && a < b); });
    for (std::size_t i = 0; i < order.size() && i < 10; ++i) {
        const Arc& a = t.arc(order[i]);
        res.busiest.push_back({t.node(a.from).id + "->" + t.node(a.to).id, res.arc_bytes[order[i]],
                               acc.time > 0 ? res.arc_bytes[order[i]] / (a.capacity_Bps * acc.time) : 0});
    }
    return res;
}

CollectiveResult runGroupedAllReduce(const Topology& t, Router& r, const std::vector<std::vector<int>>& groups, double bytes) {
    if (groups.empty() || groups.front().empty()) throw SimError("collective: no groups");
    if (!(bytes > 0)) throw SimError("collective: bytes must be > 0");
    const std::size_t n = groups.front().size();
    for (const auto& g : groups)
        if (g.size() != n) throw SimError("collective: grouped all-reduce needs groups of one size");
    Accum acc{t, r, std::vector<double>(static_cast<std::size_t>(t.arcCount()), 0.0)};
    std::vector<std::tuple<int, int, double>> x;
    for (const auto& g : groups) {
        auto s = ringStep(g, bytes / static_cast<double>(n));
        x.insert(x.end(), s.begin(), s.end());
    }
    acc.step(x, 2 * (static_cast<int>(n) - 1));
    CollectiveResult res;
    res.ranks = static_cast<int>(n * groups.size());
    res.bytes = bytes;
    res.time_s = acc.time;
    res.steps = acc.steps;
    res.stalled_pairs = acc.stalled;
    res.algbw_Bps = acc.time > 0 ? bytes / acc.time : 0;
    res.busbw_Bps = res.algbw_Bps * 2.0 * (n - 1) / n;
    res.arc_bytes = std::move(acc.arc_bytes);
    return res;
}

ScenarioFabric buildScenarioFabric(const model::Scenario& s, const model::Catalog& c) {
    const model::Network& n = s.network;
    if (n.topology == "none") throw SimError("the scenario has no network (network.topology is \"none\")");
    ClusterParams p;
    p.topology = n.topology;
    p.levels = n.levels;
    p.radix = n.radix;
    p.oversubscription = n.oversubscription;
    p.nic_Bps = n.link_speed_gbps * 1e9 / 8;
    p.latency_s = n.link_latency_s;
    int gpn = -1;
    double nvlink = 0;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& node : r.nodes) {
                    const model::ServerModel& sm = c.requireServer(node.model);
                    if (gpn >= 0 && sm.gpu_count != gpn)
                        throw SimError("network: servers with different GPU counts in one fabric are not supported yet");
                    gpn = sm.gpu_count;
                    if (const auto* g = c.gpu(sm.gpu_model)) nvlink = g->nvlink_gbs * 1e9;
                    p.node_ids.push_back(node.id);
                    p.node_racks.push_back(r.id);
                }
    if (gpn <= 0) throw SimError("network: the scenario has no GPU servers");
    p.nodes = static_cast<int>(p.node_ids.size());
    p.gpus_per_node = gpn;
    if (nvlink > 0) p.nvlink_Bps = nvlink;
    ScenarioFabric f{buildCluster(p), {}, p.node_ids};
    for (const auto& id : p.node_ids) {
        std::vector<int> g;
        for (int i = 0; i < gpn; ++i) g.push_back(f.topology.find(id + "/gpu" + std::to_string(i)));
        f.gpus_of_node.push_back(std::move(g));
    }
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

} // namespace ct::sim::net
