#pragma once
// The equipment catalog: published figures for GPUs, servers, racks, cooling and power equipment.
// Entries live in resources/catalog/*.json (each with a `source`); scenarios reference them by id and may
// override fields through their own `catalog` section.
#include <clustertwin/model/error.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ct::model {

/// Efficiency as a function of load fraction (0..1), linearly interpolated between points, clamped outside.
struct EfficiencyCurve {
    std::string id, name, source;
    std::vector<std::pair<double, double>> points;  ///< (load_fraction, efficiency), ascending load

    /// Efficiency at `load_fraction`; throws ModelError if the curve has no points.
    double efficiencyAt(double load_fraction) const;
    bool operator==(const EfficiencyCurve&) const = default;
};

struct GpuModel {
    std::string id, name, source;
    double idle_power_w = 0;
    double max_power_w = 0;       ///< board power limit (TDP)
    double power_exponent = 1.0;  ///< α in P = P_idle + (P_max − P_idle)·u^α
    double peak_bf16_tflops = 0;  ///< dense
    double memory_gb = 0;
    double memory_bandwidth_tbs = 0;        ///< HBM bandwidth, TB/s (decode is bound by it)
    double nvlink_gbs = 0;                  ///< NVLink bandwidth per GPU, each direction (GB/s)
    double slowdown_temp_c = 0;             ///< clocks drop above this
    double shutdown_temp_c = 0;             ///< the GPU stops above this
    double thermal_resistance_k_per_w = 0;  ///< die-to-inlet at full fan speed
    double thermal_time_constant_s = 0;
    // What its kernels achieve in a training step (docs/workloads.md "Compute"), each with its source; 0 where
    // nothing is published, and the training model then says its figures are unchecked.
    std::string architecture;         ///< "ampere", "hopper", "blackwell", ... (NCCL's tuning tables, the checks)
    int sm_count = 0;                 ///< streaming multiprocessors: a matmul's tiles run in waves of them
    double matmul_efficiency = 0;     ///< the best large BF16 matmul's share of peak
    bool matmul_sustained = false;    ///< that share is held at the power cap (MSMF), not a boost-clock burst (MAMF)
    double chip_spread = 0;           ///< σ of chips' sustained matmul rate over the median chip's (0 = unknown)
    double attention_efficiency = 0;  ///< flash attention's share of peak, forward and backward, long sequences
    double memory_efficiency = 0;     ///< elementwise kernels' share of HBM bandwidth
    bool operator==(const GpuModel&) const = default;
};

struct ServerModel {
    std::string id, name, source;
    std::string form_factor = "node";  ///< "node" (goes in a rack) or "rack" (a rack-scale system)
    std::string gpu_model;
    int gpu_count = 0;
    int height_u = 1;
    /// How many of it stand side by side across a rack's width: 1 a full-width server; 2 half-width sleds (a
    /// 2U4N chassis), 3 the third-width sleds of an Open Rack tray, more for blades. A node says which slot.
    int slot_count = 1;
    double weight_kg = 0;
    double max_power_w = 0;  ///< published maximum system power (AC)
    double idle_power_w = 0;
    int cpu_count = 0;
    double cpu_idle_power_w = 0;  ///< per CPU
    double cpu_max_power_w = 0;   ///< per CPU
    double nic_power_w = 0;       ///< all NICs together
    double other_power_w = 0;     ///< memory, storage, switches on the board, at full load
    double fan_max_power_w = 0;   ///< all fans at full speed
    double fan_max_rpm = 0;       ///< the fans' full speed, for measured rpm (0: not known)
    double airflow_m3s = 0;       ///< at full load
    double liquid_fraction = 0;   ///< share of heat taken by liquid cold plates (0 = air only)
    int psu_count = 0;
    double psu_rating_w = 0;  ///< per PSU
    std::string psu_curve;    ///< EfficiencyCurve id
    int nic_count = 0;
    double nic_speed_gbps = 0;
    bool operator==(const ServerModel&) const = default;
};

