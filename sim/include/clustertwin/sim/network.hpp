#pragma once
// The network model (models.md §5): topologies as graphs of directed links, shortest-path routing with ECMP,
// flow-level max-min fair sharing (progressive filling), and an event-driven flow simulation.
#include <clustertwin/sim/backend.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace ct::sim::net {

enum class NodeKind { Host, Switch, NvSwitch };
enum class LinkKind { NvLink, InfiniBand, Ethernet };
const char* toString(LinkKind k);

/// How a switch picks among equal next hops. DModK: by the destination's fabric address (its leaf and port),
/// digit by digit up the tree, as InfiniBand's subnet manager routes fat trees (OpenSM ftree): deterministic,
/// and contention-free downwards for any permutation. Ecmp: a hash of source and destination addresses, as
/// Ethernet/RoCE switches do. Neither depends on node indices, names or the order of the scenario file.
enum class Routing { DModK, Ecmp };
const char* toString(Routing r);
/// "dmodk" or "ecmp"; throws SimError otherwise.
Routing routingFromString(const std::string& s);

struct NetNode {
    std::string id;
    NodeKind kind = NodeKind::Host;
    int level = 0;     ///< 0 hosts, 1 leaf/edge, 2 spine/aggregation, 3 core; NVSwitch −1
    std::string rack;  ///< where it sits in the hall ("" = not placed)
    int address = -1;  ///< hosts: position in the fabric (leaf · ports per leaf + port); −1 = unknown
};

/// One direction of a full-duplex cable: each direction has its own capacity.
struct Arc {
    int from = 0, to = 0;
    double capacity_Bps = 0;  ///< bytes per second
    double latency_s = 0;
    LinkKind kind = LinkKind::InfiniBand;
    int cable = 0;    ///< index of the physical link (both directions share it)
    int ordinal = 1;  ///< 1 for the first cable between its two ends, 2 for a parallel second ...
};

class Topology {
public:
    int addNode(std::string id, NodeKind kind, int level = 0, std::string rack = {});
    /// A full-duplex link: two arcs of `capacity_Bps` each. Returns the cable index.
    int addLink(int a, int b, double capacity_Bps, double latency_s, LinkKind kind);

    int nodeCount() const { return static_cast<int>(nodes_.size()); }
    int arcCount() const { return static_cast<int>(arcs_.size()); }
    int cableCount() const { return static_cast<int>(arcs_.size() / 2); }
    const NetNode& node(int i) const { return nodes_[i]; }
    const Arc& arc(int a) const { return arcs_[a]; }
    const std::vector<int>& out(int node) const { return out_[node]; }
    /// Node index by id; −1 when unknown.
    int find(const std::string& id) const;
    /// A readable id for a cable: "a<->b", "a<->b#2" for the second of parallel cables.
    std::string cableId(int cable) const;
    /// The cable named "a<->b" (the first between a and b, either way round) or "a<->b#k"; −1 when unknown.
    int cableByName(const std::string& id) const;
    /// Every cable between the ends of "a<->b" (all parallel ones), or just "a<->b#k".
    std::vector<int> cablesByName(const std::string& id) const;
    /// Overrides both directions of a cable.
    void setCableCapacity(int cable, double capacity_Bps);
    void setCableLatency(int cable, double latency_s);
    void setAddress(int node, int address) { nodes_.at(node).address = address; }

    void setCableFailed(int cable, bool failed);
    void setNodeFailed(int node, bool failed);
    bool arcUp(int a) const { return !cable_failed_[arcs_[a].cable] && !node_failed_[arcs_[a].from] && !node_failed_[arcs_[a].to]; }
    /// Bumped on every failure or restore, so routes can be recomputed.
    std::uint64_t version() const { return version_; }

    std::vector<int> hosts() const;

    /// Set by the fat-tree builders: switches sit on levels 1..3 with links only between adjacent levels and
    /// hosts on level-1 switches (and NVSwitches), so the router can route up/down without a search.
    void setLayered(bool on) { layered_ = on; }
    bool layered() const { return layered_; }
    void setRouting(Routing r) { routing_ = r; }
    Routing routing() const { return routing_; }

private:
    bool layered_ = false;
    Routing routing_ = Routing::DModK;
    std::vector<NetNode> nodes_;
    std::vector<Arc> arcs_;
    std::vector<std::vector<int>> out_;
    std::vector<char> cable_failed_, node_failed_;
    std::unordered_map<std::string, int> by_id_;
    std::uint64_t version_ = 0;
};

struct FatTreeParams {
    int hosts = 16;
    int radix = 64;               ///< switch ports
    int levels = 2;               ///< 2 (leaf/spine) or 3 (edge/aggregation/core)
    double oversubscription = 1;  ///< down:up ports at the leaf/edge
    double link_Bps = 50e9;
    double latency_s = 1e-6;
    std::string prefix;  ///< id prefix for switches ("" or "rail3-")
};

