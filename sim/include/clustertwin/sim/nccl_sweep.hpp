#pragma once
// A collective over a range of message sizes, as nccl-tests runs it (`all_reduce_perf -b 8 -e 8G -f 2`): the
// twin's side of `clustertwin-cli collective --sweep`, `compare-nccl` and the app's comparison with a cluster's
// nccl-tests output (issue 41).
#include <clustertwin/sim/nccl.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace ct::sim::net {

/// GPUs taking part, in rank order, and the node (scenario order) each sits in.
struct PlacedRanks {
    std::vector<int> ranks, node_of;
};

/// `n` ranks packed (node by node in cabling order, as mpirun fills hosts) or spread (one per node in turn).
/// Throws SimError when n is below 1 or above the fabric's GPUs.
PlacedRanks placeRanks(const ScenarioFabric& f, int n, bool spread = false);

/// The op over each size on these ranks, as `how` says (its channels 0: defaultChannels; its architecture
/// empty: the fabric's GPUs'). One result per size, in order. `keep_going`, when given, is asked after each
/// size with the count done; false stops the sweep there (the results so far are returned). Throws SimError
/// as runNcclCollective does.
std::vector<CollectiveResult> ncclSweep(const ScenarioFabric& f, CollectiveOp op, const PlacedRanks& r, NcclChoice how,
                                        const std::vector<double>& sizes, const std::function<bool(std::size_t done)>& keep_going = {});

}  // namespace ct::sim::net