struct RackModel {
    std::string id, name, source;
    int height_u = 42;
    double width_m = 0.6;
    double depth_m = 1.2;
    double height_m = 2.0;
    double weight_kg = 0;           ///< empty
    double max_static_load_kg = 0;  ///< equipment it may carry
    /// The clearance under the cabinet on its levelling feet or casters (m), open from its back to its front
    /// unless a blanking seals it (models.md §3); 0 = none.
    double floor_gap_m = 0;
    bool operator==(const RackModel&) const = default;
};

struct CoolingUnitModel {
    std::string id, name, source;
    /// "crah" (chilled water) or "crac" (DX): perimeter units, return through the top; "in-row": stands in a row
    /// of racks, takes the hot aisle's air through its back and supplies the cold aisle through its front.
    std::string kind = "crah";
    double capacity_w = 0;   ///< sensible cooling capacity
    double airflow_m3s = 0;  ///< at full fan speed
    double fan_power_w = 0;  ///< at full fan speed
    double fan_max_rpm = 0;  ///< full fan speed, for measured rpm (0: not known)
    double width_m = 0, depth_m = 0, height_m = 0;
    double min_supply_temp_c = 0;
    double max_supply_temp_c = 0;
    /// Where a perimeter unit blows and draws (without a raised floor or ceiling duct in between): its supply
    /// grille spans [supply_from_m, supply_to_m) up its front (0/0: the lower half), blowing horizontally; its
    /// return is "top" (the default; the upper back where the unit reaches the ceiling), or a grille on its
    /// "front" (a wall-standing unit that draws the room's air above its supply) or "back", spanning
    /// [return_from_m, return_to_m) (0/0: the upper half).
    double supply_from_m = 0, supply_to_m = 0;
    /// Return-air control: the closed loop's time constant, no faster than the valve's actuator strokes
    /// (standard chilled-water valve actuators run 90–150 s end to end).
    double control_time_constant_s = 150;
    std::string return_side = "top";
    double return_from_m = 0, return_to_m = 0;
    bool operator==(const CoolingUnitModel&) const = default;
};

/// A raised-floor tile that lets the plenum's air into the room (perforated or grate): its open-area ratio sets
/// the speed of the jet it makes, q / (tile area · open fraction).
struct FloorTileModel {
    std::string id, name, source;
    double open_fraction = 0.25;  ///< open area / tile area
    double size_m = 0.6;          ///< square tile edge
    bool operator==(const FloorTileModel&) const = default;
};

/// A rear-door heat exchanger: the rack's exhaust crosses a water coil. Rated: `capacity_w` with air entering at
/// `rated_air_in_c` and `rated_airflow_m3s`, water entering at `rated_water_in_c`; that fixes its effectiveness
/// ε = capacity / (ρ c_p Q_rated (T_air − T_water)), so at other conditions it removes ε ρ c_p Q (T_exhaust −
/// T_water), never more than `max_capacity_w`. Active doors have fans (`fan_power_w` at full speed).
struct RearDoorModel {
    std::string id, name, source;
    std::string kind = "passive";  ///< "passive" or "active"
    double capacity_w = 0;
    double rated_airflow_m3s = 0;
    double rated_air_in_c = 0;
    double rated_water_in_c = 0;
    double max_capacity_w = 0;
    double fan_power_w = 0;
    double water_flow_lpm = 0;
    double depth_m = 0.25;  ///< adds to the rack's depth at its back

    /// ε as above; 0 when the rated figures are missing.
    double effectiveness() const;
    bool operator==(const RearDoorModel&) const = default;
};

/// An aisle-containment system: the share of the racks' air that leaks through its panels and doors.
struct ContainmentModel {
    std::string id, name, source;
    double leakage_fraction = 0;
    bool operator==(const ContainmentModel&) const = default;
};

/// How well a rack's empty U and side gaps are closed: the share of its exhaust that finds its way back to the
/// intake inside the rack.
/// How well a rack's openings besides its servers are closed (models.md §3): the air through them is driven by
/// the pressure between the rack's back and front.
struct BlankingModel {
    std::string id, name, source;
    double open_share = 0;     ///< share of each empty U's opening (450 × 44.45 mm) left open
    bool sides_sealed = true;  ///< the gaps between the 19" rails and the cabinet's sides are closed
    /// The gaps under the cabinet and between it and the cabinets beside it are closed (brush or foam strips).
    bool gaps_sealed = false;
    /// A measured share of the exhaust that returns to the intake inside the rack, used as it is instead.
    std::optional<double> recirculation_fraction;
    bool operator==(const BlankingModel&) const = default;
};

