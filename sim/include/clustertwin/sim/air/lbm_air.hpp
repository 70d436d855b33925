#pragma once
// Room air on the lattice, in physical units (models.md §3): the lattice (Lattice) carries the air with momentum,
// Smagorinsky LES and Boussinesq buoyancy; the air model (AirModel) carries heat on the lattice's mean velocity,
// projected to exact mass at the ports, with van Leer TVD advection and the LES eddy diffusivity κ_t = ν_t/Pr_t.
//
// Units: the lattice step follows from the cell size and the fastest expected air speed, dt = Ma·c_s·h / U_max
// with c_s = 1/√3 (lattice Mach Ma at U_max, 0.15 by default), longer while the ports blow slower (step_levels);
// viscosity ν·dt/h², accelerations a·dt²/h.
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/air/lattice.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ct::sim {

struct LbmAirSpec {
    AirGridSpec grid;           ///< the box, cell, molecular κ, backend (tvd is turned on)
    double max_speed_ms = 2.0;  ///< the fastest air speed expected anywhere (the strongest jet)
    /// Lattice Mach number at max_speed_ms (0.05–0.2). 0.15: on lab-8node, every step of the lattice for 10
    /// minutes, the rack inlets at 0.15 and at 0.2 differed from those at 0.1 by a mean 0.07 and 0.09 K, as
    /// much as two runs at 0.1 with lattice steps 10 % apart did (0.07 K): the chaos of the resolved eddies.
    double mach = 0.15;
    double nu_m2s = 1.5e-5;  ///< kinematic viscosity of air
    /// C_s: Lilly's 0.17. On hall grids (0.1–0.5 m) nearly all the turbulence is below the grid; with
    /// Deardorff's 0.1 (for resolved wall-bounded LES) a rack's exhaust jet drove the lattice unstable within
    /// seconds at τ0 ≈ ½ (tst_lbm roomBalancesHeatAtSteadyState), with 0.17 it runs steadily.
    double smagorinsky_cs = 0.17;
    double prandtl_t = 0.85;  ///< turbulent Prandtl number: κ_t = ν_t / Pr_t
    double gravity_ms2 = 9.81;
    double reference_temp_c = 25.0;  ///< β = 1 / T_ref(K)
    bool buoyancy = true;
    /// Quasi-steady stride: once the flow has settled (two flow-through times after the start or after the port
    /// flows changed: one by a quarter of itself, or all by 10 % of the total), the lattice runs one interval in `lattice_stride` and heat is
    /// carried on the last interval's mean flow in between. The flow settles in seconds, the hall's heat in
    /// minutes; 1 runs the lattice through every interval.
    int lattice_stride = 4;
    /// While every port's flow holds within 5 % from one lattice run to the next, the stride doubles, up to one
    /// lattice run in this much simulated time (never below lattice_stride); the first change brings it back.
    double lattice_stride_max_s = 16.0;
    /// Heat follows the lattice's flow in chunks of about this length (s), each on that chunk's mean flow. With
    /// 0.1 s (resolved eddies carrying heat) the 32-rack slab hall's inlets after 20 min moved by < 0.6 K from
    /// those with 1 s, at 2.5 × the cost: 1 s, one chunk per engine step.
    double coupling_s = 1.0;
    /// While every source port blows slower than max_speed_ms, the lattice step lengthens: set for the slowest of
    /// max_speed_ms / √2^k (k ≤ step_levels) at or above 1.2 × the fastest port's air, the running lattice's
    /// populations rescaled (Lattice::rescaleTime); back at once when a port speeds up; never so long that the last
    /// run's fastest air (not always a port's) comes within that margin of kLatticeMachNote. 0: the step stays.
    int step_levels = 6;
    /// A lattice that starts from rest (the first advance, or again after it went unstable) brings its ports'
    /// flows up in 8 equal stages over this many acoustic crossings of the box's longest side (a crossing is
    /// that side's cells × √3 lattice steps). The lattice's air is weakly compressible with a sound speed of
    /// c_s·h/dt (22 m/s on a 0.25 m grid at 6.5 ms, where real air has 343): switched on at once, every port's
    /// mass arrives as a pressure pulse that takes a second to cross the room and piles up in the gaps, and the
    /// campus sample's halls failed at their 13th step at 0.35 lattice units (Mach 0.6) from that alone, then
    /// ran a whole hour at 1/√2 of the step. Over two crossings the pressure follows the flows as real air's
    /// would; fans take seconds to spin up anyway. 0: all at once.
    double soft_start_crossings = 2.0;
    /// The lattice split over these ranks along y (Lattice, issue 42), and the heat's transport by the same rows
    /// (AirModel::splitRows); the lattice's mean flow and the heat's field are gathered whole on every rank, so
    /// every rank holds the same room.
    LatticeSlabs* slabs = nullptr;
};

class LbmAir final : public AirSolver {
public:
    /// Throws SimError for a Mach number outside 0.01–0.2, a non-positive speed or what AirModel refuses.
    LbmAir(const LbmAirSpec& spec, ThreadPool& pool);
    ~LbmAir() override;
    LbmAir(const LbmAir&) = delete;
    LbmAir& operator=(const LbmAir&) = delete;

    std::string_view name() const override { return "lbm"; }
    bool approximate() const override { return false; }
    /// The temperature side: grid, solids, ports, temperatures (read it; change geometry through this class).
    AirModel& air() override;
    const AirModel& air() const override;
    /// The lattice, built at the first advance (from the geometry and the fastest speed then known).
    const Lattice& lattice() const;

    /// The fastest expected air speed (m/s), which sets the lattice step; only before the first advance.
    void setMaxSpeed(double ms);
    void setFastestJet(double ms) override { setMaxSpeed(ms); }

    void addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1) override;
    /// A port on fluid cells: a source blows along (dx, dy, dz) through `open_fraction` of its face area (a
    /// perforated tile: its open-area ratio), so its jet leaves at q / (cells·h²·open_fraction). The number
    /// returned is also the port's number in air() (read its temperatures there; add ports only here).
    int addPort(const std::vector<int>& cells, bool source, double dx, double dy, double dz, double open_fraction = 1.0);
    int addPort(const std::vector<int>& cells, bool source, const PortJet& jet) override;
    void setPortFlow(int port, double q_m3s) override;
    /// Probes read the lattice's density: p = ρ_air·(h/dt)²·c_s²·(ρ − 1), sampled eight times per coupling
    /// chunk on the CPU (once per chunk on a device) and averaged over the last lattice run.
    int addProbe(const std::vector<int>& cells) override;
    double probePressurePa(int probe) const override;

    /// Advances `duration_s`: the lattice runs the matching number of its steps in chunks of ~coupling_s, and
    /// after each chunk heat is carried over the same time on that chunk's mean velocity (buoyancy from the
    /// temperature before it); within the quasi-steady stride, heat rides on the last interval's mean flow.
    /// `before_substep(dt)` runs before each temperature sub-step (port temperatures). Returns the sub-steps.
    /// Throws LatticeUnstable (with the simulated time added) when the lattice fails, and SimError when a
    /// port's jet is faster than the lattice can carry (Mach above 0.2).
    int advance(double duration_s, const std::function<void(double)>& before_substep) override;

    double latticeDtS() const;
    double timeS() const;
    /// "D3Q19 TRT + LES, 0.25 m, dt 3.6 ms (Ma 0.10 at 4.0 m/s), ν_lat 1.4e-6": for run summaries.
    std::string summary() const override;
    const AirSolverStats& stats() const override;
    /// Cell-centred mean velocity of the last advance (m/s), 3 per cell.
    std::vector<float> velocityMs() const;

private:
    int runLattice(double duration_s, const std::function<void(double)>& before_substep);
    struct Impl;
    std::unique_ptr<Impl> d_;
};

}  // namespace ct::sim
