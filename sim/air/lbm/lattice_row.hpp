#pragma once
// The CPU lattice's row update (lattice_row.cpp), apart from Lattice so that its vector clones build on their own.
// Private to ct_sim.
#include "lbm_kernel.hpp"

#include <cstddef>

namespace ct::sim::lattice_detail {

// Beyond these the lattice no longer represents the flow (|u| ≥ 0.35 is Mach 0.6) or a density has run away:
// stop before NaN spreads.
constexpr float kMaxSpeed = 0.35f;
constexpr float kMinRho = 0.5f, kMaxRho = 1.5f;

struct RowArgs {
    const float* src;
    float* dst;
    const float* fluid;  ///< padded: 1 fluid, 0 solid or halo (float, so the loop vectorises 8 cells wide)
    const float* temp;   ///< the whole box's layout (rows t_ny, this slab's first t_j0), or null
    float* sum_u;        ///< ux of every interior cell, then uy, then uz; or null when not sampling
    float* sum_nu;
    std::size_t n;  ///< padded cell count (stride between directions)
    int px, py;     ///< padded dims x, y
    int nx, ny;
    int t_j0, t_ny;
    std::size_t cells;  ///< interior cell count
    int off[lbm::kQ];
    float tau0, smag2, fx, fy, fz, buoy, t_ref;
};

using RowFn = bool (*)(const RowArgs&, int, int);
/// The row update for these options (sampling the means, buoyancy from a temperature field).
RowFn rowFunction(bool sample, bool buoyancy);

}  // namespace ct::sim::lattice_detail
