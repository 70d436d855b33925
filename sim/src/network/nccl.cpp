// NCCL's algorithms and protocols over the fabric (nccl.hpp). Bandwidth: every transfer of a step drains at its
// max-min rate from the step's start (the latency is accounted for along the chunk's path instead, as NCCL's
// pipeline pays it once per hop of a chunk, not once per step), its bytes divided by the protocol's efficiency.
#include <clustertwin/sim/nccl.hpp>

#include "nccl_impl.hpp"
#include "rings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace ct::sim::net {

const char* toString(Algo a) {
    static const char* const kNames[] = {"ring", "tree", "nvls", "nvlstree", "collnet"};
    return kNames[static_cast<int>(a)];
}

const char* toString(Proto p) {
    switch (p) {
        case Proto::LL:
            return "LL";
        case Proto::LL128:
            return "LL128";
        case Proto::Simple:
            return "Simple";
    }
    return "?";
}

Algo algoFromString(const std::string& s) {
    std::string l = s;
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (Algo a : {Algo::Ring, Algo::Tree, Algo::Nvls, Algo::NvlsTree, Algo::CollNet})
        if (l == toString(a)) return a;
    throw SimError("unknown algorithm '" + s + "' (ring, tree, nvls, nvlstree, collnet)");
}

Proto protoFromString(const std::string& s) {
    std::string l = s;
    for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == "ll") return Proto::LL;
    if (l == "ll128") return Proto::LL128;
    if (l == "simple") return Proto::Simple;
    throw SimError("unknown protocol '" + s + "' (ll, ll128, simple)");
}

ProtocolCost protocolCost(Algo a, Proto p, CollectiveOp op, int nodes, int ranks_per_node) {
    // NCCL 2.19–2.21, src/graph/tuning.cc: baseLat and hwLat (µs; NVLink and NET rows) and the bus-bandwidth
    // factors of ncclTopoTuneModel. LL moves 8-byte lines of 4 data and 4 flag bytes and polls them; LL128 128-byte
    // lines of 120 data bytes; Simple whole buffers behind a fence.
    static constexpr double kBase[2][3] = {{6.6, 14.0, 8.4}, {6.8, 14.0, 8.4}};   // ring, tree × LL, LL128, Simple
    static constexpr double kNvlink[2][3] = {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}};  // per hop
    static constexpr double kNet[2][3] = {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}};
    const int ai = a == Algo::Ring ? 0 : 1, pi = static_cast<int>(p);
    ProtocolCost c;
    c.base_s = kBase[ai][pi] * 1e-6;
    c.nvlink_hop_s = kNvlink[ai][pi] * 1e-6;
    // NCCL: over several nodes an LL hop inside a node costs 1.8 times as much (its flags cross PCIe to the NIC).
    if (nodes > 1 && p == Proto::LL) c.nvlink_hop_s *= 1.8;
    c.net_hop_s = kNet[ai][pi] * 1e-6;
    if (a == Algo::Ring) {
        if (p == Proto::LL) c.efficiency = (nodes > 1 || op == CollectiveOp::AllReduce) ? 0.25 : 1.0 / 3.0;
        if (p == Proto::LL128) c.efficiency = ranks_per_node >= 2 ? 0.92 : 0.7;
    } else {
        c.efficiency = 0.9;
        if (p == Proto::LL) c.efficiency *= 1.0 / 3.8;
        if (p == Proto::LL128) c.efficiency *= nodes > 1 ? 0.915 : 7.0 / 9.0;
    }
    return c;
}

