#pragma once
// The scenario: one data center as the planner describes it (models.md §1). Plain structs with stable
// string ids; parent ids are filled in by linkParents() (the loader calls it). SI units, units in names.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::model {

inline constexpr int kScenarioFormatVersion = 1;
inline constexpr const char* kScenarioFormatName = "clustertwin-scenario";

/// Keys of a JSON object this version does not know, kept (as JSON text) so a save loses nothing.
using Extras = std::map<std::string, std::string>;

struct Vec2 {
    double x_m = 0;
    double y_m = 0;
    bool operator==(const Vec2&) const = default;
};

/// Which way the front of a rack or unit faces. For a rack the front takes the cold air. North is +y.
enum class Facing { North, East, South, West };
std::string_view toString(Facing f);
std::optional<Facing> facingFromString(std::string_view s);

struct NodeGpu {
    int index = 0;
    std::string uuid;  ///< optional, for mapping telemetry
    Extras extra;
    bool operator==(const NodeGpu&) const = default;
};

struct Node {
    std::string id, name;
    std::string model;   ///< ServerModel id
    int u_position = 1;  ///< lowest U occupied, 1-based from the bottom
    /// Side by side in a chassis (its server model's `slots` across the rack's width): which one, 1-based from
    /// the left as seen from the rack's front. 1 for a full-width server.
    int slot = 1;
    std::string hostname;            ///< optional, for mapping telemetry
    std::vector<std::string> feeds;  ///< rack PDU ids its PSUs are plugged into
    std::vector<NodeGpu> gpus;       ///< optional explicit GPU list (uuids); default: from the model
    Extras extra;
    std::string rack_id;  ///< parent (derived)
    bool operator==(const Node&) const = default;
};

struct RackPdu {
    std::string id, name;
    std::string feed = "A";  ///< side: "A" or "B" (2N); failures of one side move its load to the other
    std::string upstream;    ///< floor PDU id
    int phases = 3;
    double voltage_v = 230;  ///< phase-to-neutral
    double breaker_a = 32;   ///< per phase
    double power_factor = 0.95;
    Extras extra;
    std::string rack_id;  ///< parent (derived)

    /// Rated power at the breaker: phases · V · I · pf.
    double ratedPowerW() const { return phases * voltage_v * breaker_a * power_factor; }
    bool operator==(const RackPdu&) const = default;
};

/// A rear-door heat exchanger fitted to a rack's back (models.md §3): the rack's exhaust passes its coil, which
/// takes heat into a water loop (RearDoorModel: passive or active, capacity against water temperature and airflow).
struct RearDoor {
    std::string model;  ///< RearDoorModel id
    std::string loop;   ///< WaterLoop id; empty = the plant's facility water
    Extras extra;
    bool operator==(const RearDoor&) const = default;
};

struct Rack {
    std::string id, name;
    std::string model;              ///< RackModel id
    Vec2 position_m;                ///< centre of the footprint on the floor
    Facing facing = Facing::North;  ///< the front (cold-air intake) faces this way
    std::vector<Node> nodes;
    std::vector<RackPdu> pdus;
    std::optional<RearDoor> rear_door;
    /// Blanking of the rack's empty U and side gaps (catalog BlankingModel id, e.g. "full", "partial", "none");
    /// empty = perfectly sealed. Sets the share of exhaust that recirculates inside the rack to the intake.
    std::string blanking;
    std::optional<double> recirculation_fraction;  ///< overrides the blanking's figure (0..0.9)
    std::optional<double> floor_gap_m;             ///< measured clearance under the cabinet; overrides its model's
    Extras extra;
    std::string row_id, hall_id;  ///< parents (derived)
    bool operator==(const Rack&) const = default;
};

struct Row {
    std::string id, name;
    std::vector<Rack> racks;
    Extras extra;
    std::string hall_id;  ///< parent (derived)
    bool operator==(const Row&) const = default;
};

