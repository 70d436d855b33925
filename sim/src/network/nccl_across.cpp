// NCCL's all-reduce algorithms that reduce in switches across servers (nccl_impl.hpp): NVLS-tree (NVLS inside
// every server, NCCL's double binary tree between them; what NCCL runs by default for large all-reduces on two
// DGX H100) and CollNet's chain over switches that reduce in the network (SHARP, only when asked, as NCCL with
// NCCL_COLLNET_ENABLE=1). And which algorithms a collective may take.
#include "nccl_impl.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ct::sim::net::nccl_detail {

namespace {

// NCCL's hop latencies at Simple (src/graph/tuning.cc, 2.19): hwLat[NET][NVLS_TREE] 14 µs, hwLat[NVLINK]
// [COLLNET_CHAIN] 2.8 µs, hwLat[NET][COLLNET_CHAIN] 30 µs.
constexpr double kNvlsTreeNetHop = 14e-6, kChainNvlinkHop = 2.8e-6, kCollNetNetHop = 30e-6;

bool allNvlink(const Setup& s, const std::vector<int>& gpus) {
    for (std::size_t i = 0; i < gpus.size(); ++i)
        if (!nvlinkOnly(s.t, s.r.route(gpus[i], gpus[(i + 1) % gpus.size()]))) return false;
    return true;
}

/// Why the servers cannot be taken as equal groups ("" when they can).
std::string serversUnfit(const Setup& s, const char* algo) {
    if (s.op != CollectiveOp::AllReduce) return std::string(algo) + " runs all-reduce only";
    if (s.nodes < 2 || s.seg.empty()) return std::string(algo) + " needs two or more servers, each server's ranks next to each other";
    for (const auto& g : s.seg)
        if (g.size() != s.seg.front().size()) return std::string(algo) + " needs the same number of GPUs in every server";
    return "";
}

/// The GPU of channel `c` in server `k`: the one on the channel's rail (NCCL's head, with its NIC).
int head(const Setup& s, int c, std::size_t k) {
    const std::vector<int>& g = s.seg[k];
    return g[static_cast<std::size_t>(c) % g.size()];
}

/// The switch a channel's reduction tree is rooted at: of the switches every route from the first server's head
/// to the others' crosses, the highest (a rail's leaf when all servers hang off it, else a spine); −1 when none is
/// common.
int sharpRoot(const Setup& s, int c) {
    std::map<int, int> seen;  // switch -> routes crossing it
    const std::size_t nodes = s.seg.size();
    for (std::size_t k = 1; k < nodes; ++k) {
        std::set<int> on;
        for (int a : s.r.route(head(s, c, 0), head(s, c, k)))
            if (s.t.node(s.t.arc(a).to).kind == NodeKind::Switch) on.insert(s.t.arc(a).to);
        for (int v : on) ++seen[v];
    }
    int root = -1;
    for (const auto& [v, count] : seen)
        if (count == static_cast<int>(nodes) - 1 && (root < 0 || s.t.node(v).level > s.t.node(root).level)) root = v;
    return root;
}

}  // namespace

std::string nvlsTreeUnfit(const Setup& s) {
    if (std::string why = serversUnfit(s, "NVLS-tree"); !why.empty()) return why;
    if (!(nvlsEfficiency(s.architecture) > 0)) return "NVLS-tree needs NVSwitches that reduce (Hopper or later GPUs)";
    for (const auto& g : s.seg)
        if (g.size() < 2 || !allNvlink(s, g)) return "NVLS-tree needs each server's GPUs (two or more) to reach each other through NVLink";
    return "";
}

std::string collNetUnfit(const Setup& s) {
    if (std::string why = serversUnfit(s, "CollNet"); !why.empty()) return why;
    if (!s.sharp) return "CollNet needs switches that reduce in the network (the catalog's in_network_reduction: SHARP)";
    for (int c = 0; c < s.channels; ++c)
        if (sharpRoot(s, c) < 0) return "CollNet: the servers' GPUs of a rail share no switch to reduce in";
    return "";
}

