#pragma once
// The engine: its site (site.hpp: the arrays every pass works on), the scenario it was built from, the event
// timeline and the frame. engine.cpp builds it, applies events and runs the step's passes (passes.hpp:
// power_chain.cpp, equipment.cpp, liquid.cpp, air_coupling.cpp, alerts.cpp); engine_air.cpp builds and advances
// the room air through an AirSolver; engine_frame.cpp writes the frame and its metrics. Private to ct_sim.
#include <clustertwin/sim/engine.hpp>
#include <clustertwin/sim/hall_ranks.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include "engine/drive_pass.hpp"
#include "engine/passes.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace ct::sim {

using namespace detail;

struct Engine::Impl : Site {
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
    Alerts alerts{frame.alerts};

    std::vector<double> feed_prev_w;              ///< each feed's load at the last step, for its ramp rate
    std::vector<double> feed_ramp_limit_w_per_s;  ///< each feed's utility ramp limit (0: none)
    std::vector<model::Event> timeline;           // sorted by time
    std::size_t next_event = 0;
    bool physics_alerted = false;                ///< physics_range raised and not yet back in range
    DriveState drive;                            ///< measured inputs (EngineOptions::drive)
    std::vector<int> hall_rank;                  ///< which rank leads each hall (hall_ranks.hpp); all 0 in one process
    std::vector<std::vector<int>> hall_members;  ///< every rank that steps each hall (more than one: its lattice in slabs)
    int my_rank = 0;

    Impl(const model::Scenario& s, const model::Catalog& c, const EngineOptions& o, std::shared_ptr<Workload> w)
        : scenario(s), catalog(c), opt(o), workload(std::move(w)), pool(o.threads) {
        workers = &pool;
    }

    void build();
    /// The air backend and solver, the jobs' placement and the workload (checks the step and cell size).
    void chooseModels();
    void buildPowerChain();                       ///< feeds, transformers, UPSs, floor PDUs
    void buildRack(int h, const model::Rack& r);  ///< rack r of hall h, its rack PDUs and nodes
    void buildCooling(int h);                     ///< hall h's cooling units and CDUs
    int loopOf(const std::string& id) const;      ///< a water loop's index; −1: the plant's facility water
    void buildAir(int h);
    /// Whether this process steps hall h's air (alone, or a slab of its lattice).
    bool mine(std::size_t h) const {
        return hall_members.empty() || std::find(hall_members[h].begin(), hall_members[h].end(), my_rank) != hall_members[h].end();
    }
    /// Whether this process speaks for hall h in the exchange (its only or first rank).
    bool leads(std::size_t h) const { return hall_rank.empty() || hall_rank[h] == my_rank; }
    /// The halls this process steps, in order (all of them without ranks).
    std::vector<std::size_t> ownHalls() const {
        std::vector<std::size_t> own;
        for (std::size_t h = 0; h < halls.size(); ++h)
            if (mine(h)) own.push_back(h);
        return own;
    }
    /// Whether the halls are spread over ranks.
    bool spread() const { return opt.hall_ranks != nullptr && opt.hall_ranks->size() > 1; }
    /// hall_ranks.cpp: assigns the halls to ranks (every hall this process's without ranks).
    void assignRanks();
    /// hall_ranks.cpp: every hall's grid and its racks' levels at every rank (after buildAir of this rank's).
    void shareLayout();
    /// After this rank's halls moved their air (or set their port flows): their sensors read, what they give the
    /// site sent to every rank, the halls' figures summed. Throws SimError for the first hall that failed.
    void afterAir();
    /// hall_ranks.cpp: what this rank's halls give the site, to every rank.
    void shareAir();
    /// hall_ranks.cpp: at rank 0 every hall's air field in the frame (f.air, f.other_halls_air); elsewhere none.
    void gatherAirFields(model::Frame& f);
    /// Every rank's message to every rank, the bytes from the others counted (EngineStats::exchanged_bytes).
    std::vector<std::string> allGather(const std::string& mine);
    void collectAirStats();
    void applyEvents();
    void applyEvent(const model::Event& e);
    /// rackAirflow, then every hall's port flows (a campus's halls across the pool).
    void airflowTargets();
    void advanceAir(double dt);
    /// On the CPU with T threads and at least T of this process's halls (none split in slabs): the q·T largest
    /// (q = halls / T) in T groups balanced by their cells, each group's halls (their places in `own`) to be
    /// stepped one after another on one thread, the groups side by side; empty otherwise.
    std::vector<std::vector<std::size_t>> cpuHallGroups(const std::vector<std::size_t>& own) const;
    /// One hall's air over dt with its racks' and units' coupling each sub-step; returns the sub-steps.
    int advanceHall(HallRt& hr, double dt);
    /// Every node's inlet and GPU temperatures after dt, its frame entries in the same pass, then the GPU alerts.
    void gpuTemperatures(double dt);
    void finishFrame(bool with_air);
    /// The racks' frame entries and the hall metrics (RCI, RTI, SHI, heat into the air).
    void frameRacks(model::Frame& f);
    /// What each of the scenario's sensors reads (a rack's front or rear air at its height, or the room's air at
    /// its point), into f.sensors.
    void frameSensors(model::Frame& f);
    struct SensorRt {
        const model::Sensor* sensor = nullptr;
        int rack = -1;      ///< RackRt index of a rack sensor
        int hall = -1;      ///< HallRt index of a point sensor
        int cell = -1;      ///< a point sensor's place among its hall's (HallRt::sensor_c)
        bool rear = false;  ///< a rack's rear (its exhaust) rather than its front
    };
    std::vector<SensorRt> sensors;  ///< built at the first frame
    bool sensors_built = false;
    /// Cooling units, loops and CDUs; returns the cooling's own power (fans, pumps, the chiller's share).
    double frameCooling(model::Frame& f);
    /// Rack PDUs, the power chain and the site's totals (losses, PUE).
    void framePower(model::Frame& f, double cooling_w);
    /// Hall h's air field for the frame: temperatures (NaN in solids), cell-centred velocity, streamline seeds.
    model::AirField hallAirField(std::size_t h) const;
    /// An alert stamped with the engine's time (Alerts::set).
    void alert(const std::string& kind, const std::string& entity, const std::string& msg, bool active) {
        alerts.t = t;
        alerts.set(kind, entity, msg, active);
    }
    bool frame_ids = false;              ///< the frame's GPU and node ids are in place (ensureFrameIds fills them once)
    std::vector<std::size_t> node_gpu0;  ///< each node's first GPU in the frame
    /// The frame's GPU and node entries, sized and named once.
    void ensureFrameIds();
    /// Node ni's frame entry and its GPUs' from the node's state.
    void writeNodeFrame(std::size_t ni);
    bool node_frame_fresh = false;  ///< gpuTemperatures() wrote every node's frame entries this step
};

}  // namespace ct::sim
