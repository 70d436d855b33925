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
    void powerChain();
    void finishFrame(bool with_air);
    /// Raises physics_range when the hottest inlet passes kInletShutdownC (once per excursion).
    void physicsRange(model::Frame& f);
    void alert(const std::string& kind, const std::string& entity, const std::string& msg, bool active,
               double value = std::numeric_limits<double>::quiet_NaN(), double threshold = std::numeric_limits<double>::quiet_NaN());
};

} // namespace ct::sim
