#pragma once
// Geometric multigrid for the potential-flow operator M = h·(deg − adjacency) on the masked hall grid (issue 14:
// the quick mode's flow solve, and the lattice's flux projection, were Jacobi-preconditioned CG taking hundreds
// of iterations). Used as the CG preconditioner: one symmetric V-cycle per iteration.
//
// Coarsening aggregates 2×2×2 cells; the coarse operator is Galerkin's Pᵀ·M·P with piecewise-constant P, which
// for a graph Laplacian is again one: the coupling between two aggregates is the sum of the open fine faces
// between them. Solids and walls need no special case (a closed face couples nothing on any level). Galerkin's
// operator with constant P is twice too stiff for smooth errors (the jump across an aggregate face is taken over
// h, not 2h), so the coarse correction is scaled by kOverCorrection (Braess 1995; Notay & Vassilevski 2008).
// Smoothing: red–black Gauss–Seidel, red then black before the coarse correction and black then red after, so
// the cycle is symmetric and CG stays CG. Colours are independent of the thread count, and so are the results.
#include <cstddef>
#include <functional>
#include <vector>

namespace ct::sim {

class FlowMultigrid {
public:
    /// Runs fn(0..chunks−1), possibly in parallel (the caller's pool); chunks never overlap in what they write.
    using Runner = std::function<void(std::size_t chunks, const std::function<void(std::size_t)>& fn)>;
    static constexpr double kOverCorrection = 1.8;
    /// The cycle's arithmetic: single precision halves its memory traffic; CG around it stays in double.
    using Real = float;

    /// Builds the levels from the fine grid's neighbour bits (kernels::kWest… : the face to that neighbour is
    /// open) and the face coupling h.
    void build(int nx, int ny, int nz, const std::vector<unsigned char>& nb, double h);
    bool built() const { return !levels_.empty(); }
    int levelCount() const { return static_cast<int>(levels_.size()); }

    /// The finest grid split by rows over ranks (the flux projection of a hall split in slabs, issue 42): this
    /// rank smooths, takes the residual of and restricts rows [row0, row1) of the finest level only. row0 is even,
    /// so no aggregate straddles two ranks, and the coarser levels are whole on every rank. `halo(x)` puts the
    /// neighbours' rows row0 − 1 and row1 of the finest level's x (cells as in apply) in place; `gather(b, nx, ny,
    /// nz)` completes the next level's b (cells as in apply) from every rank's rows [row0/2, ⌈row1/2⌉). The red–black
    /// colours are the whole grid's, so each sweep is one process's to the bit.
    struct Rows {
        int row0 = 0, row1 = 0;
        std::function<void(Real* x)> halo;
        std::function<void(Real* b, int nx, int ny, int nz)> gather;
    };

    /// z ≈ M⁻¹ r: one V-cycle from z = 0. Cells that couple to nothing get z = r (as Jacobi with diagonal 1).
    /// With `rows`, only those rows of r are read and of z written.
    void apply(const std::vector<double>& r, std::vector<double>& z, const Runner& run, const Rows* rows = nullptr);

private:
    /// One grid. Every array holds `pad` zeros before cell 0 and after the last cell, one plane each, so that
    /// the stencils need no bounds checks: a coupling out of the grid is 0 (the last cell of a row, column or
    /// plane has no +x, +y or +z coupling, and the padding none).
    struct Level {
        int nx = 0, ny = 0, nz = 0;
        std::size_t pad = 0;
        std::vector<Real> cx, cy, cz;  ///< coupling to the +x, +y, +z neighbour (0: closed or none)
        std::vector<Real> inv_diag;    ///< 1 / the sum of the six couplings; 0 for an inactive cell
        std::vector<Real> x, b, r;
        std::size_t n() const { return static_cast<std::size_t>(nx) * ny * nz; }
        void allocate() {
            pad = static_cast<std::size_t>(nx) * ny;
            for (auto* v : {&cx, &cy, &cz, &inv_diag, &x, &b, &r}) v->assign(n() + 2 * pad, Real(0));
        }
        Real* at(std::vector<Real>& v) { return v.data() + pad; }
        const Real* at(const std::vector<Real>& v) const { return v.data() + pad; }
    };
    /// On rows [j0, j1) of L (j1 < 0: all).
    void smooth(Level& L, int colour, const Runner& run, int j0 = 0, int j1 = -1) const;
    void residual(Level& L, const Runner& run, int j0 = 0, int j1 = -1) const;
    /// With `rows` (the finest level only): its rows, their halos after every sweep, the coarse b gathered.
    void cycle(std::size_t l, const Runner& run, const Rows* rows = nullptr);
    std::vector<Level> levels_;
};

}  // namespace ct::sim
