#pragma once
// The engine's state and its steps, one domain per file: engine.cpp (building, events, the public API),
// engine_equipment.cpp (nodes, GPUs, the power chain, liquid loops), engine_air.cpp (the room air through an
// AirSolver), engine_frame.cpp (the frame and its metrics). Private to ct_sim.
#include <clustertwin/sim/engine.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include "engine_state.hpp"

#include <clustertwin/model/units.hpp>

#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ct::sim {

namespace detail {
inline constexpr double kRhoCp = model::units::kAirDensityKgM3 * model::units::kAirCpJPerKgK;  // J/(m³·K)
inline constexpr double kInletLimitC = 27.0;       // ASHRAE recommended upper inlet (RCI_HI, alerts)
inline constexpr double kInletAllowableC = 32.0;   // ASHRAE A1 allowable upper inlet
inline constexpr double kInletLowC = 18.0, kInletLowAllowableC = 15.0;
// ASHRAE class A4 allowable upper inlet: no IT equipment class is specified to run above it, so real servers
// would throttle to a stop or shut down; a modelled hall past it is outside what the model represents.
inline constexpr double kInletShutdownC = 45.0;
} // namespace detail

using namespace detail;

struct Engine::Impl {
    Backend air_backend = Backend::Cpu;
    std::string air_solver;  ///< the name of the room-air solver
    model::Scenario scenario;
    model::Catalog catalog;
    EngineOptions opt;
    std::shared_ptr<Workload> workload;
    ThreadPool pool;
    double t = 0;
    EngineStats stats;
    model::Frame frame;

    std::vector<HallRt> halls;
    std::vector<NodeRt> nodes;
    std::vector<RackRt> racks;
    std::vector<UnitRt> units;
    std::vector<CduRt> cdus;
    std::vector<LoopRt> loops;
    std::vector<RackPduRt> rpdus;
    std::vector<ChainRt> pdus, ups, txs, feeds;
    std::vector<double> feed_prev_w;  ///< each feed's load at the last step, for its ramp rate
    std::vector<model::Event> timeline;  // sorted by time
    std::size_t next_event = 0;
    std::set<std::string> active_alerts;
    bool physics_alerted = false;  ///< physics_range raised and not yet back in range
    std::unordered_map<std::string, int> node_by_id, rack_by_id, unit_by_id, cdu_by_id, rpdu_by_id, pdu_by_id, ups_by_id,
        feed_by_id, loop_by_id, tx_by_id;

    Impl(const model::Scenario& s, const model::Catalog& c, const EngineOptions& o, std::shared_ptr<Workload> w)
        : scenario(s), catalog(c), opt(o), workload(std::move(w)), pool(o.threads) {}

    void build();
    void buildAir(int h);
    void collectAirStats();
    void applyEvents();
    void applyEvent(const model::Event& e);
    void equipment();
    void airflowTargets();
    void hallAirflow(HallRt& hr);
    void rackAir(RackRt& rr, AirModel& air, double sub);
    void unitAir(HallRt& hr, AirModel& air, double sub);
    void advanceAir(double dt);
    void gpuTemperatures(double dt);
    void liquid();
    /// Which feeds, transformers, UPSs, PDUs and rack PDUs are live (equipment() then powers the nodes on them).
    void feedsAlive();
    /// What every rack PDU, PDU, UPS, transformer and feed carries and loses, from the nodes' PSU draw that
    /// equipment() set (the step's order: feedsAlive(), equipment(), powerChain()).
    void powerChain();
    std::vector<std::vector<int>> rpdu_nodes;  ///< the nodes each rack PDU feeds, in node order (built once)
    /// A node's draw at its PSUs (AC, losses, heat to air) from its DC load and live feeds.
    void nodePsus(NodeRt& n) const;
    void finishFrame(bool with_air);
    /// Hall h's air field for the frame: temperatures (NaN in solids), cell-centred velocity, streamline seeds.
    model::AirField hallAirField(std::size_t h) const;
    /// Raises physics_range when the hottest inlet passes kInletShutdownC (once per excursion).
    void physicsRange(model::Frame& f);
    void alert(const std::string& kind, const std::string& entity, const std::string& msg, bool active,
               double value = std::numeric_limits<double>::quiet_NaN(), double threshold = std::numeric_limits<double>::quiet_NaN());
    /// alert() for the checks made on every entity at every step (GPUs, racks, rack PDUs): only when `active`
    /// differs from `raised` (what this check last did for this entity), so a step where nothing changes builds
    /// no message and looks nothing up; `msg()` makes the message.
    template <class Msg>
    void alertOnChange(bool& raised, const char* kind, const std::string& entity, bool active, Msg&& msg,
                       double value = std::numeric_limits<double>::quiet_NaN(), double threshold = std::numeric_limits<double>::quiet_NaN()) {
        if (active == raised) return;
        raised = active;
        alert(kind, entity, msg(), active, value, threshold);
    }
    bool frame_ids = false;  ///< the frame's GPU and node ids are in place (ensureFrameIds fills them once)
    std::vector<std::size_t> node_gpu0;  ///< each node's first GPU in the frame
    /// The frame's GPU and node entries, sized and named once.
    void ensureFrameIds();
    /// Node ni's frame entry and its GPUs' from the node's state.
    void writeNodeFrame(std::size_t ni);
    bool node_frame_fresh = false;  ///< gpuTemperatures() wrote every node's frame entries this step

