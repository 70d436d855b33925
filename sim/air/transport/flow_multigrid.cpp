// Geometric multigrid preconditioner of the potential-flow operator (see flow_multigrid.hpp).
#include "flow_multigrid.hpp"

#include "air/transport/kernels.hpp"

#include <algorithm>

namespace ct::sim {

namespace {
constexpr std::size_t kCoarsestCells = 64;  ///< stop coarsening at or below this many cells
constexpr int kCoarsestSweeps = 16;         ///< symmetric sweeps that stand in for the coarsest solve
constexpr int kSweeps = 2;                  ///< red–black sweeps before and after the coarse correction

/// Cell (i, j, k) of an nx × ny × … grid, in std::size_t.
std::size_t cellIndex(int i, int j, int k, int nx, int ny) {
    return static_cast<std::size_t>(i) +
           static_cast<std::size_t>(nx) * (static_cast<std::size_t>(j) + static_cast<std::size_t>(ny) * static_cast<std::size_t>(k));
}

std::size_t coarseIndex(int i, int j, int kk, int cnx, int cny) { return cellIndex(i / 2, j / 2, kk / 2, cnx, cny); }
}  // namespace

void FlowMultigrid::build(int nx, int ny, int nz, const std::vector<unsigned char>& nb, double h) {
    namespace k = kernels;
    levels_.clear();
    Level f;
    f.nx = nx;
    f.ny = ny;
    f.nz = nz;
    f.allocate();
    {
        Real *cx = f.at(f.cx), *cy = f.at(f.cy), *cz = f.at(f.cz);
        for (std::size_t c = 0; c < f.n(); ++c) {
            const Real hr = static_cast<Real>(h);
            cx[c] = (nb[c] & k::kEast) ? hr : Real(0);
            cy[c] = (nb[c] & k::kNorth) ? hr : Real(0);
            cz[c] = (nb[c] & k::kUp) ? hr : Real(0);
        }
    }
    levels_.push_back(std::move(f));
    for (;;) {
        // Diagonal of the newest level from its couplings (each face seen from both sides).
        Level& L = levels_.back();
        const std::ptrdiff_t sy = L.nx, sz = static_cast<std::ptrdiff_t>(L.nx) * L.ny;
        const Real *cx = L.at(L.cx), *cy = L.at(L.cy), *cz = L.at(L.cz);
        Real* inv = L.at(L.inv_diag);
        for (std::ptrdiff_t c = 0; c < static_cast<std::ptrdiff_t>(L.n()); ++c) {
            const Real d = cx[c] + cy[c] + cz[c] + cx[c - 1] + cy[c - sy] + cz[c - sz];
            inv[c] = d > 0 ? Real(1) / d : Real(0);
        }
        if (L.n() <= kCoarsestCells || (L.nx == 1 && L.ny == 1 && L.nz == 1)) break;
        // Aggregate 2×2×2: the coarse coupling east of (I,J,K) sums the fine east couplings out of the aggregate's
        // east layer (fine i = 2I+1), and likewise north and up.
        Level c;
        c.nx = (L.nx + 1) / 2;
        c.ny = (L.ny + 1) / 2;
        c.nz = (L.nz + 1) / 2;
        c.allocate();
        Real *ccx = c.at(c.cx), *ccy = c.at(c.cy), *ccz = c.at(c.cz);
        for (int kk = 0; kk < L.nz; ++kk)
            for (int j = 0; j < L.ny; ++j)
                for (int i = 0; i < L.nx; ++i) {
                    const std::size_t fc = cellIndex(i, j, kk, L.nx, L.ny);
                    const std::size_t cc = coarseIndex(i, j, kk, c.nx, c.ny);
                    if (i & 1) ccx[cc] += cx[fc];
                    if (j & 1) ccy[cc] += cy[fc];
                    if (kk & 1) ccz[cc] += cz[fc];
                }
        levels_.push_back(std::move(c));
    }
}

void FlowMultigrid::smooth(Level& L, int colour, const Runner& run, int j0, int j1) const {
    const int nx = L.nx, ny = L.ny, jend = j1 < 0 ? ny : j1;
    const std::ptrdiff_t sy = nx, sz = static_cast<std::ptrdiff_t>(nx) * ny;
    const Real *cx = L.at(L.cx), *cy = L.at(L.cy), *cz = L.at(L.cz), *inv = L.at(L.inv_diag), *b = L.at(L.b);
    Real* x = L.at(L.x);
    run(static_cast<std::size_t>(L.nz), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = j0; j < jend; ++j) {
            const std::ptrdiff_t row = nx * (j + static_cast<std::ptrdiff_t>(ny) * kk);
            for (int i = (colour + j + kk) & 1; i < nx; i += 2) {
                const std::ptrdiff_t c = row + i;
                const Real s = b[c] + cx[c - 1] * x[c - 1] + cx[c] * x[c + 1] + cy[c - sy] * x[c - sy] + cy[c] * x[c + sy] +
                               cz[c - sz] * x[c - sz] + cz[c] * x[c + sz];
                x[c] = s * inv[c];
            }
        }
    });
}