struct CduModel {
    std::string id, name, source;
    double capacity_w = 0;
    double coolant_flow_lpm = 0;  ///< secondary loop flow at rated capacity
    double pump_power_w = 0;
    double approach_temp_k = 0;  ///< facility water to secondary supply
    double width_m = 0, depth_m = 0, height_m = 0;
    bool operator==(const CduModel&) const = default;
};

struct SwitchModel {
    std::string id, name, source;
    std::string kind = "infiniband";  ///< "infiniband", "ethernet", "nvswitch"
    int ports = 0;
    double port_speed_gbps = 0;
    double max_power_w = 0;
    int height_u = 1;
    double weight_kg = 0;
    double airflow_m3s = 0;
    /// The switch reduces in the network what its ports send (NVIDIA SHARP on InfiniBand): NCCL's CollNet
    /// algorithms can run over a fabric of such switches.
    bool in_network_reduction = false;
    bool operator==(const SwitchModel&) const = default;
};

/// How often one kind of component interrupts a job (failure_rates section): failures per 1,000 device-days of
/// operation. Kinds: gpu, hbm, nvlink (a node's NVLink domain), nic, node (host hardware, maintenance, system
/// software), switch, cable.
struct FailureRate {
    std::string id, name, source;
    double per_1000_device_days = 0;
    bool operator==(const FailureRate&) const = default;
};

struct UpsModel {
    std::string id, name, source;
    double capacity_w = 0;
    std::string efficiency_curve;  ///< EfficiencyCurve id
    bool operator==(const UpsModel&) const = default;
};

/// The catalog. Look-ups return nullptr for unknown ids; `require*` throw ModelError naming the id.
class Catalog {
public:
    std::vector<GpuModel> gpus;
    std::vector<ServerModel> servers;
    std::vector<RackModel> racks;
    std::vector<CoolingUnitModel> cooling_units;
    std::vector<CduModel> cdus;
    std::vector<FloorTileModel> floor_tiles;
    std::vector<RearDoorModel> rear_doors;
    std::vector<ContainmentModel> containments;
    std::vector<BlankingModel> blankings;
    std::vector<SwitchModel> switches;
    std::vector<UpsModel> ups;
    std::vector<EfficiencyCurve> efficiency_curves;
    std::vector<FailureRate> failure_rates;

    /// The catalog compiled into the program from resources/catalog/*.json. Parsed once; never throws for
    /// the shipped files (a test guards them).
    static const Catalog& builtin();

    /// Reads one catalog document (an object with any of the sections above) and merges it into this one:
    /// an entry with a known id overrides the given fields, a new id adds an entry. Problems are appended to
    /// `diags` with JSON pointers under `pointer_prefix`. `json_text` must be a JSON object.
    void merge(std::string_view json_text, const std::string& pointer_prefix, Diagnostics& diags);

    const GpuModel* gpu(std::string_view id) const;
    const ServerModel* server(std::string_view id) const;
    const RackModel* rack(std::string_view id) const;
    const CoolingUnitModel* coolingUnit(std::string_view id) const;
    const CduModel* cdu(std::string_view id) const;
    const FloorTileModel* floorTile(std::string_view id) const;
    const RearDoorModel* rearDoor(std::string_view id) const;
    const ContainmentModel* containment(std::string_view id) const;
    const BlankingModel* blanking(std::string_view id) const;
    const SwitchModel* switchModel(std::string_view id) const;
    const UpsModel* upsModel(std::string_view id) const;
    const EfficiencyCurve* curve(std::string_view id) const;
    const FailureRate* failureRate(std::string_view id) const;

    const ServerModel& requireServer(std::string_view id) const;
    const GpuModel& requireGpu(std::string_view id) const;

    /// Integrity problems of the catalog itself (missing source, non-positive figures, dangling references,
    /// component power that does not add up to the published maximum).
    Diagnostics check() const;

    bool operator==(const Catalog&) const = default;
};

}  // namespace ct::model
