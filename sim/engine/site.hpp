#pragma once
// The engine's data-oriented state as its passes see it: the arrays of engine_state.hpp (one entry per node,
// rack, cooling unit, CDU, loop, rack PDU and power-chain stage), the pool the passes spread over, and the
// alerts they raise. Every pass (passes.hpp) works on a Site, so each can be built and tested without an Engine
// (tests/tst_engine_passes.cpp). Private to ct_sim.
#include "engine/engine_state.hpp"

#include <clustertwin/model/frame.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <limits>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ct::sim::detail {

/// The alerts a step raises. A condition alert (set, onChange) is raised once when it becomes active and again
/// only after it cleared; each goes out stamped with `t`.
class Alerts {
public:
    explicit Alerts(std::vector<model::Alert>& out) : out_(&out) {}
    double t = 0;  ///< the time stamped on what is raised (s since the run's start)

    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    void set(const std::string& kind, const std::string& entity, const std::string& msg, bool active, double value = kNone,
             double threshold = kNone);
    /// set() for the checks made on every entity at every step (GPUs, racks, rack PDUs): only when `active`
    /// differs from `raised` (what this check last did for this entity), so a step where nothing changes builds
    /// no message and looks nothing up; `msg()` makes the message.
    template <class Msg>
    void onChange(bool& raised, const char* kind, const std::string& entity, bool active, Msg&& msg, double value = kNone,
                  double threshold = kNone) {
        if (active == raised) return;
        raised = active;
        set(kind, entity, msg(), active, value, threshold);
    }
    /// A one-off alert (a GPU shut down, the hall left the model's range): out at once, not remembered.
    void event(const std::string& kind, const std::string& entity, const std::string& msg, double value = kNone, double threshold = kNone);
    bool active(const std::string& kind, const std::string& entity) const;

private:
    std::vector<model::Alert>* out_;
    std::set<std::string> active_;
};

struct Site {
    std::vector<HallRt> halls;
    std::vector<NodeRt> nodes;
    std::vector<RackRt> racks;
    std::vector<UnitRt> units;
    std::vector<CduRt> cdus;
    std::vector<LoopRt> loops;
    std::vector<RackPduRt> rpdus;
    std::vector<ChainRt> pdus, ups, txs, feeds;
    std::vector<std::vector<int>> rpdu_nodes;  ///< the nodes each rack PDU feeds, in node order (powerChain builds it)
    double facility_water_c = 18;              ///< what rear doors on the plant's own facility water get (°C)
    double unit_airflow_margin = 1.1;          ///< cooling units move this share over what the open room's racks draw
    std::unordered_map<std::string, int> node_by_id, rack_by_id, unit_by_id, cdu_by_id, rpdu_by_id, pdu_by_id, ups_by_id, feed_by_id,
        loop_by_id, tx_by_id;

    ThreadPool* workers = nullptr;  ///< null: every pass runs in the calling thread
    static constexpr std::size_t kParallelNodes = 2048;

    /// Whether a pass over `count` items goes across the pool: only for a large site (a campus has 12,800 nodes).
    bool parallel(std::size_t count, std::size_t min_count = 64) const {
        return workers && nodes.size() >= kParallelNodes && workers->size() > 1 && count >= min_count;
    }
    /// fn(i) for i in [0, count): across the pool in fixed chunks when the site is large, else in this thread.
    /// fn(i) may write only item i's state (and read anything constant), so the result is the same either way.
    template <class F>
    void forEach(std::size_t count, F&& fn) {
        constexpr std::size_t chunks = 64;
        if (!parallel(count, chunks)) {
            for (std::size_t i = 0; i < count; ++i) fn(i);
            return;
        }
        workers->run(chunks, [&](std::size_t c) {
            for (std::size_t i = c * count / chunks; i < (c + 1) * count / chunks; ++i) fn(i);
        });
    }
    template <class F>
    void forNodes(F&& fn) {
        forEach(nodes.size(), std::forward<F>(fn));
    }
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
            if (r >= 0)
                prefetchLines(racks[static_cast<std::size_t>(r)].levels.data(),
                              racks[static_cast<std::size_t>(r)].levels.size() * sizeof(RackLevel));
        }
    }
    static void prefetchLines(const void* p, std::size_t bytes) {
        for (std::size_t o = 0; o < bytes; o += 64) __builtin_prefetch(static_cast<const char*>(p) + o);
    }
};

}  // namespace ct::sim::detail
