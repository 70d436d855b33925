#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/nccl_sweep.hpp>

#include <string>

namespace ct::sim::net {

PlacedRanks placeRanks(const ScenarioFabric& f, int n, bool spread) {
    const int nodes = static_cast<int>(f.gpus_of_node.size());
    const int gpn = nodes > 0 ? static_cast<int>(f.gpus_of_node[0].size()) : 0;
    if (n < 1 || n > nodes * gpn)
        throw SimError(std::to_string(n) + " ranks asked for, but the fabric has " + std::to_string(nodes * gpn) + " GPUs");
    PlacedRanks out;
    for (int i = 0; i < n; ++i) {
        const int node = f.cabling_order[static_cast<std::size_t>(spread ? i % nodes : i / gpn)];
        const int gpu = spread ? i / nodes : i % gpn;
        out.ranks.push_back(f.gpus_of_node[static_cast<std::size_t>(node)][static_cast<std::size_t>(gpu)]);
        out.node_of.push_back(node);
    }
    return out;
}

std::vector<CollectiveResult> ncclSweep(const ScenarioFabric& f, CollectiveOp op, const PlacedRanks& r, NcclChoice how,
                                        const std::vector<double>& sizes, const std::function<bool(std::size_t)>& keep_going) {
    if (how.channels == 0) how.channels = defaultChannels(r.node_of);
    if (how.architecture.empty()) how.architecture = f.gpu_architecture;
    how.in_network_reduction = how.in_network_reduction || f.in_network_reduction;
    Router router(f.topology);
    std::vector<CollectiveResult> out;
    out.reserve(sizes.size());
    for (double s : sizes) {
        out.push_back(runNcclCollective(f.topology, router, op, r.ranks, r.node_of, s, how));
        if (keep_going && !keep_going(out.size())) break;
    }
    return out;
}

}  // namespace ct::sim::net