/// Builds a fat tree onto `t` over existing host nodes, cabled in the order given (host i on leaf i / down, port
/// i % down: its fabric address is i). The leaf splits its ports exactly down:up = oversubscription
/// (model::fatTreeShape). Two levels: the fewest spines whose ports take every uplink, a leaf's uplink port p
/// cabled to spine p mod spines (parallel cables when a leaf has more uplinks than there are spines). Three
/// levels: pods of radix/2 edges and `up` aggregation switches. Throws SimError saying what the radix allows
/// when it cannot connect that many hosts at that oversubscription.
void buildFatTree(Topology& t, const std::vector<int>& host_nodes, const FatTreeParams& p);

/// A 2-level fat tree with explicit counts (hosts per leaf, leaves, spines), every link equal: the SimGrid
/// reference shape. Hosts are "h0".."hN−1".
Topology smallFatTree(int hosts_per_leaf, int leaves, int spines, double link_Bps, double latency_s);

struct ClusterParams {
    int nodes = 32;
    int gpus_per_node = 8;
    std::string topology = "rail-optimized";  ///< "fat-tree" (one NIC port per GPU on a shared tree) or "rail-optimized"
    Routing routing = Routing::DModK;
    int levels = 2;
    int radix = 64;
    double oversubscription = 1;
    double nic_Bps = 50e9;      ///< 400 Gb/s
    double nvlink_Bps = 450e9;  ///< per GPU into the NVSwitch (H100: 900 GB/s both ways)
    double latency_s = 1e-6;
    double nvlink_latency_s = 0.5e-6;
    std::vector<std::string> node_ids;  ///< optional names (scenario node ids); GPUs are "<node>/gpu<i>"; cabled in this order
    std::vector<std::string> node_racks;
};

/// GPU clusters: each node's GPUs hang on an NVSwitch over NVLink; every GPU's NIC port joins one fat tree —
/// rail-optimized: GPU i of consecutive nodes share leaf i (the NIC is folded into its GPU's host port);
/// "fat-tree": a node's GPUs share a leaf. Throws SimError on impossible parameters (radix too small...).
Topology buildCluster(const ClusterParams& p);

/// Shortest paths (by latency, then hops); among equal next hops the topology's Routing chooses (D-mod-k or
/// ECMP), so a pair always takes the same path. On fat trees (up/down routing) the choice is made among the
/// next hops the healthy fabric would offer: when a link fails only the pairs that used it move, together, to
/// the next live member. Distances are computed per destination on demand and cached until the topology changes.
class Router {
public:
    explicit Router(const Topology& t) : t_(t) {}
    /// Arcs from `src` to `dst`; empty when unreachable (or src == dst).
    std::vector<int> route(int src, int dst);
    double latency(const std::vector<int>& path) const;

private:
    const std::vector<std::int64_t>& distancesTo(int dst);
    std::int64_t cost(int arc) const;
    std::vector<int> routeUpDown(int src, int dst);
    void refreshBelow();
    const Topology& t_;
    // Up/down routing: for each switch, the level-1 switches reachable by going only down (bitsets).
    std::vector<std::vector<std::uint64_t>> below_, below_all_;  ///< with the current failures / ignoring them
    std::vector<int> leaf_index_;
    std::vector<int> parents_;  ///< distinct switches one level up, per switch (the healthy fabric)
    /// Per switch, its arcs to switches one level up and one level down, in the order of Topology::out, and the
    /// switch each down arc leads to (read there rather than from the arcs: a route scans them all).
    std::vector<std::vector<int>> up_arcs_, down_arcs_, down_to_;
    std::uint64_t below_version_ = ~0ull;
    std::uint64_t version_ = ~0ull;
    std::unordered_map<int, std::vector<std::int64_t>> dist_;
};

/// Max-min fair rates (bytes/s) by progressive filling: every flow gets the largest rate such that no flow
/// could get more without another flow that has no more than it getting less. `paths[f]` lists arc indices;
/// `cap[a]` is each arc's capacity. A flow with an empty path gets +inf. With `weights`, flow f stands for
/// weights[f] equal flows on its path and gets their rate together (weights[f] times the fair share).
std::vector<double> maxMinRates(const std::vector<std::vector<int>>& paths, const std::vector<double>& cap,
                                const std::vector<double>* weights = nullptr);

struct Flow {
    int src = 0, dst = 0;
    double bytes = 0;
    double start_s = 0;
    std::vector<int> path;  ///< filled by the simulation when empty
    double weight = 1;      ///< the flow stands for this many equal flows on its path, its bytes theirs together
    // results
    double finish_s = std::numeric_limits<double>::quiet_NaN();
    double rate_Bps = 0;        ///< last rate
    double first_rate_Bps = 0;  ///< the rate it got when it started to drain
    bool stalled = false;       ///< no route
};

struct FlowSimResult {
    double end_s = 0;
    std::vector<double> arc_bytes;  ///< bytes carried per arc
    double bytes_sent = 0, bytes_delivered = 0;
    int rate_recomputations = 0;
    int stalled = 0;
};

/// Runs flows to completion: a flow waits its path latency, then drains at its max-min rate; rates are
/// recomputed whenever a flow starts or ends. Stalled flows (no route) are left unfinished.
FlowSimResult simulateFlows(const Topology& t, Router& r, std::vector<Flow>& flows);

}  // namespace ct::sim::net
