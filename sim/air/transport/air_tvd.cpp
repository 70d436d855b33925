// The CPU's TVD / variable-diffusivity step of the heat (and the tracer) on the lattice's or the potential
// flow's face fluxes. Face by face: each face's heat flux (van Leer advection less conduction) is worked out
// once and taken from one cell and given to the other, where a cell-by-cell stencil worked out each face twice
// (once from each side, 27 % of the in-row sample's lbm hour). Conservative to the last bit: what leaves one
// cell is the very float the next one gains.
#include "air/transport/kernels.hpp"
#include "air_model_impl.hpp"

#include <algorithm>
#include <cstdint>

namespace ct::sim {

namespace k = kernels;

namespace {

/// Cells per vector block of a row: one AVX-512 vector of floats (two AVX2 ones).
constexpr int kBlock = 16;

struct TvdArgs {
    const float* t;
    float* t2;
    const float* c;  ///< the tracer, padded like t, stepped in the same pass; null when off
    float* c2;
    const float* kt;  ///< padded like t
    const float* fx;
    const float* fy;
    const float* fz;
    const std::uint32_t* nbw;  ///< nb | nb2 << 8 (only the neighbour bits are read here)
    const float* cap;          ///< held cells' V / raised capacity per cell, or null when none is held
    int nx, ny, nz;
    int row0, row1;  ///< the rows this rank steps (all of them unless the hall is split by rows)
    float h, kappa, dt_v;
    bool tvd;
    /// The ports' cells row by row (AirModel::Impl::row_port_begin …) and their exchanges this step; null
    /// when the ports come after the walls instead.
    const std::size_t* port_begin;
    const int* port_cell;
    const int* port_id;
    const AirPortNow* now;
};

/// One field's four cells along a line of faces: the face lies between `a` and `b`; `am` is the cell before
/// a, `bp` the one after b (read only where they are fluid).
struct Line {
    const float* am;
    const float* a;
    const float* b;
    const float* bp;
};

/// Heat flux through `n` faces of one axis (+ along it), face q between cells a[q] and b[q]: zero where either
/// cell is not fluid (bit `plus` of a clear), else van Leer's flux (upwind when `far` is 0, the limiter then
/// seeing the near cells twice) less the conduction g·(b − a). The tracer's (`both`) shares the flux, bits and
/// conductance.
template <bool kBoth>
__attribute__((always_inline)) inline void faces(int n, const float* __restrict f, const std::uint32_t* __restrict nba,
                                                 const std::uint32_t* __restrict nbb, unsigned minus, unsigned plus, std::uint32_t far,
                                                 const float* __restrict ka, const float* __restrict kb, Line t, Line c,
                                                 float* __restrict out_t, float* __restrict out_c, float h, float kappa) {
    auto face = [&](int q) __attribute__((always_inline)) {
        const std::uint32_t ma = nba[q], mb = nbb[q];
        const bool open = (ma & plus) != 0;
        const bool use_m = (ma & minus & far) != 0, use_p = (mb & plus & far) != 0;
        // Every value loaded, then selected: no control flow, so the loop vectorises.
        const float kab = ka[q] + kb[q], f0 = f[q];
        const float g = open ? h * (kappa + 0.5f * kab) : 0.f;
        const float fq = open ? f0 : 0.f;
        {
            const float a = t.a[q], b = t.b[q], am = t.am[q], bp = t.bp[q];
            const float phi = k::vanLeerFlux(fq, use_m ? am : a, a, b, use_p ? bp : b) - g * (b - a);
            out_t[q] = open ? phi : 0.f;
        }
        if constexpr (kBoth) {
            const float a = c.a[q], b = c.b[q], am = c.am[q], bp = c.bp[q];
            const float phi = k::vanLeerFlux(fq, use_m ? am : a, a, b, use_p ? bp : b) - g * (b - a);
            out_c[q] = open ? phi : 0.f;
        }
    };
    if (n < kBlock) {
#pragma GCC ivdep
        for (int q = 0; q < n; ++q) face(q);
        return;
    }
    // Whole vector blocks, the last shifted back over faces already done (written again with the same value).
    for (int base = 0; base < n; base += kBlock) {
        const int from = std::min(base, n - kBlock);
#pragma GCC ivdep
        for (int q = 0; q < kBlock; ++q) face(from + q);
    }
}

/// The cell row j of plane kk: T and the tracer at t + dt/V · (in − out) from the six faces' fluxes.
template <bool kBoth>
__attribute__((always_inline)) inline void cellsRow(const TvdArgs& a, int row, const float* __restrict xw, const float* __restrict ys,
                                                    const float* __restrict yn, const float* __restrict zd, const float* __restrict zu,
                                                    const float* __restrict cxw, const float* __restrict cys, const float* __restrict cyn,
                                                    const float* __restrict czd, const float* __restrict czu) {
    const float* __restrict t = a.t + row;
    float* __restrict t2 = a.t2 + row;
    const float* __restrict c = kBoth ? a.c + row : nullptr;
    float* __restrict c2 = kBoth ? a.c2 + row : nullptr;
    const float* __restrict held = a.cap ? a.cap + row : nullptr;
    const float dt_v = a.dt_v;
#pragma GCC ivdep
    for (int i = 0; i < a.nx; ++i) {
        const float dv = held ? dt_v * held[i] : dt_v;  // a held cell's step, per its raised capacity
        t2[i] = t[i] + dv * (xw[i] - xw[i + 1] + ys[i] - yn[i] + zd[i] - zu[i]);
        if constexpr (kBoth) c2[i] = c[i] + dv * (cxw[i] - cxw[i + 1] + cys[i] - cyn[i] + czd[i] - czu[i]);
    }
}

/// The port cells of row r (j + ny·k), in the order and with the arithmetic of AirModel::Impl::applyPorts.
template <bool kBoth>
__attribute__((always_inline)) inline void portsRow(const TvdArgs& a, int r) {
    for (std::size_t e = a.port_begin[r]; e < a.port_begin[r + 1]; ++e) {
        const int cell = a.port_cell[e];
        const AirPortNow& pn = a.now[a.port_id[e]];
        const float dv = a.cap ? a.dt_v * a.cap[cell] : a.dt_v;
        a.t2[cell] = pn.source ? k::portExchange(a.t2[cell], a.t[cell], pn.q, pn.t_in, 0.f, dv)
                               : k::portExchange(a.t2[cell], a.t[cell], 0.f, 0.f, pn.q, dv);
        if constexpr (kBoth)
            a.c2[cell] = pn.source ? k::portExchange(a.c2[cell], a.c[cell], pn.q, pn.c_in, 0.f, dv)
                                   : k::portExchange(a.c2[cell], a.c[cell], 0.f, 0.f, pn.q, dv);
    }
}

/// Planes [k0, k1) of the step. The faces between two planes, two rows or two cells are worked out once here;
/// a chunk works out the faces below its first plane itself, so chunks never wait on each other and the result
/// does not depend on how the planes were split (a face's flux is the same function of the same cells).
template <bool kBoth>
__attribute__((always_inline)) inline void tvdPlanesOf(const TvdArgs& a, int k0, int k1, TvdScratch& s) {
    const int nx = a.nx, ny = a.ny, nz = a.nz;
    const std::size_t fields = kBoth ? 2 : 1, nxs = static_cast<std::size_t>(nx);
    const std::size_t zsize = nxs * static_cast<std::size_t>(ny);
    s.x.assign((nxs + 1) * fields, 0.f);
    s.y0.resize(nxs * fields);
    s.y1.resize(nxs * fields);
    s.z.resize(zsize * fields);
    s.up.resize(nxs * fields);
    const std::uint32_t far = a.tvd ? 0xFFu : 0u;
    const float h = a.h, kappa = a.kappa;
    // Cell index of (0, j, kk), a row that exists (its bits keep whatever is read from it unused).
    auto at = [&](int j, int kk) __attribute__((always_inline)) {
        return nx * (std::clamp(j, 0, ny - 1) + ny * std::clamp(kk, 0, nz - 1));
    };
    auto line = [&](const float* base, int am, int ra, int rb, int bp) __attribute__((always_inline)) {
        return Line{base + am, base + ra, base + rb, base + bp};
    };
    // Faces between row (j, kk) and the next one out along y (dy = 1) or z (dz = 1); zero beyond the grid.
    auto facesAcross = [&](int j, int kk, int dj, int dk, const float* f, unsigned minus, unsigned plus, float* out_t, float* out_c)
        __attribute__((always_inline)) {
        if (j + dj >= ny || kk + dk >= nz || j < 0 || kk < 0) {
            std::fill_n(out_t, nx, 0.f);
            if (kBoth) std::fill_n(out_c, nx, 0.f);
            return;
        }
        const int ra = at(j, kk), rb = at(j + dj, kk + dk), am = at(j - dj, kk - dk), bp = at(j + 2 * dj, kk + 2 * dk);
        faces<kBoth>(nx, f, a.nbw + ra, a.nbw + rb, minus, plus, far, a.kt + ra, a.kt + rb, line(a.t, am, ra, rb, bp),
                     kBoth ? line(a.c, am, ra, rb, bp) : Line{}, out_t, out_c, h, kappa);
    };
    auto fzAt = [&](int j, int kk) __attribute__((always_inline)) { return a.fz + nx * (j + ny * kk); };        // the face plane below kk
    auto fyAt = [&](int j, int kk) __attribute__((always_inline)) { return a.fy + nx * (j + (ny + 1) * kk); };  // the face row south of j
    for (int j = a.row0; j < a.row1; ++j) {
        float* zt = s.z.data() + nxs * static_cast<std::size_t>(j);
        facesAcross(j, k0 - 1, 0, 1, fzAt(j, k0), k::kDown, k::kUp, zt, zt + zsize);
    }
    for (int kk = k0; kk < k1; ++kk) {
        float* ys = s.y0.data();
        float* yn = s.y1.data();
        facesAcross(a.row0 - 1, kk, 1, 0, fyAt(a.row0, kk), k::kSouth, k::kNorth, ys, ys + nxs);
        for (int j = a.row0; j < a.row1; ++j) {
            const int row = nx * (j + ny * kk);
            float* xw = s.x.data();
            // The row's inner faces 1 … nx − 1 (the ends are the domain's walls: zero).
            if (nx > 1)
                faces<kBoth>(nx - 1, a.fx + (nx + 1) * (j + ny * kk) + 1, a.nbw + row, a.nbw + row + 1, k::kWest, k::kEast, far, a.kt + row,
                             a.kt + row + 1, line(a.t, row - 1, row, row + 1, row + 2),
                             kBoth ? line(a.c, row - 1, row, row + 1, row + 2) : Line{}, xw + 1, xw + nxs + 2, h, kappa);
            facesAcross(j, kk, 1, 0, fyAt(j + 1, kk), k::kSouth, k::kNorth, yn, yn + nxs);
            float* zu_t = s.up.data();
            facesAcross(j, kk, 0, 1, fzAt(j, kk + 1), k::kDown, k::kUp, zu_t, zu_t + nxs);
            float* zd = s.z.data() + nxs * static_cast<std::size_t>(j);
            cellsRow<kBoth>(a, row, xw, ys, yn, zd, zu_t, xw + nxs + 1, ys + nxs, yn + nxs, zd + zsize, zu_t + nxs);
            if (a.now) portsRow<kBoth>(a, j + ny * kk);
            // This row's up faces are the next plane's down faces.
            std::copy_n(zu_t, nxs, zd);
            if (kBoth) std::copy_n(zu_t + nxs, nxs, zd + zsize);
            std::swap(ys, yn);
        }
    }
}

__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void tvdPlanes(const TvdArgs& a, int k0, int k1, TvdScratch& s) {
    if (a.c) tvdPlanesOf<true>(a, k0, k1, s);
    else tvdPlanesOf<false>(a, k0, k1, s);
}

}  // namespace

void AirModel::Impl::stepTvd(double dt) {
    if (kt.empty()) kt.assign(n() + 2 * kPad, 0.f);
    const float dt_v = static_cast<float>(dt / vol);
    const bool tracer = !tr.empty();
    TvdArgs a{T(),
              t2.data() + kPad,
              tracer ? tr.data() + kPad : nullptr,
              tracer ? tr2.data() + kPad : nullptr,
              kt.data() + kPad,
              fx.data(),
              fy.data(),
              fz.data(),
              nbw.data(),
              cap.empty() ? nullptr : cap.data(),
              nx,
              ny,
              nz,
              row0,
              rows < 0 ? ny : row0 + rows,  // a hall split over ranks: this rank's rows, then every rank's
              static_cast<float>(h),
              static_cast<float>(spec.kappa_m2s),
              dt_v,
              spec.tvd,
              nullptr,
              nullptr,
              nullptr,
              nullptr};
    // Without fixed-temperature walls (which come before the ports) each row's port cells are exchanged right
    // after the row, side by side with the other chunks: the same floats as applyPorts after all rows.
    const bool ports_in_rows = !walls_fixed();
    std::vector<PortNow> now;
    if (ports_in_rows) {
        buildPlanePorts();
        now = portsNow();
        a.port_begin = row_port_begin.data();
        a.port_cell = row_port_cell.data();
        a.port_id = row_port_id.data();
        a.now = now.data();
    }
    // Chunks of whole planes: each works out the faces below its first plane once more, so a few per thread.
    const int chunks = std::max(1, std::min(nz, 4 * pool.size()));
    tvd_scratch.resize(static_cast<std::size_t>(chunks));
    run(static_cast<std::size_t>(chunks), [&](std::size_t ch) {
        const int c = static_cast<int>(ch), k0 = nz * c / chunks, k1 = nz * (c + 1) / chunks;
        tvdPlanes(a, k0, k1, tvd_scratch[ch]);
    });
    if (row_slabs) {
        gatherRows(t2.data() + kPad, walls_fixed());
        if (tracer) gatherRows(tr2.data() + kPad, walls_fixed());
    }
    // Fixed-temperature faces: conduction across the half cell to the wall (adiabatic to the tracer).
    const float* tc = T();
    float* t2c = t2.data() + kPad;
    for (int f = 0; f < 6; ++f) {
        wall_flow[f] = 0;
        if (!walls[f].fixed) continue;
        for (int c : faceCells(f)) {
            if (solid[c]) continue;
            const double q = wallConductance(c) * (walls[f].t_c - tc[c]);
            t2c[c] += static_cast<float>(dt / vol * q * (cap.empty() ? 1.f : cap[static_cast<std::size_t>(c)]));
            wall_flow[f] += q;
        }
    }
    if (!ports_in_rows) {
        applyPorts(T(), t2.data() + kPad, dt_v, false);
        if (tracer) applyPorts(tr.data() + kPad, tr2.data() + kPad, dt_v, true);
    }
    std::swap(t, t2);
    if (tracer) std::swap(tr, tr2);
}

}  // namespace ct::sim
