#pragma once
// The parts of NCCL's algorithms that one collective (nccl.cpp) and the same collective in many groups at once
// (nccl_grouped.cpp) share: internal to the network model.
#include <clustertwin/sim/nccl.hpp>

#include <tuple>
#include <vector>

namespace ct::sim::net::nccl_detail {

using Xfers = std::vector<std::tuple<int, int, double>>;

/// One collective's ranks on the fabric and what NCCL knows of them.
struct Setup {
    Setup(const Topology& topo, Router& router, CollectiveOp o, const std::vector<int>& rk, const std::vector<int>& nodes_of, double b,
          int ch)
        : t(topo), r(router), op(o), ranks(rk), node_of(nodes_of), bytes(b), channels(ch) {}
    const Topology& t;
    Router& r;
    CollectiveOp op;
    const std::vector<int>& ranks;
    const std::vector<int>& node_of;
    double bytes;
    int channels;
    std::vector<std::vector<int>> seg;  ///< each node's ranks in ring order; empty when not contiguous
    int nodes = 1, per_node = 1;
    ChannelCaps caps;          ///< NCCL's ceilings for these GPUs (none when unknown)
    std::string architecture;  ///< the GPUs' (NCCL's tables)
    double nvlink_share = 1;   ///< nvlinkShare of the architecture
    bool sharp = false;        ///< the switches reduce in the network (CollNet can run)
    /// The fabric's own latency of each ring hop of every channel (and whether it crosses the network), and the
    /// longest tree hop inside and between nodes: routed once for `channels`, priced per protocol by ringLatency
    /// and treeLatency (the tuner prices six candidates).
    mutable int ring_phys_channels = -1, tree_phys_channels = -1;
    mutable std::vector<std::vector<std::pair<double, bool>>> ring_phys;
    mutable double tree_intra_phys = -1, tree_net_phys = -1;  ///< −1: no such hop
};

/// Checks the arguments and fills the setup's channels, segments, node counts and ceilings. Throws SimError.
Setup makeSetup(const Topology& t, Router& r, CollectiveOp op, const std::vector<int>& ranks, const std::vector<int>& node_of, double bytes,
                const NcclChoice& how);
/// The algorithms and protocols `how` leaves to the tuner (or the one it names); throws SimError for an
/// algorithm the op or the rank order cannot take.
void candidates(const Setup& s, const NcclChoice& how, std::vector<Algo>& algos, std::vector<Proto>& protos);

/// A collective's bus bandwidth over its algorithm bandwidth, as nccl-tests reports it.
double busFactor(CollectiveOp op, int n);
/// The least bandwidth time NCCL's measured ceiling allows this algorithm and protocol on `channels` (0: none).
double ceilingTime(const Setup& s, Algo a, Proto p, int channels);
/// One step's bandwidth time: the transfers drain from the step's start (their path latency is counted along the
/// chunk's path instead), `bytes / efficiency` each, those that cross only NVLink also over `nvlink_share`, equal
/// transfers as one flow of their weight; adds the arcs' bytes `times` times. Returns the time times `times`, NaN
/// when a pair has no route.
double drain(const Topology& t, Router& r, const Xfers& x, double efficiency, int times, std::vector<double>& arc_bytes, int& stalled,
             double nvlink_share = 1);

/// Whether a path is all NVLink (inside one server's NVLink domain); false for an empty one.
bool nvlinkOnly(const Topology& t, const std::vector<int>& path);

/// NVLS (nccl_nvls.cpp): whether this all-reduce can run on the NVSwitch (one server of Hopper or later GPUs,
/// every rank reaching the others through NVLink alone).
bool nvlsPossible(const Setup& s);
/// NVLS's algorithm bandwidth as NCCL's model has it: a head per GPU, each at the fastest speed of NCCL's search
/// table within its share of the GPU's effective NVLink bandwidth, times the NVLS efficiency.
double nvlsAlgorithmBandwidth(const Setup& s);
/// NVLS's latency: NCCL's NVLink hop for NVLS at Simple (25 µs), once.
double nvlsLatency();
/// Runs NVLS: every GPU sends the buffer up to the NVSwitch and receives the reduced buffer back (bytes on its
/// uplink and downlink added to `arc_bytes`). Returns the bandwidth time (nvlsLatency comes on top); a head per
/// GPU.
double runNvls(const Setup& s, std::vector<double>& arc_bytes, int& stalled);

/// NCCL's double binary tree over `n` nodes: tree 0 a heap (node i's parent (i − 1) / 2), tree 1 the same over
/// the mirrored numbering, so that the leaves of one (about half the nodes) are inner nodes of the other. −1: root.
int treeParent(int tree, int i, int n);
/// The longest path from a node to the root of that tree.
int treeDepth(int tree, int n);

/// NVLS over one server's GPUs (`gpus`, on one NVSwitch): its algorithm bandwidth (nvlsAlgorithmBandwidth's model),
/// and the buffer once up and once down each GPU's NVLink added to `arc_bytes`.
double nvlsBandwidthOf(const Setup& s, const std::vector<int>& gpus);
void nvlsArcBytes(const Setup& s, const std::vector<int>& gpus, double bytes, std::vector<double>& arc_bytes, int& stalled);

/// Across servers (nccl_across.cpp). NVLS-tree: NVLS inside every server, and between servers each GPU (a head,
/// with its NIC) runs NCCL's double binary tree over its share of the buffer with the same GPU of the other
/// servers. CollNet (chain): in each channel a chain through a server's GPUs to the channel's GPU, which sends
/// its server's sum up the switches' reduction tree (SHARP) and receives the total, then back down the chain.
/// Why the algorithm cannot run here ("" when it can).
std::string nvlsTreeUnfit(const Setup& s);
std::string collNetUnfit(const Setup& s);
/// What NCCL's tuner expects of NVLS-tree (its heads at NVLS's speed, half that between more than two servers,
/// as tuning.cc's bwInter / 2), bytes/s of algorithm bandwidth, and its latency (NVLS's NVLink hop, then 2 ·
/// log2(servers) network hops of hwLat[NET][NVLS_TREE][Simple], 14 µs, or the path's where longer).
double nvlsTreeTunerBandwidth(const Setup& s);
double nvlsTreeLatency(const Setup& s);
/// The bandwidth parts. NVLS-tree: the slowest server's NVLS time (its arcs' bytes added) and the trees'
/// transfers between the servers' GPUs. CollNet: the chains' transfers; collNetSharp adds each channel's share
/// once up and once down every link of its reduction tree (`sharp_bytes`, per arc) and returns nothing: the
/// time is the most loaded link's (sharpTime), after every group's trees are in.
double nvlsTreeIntra(const Setup& s, std::vector<double>& arc_bytes, int& stalled);
Xfers nvlsTreeXfers(const Setup& s);
Xfers collNetChainXfers(const Setup& s);
void collNetSharp(const Setup& s, std::vector<double>& sharp_bytes);
double sharpTime(const Topology& t, const std::vector<double>& sharp_bytes);
/// CollNet chain's latency (tuning.cc: 2 · (GPUs a server − 1) NVLink hops of 2.8 µs and one network hop of 30 µs,
/// or the paths' where longer).
double collNetLatency(const Setup& s);
/// Runs either on the fabric (time, latency, channels, arc bytes).
CollectiveResult runAcross(const Setup& s, Algo a);

/// The channels NCCL runs a collective of this size on (fewer than the communicator's for small messages).
int ncclChannels(const Setup& s, Algo a, Proto p);
/// The transfers of one ring step of every channel, and how many such steps the op takes (`repeat`); a
/// broadcast's or reduce's pipelined chain once.
Xfers ringXfers(const Setup& s, int& repeat);
/// The transfers of both trees of every channel, up and down at once.
Xfers treeXfers(const Setup& s);
/// The latency part: the base and the slowest chunk's path.
double ringLatency(const Setup& s, const ProtocolCost& cost);
double treeLatency(const Setup& s, const ProtocolCost& cost);
double alltoallLatency(const Setup& s, const ProtocolCost& cost);

/// What NCCL's tuner picks among the candidates by its cost model (latency plus bytes over the algorithm
/// bandwidth that the ring at Simple reaches on this fabric). `simple`, when given, receives that ring run.
std::pair<Algo, Proto> pick(const Setup& s, const std::vector<Algo>& algos, const std::vector<Proto>& protos,
                            CollectiveResult* simple = nullptr);

}  // namespace ct::sim::net::nccl_detail