struct CoolingUnit {
    std::string id, name;
    std::string model;             ///< CoolingUnitModel id
    Vec2 position_m;               ///< centre of the footprint
    Facing facing = Facing::East;  ///< supply (front) faces this way
    double supply_setpoint_c = 18;
    /// Fans held at this share of full speed (0–1], as a unit set to a fixed fan speed (or read from its fan
    /// signal) runs: it blows its model's rated airflow times this. Absent: the units follow the racks' airflow
    /// (simulation.unit_airflow_margin times it, within their ratings).
    std::optional<double> fan_speed;
    /// What the unit's valve controls: "supply" (the default: its supply air held at supply_setpoint_c) or
    /// "return" (the air it takes in held at return_setpoint_c, its supply moved to get there, starting from
    /// supply_setpoint_c), as many perimeter and wall-standing units are set up.
    std::string control = "supply";
    std::optional<double> return_setpoint_c;
    /// In-row coolers (model kind "in-row"): the row they stand in, in line with its racks and facing the same
    /// way; they take air from the hot aisle behind and supply the cold aisle in front. Empty for perimeter units.
    std::string row;
    std::string loop;  ///< chilled-water WaterLoop id; empty = the plant's facility water
    Extras extra;
    std::string hall_id;  ///< parent (derived)
    bool operator==(const CoolingUnit&) const = default;
};

struct Cdu {
    std::string id, name;
    std::string model;  ///< CduModel id
    Vec2 position_m;
    Facing facing = Facing::North;
    double supply_temp_c = 30;       ///< secondary loop supply
    std::vector<std::string> racks;  ///< racks its loop feeds (a rack on several CDUs shares them)
    Extras extra;
    std::string hall_id;  ///< parent (derived)
    bool operator==(const Cdu&) const = default;
};

struct RaisedFloor {
    double height_m = 0.6;
    std::string tile = "perforated-25";  ///< catalog floor tile in front of the racks (its open-area ratio)
    Extras extra;
    bool operator==(const RaisedFloor&) const = default;
};

/// Aisle containment: panels closing each aisle of `kind` between consecutive rows of `rows` (a pair of rows, or
/// a pod of several): "cold" closes the aisle the racks' fronts face, "hot" the one their backs face. `roof`
/// closes it at the racks' top, `end_doors` its two ends. A share of the racks' air crosses the panels instead
/// of the racks (cold: of what they draw, which then comes from the room; hot: of what they blow, which escapes
/// to the room): `leakage_fraction`, or the catalog figure of the containment `model`.
struct Containment {
    std::string id, name;
    std::string kind = "hot";            ///< "hot" or "cold"
    std::string model = "panels-doors";  ///< ContainmentModel id (its typical leakage, with a source)
    std::vector<std::string> rows;       ///< row ids, in floor order
    bool roof = true;
    bool end_doors = true;
    std::optional<double> leakage_fraction;  ///< overrides the model's figure (0..1)
    Extras extra;
    std::string hall_id;  ///< parent (derived)
    bool operator==(const Containment&) const = default;
};

/// A ducted ceiling return: the perimeter units draw their return from a plenum above the ceiling, through
/// grilles over the hot aisles (and out of contained hot aisles), rather than from the room.
struct CeilingReturn {
    double plenum_height_m = 0.6;  ///< above the hall's ceiling (not part of the room's air)
    Extras extra;
    bool operator==(const CeilingReturn&) const = default;
};

/// A temperature sensor of the hall (issue 44): on a rack's front or rear at a height (the sensor strips real
/// racks carry, often at three heights), or at a point of the room. The twin records what it would read (kind
/// "sensor", metric temp_c), and imported telemetry maps onto it by id or name, as onto any entity.
struct Sensor {
    std::string id, name;
    std::string rack;            ///< mounted on this rack of the hall (empty: a point of the room)
    std::string side = "front";  ///< a rack's "front" (the air its servers take in) or "rear" (what they blow out)
    double height_m = 1.2;       ///< above the floor
    Vec2 position_m;             ///< a point sensor's place on the hall's plan (unused on a rack)
    Extras extra;
    std::string hall_id;  ///< parent (derived)
    bool operator==(const Sensor&) const = default;
};

