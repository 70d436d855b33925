// The air model's flow: the potential-flow solve (quick mode) and the projection of fluxes given by another
// solver (the lattice) onto the port sources. Both solve M x = −s with CG, warm-started: on the CPU preconditioned
// by a multigrid V-cycle (flow_multigrid.hpp), on CUDA by Jacobi.
#include "air_model_impl.hpp"

#include <clustertwin/sim/air/lattice.hpp>

namespace ct::sim {

FlowSolveStats AirModel::Impl::potential(std::vector<double> s, std::vector<double>& x, bool add, double rel_res, int max_iter,
                                         double abs_res) {
    Impl& d = *this;
    d.updateNeighbours();
    const std::size_t n = d.n();
    balanceSources(s);
    std::vector<double> b(n);
    for (std::size_t c = 0; c < n; ++c) {
        b[c] = d.solid[c] ? 0.0 : -s[c];
        if (d.solid[c]) x[c] = 0;
    }
    FlowSolveStats st;
    const double bnorm = std::sqrt(d.dot(b, b));
    // Converged at the relative residual, or at an absolute one (a projection's right-hand side is already small).
    if (abs_res > 0 && bnorm > 0) rel_res = std::max(rel_res, abs_res / bnorm);
    if (bnorm > 0 && d.onDevice()) {
#ifdef CT_HAVE_CUDA
        // The device's CG is Jacobi-preconditioned: M's diagonal, h·(open faces), 1 where a cell has none.
        std::vector<double> diag(n);
        for (std::size_t c = 0; c < n; ++c) {
            int deg = 0;
            for (unsigned char bit : {k::kWest, k::kEast, k::kSouth, k::kNorth, k::kDown, k::kUp}) deg += (d.nb[c] & bit) ? 1 : 0;
            diag[c] = deg > 0 ? d.h * deg : 1.0;
        }
        double achieved = 0;
        CT_ON_DEVICE(d.dev->setGeometry(d.nb, d.solid, d.nbw); st.iterations = d.dev->solve(b, diag, x, d.h, rel_res, max_iter, achieved));
        st.relative_residual = achieved;
        if (st.relative_residual > rel_res)
            throw SimError("air flow solver (CUDA) did not converge: residual " + std::to_string(st.relative_residual) + " after " +
                           std::to_string(st.iterations) + " iterations");
#endif
    } else if (bnorm > 0) {
        st = solveCpu(b, x, bnorm, rel_res, max_iter);
        if (st.relative_residual > rel_res)
            throw SimError("air flow solver did not converge: residual " + std::to_string(st.relative_residual) + " after " +
                           std::to_string(st.iterations) + " iterations");
    } else {
        std::fill(x.begin(), x.end(), 0.0);
    }
    facesFromPotential(x, add);
    return st;
}

void AirModel::Impl::balanceSources(std::vector<double>& s) const {
    const Impl& d = *this;
    const std::size_t n = d.n();
    double net = 0, total = 0;
    std::size_t fluid = 0;
    for (std::size_t c = 0; c < n; ++c)
        if (!d.solid[c]) {
            net += s[c];
            total += std::fabs(s[c]);
            ++fluid;
        }
    if (fluid > 0 && std::fabs(net) > 0)
        for (std::size_t c = 0; c < n; ++c)
            if (!d.solid[c]) s[c] -= net / static_cast<double>(fluid);
}

FlowSolveStats AirModel::Impl::solveCpu(const std::vector<double>& b, std::vector<double>& x, double bnorm, double rel_res, int max_iter) {
    Impl& d = *this;
    const std::size_t n = d.n();
    for (auto* v : {&d.cg_r, &d.cg_z, &d.cg_p, &d.cg_ap}) v->resize(n);
    std::vector<double>&r = d.cg_r, &z = d.cg_z, &p = d.cg_p, &ap = d.cg_ap;
    // CG preconditioned by one multigrid V-cycle (flow_multigrid.hpp).
    if (d.mg_stale) {
        d.mg.build(nx, ny, nz, d.nb, d.h);
        d.mg_stale = false;
    }
    const FlowMultigrid::Runner runner = [&d](std::size_t chunks, const std::function<void(std::size_t)>& fn) { d.run(chunks, fn); };
    // A hall split over ranks: each iterates on its rows (air_rows.cpp), the same operations on the same numbers
    // as one process, so the same bits; x is whole on entry and again on return. (A grid of one multigrid level,
    // 64 cells at most, is solved whole: its one level smooths every row.)
    const bool split = d.flowSplit() && d.mg.levelCount() > 1;
    const std::pair<int, int> own = split ? d.flowRowsOf(d.row_slabs->index()) : std::pair<int, int>{0, d.ny};
    const int j0 = own.first, j1 = own.second;
    FlowMultigrid::Rows mine_rows;
    if (split) {
        mine_rows.row0 = j0;
        mine_rows.row1 = j1;
        mine_rows.halo = [&d, j0, j1](FlowMultigrid::Real* v) { d.flowHalo(v, sizeof(FlowMultigrid::Real), j0, j1); };
        mine_rows.gather = [&d](FlowMultigrid::Real* cb, int cnx, int cny, int cnz) { gatherOwnRows(*d.row_slabs, cb, cnx, cny, cnz); };
    }
    const FlowMultigrid::Rows* mg_rows = split ? &mine_rows : nullptr;
    double sums[2];  // r·z and r·r in one gather
    auto dots = [&] {
        d.dotsRows({{&r, &z}, {&r, &r}}, sums, j0, j1, split);
        return sums[0];
    };
    d.apply(x, ap, j0, j1);
    d.forRows(j0, j1, [&](std::size_t c) { r[c] = b[c] - ap[c]; });
    d.mg.apply(r, z, runner, mg_rows);
    d.forRows(j0, j1, [&](std::size_t c) { p[c] = z[c]; });
    double rz = dots();
    double rnorm = std::sqrt(sums[1]);
    int it = 0;
    while (rnorm / bnorm > rel_res && it < max_iter) {
        if (split) d.flowHalo(p.data(), sizeof(double), j0, j1);
        d.apply(p, ap, j0, j1);
        double pap = 0;
        d.dotsRows({{&p, &ap}}, &pap, j0, j1, split);
        if (!(pap > 0)) break;
        const double alpha = rz / pap;
        d.forRows(j0, j1, [&](std::size_t c) {
            x[c] += alpha * p[c];
            r[c] -= alpha * ap[c];
        });
        d.mg.apply(r, z, runner, mg_rows);
        const double rz_new = dots();
        const double beta = rz_new / rz;
        rz = rz_new;
        d.forRows(j0, j1, [&](std::size_t c) { p[c] = z[c] + beta * p[c]; });
        rnorm = std::sqrt(sums[1]);
        ++it;
    }
    if (split) d.gatherFlowRows(x);
    FlowSolveStats st;
    st.iterations = it;
    st.relative_residual = rnorm / bnorm;
    return st;
}

void AirModel::Impl::facesFromPotential(const std::vector<double>& x, bool add) {
    Impl& d = *this;
    const int nx_ = nx, ny_ = ny, nz_ = nz;
    // Face fluxes F = A/h·Δφ = h·Δφ between fluid cells; zero at walls and solids.
    const double hh = d.h;
    d.run(static_cast<std::size_t>(nz_), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i <= nx_; ++i) {
                float f = 0.f;
                if (i > 0 && i < nx_) {
                    const int c = d.idx(i, j, kk);
                    if (!d.solid[c] && !d.solid[c - 1]) f = static_cast<float>(hh * (x[c] - x[c - 1]));
                    if (add) f += d.fx[d.fxi(i, j, kk)];
                }
                d.fx[d.fxi(i, j, kk)] = f;
            }
        for (int j = 0; j <= ny_; ++j)
            for (int i = 0; i < nx_; ++i) {
                float f = 0.f;
                if (j > 0 && j < ny_) {
                    const int c = d.idx(i, j, kk);
                    if (!d.solid[c] && !d.solid[c - nx_]) f = static_cast<float>(hh * (x[c] - x[c - nx_]));
                    if (add) f += d.fy[d.fyi(i, j, kk)];
                }
                d.fy[d.fyi(i, j, kk)] = f;
            }
    });
    d.run(static_cast<std::size_t>(nz_) + 1, [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i < nx_; ++i) {
                float f = 0.f;
                if (kk > 0 && kk < nz_) {
                    const int c = d.idx(i, j, kk);
                    if (!d.solid[c] && !d.solid[c - nx_ * ny_]) f = static_cast<float>(hh * (x[c] - x[c - nx_ * ny_]));
                    if (add) f += d.fz[d.fzi(i, j, kk)];
                }
                d.fz[d.fzi(i, j, kk)] = f;
            }
    });
}

