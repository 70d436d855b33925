#pragma once
// Small fabrics and rank lists the network and NCCL tests share (tst_network, tst_nccl).
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/network.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace fabric_fixtures {

constexpr double GB = 1e9;
inline bool within(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

/// Hosts h0..h(n−1) on one switch, 50 GB/s links, 1 µs on the host's link only (the switch side 0).
inline ct::sim::net::Topology star(int n, double bw = 50 * GB, double lat = 1e-6) {
    using namespace ct::sim::net;
    Topology t;
    for (int i = 0; i < n; ++i) t.addNode("h" + std::to_string(i), NodeKind::Host);
    const int s = t.addNode("sw", NodeKind::Switch, 1);
    for (int i = 0; i < n; ++i) t.addLink(i, s, bw, lat / 2, LinkKind::InfiniBand);
    return t;
}

/// Every GPU of the first `nodes` servers of a fabric as ranks, node by node, and each rank's node.
inline void firstNodes(const ct::sim::net::ScenarioFabric& f, int nodes, std::vector<int>& ranks, std::vector<int>& node_of) {
    for (int n = 0; n < nodes; ++n)
        for (int g : f.gpus_of_node[static_cast<std::size_t>(n)]) {
            ranks.push_back(g);
            node_of.push_back(n);
        }
}

}  // namespace fabric_fixtures