ChannelCaps channelCaps(const std::string& arch, int nodes) {
    const int a = arch == "ampere" ? 0 : arch == "hopper" ? 1 : arch == "blackwell" ? 2 : -1;
    if (a < 0 || nodes < 1) return {};
    const int i = nodes <= 2 ? nodes - 1 : 2;
    static constexpr double kRingLL128[3][3] = {{20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 2 * 36.7, 2 * 36.7}};
    static constexpr double kTree[3][3] = {{24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {2 * 38.7, 2 * 41.4, 2 * 36.0}};
    static constexpr double kTreeLL128[3][3] = {{20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {2 * 36.7, 2 * 36.7, 2 * 29.0}};
    static constexpr double kLLOneNode[3] = {87.7, 141.0, 2 * 141.0};  // by GPU
    static constexpr double kLLIntelHosts[3] = {39.0, 39.0, 20.4};     // across nodes: by CPU
    const double GB = 1e9;
    return {kRingLL128[a][i] * GB, kTree[a][i] * GB, kTreeLL128[a][i] * GB, (nodes == 1 ? kLLOneNode[a] : kLLIntelHosts[i]) * GB};
}

namespace nccl_detail {

namespace {
/// The ceiling NCCL's tuner puts on a candidate's bus bandwidth over `channels` channels (0: none).
double busCap(const ChannelCaps& c, Algo a, Proto p, int channels) {
    if (p == Proto::LL) return c.ll;
    if (a == Algo::Ring) return p == Proto::LL128 ? channels * c.ring_ll128 : 0.0;
    return p == Proto::LL128 ? channels * c.tree_ll128 : channels * c.tree;
}

}  // namespace

namespace {
/// Equal transfers (the same two hosts and bytes) counted: they take the same route, and one flow weighted by
/// their count drains under max-min sharing exactly as they do apart.
std::vector<std::pair<std::tuple<int, int, double>, int>> merged(Xfers x) {
    std::sort(x.begin(), x.end());
    std::vector<std::pair<std::tuple<int, int, double>, int>> out;
    out.reserve(x.size());
    for (const auto& t : x) {
        if (!out.empty() && out.back().first == t) ++out.back().second;
        else out.emplace_back(t, 1);
    }
    return out;
}
}  // namespace

double drain(const Topology& t, Router& r, const Xfers& all, double efficiency, int times, std::vector<double>& arc_bytes, int& stalled,
             double nvlink_share) {
    if (all.empty() || times <= 0) return 0;
    // Channels repeat the same transfers (a ring inside a server is the same ring rotated, a tree's chain is each
    // tree's): one flow of their weight drains exactly as they do apart, and a max-min pass costs by the flows.
    std::vector<Flow> flows;
    const auto x = merged(all);
    flows.reserve(x.size());
    for (const auto& [transfer, count] : x) {
        const auto& [s, d, b] = transfer;
        Flow f{s, d, count * b / efficiency, 0.0, {}};
        f.weight = count;
        if (s != d) f.path = r.route(s, d);
        // NCCL's kernels move less than an NVLink's line rate (protocol and copy overheads); across the network
        // the NIC binds first.
        if (nvlink_share < 1 && nvlinkOnly(t, f.path)) f.bytes /= nvlink_share;
        f.start_s = f.path.empty() ? 0.0 : -r.latency(f.path);
        flows.push_back(std::move(f));
    }
    const FlowSimResult res = simulateFlows(t, r, flows);
    stalled = std::max(stalled, res.stalled);
    for (std::size_t a = 0; a < arc_bytes.size(); ++a) arc_bytes[a] += res.arc_bytes[a] * times;
    return std::max(0.0, res.end_s) * times;
}

namespace {
/// The fabric's own latency along a hop's legs (cables and switches).
double pathLatency(Router& r, const std::vector<std::pair<int, int>>& legs) {
    double phys = 0;
    for (const auto& [s, d] : legs)
        if (s != d) phys += r.latency(r.route(s, d));
    return phys;
}

/// The latency of one hop: the protocol's over NVLink or the network, or the fabric's own path latency where
/// that is longer (a long cable, many switches).
double hopLatency(Router& r, const std::vector<std::pair<int, int>>& legs, bool net, const ProtocolCost& c) {
    return std::max(net ? c.net_hop_s : c.nvlink_hop_s, pathLatency(r, legs));
}

/// The longest run of `len` consecutive hops around a ring of hop latencies (a chunk's path).
double worstPath(const std::vector<double>& hop, std::size_t len) {
    const std::size_t n = hop.size();
    if (n == 0 || len == 0) return 0;
    double sum = 0;
    for (std::size_t i = 0; i < len; ++i) sum += hop[i % n];
    double worst = sum;
    for (std::size_t p = 1; p < n; ++p) {
        sum += hop[(p + len - 1) % n] - hop[p - 1];
        worst = std::max(worst, sum);
    }
    return worst;
}

}  // namespace

double ceilingTime(const Setup& s, Algo a, Proto p, int channels) {
    const int n = static_cast<int>(s.ranks.size());
    const double cap = busCap(s.caps, a, p, channels);
    if (!(cap > 0) || n < 2) return 0;
    // On a tree the ceiling is on its bus bandwidth, of which the algorithm gets half (every byte goes up and down).
    return a == Algo::Tree ? 2 * s.bytes / cap : s.bytes * busFactor(s.op, n) / cap;
}

double busFactor(CollectiveOp op, int n) {
    if (op == CollectiveOp::AllReduce) return 2.0 * (n - 1) / n;
    if (op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce) return 1.0;
    return static_cast<double>(n - 1) / n;
}

namespace {
/// Rings laid over the rails (PXN), one per channel; else one ring exactly in the ranks' order, as
/// runChannelCollective runs a single channel.
bool railRings(const Setup& s) { return !s.seg.empty() && s.channels > 1; }

/// Ring hops of every channel: (legs, crosses nodes). A node's ring hop to the next node goes through the GPU of
/// the channel's rail (PXN: NVLink, then the network).
std::vector<std::vector<std::pair<std::vector<std::pair<int, int>>, bool>>> ringHops(const Setup& s) {
    std::vector<std::vector<std::pair<std::vector<std::pair<int, int>>, bool>>> out;
    if (!railRings(s)) {  // one ring exactly as given
        out.emplace_back();
        const std::size_t n = s.ranks.size();
        for (std::size_t i = 0; i < n && n > 1; ++i)
            out.back().push_back({{{s.ranks[i], s.ranks[(i + 1) % n]}}, s.node_of[i] != s.node_of[(i + 1) % n]});
        return out;
    }
    const std::size_t nodes = s.seg.size();
    for (int c = 0; c < s.channels; ++c) {
        out.emplace_back();
        for (std::size_t k = 0; k < nodes; ++k) {
            const std::vector<int>& L = s.seg[k];
            const std::size_t g = L.size(), e = static_cast<std::size_t>(c) % g;
            for (std::size_t i = 0; i + 1 < g; ++i) out.back().push_back({{{L[(e + i) % g], L[(e + i + 1) % g]}}, false});
            if (nodes == 1) {
                if (g > 1) out.back().push_back({{{L[(e + g - 1) % g], L[e]}}, false});
                continue;
            }
            const std::vector<int>& next = s.seg[(k + 1) % nodes];
            out.back().push_back({{{L[(e + g - 1) % g], L[e]}, {L[e], next[static_cast<std::size_t>(c) % next.size()]}}, true});
        }
    }
    return out;
}

/// The hops a chunk crosses: 2(n − 1) for all-reduce, n − 1 otherwise (a broadcast's chain from the root, a
/// reduce's to it).
int ringSteps(const Setup& s) {
    const int n = static_cast<int>(s.ranks.size());
    return s.op == CollectiveOp::AllReduce ? 2 * (n - 1) : n - 1;
}

}  // namespace

/// The base latency and the slowest chunk's path around its channel's ring.
double ringLatency(const Setup& s, const ProtocolCost& cost) {
    if (s.ranks.size() < 2) return 0;
    if (s.ring_phys_channels != s.channels) {
        s.ring_phys.clear();
        for (const auto& hops : ringHops(s)) {
            s.ring_phys.emplace_back();
            for (const auto& [legs, net] : hops) s.ring_phys.back().emplace_back(pathLatency(s.r, legs), net);
        }
        s.ring_phys_channels = s.channels;
    }
    double lat = 0;
    std::vector<double> l;
    for (const auto& hops : s.ring_phys) {
        l.clear();
        for (const auto& [phys, net] : hops) l.push_back(std::max(net ? cost.net_hop_s : cost.nvlink_hop_s, phys));
        lat = std::max(lat, worstPath(l, static_cast<std::size_t>(ringSteps(s))));
    }
    return cost.base_s + lat;
}

Xfers ringXfers(const Setup& s, int& repeat) {
    const int n = static_cast<int>(s.ranks.size());
    const int ch = railRings(s) ? s.channels : 1;
    repeat = ringSteps(s);
    if (s.op == CollectiveOp::Broadcast || s.op == CollectiveOp::Reduce) {
        // Pipelined along each channel's ring: a broadcast from the root, every hop but the one back into the root
        // carrying the channel's share once; a reduce (NCCL's ring reduce) from the root's successor round to the
        // root, every hop but the one out of the root.
        const Xfers all = ch == 1 ? ringStepOf(s.ranks, s.bytes) : channelStep(s.seg, ch, s.bytes / ch);
        Xfers x;
        const int root = s.ranks.front();
        for (const auto& h : all)
            if ((s.op == CollectiveOp::Broadcast ? std::get<1>(h) : std::get<0>(h)) != root) x.push_back(h);
        repeat = 1;
        return x;
    }
    return ch == 1 ? ringStepOf(s.ranks, s.bytes / n) : channelStep(s.seg, ch, s.bytes / n / ch);
}

namespace {

CollectiveResult runRing(const Setup& s, Proto p) {
    const ProtocolCost cost = protocolCost(Algo::Ring, p, s.op, s.nodes, s.per_node);
    const int n = static_cast<int>(s.ranks.size());
    const int ch = railRings(s) ? s.channels : 1;
    CollectiveResult res;
    res.arc_bytes.assign(static_cast<std::size_t>(s.t.arcCount()), 0.0);
    int repeat = 0;
    const Xfers x = ringXfers(s, repeat);
    double bw = drain(s.t, s.r, x, cost.efficiency, repeat, res.arc_bytes, res.stalled_pairs, s.nvlink_share);
    // No faster than NCCL's measured ceiling for the protocol on these channels.
    bw = std::max(bw, ceilingTime(s, Algo::Ring, p, ch));
    res.latency_s = ringLatency(s, cost);
    res.time_s = n > 1 ? bw + res.latency_s : 0.0;
    res.steps = ringSteps(s);
    res.channels = ch;
    return res;
}

}  // namespace

int treeParent(int tree, int i, int n) {
    const int j = tree == 0 ? i : n - 1 - i;
    if (j == 0) return -1;
    const int pj = (j - 1) / 2;
    return tree == 0 ? pj : n - 1 - pj;
}

int treeDepth(int tree, int n) {
    int d = 0;
    for (int i = 0; i < n; ++i) {
        int k = 0;
        for (int v = i; treeParent(tree, v, n) >= 0; v = treeParent(tree, v, n)) ++k;
        d = std::max(d, k);
    }
    return d;
}

namespace {

/// Every edge of every channel's trees, once per tree that uses it: `chain(a, b)` for the chain inside a node (a
/// nearer the GPU of the channel's rail), `net(child, parent)` for a tree edge between nodes (rail to rail).
template <class Chain, class Net>
void forTreeEdges(const Setup& s, Chain&& chain, Net&& net) {
    const int nodes = static_cast<int>(s.seg.size());
    for (int c = 0; c < s.channels; ++c) {
        auto head = [&](int k) {
            const std::vector<int>& L = s.seg[static_cast<std::size_t>(k)];
            return L[static_cast<std::size_t>(c) % L.size()];
        };
        for (int k = 0; k < nodes; ++k) {
            const std::vector<int>& L = s.seg[static_cast<std::size_t>(k)];
            const std::size_t g = L.size(), e = static_cast<std::size_t>(c) % g;
            for (int tree = 0; tree < 2; ++tree) {
                for (std::size_t i = 0; i + 1 < g; ++i) chain(L[(e + i) % g], L[(e + i + 1) % g]);
                const int parent = treeParent(tree, k, nodes);
                if (parent >= 0) net(head(k), head(parent));
            }
        }
    }
}

}  // namespace

/// A chunk climbs a node's chain and the tree to its root and comes back down (NCCL: 2·((ppn − 1)·intra +
/// log2(nodes)·inter)), each hop at the protocol's latency or the path's where longer.
double treeLatency(const Setup& s, const ProtocolCost& cost) {
    const int nodes = static_cast<int>(s.seg.size());
    if (s.tree_phys_channels != s.channels) {
        s.tree_intra_phys = s.tree_net_phys = -1;
        forTreeEdges(
            s,
            [&](int a, int b) {
                s.tree_intra_phys = std::max(s.tree_intra_phys, pathLatency(s.r, {{a, b}}));
            },
            [&](int child, int parent) {
                s.tree_net_phys = std::max(s.tree_net_phys, pathLatency(s.r, {{child, parent}}));
            });
        s.tree_phys_channels = s.channels;
    }
    const double intra_hop = s.tree_intra_phys < 0 ? 0.0 : std::max(cost.nvlink_hop_s, s.tree_intra_phys);
    const double net_hop = s.tree_net_phys < 0 ? 0.0 : std::max(cost.net_hop_s, s.tree_net_phys);
    const int depth = std::max(treeDepth(0, nodes), treeDepth(1, nodes));
    return cost.base_s + 2 * ((s.per_node - 1) * intra_hop + depth * net_hop);
}

Xfers treeXfers(const Setup& s) {
    // Pipelined: in every channel both trees reduce up and broadcast down at once, each carrying half the
    // channel's share, along the chain of every node's GPUs and the tree's edges between nodes.
    const double part = s.bytes / s.channels / 2;
    Xfers x;
    auto both = [&](int a, int b) {
        x.emplace_back(b, a, part);  // up towards the rail's GPU and the root
        x.emplace_back(a, b, part);  // and down again
    };
    forTreeEdges(s, both, both);
    return x;
}

namespace {

CollectiveResult runTree(const Setup& s, Proto p) {
    const ProtocolCost cost = protocolCost(Algo::Tree, p, s.op, s.nodes, s.per_node);
    CollectiveResult res;
    res.arc_bytes.assign(static_cast<std::size_t>(s.t.arcCount()), 0.0);
    const double bw = drain(s.t, s.r, treeXfers(s), cost.efficiency, 1, res.arc_bytes, res.stalled_pairs, s.nvlink_share);
    res.latency_s = treeLatency(s, cost);
    res.time_s = std::max(bw, ceilingTime(s, Algo::Tree, p, s.channels)) + res.latency_s;
    res.steps = 1;
    res.channels = s.channels;
    return res;
}

}  // namespace

/// Pairwise exchanges overlap: the base and the slowest pair's hop for the whole exchange, as NCCL's p2p.
double alltoallLatency(const Setup& s, const ProtocolCost& cost) {
    const int n = static_cast<int>(s.ranks.size());
    if (n < 2) return 0;
    double hop = 0;
    for (int k = 1; k < n; ++k)
        for (int i = 0; i < n; ++i) {
            const int j = (i + k) % n;
            const bool net = s.node_of[static_cast<std::size_t>(i)] != s.node_of[static_cast<std::size_t>(j)];
            hop = std::max(hop, hopLatency(s.r, {{s.ranks[i], s.ranks[j]}}, net, cost));
        }
    return cost.base_s + hop;
}

namespace {

CollectiveResult runAlltoall(const Setup& s, Proto p) {
    const ProtocolCost cost = protocolCost(Algo::Ring, p, s.op, s.nodes, s.per_node);
    const int n = static_cast<int>(s.ranks.size());
    if (n > 4096) throw SimError("collective: all-to-all is limited to 4096 ranks (n² flows)");
    CollectiveResult res;
    res.arc_bytes.assign(static_cast<std::size_t>(s.t.arcCount()), 0.0);
    double bw = 0;
    for (int k = 1; k < n; ++k) {
        Xfers x;
        for (int i = 0; i < n; ++i) x.emplace_back(s.ranks[i], s.ranks[(i + k) % n], s.bytes / n);
        bw += drain(s.t, s.r, x, cost.efficiency, 1, res.arc_bytes, res.stalled_pairs, s.nvlink_share);
    }
    res.latency_s = alltoallLatency(s, cost);
    res.time_s = bw + res.latency_s;
    res.steps = n - 1;
    res.channels = 1;
    return res;
}

}  // namespace

/// The channels NCCL runs a collective of this size on (enqueue.cc, where it sets a collective's channels and
/// threads): from the communicator's, one fewer while the bytes are under channels × threads × the protocol's
/// bytes per thread (comm.h's thread thresholds: Simple 64 with 512 threads, LL 8 times the ranks on a ring with
/// 512, LL128 8 with 640; tuning.cc). Its bytes are a rank's buffer: the whole for all-reduce, broadcast and
/// reduce, a rank's part for all-gather and reduce-scatter (their count is per rank). The tuner picked the
/// algorithm with every channel; a small message then runs on fewer, and so on fewer rails.
int ncclChannels(const Setup& s, Algo a, Proto p) {
    if (s.op == CollectiveOp::AllToAll) return s.channels;
    const double n = static_cast<double>(s.ranks.size());
    const double bytes = s.op == CollectiveOp::AllGather || s.op == CollectiveOp::ReduceScatter ? s.bytes / n : s.bytes;
    const double threads = p == Proto::LL128 ? 640 : 512;
    const double per_thread = p == Proto::Simple ? 64 : a == Algo::Ring && p == Proto::LL ? 8 * n : 8;
    int nc = s.channels;
    while (nc >= 2 && bytes < nc * threads * per_thread) --nc;
    return nc;
}

namespace {

CollectiveResult runOne(const Setup& s, Algo a, Proto p, bool as_nccl = true) {
    const bool heads = a == Algo::Nvls || a == Algo::NvlsTree || a == Algo::CollNet;  // channels as the GPUs or rails
    if (as_nccl && !heads) {                                                          // on the channels NCCL takes for this size
        if (const int nc = ncclChannels(s, a, p); nc != s.channels) {
            Setup fewer = s;
            fewer.channels = nc;
            return runOne(fewer, a, p, false);
        }
    }
    CollectiveResult res;
    if (a == Algo::NvlsTree || a == Algo::CollNet) {
        res = runAcross(s, a);
    } else if (a == Algo::Nvls) {
        res.arc_bytes.assign(static_cast<std::size_t>(s.t.arcCount()), 0.0);
        res.latency_s = nvlsLatency();
        res.time_s = runNvls(s, res.arc_bytes, res.stalled_pairs) + res.latency_s;
        res.steps = 1;
        res.channels = static_cast<int>(s.ranks.size());  // a head per GPU
    } else {
        res = s.op == CollectiveOp::AllToAll ? runAlltoall(s, p) : a == Algo::Tree ? runTree(s, p) : runRing(s, p);
    }
    res.algorithm = s.op == CollectiveOp::AllToAll ? "pairwise" : toString(a);
    res.protocol = toString(p);
    return res;
}

}  // namespace

/// NCCL's tuner (ncclTopoTuneModel, ncclTopoGetAlgoTime): each candidate's time is its latency plus the bytes over
/// its algorithm bandwidth, the bus bandwidth of the channels (here: what the ring at Simple moves on this fabric)
/// times the protocol's efficiency, turned into algorithm bandwidth by the ring's n / steps or the tree's ½ (each
/// tree carries half and every byte goes up and down).
std::pair<Algo, Proto> pick(const Setup& s, const std::vector<Algo>& algos, const std::vector<Proto>& protos,
                            CollectiveResult* simple_out) {
    if (algos.size() * protos.size() == 1) return {algos.front(), protos.front()};
    const int n = static_cast<int>(s.ranks.size());
    // NCCL's steps per algorithm bandwidth: 2(n − 1) for all-reduce, n − 1 for all-gather and reduce-scatter, n
    // for the rest (a broadcast's and a reduce's algorithm bandwidth is their bus bandwidth).
    const double steps = s.op == CollectiveOp::AllReduce                                          ? 2.0 * (n - 1)
                         : s.op == CollectiveOp::AllGather || s.op == CollectiveOp::ReduceScatter ? n - 1.0
                                                                                                  : n;
    CollectiveResult simple = runOne(s, Algo::Ring, Proto::Simple, false);  // what every channel moves
    const double bw_time = simple.time_s - simple.latency_s;
    const double bus = bw_time > 0 ? s.bytes / bw_time * steps / n : 0.0;
    double best_t = std::numeric_limits<double>::infinity();
    std::pair<Algo, Proto> best{algos.front(), protos.front()};
    for (Algo a : algos)
        for (Proto p : protos) {
            if (a == Algo::Nvls || a == Algo::NvlsTree) {  // Simple only, their own bandwidth and latency
                if (p != Proto::Simple) continue;
                const double t = a == Algo::Nvls ? nvlsLatency() + s.bytes / nvlsAlgorithmBandwidth(s)
                                                 : nvlsTreeLatency(s) + s.bytes / nvlsTreeTunerBandwidth(s);
                if (t < best_t) {
                    best_t = t;
                    best = {a, p};
                }
                continue;
            }
            const ProtocolCost c = protocolCost(a, p, s.op, s.nodes, s.per_node);
            const double eff = c.efficiency;
            const double cap = busCap(s.caps, a, p, s.channels);
            const double alg = (cap > 0 ? std::min(bus * eff, cap) : bus * eff) * (a == Algo::Ring ? n / steps : 0.5);
            const double lat = s.op == CollectiveOp::AllToAll ? alltoallLatency(s, c)
                               : a == Algo::Ring              ? ringLatency(s, c)
                                                              : treeLatency(s, c);
            const double t = lat + (alg > 0 ? s.bytes / alg : 0.0);
            if (t < best_t) {
                best_t = t;
                best = {a, p};
            }
        }
    if (simple_out) *simple_out = std::move(simple);
    return best;
}

namespace {

/// The tuner's pick, run on the fabric. One candidate: it runs.
CollectiveResult tune(const Setup& s, const std::vector<Algo>& algos, const std::vector<Proto>& protos) {
    CollectiveResult simple;
    const auto [a, p] = pick(s, algos, protos, &simple);
    if (algos.size() * protos.size() > 1 && a == Algo::Ring && p == Proto::Simple && ncclChannels(s, a, p) == s.channels) return simple;
    return runOne(s, a, p);
}

}  // namespace

Setup makeSetup(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks, const std::vector<int>& node_of, double bytes,
                const NcclChoice& how) {
    if (ranks.empty()) throw SimError("collective: ranks must not be empty");
    if (!(bytes > 0)) throw SimError("collective: bytes must be > 0");
    if (node_of.size() != ranks.size()) throw SimError("collective: every rank needs its node");
    for (int h : ranks)
        if (h < 0 || h >= t.nodeCount()) throw SimError("collective: rank on an unknown node");
    const int channels = how.channels > 0 ? how.channels : defaultChannels(node_of);
    Setup s(t, r, op, ranks, node_of, bytes, channels);
    const bool across = how.algo == Algo::Tree || how.algo == Algo::NvlsTree || how.algo == Algo::CollNet;
    if (channels > 1 || across || !how.algo) {
        try {
            s.seg = nodeSegments(ranks, node_of);
        } catch (const SimError&) {
            if (channels > 1 || across) throw;
        }
    }
    std::map<int, int> per;
    for (int node : node_of) ++per[node];
    s.nodes = static_cast<int>(per.size());
    for (const auto& [node, k] : per) s.per_node = std::max(s.per_node, k);
    s.caps = channelCaps(how.architecture, s.nodes);
    s.architecture = how.architecture;
    s.nvlink_share = nvlinkShare(how.architecture);
    s.sharp = how.in_network_reduction;
    return s;
}

}  // namespace nccl_detail

using namespace nccl_detail;

CollectiveResult runNcclCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks,
                                   const std::vector<int>& node_of_rank, double bytes, const NcclChoice& how) {
    if (how.fabric_only) {
        if (how.algo || how.proto) throw SimError("collective: the bare fabric model takes no algorithm or protocol");
        CollectiveResult res =
            runChannelCollective(t, r, op, ranks, node_of_rank, bytes, how.channels > 0 ? how.channels : defaultChannels(node_of_rank));
        res.channels = how.channels > 0 ? how.channels : defaultChannels(node_of_rank);
        res.algorithm = op == CollectiveOp::HierarchicalAllReduce ? "hierarchical" : "ring";
        return res;
    }
    if (op == CollectiveOp::HierarchicalAllReduce) {
        if (how.algo || how.proto) throw SimError("collective: the hierarchical all-reduce is not NCCL's; it takes no --algo or --proto");
        CollectiveResult res = runCollective(t, r, op, ranks, bytes, node_of_rank);
        res.algorithm = "hierarchical";
        return res;
    }
    const Setup s = makeSetup(t, r, op, ranks, node_of_rank, bytes, how);
    std::vector<Algo> algos;
    std::vector<Proto> protos;
    candidates(s, how, algos, protos);
    CollectiveResult best = tune(s, algos, protos);
    best.tuned = !how.algo || !how.proto;
    best.op = op;
    best.ranks = static_cast<int>(ranks.size());
    best.bytes = bytes;
    best.algbw_Bps = best.time_s > 0 ? bytes / best.time_s : 0;
    best.busbw_Bps = best.algbw_Bps * busFactor(op, best.ranks);
    best.busiest = linkLoads(t, best.arc_bytes, best.time_s, false);
    if (best.busiest.size() > 10) best.busiest.resize(10);
    return best;
}

}  // namespace ct::sim::net
