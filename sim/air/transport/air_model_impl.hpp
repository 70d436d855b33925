#pragma once
// AirModel's state, shared by its files (air_model.cpp: grid, ports, temperature steps; air_flow.cpp: the
// potential-flow solve and the projection of given fluxes). Private to ct_sim.
#include <clustertwin/sim/air/air_model.hpp>
#ifdef CT_HAVE_CUDA
#include "air/transport/air_device.hpp"
// Device calls report CUDA failures (call, file, line) as the engine's SimError.
#define CT_ON_DEVICE(...)                                                        \
    do {                                                                         \
        try {                                                                    \
            __VA_ARGS__;                                                         \
        } catch (const ::ct::sim::SimError&) {                                   \
            throw;                                                               \
        } catch (const std::runtime_error& e) {                                  \
            throw ::ct::sim::SimError(std::string("CUDA backend: ") + e.what()); \
        }                                                                        \
    } while (0)
#endif
#include "flow_multigrid.hpp"

#include <clustertwin/sim/thread_pool.hpp>
#include "air/transport/kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <utility>

namespace ct::sim {

namespace k = kernels;

/// One chunk of planes' face fluxes of T and then the tracer (air_tvd.cpp), for the plane's rows as one line:
/// x the face west of each cell (and one past the last), y the face south of each row (and one row past the
/// last), z the faces below the plane and up those above it; fx_rows the rows' flow across x side by side.
struct TvdScratch {
    std::vector<float> x, y, fx_rows, z, up;
};

/// A port's exchange this step, per cell: the flow and what a source blows in (T, tracer).
struct AirPortNow {
    float q, t_in, c_in;
    bool source;
};

struct AirModel::Impl {
    AirGridSpec spec;
    ThreadPool& pool;
    int nx, ny, nz;
    double h, vol, diff;
    std::vector<unsigned char> solid, nb, nb2;  ///< nb2: neighbour bits of the cells two away (TVD)
    std::vector<std::uint32_t> nbw;             ///< nb | nb2 << 8, for the vectorised TVD row
    std::vector<float> t, t2, fx, fy, fz;       ///< t, t2: kPad padding elements before cell 0 and after the last
    std::vector<float> kt;                      ///< eddy diffusivity per cell (m²/s), padded like t; empty when none was set
    /// The passive tracer (Capture Index), padded like t; empty when off. Stepped with the same fluxes,
    /// diffusivity and scheme as T, on T's backend (on a device, the host copy is refreshed when read).
    std::vector<float> tr, tr2;
    /// First-order upwind with uniform diffusivity, as per-cell rates (m³/s): what flows in from each
    /// neighbour (W, E, S, N, D, U) plus its diffusive conductance, and the faces' net inflow (the seventh
    /// block), n floats per block. Built from the
    /// fluxes when first needed after they changed (coef_stale), shared by T and the tracer.
    std::vector<float> coef;
    bool coef_stale = true;
    void buildCoefficients();
    /// Port cells by plane (cell, port), in port order, so each plane's chunk applies its own exchanges.
    std::vector<std::vector<std::pair<int, int>>> plane_ports;
    bool plane_ports_stale = true;
    void buildPlanePorts();
    /// The same pairs row by row (row j + ny·k: begin offsets, then cells and ports), each row's by cell and,
    /// for a cell of several ports, in port order: the TVD step exchanges a row's port cells right after it.
    std::vector<std::size_t> row_port_begin;
    std::vector<int> row_port_cell, row_port_id;
    using PortNow = AirPortNow;
    std::vector<PortNow> portsNow() const;
    /// Plane kk's port exchanges onto the new fields out_t (and out_c, when in_c is not null) from the old
    /// ones, in port order as applyPorts does them (the same arithmetic, so the same floats).
    void planePortExchange(int kk, const float* in_t, float* out_t, const float* in_c, float* out_c, const PortNow* now, float dt_v) const;
    struct Wall {
        bool fixed = false;
        double t_c = 20;
    };
    Wall walls[6];  ///< fixed-temperature domain faces (GridFace order); adiabatic otherwise
    static constexpr int kPad = 2;
    float* T() { return t.data() + kPad; }
    const float* T() const { return t.data() + kPad; }
    float* KT() { return kt.data() + kPad; }
    std::vector<double> phi;
    struct Port {
        std::vector<int> cells;
        bool source;
        double q = 0;       ///< asked for (setPortFlow)
        double q_flow = 0;  ///< what the fluxes carry: q at the last flow solve or projection
        double t_in = 20;
        double c_in = 0;  ///< tracer a source blows in
    };
    std::vector<Port> ports;
    bool geometry_dirty = true;
    FlowMultigrid mg;  ///< the flow solve's preconditioner (CPU), rebuilt after the geometry changed
    bool mg_stale = true;
    double stable_dt = 0;
    /// Held cells (AirGridSpec::substep_s): V / the raised capacity per cell, ≤ 1; empty when no cell is held.
    std::vector<float> cap;
    std::size_t held = 0;
    bool mayHold() const { return spec.substep_s > 0; }
    std::vector<double> src;  ///< per-cell net source of the last flow solve (m³/s)

#ifdef CT_HAVE_CUDA
    // CUDA backend: the device holds T; the host copy is refreshed only when read (host_stale), and
    // uploaded again after host-side writes (device_stale).
    std::unique_ptr<detail::AirDevice> dev;
    bool host_stale = false, device_stale = true, ports_stale = true, port_state_stale = true, geometry_on_device = false;
    /// The tracer's copies (as host_stale / device_stale for T) and the held cells' capacities (hold_stale).
    bool tracer_host_stale = false, tracer_device_stale = true, hold_stale = true;
    bool tracer_sums_valid = false;
    std::vector<double> tracer_sums;
    /// Every port's Σ T and Σ tracer of the device's current fields, in one pass, reused until the next step.
    void devicePortSums() {
        if (port_sums_valid && (tr.empty() || tracer_sums_valid)) return;
        CT_ON_DEVICE(dev->portSums(port_sums, tracer_sums));
        port_sums_valid = true;
        tracer_sums_valid = !tr.empty();
    }
    /// Before a device step: what changed on the host since the last one (geometry, ports, their state,
    /// T, the tracer, the held cells).
    void uploadForStep();
    /// The TVD step's eddy diffusivity and walls (conductances depend on it) to upload before the next step;
    /// the walls' heat flows of the last step are on the device.
    bool kt_stale = true, walls_stale = true, wall_flows_on_device = false;
    /// Uploads what the device's TVD step needs and takes one sub-step there.
    void stepTvdOnDevice(double dt);
#endif
    /// Σ T over each port's cells for the current field: from the device, or summed by the CPU upwind step
    /// as it writes the field (plane by plane, added in plane order); recomputed per port when not valid.
    std::vector<double> port_sums;
    bool port_sums_valid = false;
    bool onDevice() const {
#ifdef CT_HAVE_CUDA
        return dev != nullptr;
#else
        return false;
#endif
    }
    /// Brings the host's T up to date before it is read.
    void syncHost() {
#ifdef CT_HAVE_CUDA
        if (dev && host_stale) {
            CT_ON_DEVICE(dev->getTemperature(T()));
            host_stale = false;
        }
#endif
    }
    /// After the host wrote T: the device copy must be refreshed before the next step.
    void hostWrote() {
#ifdef CT_HAVE_CUDA
        device_stale = true;
#endif
        port_sums_valid = false;
    }