void FlowMultigrid::residual(Level& L, const Runner& run, int j0, int j1) const {
    const std::ptrdiff_t plane = static_cast<std::ptrdiff_t>(L.nx) * L.ny, sy = L.nx, sz = plane;
    const Real *cx = L.at(L.cx), *cy = L.at(L.cy), *cz = L.at(L.cz), *inv = L.at(L.inv_diag), *b = L.at(L.b), *x = L.at(L.x);
    Real* r = L.at(L.r);
    const std::ptrdiff_t first = sy * j0, last = sy * (j1 < 0 ? L.ny : j1);
    run(static_cast<std::size_t>(L.nz), [&](std::size_t kc) {
        const std::ptrdiff_t c0 = static_cast<std::ptrdiff_t>(kc) * plane;
        for (std::ptrdiff_t c = c0 + first; c < c0 + last; ++c) {
            const Real diag = cx[c] + cy[c] + cz[c] + cx[c - 1] + cy[c - sy] + cz[c - sz];
            const Real ax = diag * x[c] - (cx[c - 1] * x[c - 1] + cx[c] * x[c + 1] + cy[c - sy] * x[c - sy] + cy[c] * x[c + sy] +
                                           cz[c - sz] * x[c - sz] + cz[c] * x[c + sz]);
            r[c] = inv[c] != 0 ? b[c] - ax : Real(0);
        }
    });
}

void FlowMultigrid::cycle(std::size_t l, const Runner& run, const Rows* rows) {
    Level& L = levels_[l];
    std::fill(L.x.begin(), L.x.end(), Real(0));
    if (l + 1 == levels_.size()) {
        for (int s = 0; s < kCoarsestSweeps; ++s) {
            smooth(L, 0, run);
            smooth(L, 1, run);
            smooth(L, 1, run);
            smooth(L, 0, run);
        }
        return;
    }
    // Split by rows: each sweep reads the neighbours' rows next to this rank's as they were left by their last
    // sweep (or the prolongation), so they come after every one that a later stencil reads.
    const int j0 = rows ? rows->row0 : 0, j1 = rows ? rows->row1 : L.ny;
    auto sweep = [&](int colour, bool halo) {
        smooth(L, colour, run, j0, j1);
        if (rows && halo) rows->halo(L.at(L.x));
    };
    for (int s = 0; s < kSweeps; ++s) {
        sweep(0, true);
        sweep(1, true);
    }
    residual(L, run, j0, j1);
    Level& C = levels_[l + 1];
    std::fill(C.b.begin(), C.b.end(), Real(0));
    Real* cb = C.at(C.b);
    const Real* r = L.at(L.r);
    for (int kk = 0; kk < L.nz; ++kk)
        for (int j = j0; j < j1; ++j)
            for (int i = 0; i < L.nx; ++i) cb[coarseIndex(i, j, kk, C.nx, C.ny)] += r[i + L.nx * (j + L.ny * kk)];
    if (rows) rows->gather(cb, C.nx, C.ny, C.nz);
    cycle(l + 1, run);
    const Real* cx = C.at(C.x);
    const Real* inv = L.at(L.inv_diag);
    Real* x = L.at(L.x);
    run(static_cast<std::size_t>(L.nz), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = j0; j < j1; ++j)
            for (int i = 0; i < L.nx; ++i) {
                const std::size_t c = cellIndex(i, j, kk, L.nx, L.ny);
                if (inv[c] != 0) x[c] += Real(kOverCorrection) * cx[coarseIndex(i, j, kk, C.nx, C.ny)];
            }
    });
    if (rows) rows->halo(x);
    for (int s = 0; s < kSweeps; ++s) {
        sweep(1, true);
        sweep(0, s + 1 < kSweeps);  // nothing reads the neighbours' rows after the last
    }
}

void FlowMultigrid::apply(const std::vector<double>& r, std::vector<double>& z, const Runner& run, const Rows* rows) {
    Level& f = levels_.front();
    const std::size_t row = static_cast<std::size_t>(f.nx), plane = row * static_cast<std::size_t>(f.ny);
    const std::size_t first = rows ? row * static_cast<std::size_t>(rows->row0) : 0;
    const std::size_t last = rows ? row * static_cast<std::size_t>(rows->row1) : plane;
    Real* b = f.at(f.b);
    z.resize(r.size());
    for (std::size_t p = 0; p < r.size(); p += plane)
        for (std::size_t c = p + first; c < p + last; ++c) b[c] = static_cast<Real>(r[c]);
    cycle(0, run, rows);
    const Real *x = f.at(f.x), *inv = f.at(f.inv_diag);
    for (std::size_t p = 0; p < r.size(); p += plane)
        for (std::size_t c = p + first; c < p + last; ++c) z[c] = inv[c] != 0 ? static_cast<double>(x[c]) : r[c];
}

}  // namespace ct::sim
