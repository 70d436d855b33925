#pragma once
// The CPU lattice's state (lattice.cpp: geometry and the step; lattice_api.cpp: the public calls; lattice_slab.cpp:
// a lattice split into slabs over ranks). Private to ct_sim.
//
// Populations are FP32 deviations in a structure-of-arrays layout f[q][cell] over a grid padded by one halo cell
// on every side, so that the 19 neighbour loads of a row are 19 contiguous streams the compiler vectorises. Halo
// cells are walls, moving walls or, on a periodic axis, copies of the opposite layer; in a slab, the rows at its
// edges along y are the neighbouring slabs' rows, received every step.
#include <clustertwin/sim/air/lattice.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include "lattice_row.hpp"
#include "lbm_kernel.hpp"
#ifdef CT_HAVE_CUDA
#include "lattice_device.hpp"
#endif

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ct::sim {

namespace lattice_detail {
constexpr int kQ = lbm::kQ;
constexpr int kMaxWallKinds = 8;  ///< flag 0 fluid, 1 still wall, 2.. moving faces
}  // namespace lattice_detail

struct Lattice::Impl {
    static constexpr int kQ = lattice_detail::kQ;
    LatticeSpec spec;
    ThreadPool& pool;
    int nx, ny, nz, px, py, pz;        ///< this slab's rows (ny) and its padded box
    int gny = 0, j0 = 0;               ///< the whole box's rows along y and this slab's first
    LatticeSlabs* slabs = nullptr;     ///< set when the lattice is split over more than one rank
    int peer[2] = {-1, -1};            ///< the slabs below and above (−1: a wall there)
    std::size_t n;                     ///< padded cells
    std::vector<float> a, b;           ///< populations, [q][padded cell]
    std::vector<unsigned char> flag;   ///< padded
    std::vector<float> fluid;          ///< padded: 1 where flag is 0
    std::vector<unsigned char> solid;  ///< every cell of the whole box (nx · gny · nz)
    float wall[lattice_detail::kMaxWallKinds * kQ] = {};
    /// Bounce-back links: population q of solid (or halo) cell `solid` is the one the fluid cell `solid + c_q`
    /// pulls; before each step it is set to that fluid cell's opposite population plus the wall's motion term.
    struct Links {
        std::vector<int> solid, fluid;
        std::vector<unsigned char> q;
        std::vector<float> term;
        std::size_t size() const { return solid.size(); }
        void clear();
        void push(int s, int f, int qd, float t);
        void sortByDirection();
    };
    Links links;
    /// In a slab, the links whose solid cell lies in an edge row received from a neighbour: set after it arrives.
    Links edge_links;
    /// One process's links by the interior row of their fluid cell (j + ny·k), as flat population offsets: a row
    /// bounces back the populations it is about to pull from solid cells right before it streams. Each solid
    /// population is written by one link and read by that link's fluid cell alone, and the value comes from the
    /// fluid cell's own population of the last step, so rows side by side never touch each other's.
    struct RowLinks {
        std::vector<std::size_t> begin;  ///< ny·nz + 1 offsets
        std::vector<std::size_t> dst, src;
        std::vector<float> term;
    };
    RowLinks row_links;
    void buildRowLinks();
    void rowBounceBack(float* f, int j, int k) const {
        const std::size_t r = static_cast<std::size_t>(j) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(k);
        for (std::size_t e = row_links.begin[r]; e < row_links.begin[r + 1]; ++e)
            f[row_links.dst[e]] = f[row_links.src[e]] + row_links.term[e];
    }
    double face_u[6][3] = {};
    bool face_moving[6] = {};
    bool geometry_dirty = true;
    struct Port {
        std::vector<int> cells;     ///< padded indices of this slab's cells
        std::size_t all_cells = 0;  ///< over every slab: the flow spreads over all of them
        bool source;
        double dir[3];
        double q = 0, jet = 0;
    };
    std::vector<Port> ports;
    /// The ports' cells row by row (row j + ny·k), so that a row's ports are applied right after the row is
    /// streamed and collided, while its populations are still in cache: each row's (cell, port) pairs in cell
    /// order and, for a cell of several ports, in the ports' order. Rebuilt after a port is added.
    struct RowPorts {
        std::vector<std::size_t> begin;  ///< ny·nz + 1 offsets into cell and port
        std::vector<int> cell, port;
    };
    RowPorts row_ports;
    bool row_ports_stale = true;
    /// Each port's state for the step, as the exchange takes it; a source's 19 increments worked out once, and
    /// again only when the port's flow, jet or direction changed (`from`: what they were worked out of).
    struct PortNow {
        float q;
        bool source;
        float add[kQ];
        double from[5] = {std::numeric_limits<double>::quiet_NaN(), 0, 0, 0, 0};  ///< q / cells, jet, dir (NaN: never)
    };
    std::vector<PortNow> port_now;
    double body[3] = {0, 0, 0};
    const float* temp = nullptr;  ///< the field setBuoyancy was given (the whole box's layout)
    std::vector<float> temp_pad;  ///< the CPU's copy of this slab's part of it, padded like the populations
    double buoy = 0, t_ref = 0;
    bool sampling = false;
    int samples = 0;
    /// The running sums of the means, padded like the populations: ux, uy, uz n apart; the eddy viscosity.
    std::vector<float> sum_u, sum_nu;
    /// `per_cell` padded fields (n apart) times `scale`, as the interior cells' (i + nx·(j + ny·k)) values side
    /// by side: per_cell of them a cell.
    std::vector<float> interiorOf(const std::vector<float>& padded, int per_cell, float scale) const;
    /// `per_cell` interior fields one after another (as a device keeps its sums) into padded fields, n apart.
    void paddedFrom(const std::vector<float>& cells, int per_cell, std::vector<float>& padded) const;
    std::int64_t steps = 0;
    std::vector<float> halo_out[2], halo_in[2];  ///< a slab's edge rows, to and from the slabs below and above
#ifdef CT_HAVE_CUDA
    // CUDA: the device holds the state; the host copies are refreshed only when read.
    std::unique_ptr<detail::LatticeDevice> dev;
    bool dev_ports_stale = true, dev_state_stale = true, host_stale = false;
#endif
    bool onDevice() const {
#ifdef CT_HAVE_CUDA
        return dev != nullptr;
#else
        return false;
#endif
    }
    bool split() const { return slabs != nullptr; }

    Impl(const LatticeSpec& s, ThreadPool& p) : spec(s), pool(p) {}

    int pad(int i, int j, int k) const { return (i + 1) + px * ((j + 1) + py * (k + 1)); }
    /// A cell of the whole box (i + nx·(j + gny·k)) as a padded index of this slab (its row must be here).
    int padOf(int cell) const { return pad(cell % nx, (cell / nx) % gny - j0, cell / (nx * gny)); }
    /// Whether this slab holds a cell of the whole box.
    bool holds(int cell) const {
        const int j = (cell / nx) % gny;
        return j >= j0 && j < j0 + ny;
    }
    /// This slab's cell (i, j, k) in the whole box.
    std::size_t global(int i, int j, int k) const {
        return static_cast<std::size_t>(i) + static_cast<std::size_t>(nx) * (j + j0 + static_cast<std::size_t>(gny) * k);
    }
    /// This slab's cells (the whole box's when it is not split).
    std::size_t interior() const { return static_cast<std::size_t>(nx) * ny * nz; }
    bool solidAt(int i, int j, int k) const { return solid[global(i, j, k)] != 0; }

    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
        if (interior() < spec.min_parallel_cells) {
            for (std::size_t c = 0; c < chunks; ++c) fn(c);
        } else {
            pool.run(chunks, fn);
        }
    }

    // lattice.cpp
    void syncHost();
    void buildFlags();
    void buildLinks();
    void bounceBack(float* f, const Links& l);
    template <class T>
    void copyPeriodic(T* base, int count);
    lattice_detail::RowArgs rowArgs();
    /// One step on the CPU; the plane of a cell that failed the stability check, or −1.
    int cpuStep();
    /// Before a step: the rows' port index (when stale) and every port's state.
    void preparePorts();
    /// The ports' exchange on row (j, k) of the populations just collided into `f`.
    void rowPorts(float* f, int j, int k) const;
    /// Whether the rows stream their population stores past the caches (lattice.cpp).
    bool streamStores() const;
    /// Rows [j0, j1) of plane k updated as one line of padded cells (RowFn: the halo cells between the rows
    /// included), then their ports; true when a cell failed the stability check.
    bool rowsStep(const lattice_detail::RowArgs& r, lattice_detail::RowFn row, int j_first, int j_end, int k) {
        if (j_end <= j_first) return false;
        const auto p0 = static_cast<std::size_t>(pad(0, j_first, k));
        const bool bad = row(r, p0, px * (j_end - j_first - 1) + nx);
        for (int j = j_first; j < j_end; ++j) rowPorts(r.dst, j, k);
        return bad;
    }
    void cellMoments(int p, double& rho, double& ux, double& uy, double& uz) const;
    [[noreturn]] void reportInstability(int k) const;
#ifdef CT_HAVE_CUDA
    void deviceSteps(int count, bool flags_changed);
    /// A slab's steps on its device (lattice_slab.cpp): each step its edge rows go through the host to the
    /// neighbours and theirs come back into the halo rows before the step's launches; then the slabs agree.
    void deviceSlabSteps(int count, const detail::LatticeStepParams& prm);
#endif
    /// f(ρ, ux, uy, uz) for every fluid cell of this slab's current (host) state.
    template <class F>
    void forFluidCells(F&& f) {
        syncHost();
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    if (solidAt(i, j, k)) continue;
                    double rho, ux, uy, uz;
                    cellMoments(pad(i, j, k), rho, ux, uy, uz);
                    f(rho, ux, uy, uz);
                }
    }

    // lattice_slab.cpp
    /// This slab's rows and neighbours from spec.slabs (no-op without one).
    void placeSlab();
    /// The flags of the edge rows that hold a neighbour's cells (from the whole box's solids).
    void flagEdgeRows();
    /// One step of a slab: its edge rows sent and received while the rows inside are updated.
    void slabStep(const lattice_detail::RowArgs& r, lattice_detail::RowFn row, std::vector<unsigned char>& bad);
    /// Agrees with the other slabs whether a step of the batch failed; throws LatticeUnstable on every slab if so.
    void agreeStable(std::int64_t failed_step, int failed_plane, std::int64_t end_step);
    /// A field of this slab's cells (`per_cell` values a cell, in cell order) as the whole box's, at every slab.
    std::vector<float> wholeField(const std::vector<float>& mine, int per_cell) const;
    /// `rho` (one per cell of `cells`, set where this slab holds the cell) with every slab's values, at every slab.
    std::vector<double> wholeDensities(const std::vector<int>& cells, const std::vector<double>& rho) const;
    double sumOverSlabs(double mine) const;
    double maxOverSlabs(double mine) const;
    /// Edge rows: this slab's row next to slab side s (0 below, 1 above) into halo_out[s]; halo_in[s] into the
    /// padded row beyond that side (its fluid cells only); the periodic images of such a row.
    void packEdge(int s);
    void unpackEdge(int s);
    void copyPeriodicRow(int jp);
};

}  // namespace ct::sim
