#pragma once
// The room air model (models.md §3): a uniform grid over the hall; solid cells for racks and units; air
// enters and leaves through ports (sets of cells with a volumetric flow); a potential-flow velocity field
// (∇²φ = s, zero normal flow at walls and solids, u = ∇φ) solved by preconditioned conjugate gradients;
// temperature advected (conservative first-order upwind) and diffused explicitly, sub-stepped within the
// computed stability limit.
#include <clustertwin/sim/air/grid_face.hpp>
#include <clustertwin/sim/backend.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ct::sim {

class ThreadPool;
class LatticeSlabs;  // lattice.hpp

struct AirGridSpec {
    double width_m = 0, depth_m = 0, height_m = 0;  ///< the box
    double cell_m = 0.25;                           ///< 0.1–0.5 m
    double kappa_m2s = 0.01;                        ///< effective (turbulent) diffusivity of heat in air
    /// Grids smaller than this step in the calling thread: waking the pool costs more than it saves.
    std::size_t min_parallel_cells = 16384;
    /// Where the temperature steps and the flow solve run (choose with chooseBackend()). CUDA keeps the field
    /// on the device and copies it back only when asked for.
    Backend backend = Backend::Cpu;
    /// Advection: first-order upwind (false; the quick mode) or van Leer TVD (true; second order where smooth,
    /// bounded, half the upwind step).
    bool tvd = false;
    /// Upwind or TVD (CPU and CUDA): the sub-step to take when the explicit limit is shorter. A cell whose air
    /// would leave faster than that holds it for the sub-step instead (its heat capacity raised to
    /// 0.95⁻¹·dt·outflow): still positive and conservative, the same steady state for a steady flow, transport
    /// through the fastest cells delayed by at most this per cell. 0: the strict explicit limit everywhere.
    double substep_s = 0;
    /// With substep_s: the most heat capacity the held cells may add, as a share of the room's air (0: no
    /// bound). The sub-step shortens until they add no more, so the room's thermal mass, and with it every
    /// transient, stays within that share of the air's.
    double max_held_share = 0;
};

/// Memory the air model needs for a grid (bytes), to refuse grids that do not fit before allocating.
std::uint64_t airModelBytes(const AirGridSpec& spec);

struct FlowSolveStats {
    int iterations = 0;
    double relative_residual = 0;     ///< ‖b − Mφ‖ / ‖b‖ at the end
    double max_divergence_error = 0;  ///< max |∇·u − s| over cells, relative to the largest port flow per cell
};

class AirModel {
public:
    /// Throws SimError when the cell size is outside 0.05–1 m or the box is empty, or CUDA is asked for and
    /// this build or machine cannot run it.
    AirModel(const AirGridSpec& spec, ThreadPool& pool);
    ~AirModel();
    AirModel(const AirModel&) = delete;
    AirModel& operator=(const AirModel&) = delete;

    int nx() const;
    int ny() const;
    int nz() const;
    double cellM() const;
    std::size_t cellCount() const;
    int index(int i, int j, int k) const { return i + nx_ * (j + ny_ * k); }
    /// Cell containing a point, clamped to the grid.
    void cellOf(double x_m, double y_m, double z_m, int& i, int& j, int& k) const;