    Impl(const AirGridSpec& s, ThreadPool& p) : spec(s), pool(p) {}

    /// Chunked loops: across the pool for large grids; in the calling thread when a step is too short to
    /// pay for waking the others. Chunks are the same either way, so results are too.
    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
        if (n() < spec.min_parallel_cells) {
            for (std::size_t c = 0; c < chunks; ++c) fn(c);
        } else {
            pool.run(chunks, fn);
        }
    }

    std::size_t n() const { return static_cast<std::size_t>(nx) * ny * nz; }
    int idx(int i, int j, int kk) const { return i + nx * (j + ny * kk); }
    int fxi(int i, int j, int kk) const { return i + (nx + 1) * (j + ny * kk); }
    int fyi(int i, int j, int kk) const { return i + nx * (j + (ny + 1) * kk); }
    int fzi(int i, int j, int kk) const { return i + nx * (j + ny * kk); }

    void updateNeighbours() {
        if (!geometry_dirty) return;
        coef_stale = true;
        nb2.assign(n(), 0);
        for (int kk = 0; kk < nz; ++kk)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    unsigned char m = 0;
                    if (!solid[c]) {
                        if (i > 0 && !solid[c - 1]) m |= k::kWest;
                        if (i + 1 < nx && !solid[c + 1]) m |= k::kEast;
                        if (j > 0 && !solid[c - nx]) m |= k::kSouth;
                        if (j + 1 < ny && !solid[c + nx]) m |= k::kNorth;
                        if (kk > 0 && !solid[c - nx * ny]) m |= k::kDown;
                        if (kk + 1 < nz && !solid[c + nx * ny]) m |= k::kUp;
                    }
                    nb[c] = m;
                }
        // Two away: through a fluid neighbour to its fluid neighbour in the same direction.
        const int plane = nx * ny;
        for (int kk = 0; kk < nz; ++kk)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    const unsigned char m = nb[c];
                    unsigned char m2 = 0;
                    if ((m & k::kWest) && (nb[c - 1] & k::kWest)) m2 |= k::kWest;
                    if ((m & k::kEast) && (nb[c + 1] & k::kEast)) m2 |= k::kEast;
                    if ((m & k::kSouth) && (nb[c - nx] & k::kSouth)) m2 |= k::kSouth;
                    if ((m & k::kNorth) && (nb[c + nx] & k::kNorth)) m2 |= k::kNorth;
                    if ((m & k::kDown) && (nb[c - plane] & k::kDown)) m2 |= k::kDown;
                    if ((m & k::kUp) && (nb[c + plane] & k::kUp)) m2 |= k::kUp;
                    nb2[c] = m2;
                }
        // Both as one 32-bit word per cell for the TVD row: with byte loads GCC vectorises 32 cells at a time and
        // spills most of the stencil to the stack.
        nbw.resize(n());
        for (std::size_t c = 0; c < n(); ++c) nbw[c] = static_cast<std::uint32_t>(nb[c]) | static_cast<std::uint32_t>(nb2[c]) << 8;
        geometry_dirty = false;
        mg_stale = true;
    }

    /// y = M x over the fluid cells of rows [j0, j1) (j1 < 0: all), one z-plane per chunk.
    void apply(const std::vector<double>& x, std::vector<double>& y, int j0 = 0, int j1 = -1) {
        const int jend = j1 < 0 ? ny : j1;
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            const int kk = static_cast<int>(kc);
            for (int j = j0; j < jend; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    if (solid[c]) {
                        y[c] = 0;
                        continue;
                    }
                    const unsigned char m = nb[c];
                    y[c] = k::laplaceApply(x[c], (m & k::kWest) ? x[c - 1] : 0, (m & k::kEast) ? x[c + 1] : 0,
                                           (m & k::kSouth) ? x[c - nx] : 0, (m & k::kNorth) ? x[c + nx] : 0,
                                           (m & k::kDown) ? x[c - nx * ny] : 0, (m & k::kUp) ? x[c + nx * ny] : 0, m, h);
                }
        });
    }

    /// Σ a·b: each row's sum, each plane's the sum of its rows in order, the total the planes' in order: the same
    /// bits for any thread count, and for the rows split over ranks (dotsRows).
    double dot(const std::vector<double>& a, const std::vector<double>& b) {
        double v = 0;
        dotsRows({{&a, &b}}, &v, 0, ny, false);
        return v;
    }
    /// The same for each pair (a, b) into out[…], over rows [j0, j1) here, the other rows' sums gathered from the
    /// other ranks when `split` (one gather for all the pairs).
    void dotsRows(std::initializer_list<std::pair<const std::vector<double>*, const std::vector<double>*>> pairs, double* out, int j0,
                  int j1, bool split);

    /// f(c) for every cell of rows [j0, j1), one z-plane per chunk.
    template <class F>
    void forRows(int j0, int j1, F&& f) {
        const std::size_t row = static_cast<std::size_t>(nx), plane = row * static_cast<std::size_t>(ny);
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            for (std::size_t c = kc * plane + row * static_cast<std::size_t>(j0); c < kc * plane + row * static_cast<std::size_t>(j1); ++c)
                f(c);
        });
    }

    std::vector<double> sources() const {
        std::vector<double> s(n(), 0.0);
        for (const Port& p : ports) {
            const double per = p.q / static_cast<double>(p.cells.size());
            for (int c : p.cells) s[c] += p.source ? per : -per;
        }
        return s;
    }

    /// Conductance of the face between fluid cells a and b: κ_eff·A/h with κ_eff = κ + the mean eddy diffusivity.
    double conductance(int a, int b) const {
        if (kt.empty()) return diff;
        return h * (spec.kappa_m2s + 0.5 * (static_cast<double>(kt[a + kPad]) + kt[b + kPad]));
    }
    /// Conductance to a fixed-temperature wall half a cell away.
    double wallConductance(int c) const { return 2.0 * h * (spec.kappa_m2s + (kt.empty() ? 0.0 : kt[c + kPad])); }
    /// Cells on a domain face.
    std::vector<int> faceCells(int face) const;
    bool anyWall() const;
    double wall_flow[6] = {0, 0, 0, 0, 0, 0};  ///< heat into the room through each fixed face, last step (m³·K/s)
    /// The first-order upwind step of T and, when on, the tracer in one pass over the coefficients.
    void stepUpwind(double dt);
    /// The TVD / variable-diffusivity step (CPU) of T and, when on, the tracer in one pass over the rows (the
    /// tracer's ports blow c_in and fixed-temperature walls are adiabatic to it); swaps the fields.
    void stepTvd(double dt);
    std::vector<TvdScratch> tvd_scratch;  ///< one per chunk of planes
    /// A hall split over ranks (AirModel::splitRows): the TVD step updates rows [row0, row0 + rows) here (all:
    /// rows < 0) and gathers the others' from row_slabs, so every rank holds the whole field.
    LatticeSlabs* row_slabs = nullptr;
    int row0 = 0, rows = -1;
    /// Between sub-steps a rank needs of the others' rows only what its stencil and the coupling read: their two
    /// rows at each edge and their port cells (share_cells[s], ascending, for slab s; built with the ports
    /// counted in share_ports). The whole field is gathered after each advance (AirModel::advance).
    std::vector<std::vector<int>> share_cells;
    std::size_t share_ports = 0;
    void gatherRows(float* field, bool whole);
    /// Every slab's rows of an nx × ny × nz field (theirs by slabRows(ny, …)) into it at every slab, from this one's.
    static void gatherOwnRows(LatticeSlabs& slabs, float* field, int nx, int ny, int nz);
    void buildShares();
    /// After an advance: the whole field (and tracer) at every rank.
    void gatherWhole();
    bool walls_fixed() const {
        for (const Wall& w : walls)
            if (w.fixed) return true;  // a fixed face reads and sums all of its cells each sub-step
        return false;
    }
    /// Port exchanges onto `out` (the new field) from `in` (the old one): T's or, with `tracer`, the tracer's.
    void applyPorts(const float* in, float* out, float dt_v, bool tracer);
    /// TVD, eddy diffusivity or fixed-temperature walls: the stencil step (stepTvd); else the coefficients'.
    bool tvdPath() const { return spec.tvd || !kt.empty() || anyWall(); }
    /// Solves M x = −s (net mismatch removed evenly) and sets the face fluxes to h·Δx, or adds them (`add`).
    /// Each component of the room must balance its sources: any net mismatch removed evenly over fluid cells.
    void balanceSources(std::vector<double>& s) const;
    /// CG on M x = b preconditioned by one multigrid V-cycle (flow_multigrid.hpp), warm-started from x.
    FlowSolveStats solveCpu(const std::vector<double>& b, std::vector<double>& x, double bnorm, double rel_res, int max_iter);
    /// Face fluxes F = A/h·Δφ = h·Δφ between fluid cells from the potential x (added to the faces' fluxes with add).
    void facesFromPotential(const std::vector<double>& x, bool add);
    FlowSolveStats potential(std::vector<double> s, std::vector<double>& x, bool add, double rel_res, int max_iter, double abs_res = 0);
    FlowSolveStats finishFlow(FlowSolveStats st);
    /// Net outflow through a cell's faces minus its port source (m³/s).
    double divergence(int c) const;
    std::vector<double> psi;  ///< the projection's correction potential, kept to warm-start the next one
    /// The flow's CG split by rows over row_slabs (a hall split in slabs): each rank iterates on rows
    /// [flowRowsOf(its index)), pairs of rows so that the multigrid's aggregates stay on one rank; every rank still
    /// holds the whole solution after the solve. Off when there are fewer pairs of rows than ranks.
    bool flowSplit() const;
    std::pair<int, int> flowRowsOf(int slab) const;
    /// Rows j0 − 1 and j1 of a field (cells as idx, `elem` bytes a cell: a double or a float) from the ranks
    /// below and above.
    void flowHalo(void* field, std::size_t elem, int j0, int j1);
    /// Every rank's rows of x (its flowRowsOf) into x at every rank.
    void gatherFlowRows(std::vector<double>& x);
    std::vector<float> flow_ring[2];              ///< gatherFlowRows' buffers, kept
    std::vector<double> cg_r, cg_z, cg_p, cg_ap;  ///< solveCpu's vectors, kept (fresh pages cost on every solve)

    /// The sub-step for held cells: substep_s, or shorter (down to the strict limit) until the capacity the
    /// held cells add, Σ (dt·rate/0.95 − V), is within max_held_share of the fluid's volume.
    double heldStep(const std::vector<double>& cell_rate, double strict) const {
        if (!(spec.max_held_share > 0)) return spec.substep_s;
        std::size_t fluid = 0;
        for (std::size_t c = 0; c < n(); ++c) fluid += solid[c] ? 0 : 1;
        const double allowed = spec.max_held_share * static_cast<double>(fluid) * vol;
        // Only cells whose air would leave within substep_s add capacity at any step tried (every step tried is
        // at most substep_s, and a cell's term grows with it), so the search sums those alone, in the same order:
        // the others' terms are +0, which leaves a sum as it is.
        std::vector<double> fast;
        for (double r : cell_rate)
            if (spec.substep_s * r / 0.95 - vol > 0) fast.push_back(r);
        auto added = [&](double dt) {
            double sum = 0;
            for (double r : fast) sum += std::max(0.0, dt * r / 0.95 - vol);
            return sum;
        };
        if (added(spec.substep_s) <= allowed) return spec.substep_s;
        double lo = strict, hi = spec.substep_s;  // added(lo) = 0 ≤ allowed < added(hi)
        for (int it = 0; it < 40 && hi - lo > 1e-4 * lo; ++it) {
            const double mid = 0.5 * (lo + hi);
            (added(mid) <= allowed ? lo : hi) = mid;
        }
        return lo;
    }

    void computeStableDt() {
        coef_stale = true;  // every change of fluxes, diffusivity or walls passes here
        std::vector<double> sink(n(), 0.0);
        for (const Port& p : ports)
            if (!p.source)
                for (int c : p.cells) sink[c] += p.q_flow / static_cast<double>(p.cells.size());
        std::vector<double> wall_g(n(), 0.0);
        for (int f = 0; f < 6; ++f)
            if (walls[f].fixed)
                for (int c : faceCells(f))
                    if (!solid[c]) wall_g[c] += wallConductance(c);
        std::vector<double> part(static_cast<std::size_t>(nz), 0.0);
        const int plane = nx * ny;
        const bool hold = mayHold();
        cap.assign(hold ? n() : 0, 1.f);
        std::vector<double> cell_rate(hold ? n() : 0, 0.0);
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            const int kk = static_cast<int>(kc);
            double worst = 0;
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    if (solid[c]) continue;
                    const unsigned char m = nb[c];
                    double g = wall_g[c];
                    if (m & k::kWest) g += conductance(c, c - 1);
                    if (m & k::kEast) g += conductance(c, c + 1);
                    if (m & k::kSouth) g += conductance(c, c - nx);
                    if (m & k::kNorth) g += conductance(c, c + nx);
                    if (m & k::kDown) g += conductance(c, c - plane);
                    if (m & k::kUp) g += conductance(c, c + plane);
                    const double out = k::posf(fx[fxi(i + 1, j, kk)]) + k::posf(-fx[fxi(i, j, kk)]) + k::posf(fy[fyi(i, j + 1, kk)]) +
                                       k::posf(-fy[fyi(i, j, kk)]) + k::posf(fz[fzi(i, j, kk + 1)]) + k::posf(-fz[fzi(i, j, kk)]);
                    // TVD (van Leer) needs half the upwind step for its advective part.
                    const double rate = (spec.tvd ? 2.0 : 1.0) * out + sink[c] + g;
                    worst = std::max(worst, rate);
                    if (hold) cell_rate[static_cast<std::size_t>(c)] = rate;
                }
            part[kc] = worst;
        });
        const double worst = *std::max_element(part.begin(), part.end());
        stable_dt = worst > 0 ? 0.95 * vol / worst : 1e9;
        held = 0;
        if (hold && stable_dt < spec.substep_s) {
            // Cells faster than the sub-step hold their air for it: capacity V_eff = dt·rate/0.95 > V.
            stable_dt = heldStep(cell_rate, stable_dt);
            for (std::size_t c = 0; c < n(); ++c) {
                const double limit = 0.95 * vol / cell_rate[c];
                if (cell_rate[c] > 0 && limit < stable_dt) {
                    cap[c] = static_cast<float>(limit / stable_dt);
                    ++held;
                }
            }
        } else {
            cap.clear();
        }
#ifdef CT_HAVE_CUDA
        hold_stale = true;
#endif
    }
};

}  // namespace ct::sim
