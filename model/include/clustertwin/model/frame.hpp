#pragma once
// One step of a simulated or replayed run: per-entity values plus totals and metrics. Defined in model so
// render and app read frames without linking sim (docs/contributing.md). Plain data; SI units, °C.
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ct::model {

struct GpuFrame {
    std::string id;          ///< "<node>/gpu<i>"
    double utilization = 0;  ///< effective, after throttling (0..1)
    double power_w = 0;
    double temp_c = 0;
    double throttle = 1;  ///< clock factor 0..1 (1 = full clocks)
    bool failed = false;  ///< failed or shut down
};

struct NodeFrame {
    std::string id;
    double power_dc_w = 0;  ///< load behind the PSUs
    double power_ac_w = 0;  ///< drawn from the PDUs
    double psu_loss_w = 0;
    double fan_speed = 0;  ///< 0..1
    double fan_power_w = 0;
    double airflow_m3s = 0;
    double inlet_c = 0;  ///< air in front of the node (or coolant supply for liquid-cooled GPUs)
    /// Air leaving the node's rear: the inlet plus the heat it gives the air over its airflow (ρc_p·V̇); the
    /// inlet when no air moves. What a server's exhaust sensor reads (Redfish "Exhaust").
    double exhaust_c = 0;
    double heat_to_liquid_w = 0;
    bool powered = true;  ///< false when every feed is down
    bool failed = false;
};

struct RackFrame {
    std::string id;
    double power_w = 0;  ///< AC, all nodes
    double heat_to_air_w = 0;
    double airflow_m3s = 0;
    std::vector<double> inlet_c;         ///< per grid level (bottom up) of the rack's front
    std::vector<double> level_height_m;  ///< centre height of each level
    double inlet_max_c = 0;
    double inlet_mean_c = 0;  ///< airflow-weighted
    double exhaust_c = 0;     ///< airflow-weighted mean exhaust
    /// Cold-aisle Capture Index: the airflow-weighted fraction of the intake air that came straight from the
    /// cooling supplies (a passive tracer, 1 at the supplies and 0 at rack exhausts); NaN when not known.
    double capture_index = std::numeric_limits<double>::quiet_NaN();
    double rear_door_w = 0;  ///< heat its rear door takes into water (0 without one)
    /// Share of its servers' air that came back from its rear through the rack (its openings, or a fixed share);
    /// negative: air passing the openings from front to back (bypass), as a share of the servers' air.
    double recirculation = 0;
};

struct WaterLoopFrame {
    std::string id;
    double load_w = 0;  ///< heat its units and rear doors put into it
    double supply_c = 0;
    bool failed = false;
};

struct CoolingUnitFrame {
    std::string id;
    double return_c = 0;
    double supply_c = 0;
    double load_w = 0;  ///< heat removed
    double airflow_m3s = 0;
    double fan_power_w = 0;
    bool failed = false;
    bool over_capacity = false;
};

struct CduFrame {
    std::string id;
    double supply_c = 0;
    double return_c = 0;
    double load_w = 0;
    bool failed = false;
    bool over_capacity = false;
};

struct RackPduFrame {
    std::string id;
    double load_w = 0;
    std::array<double, 3> phase_current_a{0, 0, 0};
    double breaker_utilization = 0;  ///< highest phase current / breaker rating
    double phase_imbalance = 0;      ///< (max − min) / mean of the phase currents
    bool alive = true;
};

struct PowerNodeFrame {  ///< floor PDU, UPS or utility feed
    std::string id;
    double load_w = 0;  ///< output
    double loss_w = 0;  ///< UPS conversion loss
    double utilization = 0;
    bool alive = true;
};

struct JobFrame {
    std::string id;
    bool running = false;
    bool stalled = false;    ///< a rank pair has no route
    double step_time_s = 0;  ///< compute + exposed communication
    double compute_time_s = 0;
    double comm_time_s = 0;                 ///< all of it, before overlap
    double comm_share = 0;                  ///< exposed communication / step time
    double utilization = 0;                 ///< compute / step time: what its GPUs are asked for
    double mfu = 0;                         ///< model FLOPs / (step time · GPUs · peak)
    double bubble_share = 0;                ///< pipeline bubble / step time (training)
    int interruptions = 0;                  ///< failures that stopped it so far (training)
    double tokens_per_s = 0;                ///< output tokens per second (a served model)
    double ttft_p99_s = 0, tpot_p99_s = 0;  ///< time to first token, per output token, 99th percentile (served)
    /// How a training job's collectives ran, one kind a line ("TP all-reduce: nvls/Simple, 16 channels, 1.012 ms");
    /// not a series: a recorded run keeps the last in its metadata (runs::RunMeta::job_collectives).
    std::string collectives;
};

struct LinkFrame {
    std::string id;          ///< "a<->b"
    std::string kind;        ///< "nvlink", "infiniband", "ethernet"
    double utilization = 0;  ///< the busier direction: bytes per step / (capacity · step time)
    bool failed = false;
};

/// What a scenario's sensor would read (issue 44): a rack's front or rear air at its height, or the room's air
/// at its point.
struct SensorFrame {
    std::string id;
    double temp_c = 0;
};

struct Alert {
    double time_s = 0;
    std::string
        kind;  ///< "inlet_high", "breaker_high", "throttling", "gpu_shutdown", "unit_failed", "cooling_short", "feed_overload", "node_unpowered", "rack_airflow"
    std::string entity;
    std::string message;
    double value = std::numeric_limits<double>::quiet_NaN();      ///< what crossed (stored units: °C, ratio, W); NaN when none
    double threshold = std::numeric_limits<double>::quiet_NaN();  ///< the limit it crossed; NaN when none
};

/// The 3D air temperature field, when asked for.
struct AirField {
    int nx = 0, ny = 0, nz = 0;
    double cell_m = 0;
    std::vector<float> temp_c;  ///< index i + nx·(j + ny·k); NaN in solid cells
    /// Cell-centred air velocity (m/s), 3 components per cell in the same order; empty when not computed.
    std::vector<float> velocity_ms;
    /// Where supply air enters the room (x, y, z in metres, 3 per point): seeds for streamlines.
    std::vector<float> supply_points_m;
    /// The hall it fills: index in Scenario::halls. Coordinates are the hall's own (its site position is the
    /// grid's origin on the site plan).
    int hall = 0;
};

/// One cable of the fabric, placed in the hall: what the 3D view needs to draw a link without the network
/// model. An end is a node (its rack and node id) or a switch (its rack and tier level 1..3).
struct FabricLinkEnd {
    std::string id;    ///< network node id ("n1/gpu0", "leaf3")
    std::string rack;  ///< rack it sits in ("" = not placed)
    std::string node;  ///< scenario node id for GPUs and NVSwitches, "" for fabric switches
    int level = 0;     ///< 0 host, 1 leaf, 2 spine, 3 core, −1 NVSwitch
};

struct FabricLink {
    std::string id;    ///< "a<->b", as in LinkFrame
    std::string kind;  ///< "nvlink", "infiniband", "ethernet"
    FabricLinkEnd a, b;
};

struct Frame {
    double time_s = 0;
    std::vector<GpuFrame> gpus;
    std::vector<NodeFrame> nodes;
    std::vector<RackFrame> racks;
    std::vector<CoolingUnitFrame> cooling_units;
    std::vector<CduFrame> cdus;
    std::vector<RackPduFrame> rack_pdus;
    std::vector<PowerNodeFrame> pdus, ups, transformers, feeds;

    double it_power_w = 0;  ///< Σ node AC
    double ups_loss_w = 0;
    double transformer_loss_w = 0;
    double cooling_power_w = 0;  ///< plant (heat / COP) + CRAH fans + CDU and plant pumps
    double facility_power_w = 0;
    double pue = 0;
    double heat_in_w = 0;         ///< into room air by racks (now)
    double heat_removed_w = 0;    ///< by cooling units from the air (now)
    double liquid_heat_w = 0;     ///< into CDU loops
    double rear_door_heat_w = 0;  ///< taken from rack exhausts by rear doors (now)
    std::vector<WaterLoopFrame> loops;
    double max_inlet_c = 0;
    std::string max_inlet_rack;
    double rci_hi = 100, rci_lo = 100, rti = 0, shi = 0;
    std::vector<JobFrame> jobs;
    std::vector<LinkFrame> links;           ///< every fabric link with traffic or a failure, busiest first
    std::vector<SensorFrame> sensors;       ///< the scenario's sensors, in its order
    std::vector<Alert> alerts;              ///< raised at this step
    std::optional<AirField> air;            ///< the first hall's air field, when asked for
    std::vector<AirField> other_halls_air;  ///< with `air`: the other halls' fields, in hall order (hall 1, 2, …)
};

/// Every air field of a frame, first hall first (empty when none was asked for).
inline std::vector<const AirField*> airFields(const Frame& f) {
    std::vector<const AirField*> out;
    if (f.air) out.push_back(&*f.air);
    for (const auto& a : f.other_halls_air) out.push_back(&a);
    return out;
}

}  // namespace ct::model
