#pragma once
// A D3Q19 lattice-Boltzmann fluid on a box of cells, in lattice units (cell = 1, step = 1, ρ0 = 1): two-relaxation-
// time (TRT, Λ = 3/16) collision, Smagorinsky LES, Guo body forces (a uniform acceleration and Boussinesq buoyancy from a
// temperature field), bounce-back walls and solids (domain faces may move tangentially, as a cavity's lid),
// periodic axes, and ports: cells where air enters with a momentum or leaves, with exact mass. The air module
// (LbmAir) maps the hall's physical units onto it; the benchmarks of docs/reference/air.md run on it
// directly. The per-cell update is sim/air/lbm/lbm_kernel.hpp, shared by the CPU loop and CUDA.
#include <clustertwin/sim/air/grid_face.hpp>
#include <clustertwin/sim/backend.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ct::sim {

class ThreadPool;

/// The ranks one lattice is split over (issue 42, docs/scale-out.md), in slab order along y: each holds whole
/// rows [first, first + count) (slabRows) and exchanges the populations that cross its edges with the slabs
/// below and above at every step. No MPI here: a front end gives an implementation (the CLI's over ranks).
class LatticeSlabs {
public:
    virtual ~LatticeSlabs() = default;
    virtual int index() const = 0;  ///< this rank's slab, 0 at y = 0
    virtual int count() const = 0;
    /// Starts sending out[s] to slab peer[s] and receiving in[s] (sized by the caller) from it, for s = 0 (the
    /// slab below) and 1 (above); −1: none. What goes down carries tag 0, up tag 1, so a slab that is both
    /// neighbours (two slabs on a periodic axis) keeps them apart. Does not wait: finish() does.
    virtual void start(const int peer[2], const std::vector<float>* const out[2], std::vector<float>* const in[2]) = 0;
    virtual void finish() = 0;
    /// Every slab's bytes in slab order, at every slab (a collective).
    virtual std::vector<std::string> allGather(const std::string& mine) = 0;
    /// The bytes received from the other slabs since the last call (EngineStats::exchanged_bytes).
    std::uint64_t takeReceivedBytes() {
        const std::uint64_t r = received_;
        received_ = 0;
        return r;
    }

protected:
    std::uint64_t received_ = 0;  ///< implementations add what they receive
};

/// The first row and the number of rows of `ny` that slab `index` of `slabs` holds: even, the lower slabs
/// taking one more where they do not divide.
std::pair<int, int> slabRows(int ny, int slabs, int index);

/// Every slab's rows of a field over the whole box (`per_cell` floats a cell, cells i + nx·(j + ny·k)) into
/// `whole`, from each slab's own rows (`mine`, laid out the same over its rows alone): a collective. Throws
/// SimError for a slab whose rows come with the wrong size.
void gatherSlabRows(LatticeSlabs& slabs, const std::vector<float>& mine, float* whole, int nx, int ny, int nz, int per_cell = 1);

struct LatticeSpec {
    int nx = 1, ny = 1, nz = 1;
    bool periodic_x = false, periodic_y = false, periodic_z = false;
    double tau = 0.6;           ///< molecular relaxation time, ν = (τ − ½)/3; must be > ½
    double smagorinsky_cs = 0;  ///< C_s (the filter width is one cell); 0 for laminar runs
    std::size_t min_parallel_cells = 100000;
    Backend backend = Backend::Cpu;
    /// The CPU rows' stores of the populations: −1 by the lattice's size (past the caches when its two copies are
    /// larger than they hold), 0 plain, 1 past the caches. The same numbers either way.
    int stream_stores = -1;
    /// Split over these ranks along y (null or one slab: the whole box here). Every slab builds the same
    /// lattice (the whole geometry, every port) and calls the same methods in the same order; the ones that
    /// read the state (step, meanVelocity, meanEddyViscosity, densities, totalMass, maxSpeed) are collectives.
    LatticeSlabs* slabs = nullptr;
};

/// The lattice went unstable: NaN, a density far from 1 or a speed beyond what the lattice can carry.
class LatticeUnstable : public SimError {
public:
    LatticeUnstable(const std::string& what, int ci, int cj, int ck, std::int64_t at_step)
        : SimError(what), i(ci), j(cj), k(ck), step(at_step) {}
    int i, j, k;
    std::int64_t step;
};

