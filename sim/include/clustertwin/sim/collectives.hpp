#pragma once
// Collective operations decomposed into flows on a topology (models.md §5). Steps are synchronous: a step
// ends when its slowest transfer does. Bus bandwidth is defined as in nccl-tests.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/network.hpp>

#include <string>
#include <tuple>
#include <vector>

namespace ct::sim::net {

enum class CollectiveOp { AllReduce, HierarchicalAllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce };
/// "allreduce", "hierarchical-allreduce", "allgather", "reducescatter", "alltoall", "broadcast" (from the first
/// rank), "reduce" (to the first rank); throws SimError otherwise.
CollectiveOp collectiveFromString(const std::string& s);
const char* toString(CollectiveOp op);

struct BusyLink {
    std::string id;  ///< "from->to"
    double bytes = 0;
    double utilization = 0;  ///< bytes / (capacity · completion time)
    std::string cable;       ///< the cable it is one direction of, "a<->b" ("a<->b#2" for a parallel one)
    double capacity_Bps = 0;
    double latency_s = 0;
    bool failed = false;
};

/// Every direction of every cable (or only those that carried traffic) with the bytes it carried over
/// `time_s` and its utilization, busiest first (by utilization, then bytes, then id).
std::vector<BusyLink> linkLoads(const Topology& t, const std::vector<double>& arc_bytes, double time_s, bool with_idle);

struct CollectiveResult {
    CollectiveOp op = CollectiveOp::AllReduce;
    int ranks = 0;
    double bytes = 0;  ///< the buffer size S
    double time_s = 0;
    double algbw_Bps = 0;  ///< S / time
    double busbw_Bps = 0;  ///< algbw · the op's factor (2(n−1)/n for all-reduce)
    int steps = 0;
    int stalled_pairs = 0;  ///< rank pairs with no route (the collective cannot finish)
    /// How it ran (runNcclCollective): "ring", "tree", "pairwise" or "hierarchical"; "LL", "LL128", "Simple" (empty
    /// for the plain runs, which pay the fabric's latency at every step); channels; the latency part of time_s;
    /// whether NCCL's tuner chose the algorithm or protocol.
    std::string algorithm = "ring", protocol;
    int channels = 1;
    double latency_s = 0;
    bool tuned = false;
    std::vector<double> arc_bytes;
    std::vector<BusyLink> busiest;  ///< up to 10, highest utilization first
};

/// Runs a collective over `ranks` (host node indices, in ring order) with buffer size `bytes`. For the
/// hierarchical all-reduce `node_of_rank` groups ranks by server (NVLink inside, the fabric across); ignored
/// otherwise. Throws SimError on bad arguments (no ranks, size ≤ 0, all-to-all beyond 4096 ranks).
CollectiveResult runCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks, double bytes,
                               const std::vector<int>& node_of_rank = {});

/// A ring collective (all-reduce, all-gather, reduce-scatter) as NCCL lays it over the GPUs' rails (issue 41):
/// `channels` rings at once, each carrying bytes / channels. Every node's ranks (`node_of_rank`, each node's
/// ranks next to each other in `ranks`) are visited in turn; channel c enters node k at its local rank
/// c mod (its ranks) and leaves it through that same GPU's NIC, the ring's last GPU in the node handing its data
/// to it over NVLink (NCCL's PXN), so channel c stays on rail c. One channel is runCollective's single ring.
/// Other ops run as runCollective does. Throws SimError as runCollective does, and when a node's ranks are not
/// next to each other or channels < 1.
CollectiveResult runChannelCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks,
                                      const std::vector<int>& node_of_rank, double bytes, int channels);
/// NCCL's default: one channel per rail, the most ranks any node has (1 without node_of_rank, or when a node's
/// ranks are not next to each other in the ring order), at most NCCL's 32 (MAXCHANNELS, src/include/device.h):
/// an NVL72 rack's 72 GPUs run 32.
int defaultChannels(const std::vector<int>& node_of_rank);
inline constexpr int kNcclMaxChannels = 32;

/// Ring all-reduces of `bytes` in several groups at once (e.g. one data-parallel ring per rail): every step
/// carries every group's transfers together. All groups must have the same size.
CollectiveResult runGroupedAllReduce(const Topology& t, Router& r, const std::vector<std::vector<int>>& groups, double bytes);
/// Any collective (ring all-reduce, all-gather, reduce-scatter; pairwise all-to-all) in several groups at once, as
/// every tensor- or expert-parallel group of a job runs it together. A group of one rank takes no time.
CollectiveResult runGroupedCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<std::vector<int>>& groups,
                                      double bytes);
/// One synchronous step of point-to-point transfers (src, dst, bytes): ends with the slowest.
CollectiveResult runTransfers(const Topology& t, Router& r, const std::vector<std::tuple<int, int, double>>& xfers);

/// The cluster fabric of a scenario (its nodes, their GPUs and NICs, the network description).
struct ScenarioFabric {
    Topology topology;
    std::vector<std::vector<int>> gpus_of_node;  ///< host node indices, scenario node order
    std::vector<std::string> node_ids;           ///< scenario node order
    std::vector<int> cabling_order;              ///< scenario node indices in the order they are cabled and ranked
    std::string gpu_architecture;                ///< the servers' GPUs' ("hopper", ...; empty when unknown or mixed)
    /// Every switch of the fabric reduces in the network (the catalog's `in_network_reduction`, SHARP): NCCL's
    /// CollNet can run on it.
    bool in_network_reduction = false;
};
/// Generated fabrics are cabled in model::nodesInCablingOrder; explicit ones as listed. Routing is the
/// network's (default D-mod-k, ECMP when the switch model is Ethernet); link overrides are applied. Throws
/// SimError when the scenario has no network, mixes servers with different GPU counts or names a link that
/// does not exist.
ScenarioFabric buildScenarioFabric(const model::Scenario& s, const model::Catalog& c);

/// Every cable of the scenario's fabric with where its ends sit in the hall, for the 3D view. Empty when the
/// scenario has no network; throws SimError as buildScenarioFabric does.
std::vector<model::FabricLink> fabricLinks(const model::Scenario& s, const model::Catalog& c);

}  // namespace ct::sim::net
