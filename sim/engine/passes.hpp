#pragma once
// The passes of one engine step, each a unit over a Site's arrays that can be run and tested alone
// (tests/tst_engine_passes.cpp). Engine::step calls them in this order: feedsAlive, equipment, powerChain,
// rackAirflow and hallAirflow, the air solver's advance with rackAir and unitAir on every sub-step, airLoads,
// liquid, the GPU temperatures, then the frame and frameAlerts. Private to ct_sim.
#include "engine/site.hpp"

#include <clustertwin/model/units.hpp>

#include <vector>

namespace ct::sim {
class AirModel;
class Workload;
}  // namespace ct::sim

namespace ct::sim::detail {

inline constexpr double kRhoCp = model::units::kAirDensityKgM3 * model::units::kAirCpJPerKgK;  // J/(m³·K)
inline constexpr double kInletLimitC = 27.0;      // ASHRAE recommended upper inlet (RCI_HI, alerts)
inline constexpr double kInletAllowableC = 32.0;  // ASHRAE A1 allowable upper inlet
inline constexpr double kInletLowC = 18.0, kInletLowAllowableC = 15.0;
// ASHRAE class A4 allowable upper inlet: no IT equipment class is specified to run above it, so real servers
// would throttle to a stop or shut down; a modelled hall past it is outside what the model represents.
inline constexpr double kInletShutdownC = 45.0;

// ---- power chain (power_chain.cpp, models.md §2)
/// Which feeds, transformers, UPSs, PDUs and rack PDUs are live (equipment() then powers the nodes on them).
void feedsAlive(Site& s);
/// A node's draw at its PSUs (AC, losses, heat to air) from its DC load and live feeds.
void nodePsus(NodeRt& n);
/// What every rack PDU, PDU, UPS, transformer and feed carries and loses, from the nodes' PSU draw that
/// equipment() set.
void powerChain(Site& s);
/// How fast each feed's draw changes against its utility ramp limit (W/s; 0: none), from `prev_w` (the last
/// step's loads, empty at the first step), which it then updates.
void feedRampAlerts(const Site& s, const std::vector<double>& limit_w_per_s, double step_s, std::vector<double>& prev_w, Alerts& alerts);

// ---- equipment (equipment.cpp, models.md §2, §4)
/// Every node's power, fans and airflow from its workload, clocks and feeds at time t; node_unpowered alerts.
void equipment(Site& s, const Workload& w, double t, Alerts& alerts);
/// A running node's CPUs, board, fans, airflow and DC load from its GPUs' power and mean utilization.
void nodeLoad(NodeRt& n, double gpu_w, double u_mean);
/// A server's fan speed (share of full) at a load (GPUs and CPUs over their maximum) and an inlet temperature:
/// fans follow load and speed up above a 25 °C inlet, never below 30 %.
double fanSpeedFor(double load_frac, double inlet_c);
/// What a node's GPUs are cooled by (its inlet air, or its CDUs' coolant) and the factor on their thermal
/// resistance (slower fans, or cold plates that lost their coolant).
double gpuReference(const Site& s, const NodeRt& n, double& r_scale);
/// A node's GPUs at the temperature of their present power (the start of a run: a running GPU is never at its
/// inlet temperature).
void gpusAtSteadyState(Site& s, NodeRt& n);
/// Node ni's inlet (from its rack's levels) and its GPUs' temperatures after dt; true when a GPU shuts down or
/// its throttling alert changes (gpuAlerts raises them).
bool nodeTemperatures(Site& s, std::size_t ni, double dt);
/// Shuts down the GPUs past their shutdown temperature (marking `gpus` in the frame, `gpu0` each node's first
/// entry) and raises gpu_shutdown and throttling, in GPU order, for the nodes nodeTemperatures flagged.
void gpuAlerts(Site& s, std::vector<model::GpuFrame>& gpus, const std::vector<std::size_t>& gpu0, Alerts& alerts);

// ---- liquid (liquid.cpp, models.md §4)
/// Each CDU's load (its racks' liquid heat over their live CDUs), supply and return; cooling_short alerts.
void liquid(Site& s, Alerts& alerts);

// ---- air coupling (air_coupling.cpp, models.md §3)
/// Each rack level's server airflow and heat, and each rack's AC draw and liquid heat, from its nodes; which
/// cooling units have lost their water loop.
void rackAirflow(Site& s);
/// How much air every port of hall hr moves: racks, units, tiles, grilles, and the leaks of contained aisles.
void hallAirflow(Site& s, HallRt& hr);
/// One air sub-step of rack rr: what its servers breathe and blow out (with recirculation and rear door).
void rackAir(Site& s, RackRt& rr, AirModel& air, double sub);
/// One air sub-step of hall hr's cooling units, floor tiles and containment leaks.
void unitAir(Site& s, HallRt& hr, AirModel& air, double sub);
/// After the sub-steps of dt: units' and rear doors' heat removed, unit fan power, water-loop loads.
void airLoads(Site& s, double dt);

// ---- alerts over the frame (alerts.cpp)
/// inlet_high and rear doors at capacity (racks), cooling_short (units, loops), breaker_high (rack PDUs) and
/// feed_overload (the power chain), from the site and its finished frame; physicsRangeAlert among them.
void frameAlerts(Site& s, const model::Frame& f, bool air_approximate, bool& physics_beyond, Alerts& alerts);
/// physics_range when the hottest inlet passes kInletShutdownC, naming the likely cause; once per excursion
/// (`beyond` remembers it).
void physicsRangeAlert(const Site& s, const model::Frame& f, bool air_approximate, bool& beyond, Alerts& alerts);

}  // namespace ct::sim::detail
