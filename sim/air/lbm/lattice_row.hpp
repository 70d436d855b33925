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
    const float* temp;   ///< padded like the populations (Lattice::Impl::temp_pad), or null
    float* sum_u;        ///< padded: ux of every cell, then uy, then uz (n apart); or null when not sampling
    float* sum_nu;       ///< padded
    std::size_t n;       ///< padded cell count (stride between directions)
    int off[lbm::kQ];
    float tau0, smag2, fx, fy, fz, buoy, t_ref;
};

/// Updates `len` consecutive padded cells from padded index p0: a row of interior cells, or the rows of a plane
/// from one row's first cell to another's last, the halo cells between them included (they store zeros, as
/// solid cells do, and add nothing to the sums). True when a fluid cell failed the stability check.
using RowFn = bool (*)(const RowArgs&, std::size_t p0, int len);
/// The line update for these options (sampling the means, buoyancy from a temperature field, streaming stores:
/// the populations written in whole lines past the caches, for lattices larger than the caches hold; RowArgs::n
/// then a multiple of 16).
RowFn rowFunction(bool sample, bool buoyancy, bool stream);

}  // namespace ct::sim::lattice_detail
