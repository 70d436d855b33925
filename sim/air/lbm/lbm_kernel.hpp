#pragma once
// The lattice-Boltzmann update of one cell (D3Q19), written once and called by the CPU loop (lattice.cpp) and the
// CUDA kernel (sim/cuda/lattice_device.cu) alike (contributing.md habit 5). No allocation, no library calls.
//
// Populations are stored as deviations from the rest state, f̃_i = f_i − w_i (FluidX3D's "DDF shifting"): at
// low Mach numbers the interesting part of f_i is tiny next to w_i, and FP32 keeps ~3 more digits of it.
//
// Collision: two-relaxation-time (TRT, Ginzburg 2008) with the magic parameter Λ = 3/16, Smagorinsky LES
// (Hou et al. 1996) taking |S| from the local non-equilibrium stress Π_neq (no neighbour access), and body
// forces (Boussinesq buoyancy, a driving force) by Guo, Zheng & Shi (2002). Why TRT: docs/simulation.md.
#include "air/host_device.hpp"

#include <cmath>

// Fully unrolled loops over the 19 directions, so every c_i is a constant and the CPU loop over cells vectorises.
#if defined(__CUDACC__)
#define CT_UNROLL _Pragma("unroll")
#elif defined(__clang__)
#define CT_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define CT_UNROLL _Pragma("GCC unroll 19")
#else
#define CT_UNROLL
#endif

// Always inlined on the host: the CPU loop vectorises over cells only once collide() is part of its body.
#if defined(__CUDACC__)
#define CT_LBM CT_HD
#elif defined(__GNUC__)
#define CT_LBM inline __attribute__((always_inline))
#else
#define CT_LBM inline
#endif

namespace ct::sim::lbm {

constexpr int kQ = 19;
/// TRT's magic parameter Λ = (τ⁺ − ½)(τ⁻ − ½).
constexpr float kMagic = 3.f / 16.f;

/// Direction i: (cx, cy, cz). 0 rest; 1–6 the axes; 7–18 the face diagonals. Opposite pairs are (odd, odd+1).
CT_LBM int cx(int i) {
    constexpr int v[kQ] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0};
    return v[i];
}
CT_LBM int cy(int i) {
    constexpr int v[kQ] = {0, 0, 0, 1, -1, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 1, -1};
    return v[i];
}
CT_LBM int cz(int i) {
    constexpr int v[kQ] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 1, -1, 1, -1, 0, 0, -1, 1, -1, 1};
    return v[i];
}
CT_LBM float weight(int i) { return i == 0 ? 1.f / 3.f : (i <= 6 ? 1.f / 18.f : 1.f / 36.f); }
CT_LBM int opposite(int i) { return i == 0 ? 0 : ((i & 1) ? i + 1 : i - 1); }

/// acc + c·v for a lattice component c ∈ {−1, 0, 1} known once the loops are unrolled: a sum, a difference or
/// nothing. IEEE arithmetic cannot drop 0·v (v might be NaN), so written as c·v the compiler keeps a
/// multiplication and an addition for every zero component (36 of the 310 vector operations a block of 16 cells
/// took in the AVX-512 row).
CT_LBM float addTimes(float acc, int c, float v) { return c == 0 ? acc : (c > 0 ? acc + v : acc - v); }
/// c · (ux, uy, uz) for a direction's components, the zero ones left out.
/// (Sums start from −0, which x + (−0) leaves as x for every x, so the first term costs nothing; +0 would not.)
CT_LBM float dotC(int x, int y, int z, float ux, float uy, float uz) { return addTimes(addTimes(addTimes(-0.f, x, ux), y, uy), z, uz); }

/// What one cell's update needs besides its populations.
struct CellForce {
    float fx = 0, fy = 0, fz = 0;  ///< body force per unit volume, lattice units
};

/// Moments the caller may keep.
struct CellMoments {
    float rho = 1, ux = 0, uy = 0, uz = 0;
    float nu_t = 0;  ///< Smagorinsky eddy viscosity, lattice units
};

/// Equilibrium deviation f_eq,i − w_i for density ρ = 1 + drho and velocity u (second order in u).
CT_LBM float equilibriumDeviation(int i, float drho, float ux, float uy, float uz) {
    const float w = weight(i);
    const float cu = static_cast<float>(cx(i)) * ux + static_cast<float>(cy(i)) * uy + static_cast<float>(cz(i)) * uz;
    const float u2 = ux * ux + uy * uy + uz * uz;
    const float rho = 1.f + drho;
    return w * (drho + rho * (3.f * cu + 4.5f * cu * cu - 1.5f * u2));
}