class Lattice {
public:
    /// Throws SimError for an empty box, τ ≤ ½, a CUDA request this build or machine cannot run, or more slabs
    /// than rows.
    Lattice(const LatticeSpec& spec, ThreadPool& pool);
    ~Lattice();
    Lattice(const Lattice&) = delete;
    Lattice& operator=(const Lattice&) = delete;

    int nx() const;
    int ny() const;
    int nz() const;
    /// The whole box's cells; cells are numbered over it, split or not.
    std::size_t cellCount() const;
    /// The rows along y this slab steps (0 and ny() without slabs), and whether it holds a cell.
    int firstRow() const;
    int rowCount() const;
    bool holds(int cell) const;
    int index(int i, int j, int k) const { return i + nx_ * (j + ny_ * k); }

    /// Solid cells are bounce-back walls. Set the geometry before ports and the first step.
    void setSolid(int cell, bool solid);
    bool solid(int cell) const;
    /// Tangential velocity of a (non-periodic) domain face; edges and corners take the velocity of the
    /// face listed later in GridFace, so a lid's corners add no mass.
    void setWallVelocity(GridFace face, double ux, double uy, double uz);

    /// A port on fluid cells: a source adds air moving along (dx, dy, dz) (a unit axis or any direction), a sink
    /// takes it out. Returns the port's number. Throws SimError for solid or out-of-range cells.
    int addPort(const std::vector<int>& cells, bool source, double dx = 0, double dy = 0, double dz = 0);
    /// The port's flow in lattice volume per step (spread evenly over its cells) and, for a source, the speed
    /// its air enters with (lattice units; e.g. flow / open area).
    void setPortFlow(int port, double volume_per_step, double jet_speed = 0);
    double portFlow(int port) const;

    /// A uniform acceleration (lattice units), e.g. the pressure gradient of a channel.
    void setBodyForce(double fx, double fy, double fz);
    /// Boussinesq buoyancy: an upward (+z) acceleration `per_kelvin`·(T − t_ref) from a temperature field laid
    /// out like the cells (i + nx·(j + ny·k)). The CPU copies the field here (a device reads it at each batch of
    /// steps): call again after changing it. Pass nullptr to switch it off.
    void setBuoyancy(const float* temperature, double per_kelvin, double t_ref);

    /// Fills the lattice with air at rest (ρ = 1).
    void reset();
    /// The same air on a lattice step `r` times as long, with molecular relaxation time `tau`: every fluid cell's
    /// velocity (lattice units) scales by r, its density deviation (the pressure, ∝ u²) by r², its non-equilibrium
    /// part (the stress, ∝ the velocity gradient) by r. Port flows and forces are the caller's to set again.
    void rescaleTime(double r, double tau);
    /// Advances `steps` steps. Throws LatticeUnstable (naming the cell and step) the step the lattice fails; in
    /// slabs at the end of the batch, on every slab, naming the first slab's failure.
    void step(int steps = 1);
    std::int64_t steps() const;

    /// While sampling, every step adds its velocity and eddy viscosity to running sums.
    void setSampling(bool on);
    void resetMeans();
    int meanSamples() const;
    /// Mean velocity since resetMeans(), 3 per cell (x, y, z); zero in solids. Without samples: the current one.
    std::vector<float> meanVelocity() const;
    /// Mean Smagorinsky eddy viscosity per cell since resetMeans() (lattice units).
    std::vector<float> meanEddyViscosity() const;

    /// The current density and velocity of a cell (from its populations); SimError for a cell of another slab.
    void moments(int cell, double& rho, double& ux, double& uy, double& uz) const;
    /// The current density of each cell (of any slab).
    std::vector<double> densities(const std::vector<int>& cells) const;
    /// Σ ρ over fluid cells (lattice mass).
    double totalMass() const;
    /// Largest |u| of the current state over fluid cells.
    double maxSpeed() const;
    Backend backend() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
    int nx_ = 0, ny_ = 0, nz_ = 0;
};

}  // namespace ct::sim
