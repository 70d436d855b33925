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

/// Cells [base, base + len) (consecutive rows of a plane): T and the tracer at t + dt/V · (in − out) from the
/// six faces' fluxes, each array indexed from the line's first cell: xw[c] the face west of cell c (xw[c + 1] its
/// east face: at a row's end, the next row's west wall, zero), ys[c] and yn[c] south and north, zd and zu below
/// and above.
template <bool kBoth>
__attribute__((always_inline)) inline void cellsLine(const TvdArgs& a, int base, int len, const float* __restrict xw,
                                                     const float* __restrict ys, const float* __restrict yn, const float* __restrict zd,
                                                     const float* __restrict zu, const float* __restrict cxw, const float* __restrict cys,
                                                     const float* __restrict cyn, const float* __restrict czd,
                                                     const float* __restrict czu) {
    const float* __restrict t = a.t + base;
    float* __restrict t2 = a.t2 + base;
    const float* __restrict c = kBoth ? a.c + base : nullptr;
    float* __restrict c2 = kBoth ? a.c2 + base : nullptr;
    const float* __restrict held = a.cap ? a.cap + base : nullptr;
    const float dt_v = a.dt_v;
#pragma GCC ivdep
    for (int i = 0; i < len; ++i) {
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

/// Planes [k0, k1) of the step, each plane's rows [row0, row1) as lines of consecutive cells (the rows of a hall
/// are 20–60 cells: one row at a time, a vector block of 16 computed a fifth of its faces twice). The faces
/// between two planes, two rows or two cells are worked out once here; a chunk works out the faces below its
/// first plane itself, so chunks never wait on each other and the result does not depend on how the planes were
/// split (a face's flux is the same function of the same cells).
template <bool kBoth>
__attribute__((always_inline)) inline void tvdPlanesOf(const TvdArgs& a, int k0, int k1, TvdScratch& s) {
    const int nx = a.nx, ny = a.ny, nz = a.nz, r0 = a.row0, rows = a.row1 - a.row0;
    if (rows <= 0) return;
    const std::size_t fields = kBoth ? 2 : 1, len = static_cast<std::size_t>(nx) * static_cast<std::size_t>(rows);
    const std::size_t ylen = len + static_cast<std::size_t>(nx);  // faces south of rows r0 … r1 (the last: r1 − 1's north)
    s.x.assign((len + 1) * fields, 0.f);
    s.y.assign(ylen * fields, 0.f);
    s.fx_rows.resize(len);  // the x fluxes of the rows, side by side
    s.z.resize(len * fields);
    s.up.resize(len * fields);
    const std::uint32_t far = a.tvd ? 0xFFu : 0u;
    const float h = a.h, kappa = a.kappa;
    // Cell index of (0, j, kk), a row that exists (its bits keep whatever is read from it unused).
    auto at = [&](int j, int kk) __attribute__((always_inline)) {
        return nx * (std::clamp(j, 0, ny - 1) + ny * std::clamp(kk, 0, nz - 1));
    };
    auto line = [&](const float* base, int am, int ra, int rb, int bp) __attribute__((always_inline)) {
        return Line{base + am, base + ra, base + rb, base + bp};
    };
    // `count` faces along a line, face q between cells ra + q and rb + q (am + q and bp + q beyond them).
    auto facesOf = [&](int count, const float* f, int am, int ra, int rb, int bp, unsigned minus, unsigned plus, float* out_t, float* out_c)
        __attribute__((always_inline)) {
        faces<kBoth>(count, f, a.nbw + ra, a.nbw + rb, minus, plus, far, a.kt + ra, a.kt + rb, line(a.t, am, ra, rb, bp),
                     kBoth ? line(a.c, am, ra, rb, bp) : Line{}, out_t, out_c, h, kappa);
    };
    // The faces between plane kk and kk + 1 over the rows (zero beyond the grid), into out (the tracer's len on).
    auto zFaces = [&](int kk, float* out) __attribute__((always_inline)) {
        if (kk < 0 || kk + 1 >= nz) {
            std::fill_n(out, len * fields, 0.f);
            return;
        }
        facesOf(static_cast<int>(len), a.fz + nx * (r0 + ny * (kk + 1)), at(r0, kk - 1), at(r0, kk), at(r0, kk + 1), at(r0, kk + 2),
                k::kDown, k::kUp, out, out + len);
    };
    // The faces south of rows [ja, jb) of plane kk (each between row j − 1 and j), into s.y from row r0.
    auto yFaces = [&](int ja, int jb, int kk) __attribute__((always_inline)) {
        if (jb <= ja) return;
        const std::size_t o = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ja - r0);
        facesOf(nx * (jb - ja), a.fy + nx * (ja + (ny + 1) * kk), at(ja - 2, kk), at(ja - 1, kk), at(ja, kk), at(ja + 1, kk), k::kSouth,
                k::kNorth, s.y.data() + o, s.y.data() + ylen + o);
    };
    float* zd = s.z.data();
    float* zu = s.up.data();
    zFaces(k0 - 1, zd);
    for (int kk = k0; kk < k1; ++kk) {
        const int base = at(r0, kk);
        // x: the rows' inner faces as one line of cell pairs; a pair across a row's end has no face (its first
        // cell has no east neighbour) and gives zero, the next row's west wall.
        float* xw = s.x.data();
        if (len > 1) {
            float* fxl = s.fx_rows.data();
            for (int j = 0; j < rows; ++j)
                std::copy_n(a.fx + (nx + 1) * (r0 + j + ny * kk) + 1, nx, fxl + static_cast<std::size_t>(nx) * static_cast<std::size_t>(j));
            facesOf(static_cast<int>(len) - 1, fxl, base - 1, base, base + 1, base + 2, k::kWest, k::kEast, xw + 1, xw + len + 2);
        }
        // y: faces south of rows max(r0, 1) … min(r1, ny − 1); those whose far rows exist in the plane as one line,
        // the first and last face rows of the grid (far rows clamped) on their own. Rows 0 and ny: walls, zero.
        const int ya = std::max(r0, 1), yb = std::min(r0 + rows, ny - 1) + 1;
        const int la = std::max(ya, 2), lb = std::min(yb, ny - 1);
        if (la < lb) {
            yFaces(la, lb, kk);
            for (int j = ya; j < la; ++j) yFaces(j, j + 1, kk);
            for (int j = std::max(lb, la); j < yb; ++j) yFaces(j, j + 1, kk);
        } else {
            for (int j = ya; j < yb; ++j) yFaces(j, j + 1, kk);
        }
        zFaces(kk, zu);
        const float* ys = s.y.data();
        cellsLine<kBoth>(a, base, static_cast<int>(len), xw, ys, ys + nx, zd, zu, xw + len + 1, ys + ylen, ys + ylen + nx, zd + len,
                         zu + len);
        if (a.now)
            for (int j = r0; j < r0 + rows; ++j) portsRow<kBoth>(a, j + ny * kk);
        std::swap(zd, zu);  // this plane's up faces are the next one's down faces
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
    // Chunks of whole planes: each works out the faces below its first plane once more, so a few per thread, and
    // one where the planes go one after another on one thread (a hall on its own thread, a small grid).
    const int threads = n() < spec.min_parallel_cells ? 1 : pool.width();
    const int chunks = threads == 1 ? 1 : std::max(1, std::min(nz, 4 * threads));
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