double nvlsTreeTunerBandwidth(const Setup& s) {
    const std::vector<int>& g = s.seg.front();
    const double heads = static_cast<double>(g.size()), eff = nvlsEfficiency(s.architecture);
    double speed = nvlsBandwidthOf(s, g) / heads / eff;  // a head's, as NCCL's NVLS search settles it
    // A head's NIC bounds it too (NCCL's bwInter of the NVLS graph).
    for (std::size_t i = 0; i < g.size(); ++i) {
        const std::vector<int> path = s.r.route(g[i], s.seg[1][i]);
        if (!path.empty() && s.t.arc(path.front()).kind != LinkKind::NvLink) speed = std::min(speed, s.t.arc(path.front()).capacity_Bps);
    }
    return heads * speed * eff * (s.seg.size() <= 2 ? 1.0 : 0.5);
}

double nvlsTreeLatency(const Setup& s) {
    const int nodes = static_cast<int>(s.seg.size());
    double phys = 0;
    for (int tree = 0; tree < 2; ++tree)
        for (int k = 0; k < nodes; ++k)
            if (const int p = treeParent(tree, k, nodes); p >= 0)
                phys = std::max(phys,
                                s.r.latency(s.r.route(head(s, 0, static_cast<std::size_t>(k)), head(s, 0, static_cast<std::size_t>(p)))));
    const int depth = std::max(treeDepth(0, nodes), treeDepth(1, nodes));
    return nvlsLatency() + 2 * depth * std::max(kNvlsTreeNetHop, phys);
}

double nvlsTreeIntra(const Setup& s, std::vector<double>& arc_bytes, int& stalled) {
    double worst = 0;
    for (const auto& g : s.seg) {
        nvlsArcBytes(s, g, s.bytes, arc_bytes, stalled);
        const double bw = nvlsBandwidthOf(s, g);
        if (bw > 0) worst = std::max(worst, s.bytes / bw);
    }
    return worst;
}

Xfers nvlsTreeXfers(const Setup& s) {
    // Each GPU heads its share of the buffer; both trees carry half of it, up and down at once, between the same
    // GPU (the same rail) of a server and its parent's.
    const int nodes = static_cast<int>(s.seg.size());
    const std::size_t heads = s.seg.front().size();
    const double part = s.bytes / static_cast<double>(heads) / 2;
    Xfers x;
    for (std::size_t i = 0; i < heads; ++i)
        for (int tree = 0; tree < 2; ++tree)
            for (int k = 0; k < nodes; ++k)
                if (const int p = treeParent(tree, k, nodes); p >= 0) {
                    const int a = s.seg[static_cast<std::size_t>(k)][i], b = s.seg[static_cast<std::size_t>(p)][i];
                    x.emplace_back(a, b, part);
                    x.emplace_back(b, a, part);
                }
    return x;
}

Xfers collNetChainXfers(const Setup& s) {
    // Each channel's share climbs a chain through the server's GPUs to the rail's GPU and comes back down it.
    const double part = s.bytes / s.channels;
    Xfers x;
    for (int c = 0; c < s.channels; ++c)
        for (const auto& L : s.seg) {
            const std::size_t g = L.size(), e = static_cast<std::size_t>(c) % g;
            for (std::size_t i = 0; i + 1 < g; ++i) {
                x.emplace_back(L[(e + i + 1) % g], L[(e + i) % g], part);
                x.emplace_back(L[(e + i) % g], L[(e + i + 1) % g], part);
            }
        }
    return x;
}

void collNetSharp(const Setup& s, std::vector<double>& sharp_bytes) {
    // The switches add what comes up their tree and send the sum down once: a link of the tree carries the
    // channel's share once each way, however many servers are below it.
    const double part = s.bytes / s.channels;
    for (int c = 0; c < s.channels; ++c) {
        const int root = sharpRoot(s, c);
        std::set<int> arcs;
        for (std::size_t k = 0; k < s.seg.size() && root >= 0; ++k) {
            for (int a : s.r.route(head(s, c, k), root)) arcs.insert(a);
            for (int a : s.r.route(root, head(s, c, k))) arcs.insert(a);
        }
        for (int a : arcs) sharp_bytes[static_cast<std::size_t>(a)] += part;
    }
}

double sharpTime(const Topology& t, const std::vector<double>& sharp_bytes) {
    double worst = 0;
    for (std::size_t a = 0; a < sharp_bytes.size(); ++a)
        if (sharp_bytes[a] > 0 && t.arc(static_cast<int>(a)).capacity_Bps > 0)
            worst = std::max(worst, sharp_bytes[a] / t.arc(static_cast<int>(a)).capacity_Bps);
    return worst;
}