    /// Marks cells whose centre lies in the box as solid. Call before adding ports and solving.
    void addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1);
    bool solid(int cell) const;
    std::size_t solidCount() const;

    /// A port: fluid cells through which air leaves the room (sink: an intake or return) or enters it
    /// (source: an exhaust or supply). Throws SimError if a cell is solid or out of range.
    int addPort(const std::vector<int>& cells, bool source);
    /// Volumetric flow of a port (m³/s), spread evenly over its cells. Changing flows needs solveFlow().
    void setPortFlow(int port, double q_m3s);
    double portFlow(int port) const;
    /// The flow the face fluxes carry through the port: its flow at the last solveFlow() or setFluxes(), 0
    /// before any. Heat is moved at this flow, so that every port cell keeps its mass balance between solves
    /// (a flow set since then and not yet solved would add or remove air that the faces do not carry, and
    /// inflate or deflate the cell's temperature and tracer); energy accounting uses it too.
    double carriedFlow(int port) const;
    /// Temperature of the air a source port blows in.
    void setPortTemperature(int port, double t_c);
    /// Flow-weighted mean temperature of the cells of a port (what a sink takes in).
    double portMeanTemperature(int port) const;
    const std::vector<int>& portCells(int port) const;

    /// Solves the potential flow for the current port flows to a relative residual. Net source must be ~0
    /// (each rack and unit takes in what it blows out); a mismatch is removed evenly and reported.
    FlowSolveStats solveFlow(double relative_residual = 1e-6, int max_iterations = 20000);
    /// Takes face fluxes computed elsewhere (m³/s, layouts as fluxX() etc.; e.g. from the lattice's velocity),
    /// then projects them onto the port sources: the smallest potential correction F += A·∇ψ/h that makes every
    /// cell's net outflow equal its port source exactly, so heat is carried with exact mass. Walls and solids
    /// keep zero flux. Throws SimError when sizes do not match or the correction solve does not converge.
    FlowSolveStats setFluxes(std::vector<float> fx, std::vector<float> fy, std::vector<float> fz, double relative_residual = 1e-6);
    /// Splits the TVD step's rows along y over the ranks of `slabs` (as the lattice's slabs, slabRows): each
    /// updates its own rows and every rank gathers the others' after each step, so each holds the whole field,
    /// equal to the bit to one process's. On the CPU; null or one slab: every row here.
    void splitRows(LatticeSlabs* slabs);
    /// Eddy diffusivity per cell (m²/s, added to κ; e.g. ν_t / Pr_t from LES); empty to clear. `restep` false
    /// leaves the stable step as it was, for a caller whose setFluxes follows at once (it works the step out anew).
    void setEddyDiffusivity(const std::vector<float>& kappa_t_m2s, bool restep = true);
    /// A domain face held at a temperature (a validation case's heated wall); halls have adiabatic walls.
    void setWallTemperature(GridFace face, double t_c);
    /// Heat flowing in through a fixed-temperature face over the last step (W / (ρ c_p), i.e. m³·K/s).
    double wallHeatFlow(GridFace face) const;
    /// The largest stable explicit time step for the current flow (CFL, diffusion and ports together), or
    /// AirGridSpec::substep_s where that is longer and the cells faster than it hold their air longer.
    double stableDt() const;
    /// Fluid cells holding their air longer than the flow would (AirGridSpec::substep_s); 0 when none.
    std::size_t heldCells() const;
    /// Advances by `duration_s` in equal sub-steps no longer than stableDt(); `before_substep(dt)` runs before
    /// each (to update source temperatures from sink temperatures). Returns the number of sub-steps.
    int advance(double duration_s, const std::function<void(double)>& before_substep);
    /// One sub-step of exactly `dt_s` (must not exceed stableDt()).
    void step(double dt_s);
    /// On a device: waits until what this thread queued has run, so that another thread may use the model next.
    void finishDeviceWork();

    /// A passive tracer carried with the heat (same flow, diffusivity and scheme, on the same backend): each
    /// source port blows its own concentration (setPortTracer, 0 until set), sinks take what reaches
    /// them. With 1 at the cooling supplies and 0 at the rack exhausts, what a rack's intake takes in is its
    /// Capture Index. The whole room starts at `initial`.
    void enableTracer(double initial);
    bool tracerEnabled() const;
    void setPortTracer(int port, double value);
    /// Mean tracer over a port's cells (as portMeanTemperature); NaN when the tracer is off.
    double portMeanTracer(int port) const;
    /// A copy of the tracer field (empty when off).
    std::vector<float> tracer() const;

    void fill(double t_c);
    double temperature(int cell) const;
    void setTemperature(int cell, double t_c);
    /// A copy of the field, index i + nx·(j + ny·k).
    std::vector<float> temperatures() const;
    /// Face fluxes in m³/s, positive along the axis; x-faces are (nx+1)·ny·nz, index i + (nx+1)(j + ny k).
    const std::vector<float>& fluxX() const;
    const std::vector<float>& fluxY() const;
    const std::vector<float>& fluxZ() const;
    /// Net outflow through a cell's faces minus its port source (m³/s): ~0 for a solved flow.
    double divergenceError(int cell) const;
    /// Σ over fluid cells of T·V (°C·m³): with ρc_p, the heat content relative to 0 °C (with a held cell's
    /// raised capacity in place of V, the quantity the transport conserves).
    double heatContent() const;
    double maxSpeedMs() const;
    Backend backend() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
    int nx_ = 0, ny_ = 0, nz_ = 0;
};

}  // namespace ct::sim
