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
CT_LBM CellMoments collide(float* f, float tau0, float smag2, CellForce force) {
    float drho = 0, jx = 0, jy = 0, jz = 0;
    CT_UNROLL
    for (int i = 0; i < kQ; ++i) {
        drho += f[i];
        jx += static_cast<float>(cx(i)) * f[i];
        jy += static_cast<float>(cy(i)) * f[i];
        jz += static_cast<float>(cz(i)) * f[i];
    }
    const float rho = 1.f + drho;
    const float inv_rho = 1.f / rho;
    // Guo: the velocity includes half the force's impulse.
    const float ux = (jx + 0.5f * force.fx) * inv_rho;
    const float uy = (jy + 0.5f * force.fy) * inv_rho;
    const float uz = (jz + 0.5f * force.fz) * inv_rho;
    // Π_neq = Σ c c (f − f_eq) = Σ c c f̃ − δρ·c_s²·I − ρ u u (the equilibrium's second moment is ρ(c_s² I + u u) and
    // the rest state's is c_s² I), from the second moments of f̃ without evaluating the equilibrium.
    float pxx = 0, pyy = 0, pzz = 0, pxy = 0, pxz = 0, pyz = 0;
    CT_UNROLL
    for (int i = 0; i < kQ; ++i) {
        const float x = static_cast<float>(cx(i)), y = static_cast<float>(cy(i)), z = static_cast<float>(cz(i));
        pxx += x * x * f[i];
        pyy += y * y * f[i];
        pzz += z * z * f[i];
        pxy += x * y * f[i];
        pxz += x * z * f[i];
        pyz += y * z * f[i];
    }
    const float iso = drho * (1.f / 3.f);
    pxx -= iso + rho * ux * ux;
    pyy -= iso + rho * uy * uy;
    pzz -= iso + rho * uz * uz;
    pxy -= rho * ux * uy;
    pxz -= rho * ux * uz;
    pyz -= rho * uy * uz;
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
    // between nodes whatever the viscosity. Guo's source is split the same way.
    const float wp = 1.f / tau;
    const float wm = 1.f / (0.5f + kMagic / (tau - 0.5f));
    const float u2 = ux * ux + uy * uy + uz * uz;
    const float fu = ux * force.fx + uy * force.fy + uz * force.fz;
    {
        const float w = weight(0);
        const float feq = w * (drho - rho * 1.5f * u2);
        f[0] = f[0] - wp * (f[0] - feq) + (1.f - 0.5f * wp) * w * (-3.f * fu);
    }
    CT_UNROLL
    for (int i = 1; i < kQ; i += 2) {
        const float x = static_cast<float>(cx(i)), y = static_cast<float>(cy(i)), z = static_cast<float>(cz(i));
        const float w = weight(i);
        const float cu = x * ux + y * uy + z * uz;
        const float cf = x * force.fx + y * force.fy + z * force.fz;
        const float eq_even = w * (drho + rho * (4.5f * cu * cu - 1.5f * u2));
        const float eq_odd = w * rho * 3.f * cu;
        const float f_even = 0.5f * (f[i] + f[i + 1]), f_odd = 0.5f * (f[i] - f[i + 1]);
        const float s_even = w * (9.f * cu * cf - 3.f * fu), s_odd = w * 3.f * cf;
        const float d_even = -wp * (f_even - eq_even) + (1.f - 0.5f * wp) * s_even;
        const float d_odd = -wm * (f_odd - eq_odd) + (1.f - 0.5f * wm) * s_odd;
        f[i] += d_even + d_odd;
        f[i + 1] += d_even - d_odd;
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