/// Net outflow minus port source per cell, the divergence check, fluxes to the device, the stable step.
FlowSolveStats AirModel::Impl::finishFlow(FlowSolveStats st) {
    Impl& d = *this;
    // The fluxes now carry the ports' flows as they were asked for (sources() read them).
    for (auto& p : d.ports) p.q_flow = p.q;
#ifdef CT_HAVE_CUDA
    d.port_state_stale = true;
#endif
#ifdef CT_HAVE_CUDA
    if (d.dev) {
        CT_ON_DEVICE(d.dev->setGeometry(d.nb, d.solid, d.nbw); d.dev->setFluxes(d.fx, d.fy, d.fz));
        d.geometry_on_device = true;
    }
#endif
    double worst = 0, scale = 0;
    for (const auto& port : d.ports) scale = std::max(scale, port.q / static_cast<double>(port.cells.size()));
    for (std::size_t c = 0; c < n(); ++c)
        if (!d.solid[c]) worst = std::max(worst, std::fabs(divergence(static_cast<int>(c))));
    st.max_divergence_error = scale > 0 ? worst / scale : worst;
    d.computeStableDt();
    return st;
}

double AirModel::Impl::divergence(int c) const {
    const int i = c % nx, j = (c / nx) % ny, kk = c / (nx * ny);
    const double out = static_cast<double>(fx[fxi(i + 1, j, kk)]) - fx[fxi(i, j, kk)] + fy[fyi(i, j + 1, kk)] - fy[fyi(i, j, kk)] +
                       fz[fzi(i, j, kk + 1)] - fz[fzi(i, j, kk)];
    return out - (src.empty() ? 0.0 : src[static_cast<std::size_t>(c)]);
}

