#pragma once
// Per-cell updates of the air model, written once as plain functions that a CPU loop and a CUDA kernel both
// call (contributing.md habit 5, AMReX style). No allocation, no library calls: host- and device-callable.
#include "air/host_device.hpp"

namespace ct::sim::kernels {

/// Neighbour bits of a fluid cell: set when the neighbour across that face is fluid.
enum : unsigned char { kWest = 1, kEast = 2, kSouth = 4, kNorth = 8, kDown = 16, kUp = 32 };

CT_HD float posf(float x) { return x > 0.f ? x : 0.f; }

/// One explicit, conservative, first-order upwind step of ∂T/∂t + ∇·(uT) = ∇·(κ∇T) for one fluid cell.
/// Face fluxes F (m³/s) are positive along +x, +y, +z: fw/fe the cell's west/east faces, etc.
/// `diff` = κ·A/h (m³/s) per fluid neighbour. `dt_v` = dt / cell volume. Sources and sinks of air are
/// added separately (ports); the face fluxes' divergence balances them.
CT_HD float advectDiffuse(float t, float tw, float te, float ts, float tn, float td, float tu, float fw, float fe, float fs, float fn,
                          float fd, float fu, unsigned nb, float diff, float dt_v) {
    // Advection: what leaves carries this cell's temperature, what enters carries the upwind neighbour's.
    const float out = posf(fe) + posf(-fw) + posf(fn) + posf(-fs) + posf(fu) + posf(-fd);
    const float in = posf(fw) * tw + posf(-fe) * te + posf(fs) * ts + posf(-fn) * tn + posf(fd) * td + posf(-fu) * tu;
    // Diffusion only across faces to fluid neighbours (walls and solids are adiabatic). Weights from the bits
    // rather than branches, so a loop of cells vectorizes.
    const unsigned b = nb;
    float dif = static_cast<float>(b & 1u) * (tw - t);
    dif += static_cast<float>((b >> 1) & 1u) * (te - t);
    dif += static_cast<float>((b >> 2) & 1u) * (ts - t);
    dif += static_cast<float>((b >> 3) & 1u) * (tn - t);
    dif += static_cast<float>((b >> 4) & 1u) * (td - t);
    dif += static_cast<float>((b >> 5) & 1u) * (tu - t);
    return t + dt_v * (in - out * t + diff * dif);
}

/// Heat flux F·T_face (m³/s·K) through a face between cells m1 (minus side) and p1, with F positive from m1 to
/// p1: the upwind value plus van Leer's limited correction (a TVD scheme, second order where the field is
/// smooth, no new extrema). m2 and p2 are the next cells out on each side (the upwind cell's own value where
/// that cell is not fluid).
CT_HD float vanLeerFlux(float f, float m2, float m1, float p1, float p2) {
    const bool pos = f > 0.f;
    const float up = pos ? m1 : p1, uu = pos ? m2 : p2, dn = pos ? p1 : m1;
    const float a = up - uu, b = dn - up, ab = a * b;
    // Branch-free (the CPU loop vectorises only without control flow): where ab ≤ 0 the correction is 0 / 1.
    const bool smooth = ab > 0.f;
    const float corr = (smooth ? ab : 0.f) / (smooth ? a + b : 1.f);
    return f * (up + corr);
}

/// The cell, its six neighbours and the six cells two away (x, y, z order: minus then plus).
struct Stencil13 {
    float t, w, e, s, n, d, u, ww, ee, ss, nn, dd, uu;
};

/// One explicit, conservative step with van Leer TVD advection and diffusion through per-face conductances
/// g (κ_eff·A/h, m³/s; zero where the neighbour is not fluid). `nb2` has the neighbour bits of the cells two
/// away (set when both that cell and the one between are fluid). Stable for half the upwind step.
CT_HD float advectDiffuseTvd(Stencil13 v, float fw, float fe, float fs, float fn, float fd, float fu, unsigned nb, unsigned nb2, float gw,
                             float ge, float gs, float gn, float gd, float gu, float dt_v) {
    // Where a neighbour is not fluid its face carries nothing; the limiter sees the cell's own value instead.
    const float w = (nb & kWest) ? v.w : v.t, e = (nb & kEast) ? v.e : v.t;
    const float s = (nb & kSouth) ? v.s : v.t, n = (nb & kNorth) ? v.n : v.t;
    const float d = (nb & kDown) ? v.d : v.t, u = (nb & kUp) ? v.u : v.t;
    const float ww = (nb2 & kWest) ? v.ww : w, ee = (nb2 & kEast) ? v.ee : e;
    const float ss = (nb2 & kSouth) ? v.ss : s, nn = (nb2 & kNorth) ? v.nn : n;
    const float dd = (nb2 & kDown) ? v.dd : d, uu = (nb2 & kUp) ? v.uu : u;
    const float adv = vanLeerFlux(fw, ww, w, v.t, e) - vanLeerFlux(fe, w, v.t, e, ee) + vanLeerFlux(fs, ss, s, v.t, n) -
                      vanLeerFlux(fn, s, v.t, n, nn) + vanLeerFlux(fd, dd, d, v.t, u) - vanLeerFlux(fu, d, v.t, u, uu);
    const float dif = gw * (w - v.t) + ge * (e - v.t) + gs * (s - v.t) + gn * (n - v.t) + gd * (d - v.t) + gu * (u - v.t);
    return v.t + dt_v * (adv + dif);
}

/// A port cell's air exchange over dt: `q_in` m³/s enters at `t_in`, `q_out` m³/s leaves at the cell's `t_old`.
CT_HD float portExchange(float t_new, float t_old, float q_in, float t_in, float q_out, float dt_v) {
    return t_new + dt_v * (q_in * t_in - q_out * t_old);
}

/// Product of the potential-flow operator M = h·(deg − adjacency) with x for one fluid cell (Neumann walls).
CT_HD double laplaceApply(double x, double xw, double xe, double xs, double xn, double xd, double xu, unsigned char nb, double h) {
    double s = 0.0;
    int deg = 0;
    if (nb & kWest) {
        s += xw;
        ++deg;
    }
    if (nb & kEast) {
        s += xe;
        ++deg;
    }
    if (nb & kSouth) {
        s += xs;
        ++deg;
    }
    if (nb & kNorth) {
        s += xn;
        ++deg;
    }
    if (nb & kDown) {
        s += xd;
        ++deg;
    }
    if (nb & kUp) {
        s += xu;
        ++deg;
    }
    return h * (deg * x - s);
}

}  // namespace ct::sim::kernels