struct Hall {
    std::string id, name;
    Vec2 site_position_m;  ///< where the hall's (0, 0) corner sits on the site plan (several halls side by side)
    double width_m = 0;    ///< along x
    double depth_m = 0;    ///< along y
    double height_m = 0;   ///< floor to ceiling
    double tile_m = 0.6;   ///< floor tile (snap grid)
    std::optional<RaisedFloor> raised_floor;
    std::vector<Row> rows;
    std::vector<CoolingUnit> cooling_units;
    std::vector<Cdu> cdus;
    std::vector<Containment> containments;
    std::optional<CeilingReturn> ceiling_return;
    std::vector<Sensor> sensors;
    Extras extra;
    bool operator==(const Hall&) const = default;
};

struct UtilityFeed {
    std::string id, name;
    double capacity_w = 0;
    double ramp_limit_w_per_s = 0;  ///< the utility's limit on how fast the draw may change (0 = none)
    Extras extra;
    bool operator==(const UtilityFeed&) const = default;
};

/// A medium-to-low-voltage transformer between a utility feed and the UPSs it serves (campus power chains:
/// utility → MV switchgear → transformers → UPS).
struct Transformer {
    std::string id, name;
    std::string feed;          ///< UtilityFeed id (medium voltage)
    double capacity_w = 0;     ///< rating (kVA × power factor)
    double efficiency = 0.99;  ///< at rated load; losses are (1 − η)/η of what it delivers
    Extras extra;
    bool operator==(const Transformer&) const = default;
};

struct Ups {
    std::string id, name;
    std::string model;  ///< UpsModel id
    std::string feed;   ///< UtilityFeed or Transformer id
    int modules = 1;    ///< parallel modules of the model's capacity
    Extras extra;
    bool operator==(const Ups&) const = default;
};

struct Pdu {
    std::string id, name;
    std::string ups;  ///< Ups id
    double capacity_w = 0;
    Extras extra;
    bool operator==(const Pdu&) const = default;
};

struct PowerChain {
    std::vector<UtilityFeed> feeds;
    std::vector<Transformer> transformers;
    std::vector<Ups> ups;
    std::vector<Pdu> pdus;
    Extras extra;
    bool operator==(const PowerChain&) const = default;
};

/// The cooling plant behind the CRAHs and CDUs (gives cooling power, hence PUE).
/// How this scenario is best simulated; command-line and app choices override it.
struct SimulationSettings {
    std::string air;  ///< room-air solver: "lbm" (the default when empty) or "quick" (potential flow, approximate)
    /// Cooling units blow this multiple of the racks' airflow (the engine's default 1.1 when absent): a figure a
    /// calibration fits (issue 44).
    std::optional<double> unit_airflow_margin;
    Extras extra;
    bool operator==(const SimulationSettings&) const = default;
};

/// A chilled-water loop of the plant that cooling units and rear doors hang on; it can fail on its own
/// ("what loses cooling if this loop fails"). Equipment without a loop is on the plant's facility water.
struct WaterLoop {
    std::string id, name;
    double supply_temp_c = 18;
    double capacity_w = 0;  ///< 0 = limited only by the plant
    Extras extra;
    bool operator==(const WaterLoop&) const = default;
};

struct Plant {
    double chiller_cop = 5.0;
    double pump_power_w = 0;
    double facility_water_temp_c = 18;
    std::vector<WaterLoop> loops;
    Extras extra;
    bool operator==(const Plant&) const = default;
};

/// A switch of an explicit fabric (network.topology "explicit").
struct NetworkSwitch {
    std::string id, name;
    std::string model;  ///< SwitchModel id (optional)
    int level = 1;      ///< 1 leaf, 2 spine, 3 core (drawn at that height; routing does not depend on it)
    std::string rack;   ///< the rack it is mounted in ("" = not placed)
    Extras extra;
    bool operator==(const NetworkSwitch&) const = default;
};

