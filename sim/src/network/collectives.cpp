#include <clustertwin/sim/collectives.hpp>

#include "rings.hpp"

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
    if (s == "broadcast") return CollectiveOp::Broadcast;
    if (s == "reduce") return CollectiveOp::Reduce;
    throw SimError("unknown collective '" + s +
                   "' (allreduce, hierarchical-allreduce, allgather, reducescatter, alltoall, broadcast, reduce)");
}

const char* toString(CollectiveOp op) {
    switch (op) {
        case CollectiveOp::AllReduce:
            return "allreduce";
        case CollectiveOp::HierarchicalAllReduce:
            return "hierarchical-allreduce";
        case CollectiveOp::AllGather:
            return "allgather";
        case CollectiveOp::ReduceScatter:
            return "reducescatter";
        case CollectiveOp::AllToAll:
            return "alltoall";
        case CollectiveOp::Broadcast:
            return "broadcast";
        case CollectiveOp::Reduce:
            return "reduce";
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

/// The result of a run collective: times, bandwidths (bus bandwidth = algbw · factor) and, unless `busiest` is
/// false (the jobs' grouped collectives, run per step), the ten busiest links.
CollectiveResult finish(Accum& acc, CollectiveOp op, int ranks, double bytes, double factor, bool busiest = true) {
    CollectiveResult res;
    res.op = op;
    res.ranks = ranks;
    res.bytes = bytes;
    res.time_s = acc.time;
    res.steps = acc.steps;
    res.stalled_pairs = acc.stalled;
    res.algbw_Bps = acc.time > 0 ? bytes / acc.time : 0;
    res.busbw_Bps = res.algbw_Bps * factor;
    res.arc_bytes = std::move(acc.arc_bytes);
    if (!busiest) return res;
    res.busiest = linkLoads(acc.t, res.arc_bytes, acc.time, false);
    if (res.busiest.size() > 10) res.busiest.resize(10);
    return res;
}

}  // namespace

std::vector<BusyLink> linkLoads(const Topology& t, const std::vector<double>& arc_bytes, double time_s, bool with_idle) {
    std::vector<BusyLink> out;
    for (int a = 0; a < t.arcCount(); ++a) {
        const double b = a < static_cast<int>(arc_bytes.size()) ? arc_bytes[a] : 0.0;
        if (!with_idle && !(b > 0)) continue;
        const Arc& x = t.arc(a);
        out.push_back({t.node(x.from).id + "->" + t.node(x.to).id, b, time_s > 0 ? b / (x.capacity_Bps * time_s) : 0.0, t.cableId(x.cable),
                       x.capacity_Bps, x.latency_s, !t.arcUp(a)});
    }
    std::stable_sort(out.begin(), out.end(), [](const BusyLink& a, const BusyLink& b) {
        if (a.utilization != b.utilization) return a.utilization > b.utilization;
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        return a.id < b.id;
    });
    return out;
}

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
            acc.step(ringStepOf(ranks, bytes / n), 2 * (n - 1));
            factor = 2.0 * (n - 1) / n;
            break;
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
            acc.step(ringStepOf(ranks, bytes / n), n - 1);
            factor = static_cast<double>(n - 1) / n;
            break;
        case CollectiveOp::Broadcast:
            // A pipelined chain from the first rank along the ring: every hop carries the whole buffer at once.
            acc.step(chainOf(ranks, bytes), 1);
            break;
        case CollectiveOp::Reduce:
            // Pipelined round the ring to the first rank from its successor, each hop carrying the whole (partly
            // reduced) buffer at once: the broadcast's chain, ending at the root instead of starting there.
            acc.step(chainTo(ranks, bytes), 1);
            break;
        case CollectiveOp::AllToAll: {
            if (n > 4096) throw SimError("collective: all-to-all is limited to 4096 ranks (n² flows)");
            // Pairwise exchange: in step k every rank sends S/n to rank i + k.
            for (int k = 1; k < n; ++k) {
                std::vector<std::tuple<int, int, double>> x;
                x.reserve(static_cast<std::size_t>(n));
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
                auto x = ringStepOf(rs, bytes / static_cast<double>(g));
                intra.insert(intra.end(), x.begin(), x.end());
            }
            acc.step(intra, static_cast<int>(g) - 1);
            // 2) all-reduce of each S/g shard across nodes, local rank j with local rank j (one ring per rail);
            std::vector<std::tuple<int, int, double>> inter;
            for (std::size_t j = 0; j < g && N > 1; ++j) {
                std::vector<int> ring;
                ring.reserve(by_node.size());
                for (const auto& [node, rs] : by_node) ring.push_back(rs[j]);
                auto x = ringStepOf(ring, bytes / static_cast<double>(g) / N);
                inter.insert(inter.end(), x.begin(), x.end());
            }
            acc.step(inter, 2 * (N - 1));
            // 3) all-gather inside every node.
            acc.step(intra, static_cast<int>(g) - 1);
            factor = 2.0 * (n - 1) / n;
            break;
        }
    }
    return finish(acc, op, n, bytes, factor);
}