/// Collides one cell in place: `f` holds the 19 streamed deviations on entry and the post-collision
/// deviations on exit. `tau0` is the molecular relaxation time (ν = (τ0 − ½)/3); `smag2` = (C_s·Δ)² in lattice
/// units (0 for laminar runs).
///
/// Written over the opposite pairs (i, i + 1): their sum S and difference D carry every moment (ρ and Π from S,
/// the momentum from D) and are what TRT relaxes (the even part S/2 with ω⁺, the odd part D/2 with ω⁻), so each
/// population is read once and the terms that depend only on the cell (per weight class) are formed once. The
/// algebra is that of the direct form (equilibrium, Guo's source split into even and odd parts); only the
/// rounding differs. On a CPU core whose memory keeps up with it this is what bounds the kernel
/// (docs/performance.md, "The collision in pairs").
CT_LBM CellMoments collide(float* f, float tau0, float smag2, CellForce force) {
    float s[kQ / 2], d[kQ / 2];
    CT_UNROLL
    for (int p = 0; p < kQ / 2; ++p) {
        s[p] = f[2 * p + 1] + f[2 * p + 2];
        d[p] = f[2 * p + 1] - f[2 * p + 2];
    }
    float drho = f[0], jx = -0.f, jy = -0.f, jz = -0.f;
    float pxx = -0.f, pyy = -0.f, pzz = -0.f, pxy = -0.f, pxz = -0.f, pyz = -0.f;
    CT_UNROLL
    for (int p = 0; p < kQ / 2; ++p) {
        const int i = 2 * p + 1;
        const int x = cx(i), y = cy(i), z = cz(i);
        drho += s[p];
        jx = addTimes(jx, x, d[p]);
        jy = addTimes(jy, y, d[p]);
        jz = addTimes(jz, z, d[p]);
        pxx = addTimes(pxx, x * x, s[p]);
        pyy = addTimes(pyy, y * y, s[p]);
        pzz = addTimes(pzz, z * z, s[p]);
        pxy = addTimes(pxy, x * y, s[p]);
        pxz = addTimes(pxz, x * z, s[p]);
        pyz = addTimes(pyz, y * z, s[p]);
    }
    const float rho = 1.f + drho;
    const float inv_rho = 1.f / rho;
    // Guo: the velocity includes half the force's impulse.
    const float ux = (jx + 0.5f * force.fx) * inv_rho;
    const float uy = (jy + 0.5f * force.fy) * inv_rho;
    const float uz = (jz + 0.5f * force.fz) * inv_rho;
    // Π_neq = Σ c c (f − f_eq) = Σ c c f̃ − δρ·c_s²·I − ρ u u (the equilibrium's second moment is ρ(c_s² I + u u) and
    // the rest state's is c_s² I), from the second moments of f̃ without evaluating the equilibrium.
    const float iso = drho * (1.f / 3.f);
    const float rux = rho * ux, ruy = rho * uy, ruz = rho * uz;
    pxx -= iso + rux * ux;
    pyy -= iso + ruy * uy;
    pzz -= iso + ruz * uz;
    pxy -= rux * uy;
    pxz -= rux * uz;
    pyz -= ruy * uz;
    // Smagorinsky: τ = ½(τ0 + √(τ0² + 18·√2·(C_sΔ)²·|Π| / ρ)), |Π| = √(Π:Π) of the strain part of Π_neq
    // (Guo's ½(uF + Fu) added back).
    const float sxx = pxx + ux * force.fx, syy = pyy + uy * force.fy, szz = pzz + uz * force.fz;
    const float sxy = pxy + 0.5f * (ux * force.fy + uy * force.fx);
    const float sxz = pxz + 0.5f * (ux * force.fz + uz * force.fx);
    const float syz = pyz + 0.5f * (uy * force.fz + uz * force.fy);
    const float pnorm = sqrtf(sxx * sxx + syy * syy + szz * szz + 2.f * (sxy * sxy + sxz * sxz + syz * syz));
    const float tau = 0.5f * (tau0 + sqrtf(tau0 * tau0 + 25.455844f * smag2 * pnorm * inv_rho));
    CellMoments m;
    m.rho = rho;
    m.ux = ux;
    m.uy = uy;
    m.uz = uz;
    m.nu_t = (tau - tau0) * (1.f / 3.f);
    // TRT: even (symmetric) parts relax with ω⁺ = 1/τ (viscosity, eddy viscosity included), odd parts with
    // ω⁻ from the magic parameter Λ = (τ⁺ − ½)(τ⁻ − ½) = 3/16, which puts a bounce-back wall exactly half-way
    // between nodes whatever the viscosity. Guo's source is split the same way. For a pair with even part e = S/2
    // and odd part o = D/2: e' = (1 − ω⁺)e + ω⁺·w(δρ + ρ(4.5(c·u)² − 1.5u²)) + (1 − ω⁺/2)·w(9(c·u)(c·F) − 3u·F),
    // o' = (1 − ω⁻)o + ω⁻·3wρ(c·u) + (1 − ω⁻/2)·3w(c·F); f_i = e' + o', f_i+1 = e' − o'.
    // ω⁺ = 1/τ and ω⁻ = 1/(½ + Λ/(τ − ½)) = a/b with a = τ − ½, b = a/2 + Λ: both from one division.
    const float a = tau - 0.5f, b = 0.5f * a + kMagic;
    const float r = 1.f / (tau * b);
    const float wp = b * r;
    const float wm = a * tau * r;
    const float u2 = ux * ux + uy * uy + uz * uz;
    const float fu = ux * force.fx + uy * force.fy + uz * force.fz;
    const float gp = 1.f - 0.5f * wp, gm = 1.f - 0.5f * wm;
    const float ep = 0.5f * (1.f - wp), em = 0.5f * (1.f - wm);
    // w·rest is what a direction's even part gets whatever c: ω⁺ times the equilibrium at c·u = 0, and Guo's −3u·F.
    const float rest = wp * (drho - 1.5f * rho * u2) - 3.f * gp * fu;
    f[0] = (1.f - wp) * f[0] + weight(0) * rest;
    // Per weight class w: the constant part of e', the factors of (c·u)² and (c·u)(c·F) in e', of c·u and c·F in o'.
    float e0[2], e2[2], ef[2], ou[2], of[2];
    CT_UNROLL
    for (int c = 0; c < 2; ++c) {
        const float w = c == 0 ? 1.f / 18.f : 1.f / 36.f;
        e0[c] = w * rest;
        e2[c] = w * 4.5f * wp * rho;
        ef[c] = w * 9.f * gp;
        ou[c] = w * 3.f * wm * rho;
        of[c] = w * 3.f * gm;
    }
    CT_UNROLL
    for (int p = 0; p < kQ / 2; ++p) {
        const int i = 2 * p + 1, c = i <= 6 ? 0 : 1;
        const float cu = dotC(cx(i), cy(i), cz(i), ux, uy, uz);
        const float cf = dotC(cx(i), cy(i), cz(i), force.fx, force.fy, force.fz);
        const float e = ep * s[p] + e0[c] + cu * (e2[c] * cu + ef[c] * cf);
        const float o = em * d[p] + ou[c] * cu + of[c] * cf;
        f[i] = e + o;
        f[i + 1] = e - o;
    }
    return m;
}

/// What a source port adds to population i of its cell: `q` of air at rest density moving with (jx, jy, jz).
CT_LBM float portInflow(int i, float q, float jx, float jy, float jz) { return q * (weight(i) + equilibriumDeviation(i, 0.f, jx, jy, jz)); }

/// A sink port removes `q` of its cell's own air, in proportion to each population.
CT_LBM void portOutflow(float* f, float q) {
    float drho = 0;
    CT_UNROLL
    for (int i = 0; i < kQ; ++i) drho += f[i];
    const float share = q / (1.f + drho);
    CT_UNROLL
    for (int i = 0; i < kQ; ++i) f[i] -= share * (f[i] + weight(i));
}

/// A port cell over one step: a source adds `q` (lattice volume, ≪ 1) of air at rest density moving with
/// (jx, jy, jz); a sink removes `q` of the cell's own air, in proportion to each population. Mass is exact.
CT_LBM void portExchange(float* f, float q, bool source, float jx, float jy, float jz) {
    if (source) {
        CT_UNROLL
        for (int i = 0; i < kQ; ++i) f[i] += portInflow(i, q, jx, jy, jz);
    } else {
        portOutflow(f, q);
    }
}

}  // namespace ct::sim::lbm
