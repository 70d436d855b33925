#pragma once
// Runtime state of the engine, shared by its parts (equipment, power chain, air coupling). Private.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/air/lattice.hpp>

#include "air/hall_air.hpp"

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ct::sim::detail {

struct GpuRt {
    double temp_c = 25;
    double throttle = 1;
    double util = 0;
    double power_w = 0;
    bool failed = false;                       ///< by event
    bool shutdown = false;                     ///< by temperature
    bool throttle_alerted = false;             ///< the throttling alert is raised (alertOnChange)
    double util_at_power = 0, util_power = 0;  ///< util^exponent, kept while util holds (equipment())
};

struct NodeRt {
    const model::Node* node = nullptr;
    const model::ServerModel* server = nullptr;
    const model::GpuModel* gpu = nullptr;
    const model::EfficiencyCurve* psu_curve = nullptr;  ///< the server's PSU curve; null: 100 %
    int rack = -1;
    std::vector<GpuRt> gpus;
    std::vector<int> feeds;                      ///< rack PDU indices
    std::vector<std::pair<int, double>> levels;  ///< (rack level, share of the node's height)
    bool failed = false;
    bool powered = true;
    bool was_powered = true;        ///< powerChain: before this pass
    int live_feeds = 0;             ///< powerChain: rack PDU feeds alive
    bool gpu_alerts = false;        ///< gpuTemperatures: a GPU shuts down or its throttling alert changes this step
    double lag_dt = -1, lag_a = 0;  ///< gpuTemperatures: 1 − exp(−dt/τ) for the step length lag_dt
    std::optional<double> override_util;
    double fan_speed = 0.3, fan_power_w = 0, airflow_m3s = 0;
    double power_dc_w = 0, power_ac_w = 0, psu_loss_w = 0;
    double cpu_w = 0;  ///< its CPUs' share of power_dc_w (equipment())
    double heat_air_w = 0, heat_liquid_w = 0;
    double inlet_c = 20;
};

struct RackLevel {
    int intake_port = -1, exhaust_port = -1;
    int front_probe = -1, back_probe = -1;  ///< pressure in the aisles off its front and back (−1: none)
    double z_m = 0;
    double q_m3s = 0, heat_w = 0;  ///< through the servers (the room's flow is q − leak)
    double open_m2 = 0;            ///< the rack's openings here (with those of levels without servers nearest it)
    double face_m2 = 0;            ///< its share of the rack's opening between the rails, where the servers draw
    double leak_m3s = 0;           ///< through the openings, back to front (recirculation); negative: bypass
    double inlet_c = 20;           ///< what the servers breathe (room air mixed with the rack's own recirculation)
    double air_in_c = 20;          ///< the room air at the rack's front
    double exhaust_c = 20;         ///< into the room, after a rear door
    double capture = 1;            ///< tracer at the intake (Capture Index)
};

struct RackRt {
    const model::Rack* rack = nullptr;
    int hall = 0;
    std::vector<int> nodes;
    std::vector<RackLevel> levels;
    std::vector<int> cdus;
    /// A fixed share of the exhaust back to the intake inside the rack; else the openings' air follows the pressure.
    std::optional<double> fixed_recirculation;
    double power_ac_w = 0, heat_liquid_w = 0;  ///< its nodes' sums, this step (airflowTargets())
    const model::RearDoorModel* door = nullptr;
    int door_loop = -1;  ///< LoopRt index; −1 = the plant's facility water
    double door_w = 0, door_accum_j = 0;
    bool door_at_capacity = false;
    bool door_alerted = false, inlet_alerted = false;  ///< alerts raised (alertOnChange)
};

struct UnitRt {
    const model::CoolingUnit* unit = nullptr;
    const model::CoolingUnitModel* model = nullptr;
    int hall = 0;
    int return_port = -1, supply_port = -1;
    bool failed = false;
    double setpoint_c = 18;
    double q_m3s = 0, return_c = 20, supply_c = 18, load_w = 0, fan_power_w = 0;
    double load_accum_j = 0;  ///< heat removed over the current step
    bool over_capacity = false;
    bool short_alerted = false;  ///< cooling_short raised (alertOnChange)
    bool inrow = false;          ///< stands in a row: returns from its back, supplies its front
    int loop = -1;               ///< LoopRt index; −1 = the plant's facility water
    bool no_water = false;       ///< its loop has failed: fans run, nothing is cooled
    /// A driven run's measured supply temperature and airflow this step (drive_pass.hpp); NaN: the model's own.
    double driven_supply_c = std::numeric_limits<double>::quiet_NaN();
    double driven_q_m3s = std::numeric_limits<double>::quiet_NaN();
    /// The scenario holds its fans at a speed (CoolingUnit::fan_speed): its rating times that; NaN: it follows.
    double held_q_m3s = std::numeric_limits<double>::quiet_NaN();
    /// What the unit can blow: its measured airflow when driven, else what its fans are held at, else its rating.
    double airflowCap() const {
        return driven_q_m3s == driven_q_m3s ? driven_q_m3s : held_q_m3s == held_q_m3s ? held_q_m3s : model->airflow_m3s;
    }
    /// Return-air control (CoolingUnit::control): setpoint_c is the return's, and the valve's integral action
    /// moves control_supply_c, the supply it aims for, settling with the time constant control_tau_s.
    bool return_control = false;
    double control_supply_c = 18, control_tau_s = 150;
    /// It moves airflowCap() whatever the racks draw: measured, or held at a fan speed.
    bool flowFixed() const { return driven_q_m3s == driven_q_m3s || held_q_m3s == held_q_m3s; }
};

struct LoopRt {
    const model::WaterLoop* loop = nullptr;
    bool failed = false;
    double load_w = 0;
};

struct CduRt {
    const model::Cdu* cdu = nullptr;
    const model::CduModel* model = nullptr;
    bool failed = false;
    double setpoint_c = 30;
    double supply_c = 30, return_c = 30, load_w = 0;
    bool over_capacity = false;
};

struct RackPduRt {
    const model::RackPdu* pdu = nullptr;
    int rack = -1, upstream = -1;
    bool failed = false, alive = true;
    double load_w = 0;
    std::array<double, 3> phase_w{0, 0, 0};
    bool breaker_alerted = false;  ///< breaker_high raised (alertOnChange)
};

struct ChainRt {  ///< floor PDU, UPS, transformer or utility feed
    std::string id;
    int parent = -1;
    double capacity_w = 0;
    const model::EfficiencyCurve* curve = nullptr;  ///< UPS only
    bool failed = false, alive = true;
    double load_w = 0, loss_w = 0;
    int via = -1;                   ///< UPS fed through a transformer: its index (parent is then −1)
    bool overload_alerted = false;  ///< feed_overload raised (alertOnChange)
    double efficiency = 1;          ///< transformer
};

struct HallRt {
    std::unique_ptr<AirSolver> solver;
    AirModel* air = nullptr;         ///< the solver's temperature side
    std::vector<int> tile_ports;     ///< raised floor: tiles in front of the racks, fed by the perimeter units
    std::vector<int> grille_ports;   ///< ducted ceiling return: grilles the perimeter units draw from
    std::vector<AirRegion> regions;  ///< [0] the room; then aisles sealed by containment
    std::vector<int> port_region;    ///< region of each port
    std::vector<int> racks, units;
    double plenum_c = 18, return_c = 20;  ///< mixed supply under the floor, mixed return above the ceiling
    // What the rest of the engine reads of the hall's air, kept here so that a hall stepped on another rank
    // (hall_ranks.hpp) has it too: its grid, its solver's figures, its point sensors' cells and readings.
    std::uint64_t cells = 0, solids = 0;
    double cell_m = 0;
    double fill_c = 22;  ///< the air it starts with
    bool approximate = false;
    std::string summary;
    std::vector<std::string> unsealed;    ///< containment that does not seal at this grid
    AirSolverStats stats;                 ///< the solver's, as of the last step
    int substeps = 0;                     ///< air sub-steps of the last step
    std::vector<int> sensor_cells;        ///< each point sensor of the hall (Hall::sensors order, racks' left out): its cell
    std::vector<double> sensor_c;         ///< what each reads (NaN in a solid)
    std::string error;                    ///< its air failed this step (why)
    std::unique_ptr<LatticeSlabs> slabs;  ///< this rank's slab of its lattice, when it is split over ranks
};

}  // namespace ct::sim::detail
