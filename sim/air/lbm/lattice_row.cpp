// One row of the D3Q19 lattice on the CPU (see lattice.cpp for the layout): a pure pull, the collision
// (lbm_kernel.hpp) and the running means, vectorised over the row's cells with AVX-512 and AVX2 clones.
#include "lattice_row.hpp"

namespace ct::sim::lattice_detail {

namespace {

constexpr int kQ = lbm::kQ;

/// One row (j, k) of interior cells: a pure pull (walls were folded into the solid cells' populations by the
/// bounce-back pre-pass), the collision, and the sums when sampling. Returns true when a cell failed the
/// stability check. Solid cells are computed too (the loop stays branch-free) and store zeros.
template <bool kSample, bool kBuoyancy>
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) bool latticeRow(const RowArgs& a, int j, int k) {
    const std::size_t n = a.n;
    const int p0 = 1 + a.px * ((j + 1) + a.py * (k + 1));
    const int c0 = a.nx * (j + a.ny * k);
    const float* __restrict src = a.src;
    float* __restrict dst = a.dst + p0;
    const float* __restrict fluid_of = a.fluid + p0;
    const float* __restrict temp = a.temp ? a.temp + a.nx * ((j + a.t_j0) + a.t_ny * k) : nullptr;
    float* __restrict sux = a.sum_u ? a.sum_u + c0 : nullptr;
    float* __restrict suy = a.sum_u ? a.sum_u + a.cells + c0 : nullptr;
    float* __restrict suz = a.sum_u ? a.sum_u + 2 * a.cells + c0 : nullptr;
    float* __restrict snu = a.sum_nu ? a.sum_nu + c0 : nullptr;
    const float* __restrict in[kQ];
    for (int q = 0; q < kQ; ++q) in[q] = src + static_cast<std::size_t>(q) * n + p0 - a.off[q];
    const float tau0 = a.tau0, smag2 = a.smag2, fx = a.fx, fy = a.fy, fz0 = a.fz, buoy = a.buoy, t_ref = a.t_ref;
    int bad = 0;
#pragma GCC ivdep
    for (int i = 0; i < a.nx; ++i) {
        float f[kQ];
        CT_UNROLL
        for (int q = 0; q < kQ; ++q) f[q] = in[q][i];
        float fz = fz0;
        if constexpr (kBuoyancy) fz += buoy * (temp[i] - t_ref);
        const lbm::CellMoments m = lbm::collide(f, tau0, smag2, lbm::CellForce{fx, fy, fz});
        const bool fluid = fluid_of[i] != 0.f;
        CT_UNROLL
        for (int q = 0; q < kQ; ++q) dst[static_cast<std::size_t>(q) * n + i] = fluid ? f[q] : 0.f;
        if constexpr (kSample) {
            sux[i] += fluid ? m.ux : 0.f;
            suy[i] += fluid ? m.uy : 0.f;
            suz[i] += fluid ? m.uz : 0.f;
            snu[i] += fluid ? m.nu_t : 0.f;
        }
        const float u2 = m.ux * m.ux + m.uy * m.uy + m.uz * m.uz;
        // Written so that NaN fails it.
        const int ok = (m.rho > kMinRho) & (m.rho < kMaxRho) & (u2 < kMaxSpeed * kMaxSpeed);
        bad |= static_cast<int>(fluid) & (ok ^ 1);
    }
    return bad != 0;
}

}  // namespace

RowFn rowFunction(bool sample, bool buoyancy) {
    if (sample) return buoyancy ? &latticeRow<true, true> : &latticeRow<true, false>;
    return buoyancy ? &latticeRow<false, true> : &latticeRow<false, false>;
}

}  // namespace ct::sim::lattice_detail
