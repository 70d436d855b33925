// The same NCCL collective in many groups at once (nccl.hpp, runGroupedNcclCollective): a training job's
// tensor-, context-, expert- and data-parallel groups each run their collective together with all the others.
#include <clustertwin/sim/nccl.hpp>

#include "nccl_impl.hpp"

#include <algorithm>

namespace ct::sim::net {

using namespace nccl_detail;

std::vector<int> serverOfHost(const ScenarioFabric& f) {
    std::vector<int> out(static_cast<std::size_t>(f.topology.nodeCount()), -1);
    for (std::size_t n = 0; n < f.gpus_of_node.size(); ++n)
        for (int h : f.gpus_of_node[n])
            if (h >= 0 && static_cast<std::size_t>(h) < out.size()) out[static_cast<std::size_t>(h)] = static_cast<int>(n);
    return out;
}

JobComm jobComm(const ScenarioFabric& f) { return {serverOfHost(f), f.gpu_architecture}; }

CollectiveResult runGroupedNcclCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<std::vector<int>>& groups,
                                          const std::vector<int>& node_of_host, double bytes, const NcclChoice& how) {
    if (groups.empty() || groups.front().empty()) throw SimError("collective: no groups");
    if (!(bytes > 0)) throw SimError("collective: bytes must be > 0");
    if (op == CollectiveOp::HierarchicalAllReduce || how.fabric_only)
        throw SimError("collective: groups run as NCCL does (not the hierarchical all-reduce or the bare fabric)");
    const std::size_t n = groups.front().size();
    CollectiveResult res;
    res.op = op;
    res.ranks = static_cast<int>(n * groups.size());
    res.bytes = bytes;
    res.arc_bytes.assign(static_cast<std::size_t>(t.arcCount()), 0.0);
    std::vector<std::vector<int>> node_of(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (groups[i].size() != n) throw SimError("collective: grouped collectives need groups of one size");
        for (int h : groups[i]) {
            if (h < 0 || static_cast<std::size_t>(h) >= node_of_host.size() || node_of_host[static_cast<std::size_t>(h)] < 0)
                throw SimError("collective: a rank on a host that is no server's GPU");
            node_of[i].push_back(node_of_host[static_cast<std::size_t>(h)]);
        }
    }
    if (n == 1) return res;
    if (op == CollectiveOp::AllToAll && n > 4096) throw SimError("collective: all-to-all is limited to 4096 ranks (n² flows)");
    std::vector<Setup> setups;
    setups.reserve(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i) setups.push_back(makeSetup(t, r, op, groups[i], node_of[i], bytes, how));
    std::vector<Algo> algos;
    std::vector<Proto> protos;
    candidates(setups.front(), how, algos, protos);
    const auto [a, p] = pick(setups.front(), algos, protos);
    const int nc = a == Algo::NvlsTree || a == Algo::CollNet ? setups.front().channels : ncclChannels(setups.front(), a, p);
    for (Setup& s : setups) s.channels = nc;
    const Setup& first = setups.front();
    const ProtocolCost cost = protocolCost(a, p, op, first.nodes, first.per_node);
    double bw = 0, lat = 0;
    if (a == Algo::Nvls) {  // every server's NVSwitches on their own
        for (const Setup& s : setups) bw = std::max(bw, runNvls(s, res.arc_bytes, res.stalled_pairs));
        lat = nvlsLatency();
        res.steps = 1;
        res.channels = static_cast<int>(n);
        res.algorithm = toString(a);
    } else if (a == Algo::NvlsTree || a == Algo::CollNet) {  // every group's servers and trees at once
        Xfers x;
        std::vector<double> sharp(res.arc_bytes.size(), 0.0);
        for (const Setup& s : setups) {
            // The tuner looked at the first group; every other must be able to run it too.
            if (const std::string why = a == Algo::NvlsTree ? nvlsTreeUnfit(s) : collNetUnfit(s); !why.empty())
                throw SimError("collective: a group cannot run " + std::string(toString(a)) + ": " + why);
            const Xfers g = a == Algo::NvlsTree ? nvlsTreeXfers(s) : collNetChainXfers(s);
            x.insert(x.end(), g.begin(), g.end());
            if (a == Algo::NvlsTree) bw = std::max(bw, nvlsTreeIntra(s, res.arc_bytes, res.stalled_pairs));
            else collNetSharp(s, sharp);
            lat = std::max(lat, a == Algo::NvlsTree ? nvlsTreeLatency(s) : collNetLatency(s));
        }
        for (std::size_t i = 0; i < sharp.size(); ++i) res.arc_bytes[i] += sharp[i];
        bw = std::max({bw, sharpTime(t, sharp), drain(t, r, x, 1.0, 1, res.arc_bytes, res.stalled_pairs, first.nvlink_share)});
        res.steps = 1;
        res.channels = a == Algo::NvlsTree ? static_cast<int>(first.seg.front().size()) : first.channels;
        res.algorithm = toString(a);
    } else if (op == CollectiveOp::AllToAll) {
        for (std::size_t k = 1; k < n; ++k) {
            Xfers x;
            for (const auto& g : groups)
                for (std::size_t i = 0; i < n; ++i) x.emplace_back(g[i], g[(i + k) % n], bytes / static_cast<double>(n));
            bw += drain(t, r, x, cost.efficiency, 1, res.arc_bytes, res.stalled_pairs, first.nvlink_share);
        }
        for (const Setup& s : setups) lat = std::max(lat, alltoallLatency(s, cost));
        res.steps = static_cast<int>(n) - 1;
        res.channels = 1;
        res.algorithm = "pairwise";
    } else if (a == Algo::Tree) {
        Xfers x;
        for (const Setup& s : setups) {
            const Xfers g = treeXfers(s);
            x.insert(x.end(), g.begin(), g.end());
        }
        bw = std::max(drain(t, r, x, cost.efficiency, 1, res.arc_bytes, res.stalled_pairs, first.nvlink_share),
                      ceilingTime(first, a, p, nc));
        for (const Setup& s : setups) lat = std::max(lat, treeLatency(s, cost));
        res.steps = 1;
        res.channels = nc;
        res.algorithm = toString(a);
    } else {
        Xfers x;
        int repeat = 0;
        for (const Setup& s : setups) {
            const Xfers g = ringXfers(s, repeat);
            x.insert(x.end(), g.begin(), g.end());
        }
        // As one collective runs them: rings over the rails on several channels, else one ring in the ranks' order.
        const int ch = !first.seg.empty() && nc > 1 ? nc : 1;
        bw = std::max(drain(t, r, x, cost.efficiency, repeat, res.arc_bytes, res.stalled_pairs, first.nvlink_share),
                      ceilingTime(first, a, p, ch));
        for (const Setup& s : setups) lat = std::max(lat, ringLatency(s, cost));
        res.steps = op == CollectiveOp::Broadcast || op == CollectiveOp::Reduce ? static_cast<int>(n) - 1 : repeat;
        res.channels = ch;
        res.algorithm = toString(a);
    }
    res.protocol = toString(p);
    res.tuned = !how.algo || !how.proto;
    res.latency_s = lat;
    res.time_s = bw + lat;
    res.algbw_Bps = res.time_s > 0 ? bytes / res.time_s : 0;
    res.busbw_Bps = res.algbw_Bps * busFactor(op, static_cast<int>(n));
    return res;
}

}  // namespace ct::sim::net
