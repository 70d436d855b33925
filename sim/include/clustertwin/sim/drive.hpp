#pragma once
// A run driven by measured telemetry (issue 44): measured series override the model's own value of an input
// (a node's power, a GPU's power, a node's fans, a cooling unit's supply temperature, setpoint or airflow, a
// CDU's supply, a job's utilization) wherever they have data, linearly interpolated in time; where a series has
// a gap, or the run is outside its span, the model's own value holds, and the steps each input ran on the model
// are counted. The table of inputs (driveInputs) is the one place that says which entity kind and metric drive
// what; the session (session/drive.hpp) reads measured databases through it. No Qt, VTK or SQLite here.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::sim {

enum class DriveInput {
    NodePower,       ///< a node's AC input power (W): its PSUs' draw; its GPUs are scaled to match
    GpuPower,        ///< one GPU's board power (W)
    NodeFanSpeed,    ///< a node's fan speed as a share of full speed (its airflow ∝ speed, fan power ∝ speed³)
    NodeAirflow,     ///< a node's airflow (m³/s)
    UnitSupply,      ///< a cooling unit's supply air temperature (°C), whatever its control would do
    UnitSetpoint,    ///< a cooling unit's supply setpoint (°C); its capacity still limits it
    UnitAirflow,     ///< a cooling unit's airflow (m³/s)
    UnitFanSpeed,    ///< a cooling unit's fan signal as a share of full speed (airflow ∝ speed)
    CduSupply,       ///< a CDU's coolant supply temperature (°C, as its setpoint)
    JobUtilization,  ///< a job's GPU utilization (0–1) on its nodes
};

/// One row of the table of inputs: the input, its name on the command line and in run metadata, the kind of
/// scenario entity it drives, the twin's metric id that measures it (as runs and imports store it, in its
/// stored unit) and what it means.
struct DriveInputInfo {
    DriveInput input;
    const char* id;           ///< "node_power"
    const char* entity_kind;  ///< "node", "gpu", "cooling_unit", "cdu", "job"
    const char* metric;       ///< "power_w"
    const char* unit;         ///< the stored unit: "W", "degC", "ratio", "m3/s"
    const char* help;
};

/// Every input, in the order they are applied within a step.
const std::vector<DriveInputInfo>& driveInputs();
const DriveInputInfo& driveInputInfo(DriveInput input);
/// The input named `id` ("node_power"); nullopt when none is.
std::optional<DriveInput> driveInputById(std::string_view id);

/// A measured series that drives one input of one entity, in engine time (s since the run's start).
struct DriveSeries {
    DriveInput input = DriveInput::NodePower;
    std::string entity;          ///< the scenario's id of the node, GPU ("n0001/gpu0"), unit, CDU or job
    std::vector<double> t_s;     ///< ascending
    std::vector<double> values;  ///< in the input's stored unit (DriveInputInfo::unit); NaN = no data
    /// Samples further apart than this leave a gap between them (the model's own value there); the span is
    /// held this far beyond its first and last sample too. 0: three times the series' median spacing.
    double max_gap_s = 0;
    std::string source;  ///< where it came from, for messages ("run 3: n0001 power_w")
};

/// The largest spacing a series bridges when its max_gap_s is 0: three times its median spacing (0 with
/// fewer than two samples).
double defaultMaxGapS(const std::vector<double>& t_s);

/// The series' value at t: linear between the two samples around it when they are at most `max_gap_s` apart,
/// the nearest sample within `max_gap_s / 2` of either end; nullopt in a gap, beyond the span, or next to a
/// NaN sample. `hint` (start at 0) makes calls at increasing times cost O(1).
std::optional<double> driveValueAt(const std::vector<double>& t_s, const std::vector<double>& values, double max_gap_s, double t,
                                   std::size_t& hint);

/// How an input ran: the series that drove it, their samples, the entity-steps that took the measured value and
/// those that fell back on the model (a gap, outside the span, or an entity switched off), and the gaps met.
struct DriveCount {
    DriveInput input = DriveInput::NodePower;
    std::size_t series = 0, samples = 0;
    std::int64_t driven_steps = 0, model_steps = 0;
    std::int64_t gaps = 0;  ///< times a series went from measured to the model's value during the run
};

}  // namespace ct::sim
