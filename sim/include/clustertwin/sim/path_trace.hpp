#pragma once
// A path traced from one GPU to another (issue 40: the network you can point at): the switches and cables the
// fabric's routing sends their traffic through, as the flows and collectives take it (net::Router: D-mod-k on
// fat trees, ECMP on Ethernet), with the path's latency and its narrowest cable.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::sim::net {

struct PathTrace {
    std::vector<std::string> hops;    ///< network nodes from the first GPU to the second ("n0001/gpu0", "leaf0", ...)
    std::vector<std::string> cables;  ///< the cables between them, as the 3D view and the runs name them ("a<->b", "a<->b#2")
    double latency_s = 0;             ///< the sum of the cables' latencies
    double bottleneck_gbps = 0;       ///< the narrowest cable on the way, Gb/s
    std::string routing;              ///< "dmodk" or "ecmp"
};

/// The route from GPU `from` to GPU `to` (ids as the scenario names them: "n0001/gpu0"; a node id means its first
/// GPU). Throws SimError when the scenario has no fabric, an id is no GPU of it, or the two cannot reach each
/// other (a failed link, say).
PathTrace tracePath(const model::Scenario& s, const model::Catalog& c, const std::string& from, const std::string& to);

}  // namespace ct::sim::net
