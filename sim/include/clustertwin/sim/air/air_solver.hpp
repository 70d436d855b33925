#pragma once
// A room-air solver (models.md §3): the geometry (solids, ports) and the port flows go in, the temperature field
// comes out, advanced in time. Every solver carries heat with the conservative finite-volume transport of
// AirModel (air()); they differ in where the velocity comes from:
//   lbm    lattice Boltzmann with LES and buoyancy (LbmAir): jets, plumes and recirculation; the default
//   quick  potential flow (∇²φ = s, multigrid-preconditioned CG): no momentum, no buoyancy; approximate
// A new solver is one file with a factory and one line in the table of air_solver.cpp.
#include <clustertwin/sim/air/air_model.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ct::sim {

class LatticeSlabs;

struct AirSolverSpec {
    AirGridSpec grid;
    /// lbm: the fastest air speed expected anywhere (the strongest jet at the equipment's maximum airflow); the
    /// lattice's time step follows from it (lattice_mach there).
    double max_speed_ms = 2.0;
    int lattice_stride = 4;                 ///< lbm: LbmAirSpec::lattice_stride
    double lattice_stride_max_s = 16.0;     ///< lbm: LbmAirSpec::lattice_stride_max_s
    double lattice_mach = 0.15;             ///< lbm: LbmAirSpec::mach
    double heat_substep_s = 0.05;           ///< lbm: the heat transport's sub-step (AirGridSpec::substep_s)
    int lattice_levels = 6;                 ///< lbm: LbmAirSpec::step_levels
    double lattice_soft_start = 2.0;        ///< lbm: LbmAirSpec::soft_start_crossings
    LatticeSlabs* lattice_slabs = nullptr;  ///< lbm: LbmAirSpec::slabs (the lattice split over ranks)
    /// quick: relative residual of the flow solve, and the share of the hall's airflow that port flows must move
    /// by before the flow is solved again.
    double flow_residual = 1e-6;
    double flow_resolve_change = 0.05;
};

/// lbm: above this lattice Mach number at its fastest air a run says so, and the step levels (LbmAirSpec::step_levels)
/// keep the last lattice run's fastest air within their 1.2 margin of it: the weakly compressible lattice's error in
/// density and momentum flux grows as Mach² (0.09 at 0.3; Krüger et al., The Lattice Boltzmann Method, 2017).
constexpr double kLatticeMachNote = 0.3;

struct AirSolverStats {
    std::int64_t flow_solves = 0, flow_iterations = 0;  ///< quick: potential solves; lbm: projections
    std::int64_t lattice_steps = 0;                     ///< lbm
    int lattice_restarts = 0;    ///< lbm: times the lattice went unstable and started again from rest, each at 1/√2 of its step
    int lattice_rescales = 0;    ///< lbm: times the lattice step changed with the ports' fastest air
    double lattice_seconds = 0;  ///< lbm: simulated time the lattice ran (Σ steps × their length)
    double max_speed_ms = 0;     ///< lbm: the fastest cell of any coupling chunk's mean flow (m/s)
    double max_mach = 0;         ///< lbm: the highest lattice Mach number (|u|·√3, lattice units) of any chunk's fastest cell
    double last_flow_residual = 0;
    double max_divergence_error = 0;
    double flow_seconds = 0;  ///< wall time spent in flow solves / projections
};

/// Where a source port's air goes: a unit direction and the open share of its face (a perforated tile's
/// open-area ratio), so the jet leaves at q / (cells · h² · open_fraction). Sinks ignore it.
struct PortJet {
    double dx = 0, dy = 0, dz = 0;
    double open_fraction = 1.0;
};

class AirSolver {
public:
    virtual ~AirSolver() = default;
    /// "lbm" or "quick": the name the CLI, the app and scenarios use.
    virtual std::string_view name() const = 0;
    /// True where the answer is known to be rough (quick mode), to label it so in summaries and the app.
    virtual bool approximate() const = 0;

    /// The temperature side: grid, cells, port temperatures. Change geometry and flows through this class.
    virtual AirModel& air() = 0;
    virtual const AirModel& air() const = 0;

    virtual void addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1) = 0;
    /// A port on fluid cells; the number is also the port's number in air().
    virtual int addPort(const std::vector<int>& cells, bool source, const PortJet& jet) = 0;
    virtual void setPortFlow(int port, double q_m3s) = 0;
    /// A pressure probe on fluid cells (the air just off a rack's face): its number, or −1 when the solver has no
    /// pressure (quick mode: potential flow carries no momentum).
    virtual int addProbe(const std::vector<int>& /*cells*/) { return -1; }
    /// The static pressure at a probe (Pa, relative to a reference of the solver's: only differences between
    /// probes carry meaning), averaged over the solver's last flow computation; NaN for −1 or a solver without
    /// pressure.
    virtual double probePressurePa(int /*probe*/) const;
    /// The fastest jet the ports can make at the equipment's maximum airflow (m/s), known once the geometry is
    /// built; a solver whose time step depends on it (lbm) takes it before its first advance.
    virtual void setFastestJet(double /*ms*/) {}

    /// Advances `duration_s`; `before_substep(dt)` runs before each temperature sub-step (to set source
    /// temperatures from sink temperatures). Returns the number of temperature sub-steps. Throws SimError
    /// (LatticeUnstable for the lattice, naming cell, time and cause) when the solver fails.
    virtual int advance(double duration_s, const std::function<void(double)>& before_substep) = 0;
    /// Whether advance() may run on a thread of the pool beside other halls' advances: it then uses no thread pool
    /// of its own once prepare() has run (quick mode on a device). prepare() does what may use the pool (a flow
    /// re-solve) beforehand; finish() waits for the work advance() queued on this thread's device stream.
    virtual bool advancesSideBySide() const { return false; }
    virtual void prepare() {}
    virtual void finish() {}

    /// One line for run summaries: the method, its grid and time step.
    virtual std::string summary() const = 0;
    virtual const AirSolverStats& stats() const = 0;
};

/// A setting of one solver's own, as the CLI and the app offer it (`--lattice-stride N`).
struct AirSolverParam {
    std::string option;  ///< "lattice-stride": the CLI's --lattice-stride, EngineOptions' lattice_stride
    std::string value;   ///< what it takes: "N", "T"
    std::string help;    ///< one line, the default in brackets
};

/// How a solver describes itself (contributing.md habit 15): the app's Room air menu and Run dialog, the CLI's
/// help and completion and the scenario schema's simulation.air all enumerate these.
struct AirSolverInfo {
    std::string name;          ///< "lbm": the scenario's simulation.air, --air
    std::string label;         ///< "Lattice Boltzmann (jets, buoyancy, turbulence)"
    std::string help;          ///< what it carries and when to use it, one sentence
    bool approximate = false;  ///< its answers are labelled approximate
    std::vector<AirSolverParam> params;
};

/// The registered solvers, in order: the first is the default.
std::vector<AirSolverInfo> airSolvers();
/// Their names, in the same order.
std::vector<std::string> airSolverNames();
/// Throws SimError naming the known solvers when `name` is not one of them ("" is the default).
void requireAirSolver(std::string_view name);
/// Builds the named solver; throws like requireAirSolver() for an unknown name.
std::unique_ptr<AirSolver> makeAirSolver(std::string_view name, const AirSolverSpec& spec, ThreadPool& pool);
/// Memory the named solver needs for a grid (bytes), to refuse grids that do not fit before allocating.
std::uint64_t airSolverBytes(std::string_view name, const AirGridSpec& grid);

}  // namespace ct::sim
