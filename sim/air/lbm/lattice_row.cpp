// One row of the D3Q19 lattice on the CPU (see lattice.cpp for the layout): a pure pull, the collision
// (lbm_kernel.hpp) and the running means, vectorised over the row's cells with AVX-512 and AVX2 clones.
#include "lattice_row.hpp"

#include <algorithm>
#include <cstdint>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ct::sim::lattice_detail {

namespace {

constexpr int kQ = lbm::kQ;
/// Cells per block: one AVX-512 vector of floats (two AVX2 ones).
constexpr int kBlock = 16;
/// How far ahead the row prefetches, in cells: four blocks.
constexpr int kAhead = 4 * kBlock;

#if defined(__x86_64__)
constexpr bool kCanStream = true;
#else
constexpr bool kCanStream = false;
#endif

/// One line of padded cells (RowFn): a pure pull (walls were folded into the solid cells' populations by the
/// bounce-back pre-pass), the collision, and the sums when sampling. Returns true when a cell failed the stability
/// check. Solid and halo cells are computed too (the loop stays branch-free) and store zeros. With `kStream` the
/// populations go out in whole 64-byte lines past the caches (streamLine). One function, long as it is: the cell
/// update must be inlined into each vector loop, and its captures are the line's 40 streams.
template <bool kSample, bool kBuoyancy, bool kStream>
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) bool latticeRow(const RowArgs& a, std::size_t p0, int len) {
    const std::size_t n = a.n;
    const float* __restrict src = a.src;
    float* __restrict dst = a.dst + p0;
    const float* __restrict fluid_of = a.fluid + p0;
    const float* __restrict temp = a.temp ? a.temp + p0 : nullptr;
    float* __restrict sux = a.sum_u ? a.sum_u + p0 : nullptr;
    float* __restrict suy = a.sum_u ? a.sum_u + n + p0 : nullptr;
    float* __restrict suz = a.sum_u ? a.sum_u + 2 * n + p0 : nullptr;
    float* __restrict snu = a.sum_nu ? a.sum_nu + p0 : nullptr;
    const float* __restrict in[kQ];
    float* __restrict out[kQ];
    for (int q = 0; q < kQ; ++q) {
        in[q] = src + static_cast<std::size_t>(q) * n + p0 - static_cast<std::ptrdiff_t>(a.off[q]);
        out[q] = dst + static_cast<std::size_t>(q) * n;
    }
    const float tau0 = a.tau0, smag2 = a.smag2, fx = a.fx, fy = a.fy, fz0 = a.fz, buoy = a.buoy, t_ref = a.t_ref;
    int bad = 0;
    alignas(64) float blk[kQ][kBlock];  // a block's populations on their way to streaming stores
    // One cell; `counted` is false for a cell a block computes a second time (its sums are not added again;
    // its populations are written again with the same values, or not at all when streaming). With kStream its
    // populations go to the block buffer at `slot` instead of out.
    auto cell = [&](int i, bool counted, int slot) __attribute__((always_inline)) {
        float f[kQ];
        CT_UNROLL
        for (int q = 0; q < kQ; ++q) f[q] = in[q][i];
        float fz = fz0;
        if constexpr (kBuoyancy) fz += buoy * (temp[i] - t_ref);
        const lbm::CellMoments m = lbm::collide(f, tau0, smag2, lbm::CellForce{fx, fy, fz});
        const bool fluid = fluid_of[i] != 0.f;
        if constexpr (kStream) {
            CT_UNROLL
            for (int q = 0; q < kQ; ++q) blk[q][slot] = fluid ? f[q] : 0.f;
        } else {
            (void)slot;
            CT_UNROLL
            for (int q = 0; q < kQ; ++q) out[q][i] = fluid ? f[q] : 0.f;
        }
        if constexpr (kSample) {
            const bool add = fluid & counted;
            sux[i] += add ? m.ux : 0.f;
            suy[i] += add ? m.uy : 0.f;
            suz[i] += add ? m.uz : 0.f;
            snu[i] += add ? m.nu_t : 0.f;
        }
        const float u2 = m.ux * m.ux + m.uy * m.uy + m.uz * m.uz;
        // Written so that NaN fails it.
        const int ok = (m.rho > kMinRho) & (m.rho < kMaxRho) & (u2 < kMaxSpeed * kMaxSpeed);
        bad |= static_cast<int>(fluid) & (ok ^ 1);
    };
    // The streaming instantiation's every line, each cell through the one `cell` below (a hall whole or in slabs,
    // long lines or short, computes every cell with the same instructions): whole 64-byte lines past the caches,
    // never read first (a store into a line not in the cache reads it in first, half again the pull's traffic),
    // from the first cell where every direction's line starts (n is a multiple of 16 cells); the cells before it
    // and after the last whole block, and lines too short for one, by plain stores from the block's buffer.
    auto streamLine = [&](int len_) __attribute__((always_inline)) {
        const auto addr = reinterpret_cast<std::uintptr_t>(out[0]);  // out[q] + i is 64-aligned for one i mod 16
        const int head = static_cast<int>(((64 - addr % 64) % 64) / sizeof(float));
        const bool whole_lines = kCanStream && addr % sizeof(float) == 0 && head + kBlock <= len_;
        if (len_ < kBlock) {
#pragma GCC ivdep
            for (int i = 0; i < len_; ++i) cell(i, true, i);
            for (int q = 0; q < kQ; ++q)
                for (int i = 0; i < len_; ++i) out[q][i] = blk[q][i];
            return;
        }
        for (int base = 0; base < len_;) {
            const bool lead = whole_lines && base == 0 && head > 0;
            const int from = lead ? 0 : std::min(base, len_ - kBlock);
            const int end = lead ? head : std::min(base + kBlock, len_);
            CT_UNROLL
            for (int q = 0; q < kQ; ++q) __builtin_prefetch(in[q] + base + kAhead, 0, 3);
#pragma GCC ivdep
            for (int c = 0; c < kBlock; ++c) cell(from + c, from + c >= base && from + c < end, c);
            if (whole_lines && from == base && end == base + kBlock) {
#if defined(__x86_64__)
                for (int q = 0; q < kQ; ++q)
                    for (int c = 0; c < kBlock; c += 4) _mm_stream_ps(out[q] + from + c, _mm_load_ps(&blk[q][c]));
#endif
            } else {
                for (int q = 0; q < kQ; ++q)
                    for (int i = base; i < end; ++i) out[q][i] = blk[q][i - from];
            }
            base = end;
        }
#if defined(__x86_64__)
        _mm_sfence();  // the streamed lines reach memory before the batch's end tells another thread to read them
#endif
    };
    if constexpr (kStream) {
        streamLine(len);
        return bad != 0;
    }
    if (len < kBlock) {
#pragma GCC ivdep
        for (int i = 0; i < len; ++i) cell(i, true, 0);
        return bad != 0;
    }
    // Whole blocks of kBlock cells, each one vector iteration; a line that is not a multiple of kBlock ends with a
    // block shifted back to its last cell, so no cell runs in a scalar remainder loop (rows of 20–60 cells, the
    // samples' halls, spent a third of the kernel's time there). Lines of a plane's rows rather than of one row
    // compute a fifth fewer cells on such halls (a row of 36 cells took three blocks, 48 cells).
    for (int base = 0; base < len; base += kBlock) {
        const int from = std::min(base, len - kBlock);
        // The 38 streams of a pull are more than the hardware prefetcher follows, and a block's collision is long
        // enough to hide their misses: fetch a line of each, four blocks ahead (clustertwin-bench air at 2 threads:
        // 70–78 % of the triad roofline, against 57–65 % without; docs/performance.md). Past a line's end they fetch
        // the cells that follow in memory, still inside the population arrays (the last direction's padding planes
        // are longer than kAhead for any row of kBlock or more cells).
        CT_UNROLL
        for (int q = 0; q < kQ; ++q) {
            __builtin_prefetch(in[q] + base + kAhead, 0, 3);
            __builtin_prefetch(out[q] + base + kAhead, 1, 3);
        }
#pragma GCC ivdep
        for (int c = 0; c < kBlock; ++c) cell(from + c, from + c >= base, c);
    }
    return bad != 0;
}

template <bool kStream>
RowFn rowOf(bool sample, bool buoyancy) {
    if (sample) return buoyancy ? &latticeRow<true, true, kStream> : &latticeRow<true, false, kStream>;
    return buoyancy ? &latticeRow<false, true, kStream> : &latticeRow<false, false, kStream>;
}

}  // namespace

RowFn rowFunction(bool sample, bool buoyancy, bool stream) {
    return stream && kCanStream ? rowOf<true>(sample, buoyancy) : rowOf<false>(sample, buoyancy);
}

}  // namespace ct::sim::lattice_detail
