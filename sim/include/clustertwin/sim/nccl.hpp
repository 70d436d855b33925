#pragma once
// Collectives as NCCL runs them (issue 41, docs/network.md "Algorithms and protocols"): an algorithm (ring over
// every rail's channel, or NCCL's double binary tree across nodes with a chain inside each), a protocol (LL,
// LL128, Simple: how much of a link's bandwidth carries data and what each hop costs in latency), and NCCL's
// choice between them by size and scale. The bandwidth side runs on the fabric's flows (collectives.hpp); the
// latency side follows the path of one chunk hop by hop, each hop costing the protocol's latency over NVLink or
// the network (NCCL's tuning model) or the fabric's own path latency where that is longer.
#include <clustertwin/sim/collectives.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ct::sim::net {

/// NvlsTree: NVLS inside each server and NCCL's double binary tree between them (NCCL's NVLSTree); CollNet: a
/// chain through each server's GPUs and the switches' in-network reduction (SHARP) between servers (CollNetChain).
enum class Algo { Ring, Tree, Nvls, NvlsTree, CollNet };
enum class Proto { LL, LL128, Simple };
const char* toString(Algo a);
const char* toString(Proto p);
/// "ring", "tree", "nvls", "nvlstree", "collnet" (any case); throws SimError otherwise.
Algo algoFromString(const std::string& s);
/// "ll", "ll128", "simple" (any case); throws SimError otherwise.
Proto protoFromString(const std::string& s);

/// What a protocol costs on an algorithm (NCCL's tuning model, src/graph/tuning.cc of NCCL 2.18–2.21): the
/// share of a link's bandwidth that carries data, the latency paid once per collective, and per hop over NVLink
/// and over the network.
struct ProtocolCost {
    double efficiency = 1;
    double base_s = 0;
    double nvlink_hop_s = 0, net_hop_s = 0;
};
/// `nodes`: how many servers the collective spans; `ranks_per_node` its GPUs per server.
ProtocolCost protocolCost(Algo a, Proto p, CollectiveOp op, int nodes, int ranks_per_node);

/// NCCL's measured ceilings (src/graph/tuning.cc of NCCL 2.2x: perChMaxRingLL128Bws, perChMaxTreeBws,
/// perChMaxTreeLL128Bws per channel, llMaxBws for LL over all channels), bytes/s, for GPUs of `architecture` over
/// `nodes` servers (NCCL's columns: 1, 2, more). LL across nodes takes Intel hosts' row (DGX H100's). All 0 for an
/// architecture NCCL has no row for.
struct ChannelCaps {
    double ring_ll128 = 0, tree = 0, tree_ll128 = 0;  ///< per channel
    double ll = 0;                                    ///< LL, all channels together
};
ChannelCaps channelCaps(const std::string& architecture, int nodes);

/// How to run a collective: unset algorithm or protocol are chosen as NCCL's tuner does (the fastest by its cost
/// model: latency plus bytes over the algorithm bandwidth, fed by what this fabric carries); channels 0 takes
/// defaultChannels.
struct NcclChoice {
    std::optional<Algo> algo;
    std::optional<Proto> proto;
    int channels = 0;
    /// The GPUs' architecture ("ampere", "hopper", "blackwell"): NCCL's measured ceilings per channel for it
    /// (channelCaps) bound each protocol's bandwidth; empty: no ceilings.
    std::string architecture;
    /// The fabric's switches reduce in the network (ScenarioFabric::in_network_reduction): CollNet can run when
    /// asked for (NCCL runs it only with NCCL_COLLNET_ENABLE=1 and its SHARP plugin; its tuner does not pick it
    /// otherwise, nor does this one).
    bool in_network_reduction = false;
    /// The bare fabric instead (runChannelCollective): synchronous steps, each paying its links' latency, no
    /// protocol; what the SimGrid references check (docs/network.md).
    bool fabric_only = false;
};

/// NCCL's effective NVLink bandwidth over the line rate, what its kernels move through an NVLink (topo.h's
/// SM80/SM90/SM100_NVLINK_BW per link, 20.0, 20.6 and 40.1 GB/s, over the link's 25, 25 and 50 GB/s); 1 for an
/// architecture NCCL has no row for.
double nvlinkShare(const std::string& architecture);
/// NCCL's NVLS efficiency (NVLink SHARP: the NVSwitch reduces and multicasts; tuning: Hopper 0.85, Blackwell 0.74);
/// 0 where the NVSwitches cannot reduce (Ampere and before, an unknown architecture).
double nvlsEfficiency(const std::string& architecture);

/// A collective with its algorithm and protocol. All-reduce: ring, tree (across two or more nodes, each node's
/// ranks next to each other in `ranks`), NVLS (inside one server whose NVSwitches reduce: Hopper and later, as
/// NCCL decides by the GPUs' architecture), NVLS-tree (NVLS in each of two or more such servers, a tree between
/// them) or CollNet (across servers over switches that reduce in the network, only when asked); all-gather and
/// reduce-scatter: ring; all-to-all: pairwise with the protocol's costs; the hierarchical all-reduce is not
/// NCCL's and runs as runCollective (no protocol).
/// CollectiveResult's algorithm, protocol, channels, latency_s and tuned say what ran. Throws SimError as
/// runChannelCollective does, and for an algorithm the op or the rank order cannot take.
CollectiveResult runNcclCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks,
                                   const std::vector<int>& node_of_rank, double bytes, const NcclChoice& how);

/// The same collective in several groups at once, as every tensor-, context-, expert- or data-parallel group of
/// a job runs it together (training.cpp, inference.cpp): each group as runNcclCollective runs one alone — the
/// algorithm and protocol NCCL's tuner picks for the first group (the groups have one shape), on the channels it
/// takes for that size — with every group's transfers draining together, so that groups on a shared link share
/// its bandwidth; the latency is the slowest group's. `node_of_host`: the server of every host node of the
/// topology (the GPUs'; ScenarioFabric::gpus_of_node inverted). A group of one rank takes no time; `busiest` is
/// left empty. Throws SimError as runNcclCollective does, for groups of different sizes, and for the
/// hierarchical all-reduce or the bare fabric model.
CollectiveResult runGroupedNcclCollective(const Topology& t, Router& r, CollectiveOp op, const std::vector<std::vector<int>>& groups,
                                          const std::vector<int>& node_of_host, double bytes, const NcclChoice& how);

/// The server of every host node of a scenario's fabric (−1 for a host that is no GPU).
std::vector<int> serverOfHost(const ScenarioFabric& f);

/// How a job's collectives run (training.hpp, inference.hpp): as NCCL runs them, with runGroupedNcclCollective,
/// when the servers of the fabric's GPUs are known; without it, plain rings that pay the fabric's latency at every
/// step.
struct JobComm {
    std::vector<int> server_of_host;  ///< serverOfHost of the fabric
    std::string architecture;         ///< the GPUs' ("hopper", ...): NCCL's ceilings per channel
};
/// A scenario fabric's.
JobComm jobComm(const ScenarioFabric& f);

}  // namespace ct::sim::net