int defaultChannels(const std::vector<int>& node_of_rank) {
    std::map<int, int> per_node;
    int most = 1;
    for (std::size_t i = 0; i < node_of_rank.size(); ++i) {
        const int node = node_of_rank[i];
        if (per_node.count(node) && node_of_rank[i - 1] != node) return 1;  // the node comes back: not rails
        most = std::max(most, ++per_node[node]);
    }
    return std::min(most, kNcclMaxChannels);
}

CollectiveResult runChannelCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks,
                                      const std::vector<int>& node_of_rank, double bytes, int channels) {
    if (channels < 1) throw SimError("collective: channels must be >= 1");
    const bool ring = op == CollectiveOp::AllReduce || op == CollectiveOp::AllGather || op == CollectiveOp::ReduceScatter;
    if (!ring || channels == 1) return runCollective(t, r, op, ranks, bytes, node_of_rank);
    if (ranks.empty()) throw SimError("collective: ranks must not be empty");
    if (!(bytes > 0)) throw SimError("collective: bytes must be > 0");
    if (node_of_rank.size() != ranks.size()) throw SimError("collective: channels need each rank's node");
    for (int h : ranks)
        if (h < 0 || h >= t.nodeCount()) throw SimError("collective: rank on an unknown node");
    const auto seg = nodeSegments(ranks, node_of_rank);
    const int n = static_cast<int>(ranks.size());
    Accum acc{t, r, std::vector<double>(static_cast<std::size_t>(t.arcCount()), 0.0)};
    const auto x = channelStep(seg, channels, bytes / n / channels);
    const int times = op == CollectiveOp::AllReduce ? 2 * (n - 1) : n - 1;
    acc.step(x, times);
    return finish(acc, op, n, bytes, op == CollectiveOp::AllReduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n);
}

CollectiveResult runGroupedCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<std::vector<int>>& groups,
                                      double bytes) {
    if (groups.empty() || groups.front().empty()) throw SimError("collective: no groups");
    if (!(bytes > 0)) throw SimError("collective: bytes must be > 0");
    const std::size_t n = groups.front().size();
    for (const auto& g : groups)
        if (g.size() != n) throw SimError("collective: grouped collectives need groups of one size");
    Accum acc{t, r, std::vector<double>(static_cast<std::size_t>(t.arcCount()), 0.0)};
    const int N = static_cast<int>(n);
    double factor = 1;
    auto ring = [&](int times) {
        std::vector<std::tuple<int, int, double>> x;
        for (const auto& g : groups) {
            auto s = ringStepOf(g, bytes / static_cast<double>(n));
            x.insert(x.end(), s.begin(), s.end());
        }
        acc.step(x, times);
    };
    switch (op) {
        case CollectiveOp::AllReduce:
        case CollectiveOp::HierarchicalAllReduce:
            ring(2 * (N - 1));
            factor = 2.0 * (N - 1) / N;
            break;
        case CollectiveOp::AllGather:
        case CollectiveOp::ReduceScatter:
            ring(N - 1);
            factor = static_cast<double>(N - 1) / N;
            break;
        case CollectiveOp::Broadcast:
        case CollectiveOp::Reduce: {
            std::vector<std::tuple<int, int, double>> x;
            for (const auto& g : groups) {
                auto s = op == CollectiveOp::Broadcast ? chainOf(g, bytes) : chainTo(g, bytes);
                x.insert(x.end(), s.begin(), s.end());
            }
            acc.step(x, 1);
            break;
        }
        case CollectiveOp::AllToAll:
            if (N > 4096) throw SimError("collective: all-to-all is limited to 4096 ranks (n² flows)");
            for (int k = 1; k < N; ++k) {
                std::vector<std::tuple<int, int, double>> x;
                for (const auto& g : groups)
                    for (int i = 0; i < N; ++i) x.emplace_back(g[i], g[(i + k) % N], bytes / N);
                acc.step(x, 1);
            }
            factor = static_cast<double>(N - 1) / N;
            break;
    }
    return finish(acc, op, static_cast<int>(n * groups.size()), bytes, factor, false);
}

CollectiveResult runGroupedAllReduce(const Topology& t, Router& r, const std::vector<std::vector<int>>& groups, double bytes) {
    return runGroupedCollective(t, r, CollectiveOp::AllReduce, groups, bytes);
}

CollectiveResult runTransfers(const Topology& t, Router& r, const std::vector<std::tuple<int, int, double>>& xfers) {
    Accum acc{t, r, std::vector<double>(static_cast<std::size_t>(t.arcCount()), 0.0)};
    acc.step(xfers, 1);
    CollectiveResult res;
    res.ranks = static_cast<int>(xfers.size());
    res.time_s = acc.time;
    res.steps = acc.steps;
    res.stalled_pairs = acc.stalled;
    res.arc_bytes = std::move(acc.arc_bytes);
    return res;
}

}  // namespace ct::sim::net