FlowSolveStats AirModel::solveFlow(double rel_res, int max_iter) {
    Impl& d = *d_;
    d.src = d.sources();
    return d.finishFlow(d.potential(d.src, d.phi, false, rel_res, max_iter));
}

FlowSolveStats AirModel::setFluxes(std::vector<float> fx, std::vector<float> fy, std::vector<float> fz, double rel_res) {
    Impl& d = *d_;
    if (fx.size() != d.fx.size() || fy.size() != d.fy.size() || fz.size() != d.fz.size())
        throw SimError("air model: face fluxes of the wrong size");
    d.updateNeighbours();
    d.fx = std::move(fx);
    d.fy = std::move(fy);
    d.fz = std::move(fz);
    // No flow through walls and solids, whatever was given.
    for (int kk = 0; kk < nz_; ++kk)
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i <= nx_; ++i)
                if (i == 0 || i == nx_ || d.solid[d.idx(i, j, kk)] || d.solid[d.idx(i - 1, j, kk)]) d.fx[d.fxi(i, j, kk)] = 0.f;
    for (int kk = 0; kk < nz_; ++kk)
        for (int j = 0; j <= ny_; ++j)
            for (int i = 0; i < nx_; ++i)
                if (j == 0 || j == ny_ || d.solid[d.idx(i, j, kk)] || d.solid[d.idx(i, j - 1, kk)]) d.fy[d.fyi(i, j, kk)] = 0.f;
    for (int kk = 0; kk <= nz_; ++kk)
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i < nx_; ++i)
                if (kk == 0 || kk == nz_ || d.solid[d.idx(i, j, kk)] || d.solid[d.idx(i, j, kk - 1)]) d.fz[d.fzi(i, j, kk)] = 0.f;
    // The correction's source: what each cell's ports put in minus what the given fluxes take out.
    d.src = d.sources();
    std::vector<double> r(d.n(), 0.0);
    for (std::size_t c = 0; c < d.n(); ++c)
        if (!d.solid[c]) r[c] = -d.divergence(static_cast<int>(c));
    if (d.psi.size() != d.n()) d.psi.assign(d.n(), 0.0);
    // Mass exact to `rel_res` of the flow: the residual against the norm of the fluxes themselves.
    double f2 = 0;
    for (float f : d.fx) f2 += static_cast<double>(f) * f;
    for (float f : d.fy) f2 += static_cast<double>(f) * f;
    for (float f : d.fz) f2 += static_cast<double>(f) * f;
    for (double q : d.src) f2 += q * q;
    return d.finishFlow(d.potential(std::move(r), d.psi, true, 1e-12, 20000, rel_res * std::sqrt(f2)));
}

double AirModel::divergenceError(int c) const { return d_->divergence(c); }

}  // namespace ct::sim
