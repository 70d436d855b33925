#pragma once
// The simulation engine (models.md §2–4, §6): one clock; time-stepped power, equipment heat, liquid loops and
// room air; a timeline of events. Each step produces a model::Frame.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/drive.hpp>
#include <clustertwin/sim/workload.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ct::sim {

class HallRanks;  // hall_ranks.hpp

struct EngineOptions {
    double step_s = 1.0;          ///< engine step; the air model sub-steps within it
    double cell_m = 0.25;         ///< air grid cell, 0.1–0.5 m
    int threads = 0;              ///< grid threads; 0 = one per hardware thread
    double kappa_m2s = 0.01;      ///< effective (turbulent) diffusivity of heat in room air
    double flow_residual = 1e-6;  ///< relative residual of the potential-flow solve
    double flow_resolve_change =
        0.05;  ///< quick: re-solve the flow when the port flows moved by this share of the hall's airflow, or one port by twice this share of its own
    /// quick: the air's sub-step where the explicit limit is shorter (AirGridSpec::substep_s); 0 = the strict limit
    double quick_substep_s = 0.1;
    double unit_airflow_margin = 1.1;  ///< cooling units blow this multiple of the racks' airflow (up to their maximum)
    std::uint64_t max_grid_bytes = 0;  ///< 0 = 80 % of physical memory
    std::string backend = "cpu";       ///< "cpu" (reference); "cuda" arrives with issue 7
    /// Room-air solver (airSolverNames()): "" takes the scenario's simulation.air, and lbm when it has none.
    std::string air;
    /// lbm: once the flow has settled, the lattice runs one engine step in this many (LbmAirSpec::lattice_stride).
    int lattice_stride = 4;
    /// lbm: the stride grows while the flows hold, up to one lattice run in this much time (LbmAirSpec).
    double lattice_stride_max_s = 16.0;
    double lattice_mach = 0.15;  ///< lbm: the lattice Mach number at the fastest air (LbmAirSpec::mach)
    /// lbm: the heat transport's sub-step where the explicit limit is shorter (AirGridSpec::substep_s); 0 = strict
    double heat_substep_s = 0.05;
    int lattice_levels = 6;           ///< lbm: how far the lattice step may lengthen while the ports blow slower (LbmAirSpec)
    double lattice_soft_start = 2.0;  ///< lbm: the ports' soft start, in sound crossings (LbmAirSpec::soft_start_crossings)
    /// Measured series that drive inputs in place of the model (drive.hpp); each names a scenario entity.
    std::vector<DriveSeries> drive;
    /// The processes the halls are spread over (hall_ranks.hpp); null or one rank: this process steps them all.
    /// Every rank builds its engine with the same scenario and options and steps it in lockstep; rank 0's
    /// frames carry every hall's air field.
    std::shared_ptr<const HallRanks> hall_ranks;
};

/// The phases of Engine::step() outside the room air, as EngineStats::phase_seconds orders them.
inline constexpr const char* kEnginePhases[] = {"events", "workload",         "feeds", "equipment", "power chain", "airflow targets",
                                                "liquid", "GPU temperatures", "frame"};

/// Counters for progress and benchmarks.
struct EngineStats {
    std::int64_t steps = 0;
    std::int64_t air_substeps = 0;
    std::int64_t flow_solves = 0;
    std::int64_t flow_iterations = 0;
    std::uint64_t grid_cells = 0;
    std::int64_t lattice_steps = 0;
    int lattice_restarts = 0;     ///< lbm: restarts after the lattice went unstable, each at 1/√2 of the step (any hall)
    int lattice_rescales = 0;     ///< lbm: changes of the lattice step with the ports' fastest air (all halls)
    double lattice_seconds = 0;   ///< lbm: simulated time the lattices ran (all halls)
    double max_air_speed_ms = 0;  ///< lbm: the fastest mean air anywhere in any hall (m/s), against the lattice's Mach
    double max_lattice_mach = 0;  ///< lbm: the highest lattice Mach number of any hall's fastest mean air
    double last_flow_residual = 0;
    double max_divergence_error = 0;
    double flow_seconds = 0;   ///< wall time in the air's flow solves (quick) or flux projections (lbm)
    double air_seconds = 0;    ///< wall time of step() in the room air (flow solves included)
    double other_seconds = 0;  ///< wall time of step() outside the room air: events, jobs, power, equipment, liquid, GPUs, the frame
    /// other_seconds phase by phase, in step order (kEnginePhases names them).
    static constexpr int kPhases = 9;
    double phase_seconds[kPhases] = {};
    static_assert(sizeof(kEnginePhases) / sizeof(kEnginePhases[0]) == EngineStats::kPhases, "one name per phase");
    std::string air_solver;        ///< the room-air solver in use ("lbm", "quick")
    bool air_approximate = false;  ///< quick mode: label results approximate
    std::string air_summary;       ///< one line per hall: method, grid, time step
    int ranks = 1;                 ///< the processes the halls were spread over (EngineOptions::hall_ranks)
    std::vector<int> hall_ranks;   ///< which of them stepped each hall's air (scenario order): its first rank
    std::vector<int> hall_slabs;   ///< over how many ranks each hall's lattice was split (1: whole on one)
    /// This process's halls whose air the last step advanced side by side, each on a thread of its own (the
    /// rest went one after another, each across every thread).
    int halls_side_by_side = 0;
    /// Over ranks: the bytes this rank received from the others (their halls' layout once, their halls' air
    /// every step, at rank 0 their air fields; in a hall split over ranks, its slabs' edge rows and gathers).
    std::uint64_t exchanged_bytes = 0;
};

class Engine {
public:
    /// Builds the models. Throws SimError: a grid too fine for memory (saying how much it needs), a rack whose
    /// intake or exhaust is blocked, a backend that is not available, bad options. The scenario must be valid.
    /// Without a workload, jobs with a training or inference description run on the network-coupled job
    /// model (JobWorkload) and the others follow their utilization profiles.
    Engine(const model::Scenario& s, const model::Catalog& c, const EngineOptions& opt, std::shared_ptr<Workload> workload = nullptr);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    /// Adds events to the timeline (the scenario's own are already there). Validate them first.
    void addEvents(const std::vector<model::Event>& events);
    /// Advances one step and returns its frame (the air field only when asked).
    const model::Frame& step(bool with_air_field = false);
    const model::Frame& frame() const;
    /// The scenario's jobs as the engine runs them: those that asked for a number of GPUs have their nodes.
    const std::vector<model::Job>& jobs() const;
    double timeS() const;
    const EngineStats& stats() const;
    /// One flow-through time of the room air (fluid volume / air the units blow in now), in seconds; the window
    /// of SteadyDetector. Infinite without airflow.
    double flowThroughTimeS() const;
    /// How each driven input ran so far (EngineOptions::drive): empty when nothing is driven.
    const std::vector<DriveCount>& driveCounts() const;
    /// Air temperature at a point (°C); NaN inside solids.
    double airTemperatureAt(double x_m, double y_m, double z_m, int hall = 0) const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

}  // namespace ct::sim
