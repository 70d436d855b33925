#pragma once
// Runtime state of the engine, shared by its parts (equipment, power chain, air coupling). Private.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/air/air_solver.hpp>

#include <memory>
#include <string>
#include <vector>

namespace ct::sim::detail {

struct GpuRt {
    double temp_c = 25;
    double throttle = 1;
    double util = 0;
    double power_w = 0;
    bool failed = false;     ///< by event
    bool shutdown = false;   ///< by temperature
};

struct NodeRt {
    const model::Node* node = nullptr;
    const model::ServerModel* server = nullptr;
    const model::GpuModel* gpu = nullptr;
    int rack = -1;
    std::vector<GpuRt> gpus;
    std::vector<int> feeds;                 ///< rack PDU indices
    std::vector<std::pair<int, double>> levels;  ///< (rack level, share of the node's height)
    bool failed = false;
    bool powered = true;
    std::optional<double> override_util;
    double fan_speed = 0.3, fan_power_w = 0, airflow_m3s = 0;
    double power_dc_w = 0, power_ac_w = 0, psu_loss_w = 0;
    double heat_air_w = 0, heat_liquid_w = 0;
    double inlet_c = 20;
};

struct RackLevel {
    int intake_port = -1, exhaust_port = -1;
    double z_m = 0;
    double q_m3s = 0, heat_w = 0;
    double inlet_c = 20, exhaust_c = 20;
    double capture = 1;  ///< tracer at the intake (Capture Index)
};

struct RackRt {
    const model::Rack* rack = nullptr;
    int hall = 0;
    std::vector<int> nodes;
    std::vector<RackLevel> levels;
    std::vector<int> cdus;
};

struct UnitRt {
    const model::CoolingUnit* unit = nullptr;
    const model::CoolingUnitModel* model = nullptr;
    int hall = 0;
    int return_port = -1, supply_port = -1;
    bool failed = false;
    double setpoint_c = 18;
    double q_m3s = 0, return_c = 20, supply_c = 18, load_w = 0, fan_power_w = 0;
    double load_accum_j = 0;   ///< heat removed over the current step
    bool over_capacity = false;
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
};

struct ChainRt {   ///< floor PDU, UPS or utility feed
    std::string id;
    int parent = -1;
    double capacity_w = 0;
    const model::EfficiencyCurve* curve = nullptr;  ///< UPS only
    bool failed = false, alive = true;
    double load_w = 0, loss_w = 0;
};

struct HallRt {
    std::unique_ptr<AirSolver> solver;
    AirModel* air = nullptr;  ///< the solver's temperature side
    int tile_port = -1;   ///< raised floor: perforated tiles in front of the racks, fed by every live unit
    std::vector<int> racks, units;
};

} // namespace ct::sim::detail