/// A cable (or `count` parallel cables) of an explicit fabric. Ends are switch ids or GPU ports "NODE/gpuN".
struct NetworkLink {
    std::string a, b;
    int count = 1;
    std::optional<double> speed_gbps;  ///< default: the network's link_speed_gbps
    std::optional<double> latency_s;   ///< default: the network's link_latency_s
    Extras extra;
    bool operator==(const NetworkLink&) const = default;
};

/// Capacity or latency of named links changed after the fabric is built: "a<->b" (every parallel cable
/// between a and b) or "a<->b#2" (the second one).
struct LinkOverride {
    std::string link;
    std::optional<double> speed_gbps, latency_s;
    Extras extra;
    bool operator==(const LinkOverride&) const = default;
};

/// The fabric: generated from parameters (fat-tree, rail-optimized, nvl72) or described link by link
/// ("explicit"). NVLink inside each server is always generated.
struct Network {
    std::string topology = "none";  ///< "none", "fat-tree", "rail-optimized", "nvl72", "explicit"
    /// "dmodk" (deterministic by destination, as InfiniBand's subnet manager routes fat trees), "ecmp" (a hash of
    /// source and destination, as Ethernet/RoCE does), or "" = dmodk, unless the switch model is Ethernet.
    std::string routing;
    std::vector<NetworkSwitch> switches;       ///< explicit fabrics
    std::vector<NetworkLink> links;            ///< explicit fabrics
    std::vector<LinkOverride> link_overrides;  ///< any fabric
    int levels = 2;                            ///< fat-tree tiers (2 or 3)
    int radix = 64;                            ///< switch ports
    double oversubscription = 1.0;             ///< down:up ratio at the leaf
    double link_speed_gbps = 400;
    double link_latency_s = 1e-6;
    std::string switch_model;  ///< SwitchModel id
    int rails = 0;             ///< rail-optimized: NICs per node (0 = GPUs per node)
    Extras extra;
    bool operator==(const Network&) const = default;
};

/// A utilization profile over time (0..1). kinds: "constant" (level), "steps" (points held until the next),
/// "list" (points linearly interpolated), "diurnal" (mean + amplitude·sin(2π(t − phase_s)/period_s)).
struct UtilizationProfile {
    std::string kind = "constant";
    double level = 0.9;
    std::vector<std::pair<double, double>> points;  ///< (time_s, utilization), ascending time
    double mean = 0.6, amplitude = 0.3, period_s = 86400, phase_s = 0;
    Extras extra;

    /// Utilization at `t_s`, clamped to 0..1.
    double valueAt(double t_s) const;
    bool operator==(const UtilizationProfile&) const = default;
};

