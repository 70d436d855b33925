// GPU-to-GPU path tracing (path_trace.hpp).
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/network.hpp>
#include <clustertwin/sim/path_trace.hpp>

#include <algorithm>
#include <limits>

namespace ct::sim::net {

namespace {

/// The fabric node of a GPU id, or of a node id's first GPU.
int gpuNode(const ScenarioFabric& f, const std::string& id) {
    if (const int i = f.topology.find(id); i >= 0 && f.topology.node(i).kind == NodeKind::Host) return i;
    for (std::size_t n = 0; n < f.node_ids.size(); ++n)
        if (f.node_ids[n] == id && !f.gpus_of_node[n].empty()) return f.gpus_of_node[n].front();
    throw SimError("'" + id + "' is no GPU or node of the scenario's fabric");
}

}  // namespace

PathTrace tracePath(const model::Scenario& s, const model::Catalog& c, const std::string& from, const std::string& to) {
    const ScenarioFabric f = buildScenarioFabric(s, c);
    if (f.topology.nodeCount() == 0) throw SimError("the scenario has no network to trace a path in");
    const int a = gpuNode(f, from), b = gpuNode(f, to);
    if (a == b) throw SimError("a path needs two different GPUs");
    Router r(f.topology);
    const std::vector<int> arcs = r.route(a, b);
    if (arcs.empty()) throw SimError("no route from " + from + " to " + to + ": the fabric does not connect them");
    PathTrace t;
    t.routing = toString(f.topology.routing());
    t.hops.push_back(f.topology.node(a).id);
    double narrowest = std::numeric_limits<double>::infinity();
    for (const int arc : arcs) {
        const Arc& x = f.topology.arc(arc);
        t.hops.push_back(f.topology.node(x.to).id);
        t.cables.push_back(f.topology.cableId(x.cable));
        narrowest = std::min(narrowest, x.capacity_Bps);
    }
    t.latency_s = r.latency(arcs);
    t.bottleneck_gbps = narrowest * 8 / 1e9;
    return t;
}

}  // namespace ct::sim::net
