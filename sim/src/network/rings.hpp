#pragma once
// The ring steps the collectives share (collectives.cpp, nccl.cpp): internal to the network model.
#include <clustertwin/sim/network.hpp>

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ct::sim::net {

/// One step of a ring: every rank sends `chunk` bytes to the next (none for a ring of one).
inline std::vector<std::tuple<int, int, double>> ringStepOf(const std::vector<int>& ring, double chunk) {
    std::vector<std::tuple<int, int, double>> x;
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n && n > 1; ++i) x.emplace_back(ring[i], ring[(i + 1) % n], chunk);
    return x;
}

/// A pipelined chain along `ranks` from the first: every hop carries `bytes` (a broadcast from ranks[0]).
inline std::vector<std::tuple<int, int, double>> chainOf(const std::vector<int>& ranks, double bytes) {
    std::vector<std::tuple<int, int, double>> x;
    for (std::size_t i = 0; i + 1 < ranks.size(); ++i) x.emplace_back(ranks[i], ranks[i + 1], bytes);
    return x;
}

/// A pipelined chain round the ring to ranks[0], from its successor ranks[1] (NCCL's ring reduce to ranks[0]):
/// every hop but the one out of ranks[0] carries `bytes`.
inline std::vector<std::tuple<int, int, double>> chainTo(const std::vector<int>& ranks, double bytes) {
    std::vector<std::tuple<int, int, double>> x;
    for (std::size_t i = 1; i < ranks.size(); ++i) x.emplace_back(ranks[i], ranks[(i + 1) % ranks.size()], bytes);
    return x;
}

/// Each node's ranks in ring order, nodes in the order the ring reaches them; throws when a node's ranks are
/// not next to each other.
inline std::vector<std::vector<int>> nodeSegments(const std::vector<int>& ranks, const std::vector<int>& node_of_rank) {
    std::vector<std::vector<int>> seg;
    std::map<int, std::size_t> seen;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        const int node = node_of_rank[i];
        if (i > 0 && node == node_of_rank[i - 1]) {
            seg.back().push_back(ranks[i]);
            continue;
        }
        if (!seen.emplace(node, seg.size()).second)
            throw SimError("collective: channels need each node's ranks next to each other in the ring order (node of rank " +
                           std::to_string(i) + " comes back); run one channel for this order");
        seg.push_back({ranks[i]});
    }
    return seg;
}

/// One ring step of every channel: chunk bytes per hop. Inside a node channel c runs from local rank
/// e = c mod size round to e − 1, which hands the data on over NVLink to e (PXN), and e sends it on to the
/// next node's entry on its own rail.
inline std::vector<std::tuple<int, int, double>> channelStep(const std::vector<std::vector<int>>& seg, int channels, double chunk) {
    std::vector<std::tuple<int, int, double>> x;
    const std::size_t nodes = seg.size();
    for (int c = 0; c < channels; ++c)
        for (std::size_t k = 0; k < nodes; ++k) {
            const std::vector<int>& L = seg[k];
            const std::size_t g = L.size(), e = static_cast<std::size_t>(c) % g;
            for (std::size_t i = 0; i + 1 < g; ++i) x.emplace_back(L[(e + i) % g], L[(e + i + 1) % g], chunk);
            if (nodes == 1) {  // a ring inside one node closes on itself
                if (g > 1) x.emplace_back(L[(e + g - 1) % g], L[e], chunk);
                continue;
            }
            if (g > 1) x.emplace_back(L[(e + g - 1) % g], L[e], chunk);  // PXN: to the GPU of the rail's NIC
            const std::vector<int>& next = seg[(k + 1) % nodes];
            x.emplace_back(L[e], next[static_cast<std::size_t>(c) % next.size()], chunk);
        }
    return x;
}

}  // namespace ct::sim::net