double collNetLatency(const Setup& s) {
    double intra = kChainNvlinkHop, net = kCollNetNetHop;
    const auto& L = s.seg.front();
    for (std::size_t i = 0; i + 1 < L.size(); ++i) intra = std::max(intra, s.r.latency(s.r.route(L[i], L[i + 1])));
    if (const int root = sharpRoot(s, 0); root >= 0)
        for (std::size_t k = 0; k < s.seg.size(); ++k)
            net = std::max(net, s.r.latency(s.r.route(head(s, 0, k), root)) + s.r.latency(s.r.route(root, head(s, 0, k))));
    return 2 * static_cast<double>(L.size() - 1) * intra + net;
}

CollectiveResult runAcross(const Setup& s, Algo a) {
    CollectiveResult res;
    res.arc_bytes.assign(static_cast<std::size_t>(s.t.arcCount()), 0.0);
    res.steps = 1;
    if (a == Algo::NvlsTree) {
        const double intra = nvlsTreeIntra(s, res.arc_bytes, res.stalled_pairs);
        const double net = drain(s.t, s.r, nvlsTreeXfers(s), 1.0, 1, res.arc_bytes, res.stalled_pairs, s.nvlink_share);
        res.latency_s = nvlsTreeLatency(s);
        res.time_s = std::max(intra, net) + res.latency_s;  // the phases pipeline chunk by chunk
        res.channels = static_cast<int>(s.seg.front().size());
        return res;
    }
    const double chain = drain(s.t, s.r, collNetChainXfers(s), 1.0, 1, res.arc_bytes, res.stalled_pairs, s.nvlink_share);
    std::vector<double> sharp(res.arc_bytes.size(), 0.0);
    collNetSharp(s, sharp);
    for (std::size_t i = 0; i < sharp.size(); ++i) res.arc_bytes[i] += sharp[i];
    res.latency_s = collNetLatency(s);
    res.time_s = std::max(chain, sharpTime(s.t, sharp)) + res.latency_s;
    res.channels = s.channels;
    return res;
}

void candidates(const Setup& s, const NcclChoice& how, std::vector<Algo>& algos, std::vector<Proto>& protos) {
    const bool tree_ok = s.op == CollectiveOp::AllReduce && s.nodes > 1 && !s.seg.empty();
    if (how.algo == Algo::Tree && !tree_ok)
        throw SimError(s.op != CollectiveOp::AllReduce ? "collective: tree runs all-reduce only (NCCL's other collectives are rings)"
                                                       : "collective: tree needs two or more nodes, each node's ranks next to each other");
    const bool nvls_ok = nvlsPossible(s);
    if (how.algo == Algo::Nvls && !nvls_ok)
        throw SimError(
            "collective: NVLS runs all-reduce inside one server whose NVSwitches reduce (Hopper or later GPUs), "
            "every rank reaching the others through NVLink");
    const std::string nvls_tree_unfit = nvlsTreeUnfit(s);
    if (how.algo == Algo::NvlsTree && !nvls_tree_unfit.empty()) throw SimError("collective: " + nvls_tree_unfit);
    if (how.algo == Algo::CollNet)
        if (const std::string why = collNetUnfit(s); !why.empty()) throw SimError("collective: " + why);
    const bool simple_only = how.algo == Algo::Nvls || how.algo == Algo::NvlsTree || how.algo == Algo::CollNet;
    if (simple_only && how.proto && *how.proto != Proto::Simple)
        throw SimError(std::string("collective: ") + toString(*how.algo) + " runs the Simple protocol only");
    algos = how.algo ? std::vector<Algo>{*how.algo} : std::vector<Algo>{Algo::Ring};
    const bool simple_allowed = !how.proto || *how.proto == Proto::Simple;
    if (!how.algo && tree_ok) algos.push_back(Algo::Tree);
    if (!how.algo && nvls_ok && simple_allowed) algos.push_back(Algo::Nvls);
    if (!how.algo && nvls_tree_unfit.empty() && simple_allowed) algos.push_back(Algo::NvlsTree);
    protos = how.proto ? std::vector<Proto>{*how.proto} : std::vector<Proto>{Proto::Simple, Proto::LL128, Proto::LL};
    if (simple_only) protos = {Proto::Simple};
}

}  // namespace ct::sim::net::nccl_detail