    /// fn(i) for i in [0, count): across the pool in fixed chunks when the site is large (a campus has 12,800
    /// nodes), else in this thread. fn(i) may write only item i's state (and read anything constant), so the
    /// result is the same either way.
    template <class F>
    void forEach(std::size_t count, F&& fn) {
        constexpr std::size_t chunks = 64;
        if (nodes.size() < kParallelNodes || pool.size() < 2 || count < chunks) {
            for (std::size_t i = 0; i < count; ++i) fn(i);
            return;
        }
        pool.run(chunks, [&](std::size_t c) {
            for (std::size_t i = c * count / chunks; i < (c + 1) * count / chunks; ++i) fn(i);
        });
    }
    template <class F>
    void forNodes(F&& fn) {
        forEach(nodes.size(), std::forward<F>(fn));
    }
    static constexpr std::size_t kParallelNodes = 2048;
    /// Asks the memory for what a node pass will read a few nodes ahead (call it with the node at hand): the room
    /// air's sweeps evict the nodes between steps, and a node's GPUs, levels, feeds and rack sit behind pointers
    /// (a chain of cache misses per node otherwise). A hint only: no effect on results. Not inlined: GCC drops
    /// an inlined call whose only effect is a prefetch (it counts as no effect at all).
    __attribute__((noipa)) void prefetchNode(std::size_t ni) const {
        constexpr std::size_t kAhead = 16;
        if (ni + 2 * kAhead < nodes.size()) prefetchLines(&nodes[ni + 2 * kAhead], sizeof(NodeRt));
        if (ni + kAhead < nodes.size()) {
            const NodeRt& n = nodes[ni + kAhead];
            prefetchLines(n.gpus.data(), n.gpus.size() * sizeof(GpuRt));
            prefetchLines(n.levels.data(), n.levels.size() * sizeof(n.levels[0]));
            prefetchLines(n.feeds.data(), n.feeds.size() * sizeof(int));
            if (n.rack >= 0) prefetchLines(&racks[static_cast<std::size_t>(n.rack)], sizeof(RackRt));
        }
        if (ni + kAhead / 2 < nodes.size()) {  // its rack asked for kAhead / 2 nodes ago: now the rack's levels
            const int r = nodes[ni + kAhead / 2].rack;
            if (r >= 0) prefetchLines(racks[static_cast<std::size_t>(r)].levels.data(), racks[static_cast<std::size_t>(r)].levels.size() * sizeof(RackLevel));
        }
    }
    static void prefetchLines(const void* p, std::size_t bytes) {
        for (std::size_t o = 0; o < bytes; o += 64) __builtin_prefetch(static_cast<const char*>(p) + o);
    }
};

} // namespace ct::sim