/// A training job's shape (docs/workloads.md): compute from the model FLOPs (6 · active params · tokens plus
/// attention 12 · layers · hidden · seq per token), split over TP × CP × PP × DP GPUs; a 1F1B pipeline of
/// micro-batches whose slots carry the per-micro-batch traffic of TP, CP, EP and the stage-to-stage sends; the
/// data-parallel gradient reduction (ZeRO stage 3 = FSDP: reduce-scatter and two all-gathers) partly hidden
/// behind compute. Without seq_len the whole replica batch is one micro-batch (the shape of issue 3's jobs).
struct TrainingSpec {
    double model_params = 0;     ///< parameters
    double tokens_per_step = 0;  ///< global batch in tokens
    int tensor_parallel = 8;
    int pipeline_parallel = 1;
    int context_parallel = 1;         ///< the sequence split over CP GPUs (ring attention: K and V exchanged)
    int expert_parallel = 1;          ///< MoE: experts spread over EP GPUs of the data-parallel dimension
    double efficiency = 0;            ///< override: matmuls' share of peak (0 = the GPU's, from the catalog)
    double attention_efficiency = 0;  ///< override: attention kernels' share of peak (0 = the GPU's)
    double comm_overlap = 0;          ///< share of compute time that hides the data-parallel reduction (0..1)
    double bytes_per_param = 2;       ///< gradient precision (bf16)
    int hidden_size = 0;              ///< optional: with `layers`, TP, CP, EP and PP traffic are modelled
    int layers = 0;
    int seq_len = 0;                         ///< tokens per sequence; 0 = one micro-batch per replica
    int micro_batch = 1;                     ///< sequences per micro-batch
    int virtual_stages = 1;                  ///< interleaved 1F1B: model chunks per pipeline rank (bubble / v)
    int zero_stage = 1;                      ///< 0..2: gradients all-reduced (RS + AG); 3 (FSDP): RS + AG forward + AG backward
    int heads = 0, kv_heads = 0;             ///< attention heads and K/V heads (GQA); CP traffic scales with kv/heads
    int ffn_hidden_size = 0;                 ///< the MLP's (an expert's) inner size; 0 = what the parameters leave
    int vocab_size = 0;                      ///< the output layer's width (0 = no output layer modelled)
    std::string mlp = "gelu";                ///< "gelu" (two matrices) or "swiglu" (three: gate, up, down)
    int experts = 0;                         ///< MoE experts per layer (0 = dense)
    int top_k = 2;                           ///< experts per token
    double active_params = 0;                ///< MoE: parameters a token passes through (0 = model_params)
    double recompute = 0;                    ///< share of the forward pass recomputed in the backward (1 = full)
    std::string rank_order = "tp-cp-dp-pp";  ///< fastest first: Megatron's default, or "tp-cp-pp-dp" (Llama 3)
    // Failures and checkpoints (docs/workloads.md): a synchronous job stops on any failure of its components,
    // and restarts after detection + restart + reading its last checkpoint, losing the work since.
    double checkpoint_interval_s = 0;   ///< 0 = Young/Daly's optimum sqrt(2 · write time · MTBF)
    double checkpoint_bytes = 0;        ///< 0 = 14 bytes per parameter (bf16 weights, fp32 master and Adam moments)
    double storage_gbytes_per_s = 100;  ///< the job's checkpoint write and read bandwidth, GB/s
    double detection_s = 300;           ///< from a failure until the job is known to have stopped
    double restart_s = 600;             ///< rescheduling on healthy nodes and initialising, before the checkpoint is read
    Extras extra;
    bool operator==(const TrainingSpec&) const = default;
};

/// An inference service (docs/workloads.md). Without a model shape (layers, hidden_size) or prompt_tokens: a flat
/// load of 2 · params · tokens/s. With them: requests arrive, are prefilled (compute-bound), their KV cache moves
/// to a decode instance over the fabric when serving is disaggregated, and decode in continuous batches whose
/// steps read the weights and every request's KV cache from HBM.
struct InferenceSpec {
    double model_params = 0;
    double requests_per_s = 0;
    double tokens_per_request = 0;                             ///< output tokens
    double efficiency = 0.4;                                   ///< achieved share of peak FLOP/s in prefill and decode compute
    double prompt_tokens = 0;                                  ///< input tokens per request
    std::string serving = "colocated";                         ///< "colocated" (each instance prefills and decodes) or "disaggregated"
    int tensor_parallel = 8;                                   ///< GPUs per instance
    int prefill_gpus = 0;                                      ///< disaggregated: GPUs of the prefill pool (the rest decode)
    int max_batch = 64;                                        ///< requests an instance decodes at once
    int layers = 0, hidden_size = 0, heads = 0, kv_heads = 0;  ///< for the KV cache's size
    double bytes_per_param = 2;                                ///< weights (bf16 = 2, fp8 = 1)
    double memory_efficiency = 0.8;                            ///< achieved share of HBM bandwidth in decode
    std::string arrivals = "poisson";                          ///< "poisson" or "uniform" (evenly spaced), or replayed `arrival_times_s`
    std::vector<double> arrival_times_s;
    Extras extra;
    bool operator==(const InferenceSpec&) const = default;
};

struct Job {
    std::string id, name;
    std::string kind = "training";     ///< "training" or "inference"
    std::vector<std::string> nodes;    ///< node ids; empty when the job asks for `gpus` and a placement
    int gpus = 0;                      ///< GPUs wanted when `nodes` is empty
    std::string placement = "packed";  ///< "packed" (free nodes in order) or "topology-aware" (fewest leaves/racks)
    double start_s = 0;
    std::optional<double> end_s;
    double utilization = 0.9;                   ///< GPU utilization while running when there is no profile
    std::optional<UtilizationProfile> profile;  ///< time-varying utilization (overrides `utilization`)
    std::optional<TrainingSpec> training;       ///< when set, utilization comes from the network-coupled job model
    std::optional<InferenceSpec> inference;
    Extras extra;
    bool operator==(const Job&) const = default;
};

struct Event {
    double time_s = 0;
    std::string kind;             ///< see kEventKinds
    std::string target;           ///< entity id
    std::optional<double> value;  ///< e.g. the new setpoint (°C) or utilization (0..1)
    Extras extra;
    bool operator==(const Event&) const = default;
};

/// Event kinds the timeline understands.
inline constexpr const char* kEventKinds[] = {"cooling_unit_fail", "cooling_unit_restore",
                                              "setpoint_change",   "cdu_fail",
                                              "cdu_restore",       "gpu_fail",
                                              "gpu_restore",       "node_fail",
                                              "node_restore",      "feed_fail",
                                              "feed_restore",      "link_fail",
                                              "link_restore",      "workload_change",
                                              "job_start",         "job_stop",
                                              "loop_fail",         "loop_restore"};

/// A rule mapping imported telemetry onto scenario entities (issue 4). `label` says which label of an imported
/// entity is matched: "hostname", "gpu_uuid", "chassis" (Redfish) or "ib_guid"; `pattern` is an ECMAScript
/// regular expression matched against the whole label; `entity` is the scenario id it maps to, where $1..$9
/// stand for the pattern's groups ("dgx-(\\d+)" → "r01-n$1"). Hostnames mapped to a node carry their GPUs
/// along ("<host>/gpu3" → "<node>/gpu3").
struct MappingRule {
    std::string label = "hostname";
    std::string pattern;
    std::string entity;
    Extras extra;
    bool operator==(const MappingRule&) const = default;
};

struct Site {
    std::string id, name, location;
    Extras extra;
    bool operator==(const Site&) const = default;
};

struct Scenario {
    int version = kScenarioFormatVersion;
    std::string id, name, description;
    Site site;
    std::vector<Hall> halls;
    PowerChain power;
    Plant plant;
    SimulationSettings simulation;
    Network network;
    std::vector<Job> jobs;
    std::vector<Event> events;
    std::vector<MappingRule> telemetry_mapping;  ///< how imported telemetry maps onto this scenario
    std::string catalog_json;                    ///< the scenario's own catalog entries/overrides, as JSON text ("" = none)
    std::string calibration_json;                ///< what a calibration fitted, with its provenance, as JSON text ("" = none)
    Extras extra;

    bool operator==(const Scenario&) const = default;

    /// Fills the derived parent ids (rack.row_id, node.rack_id, ...). Call after editing structure.
    void linkParents();
};

/// Where an entity sits in a scenario, for look-ups by id.
enum class EntityKind {
    Site,
    Hall,
    Row,
    Rack,
    Node,
    Gpu,
    RackPdu,
    CoolingUnit,
    Cdu,
    UtilityFeed,
    Ups,
    Pdu,
    Job,
    Containment,
    WaterLoop,
    Transformer,
    Sensor
};
std::string_view toString(EntityKind k);

/// The id of GPU `index` of a node: "<node id>/gpu<index>". Stable: telemetry maps onto it.
std::string gpuId(std::string_view node_id, int index);

}  // namespace ct::model
