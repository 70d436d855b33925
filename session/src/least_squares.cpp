// Bounded Levenberg–Marquardt with Broyden-updated Jacobians (least_squares.hpp).
#include <clustertwin/session/least_squares.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ct::session {

namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) { return std::inner_product(a.begin(), a.end(), b.begin(), 0.0); }

/// Solves the symmetric positive semi-definite system A x = b (Gaussian elimination with partial pivoting; a
/// direction A cannot see gets 0).
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
    const std::size_t n = b.size();
    double scale = 0;
    for (std::size_t i = 0; i < n; ++i) scale = std::max(scale, std::abs(a[i][i]));
    const double tiny = std::max(scale, 1e-300) * 1e-13;
    std::vector<bool> dead(n, false);
    for (std::size_t k = 0; k < n; ++k) {
        std::size_t best = k;
        for (std::size_t i = k + 1; i < n; ++i)
            if (std::abs(a[i][k]) > std::abs(a[best][k])) best = i;
        std::swap(a[k], a[best]);
        std::swap(b[k], b[best]);
        if (std::abs(a[k][k]) <= tiny) {
            dead[k] = true;
            continue;
        }
        for (std::size_t i = k + 1; i < n; ++i) {
            const double f = a[i][k] / a[k][k];
            for (std::size_t j = k; j < n; ++j) a[i][j] -= f * a[k][j];
            b[i] -= f * b[k];
        }
    }
    std::vector<double> x(n, 0.0);
    for (std::size_t k = n; k-- > 0;) {
        if (dead[k]) continue;
        double s = b[k];
        for (std::size_t j = k + 1; j < n; ++j) s -= a[k][j] * x[j];
        x[k] = s / a[k][k];
    }
    return x;
}

/// |r + J d|².
double linearSse(const Jacobian& jac, const std::vector<double>& r, const std::vector<double>& d) {
    double s = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        double v = r[i];
        for (std::size_t j = 0; j < jac.size(); ++j) v += jac[j][i] * d[j];
        s += v * v;
    }
    return s;
}

}  // namespace

std::vector<double> boundedStep(const Jacobian& jac, const std::vector<double>& r, const std::vector<double>& u, double lambda) {
    const std::size_t n = jac.size();
    std::vector<double> d(n, 0.0);
    std::vector<bool> fixed(n, false);
    // A parameter at a bound whose descent direction leaves the box stays there.
    for (std::size_t j = 0; j < n; ++j) {
        const double g = dot(jac[j], r);
        fixed[j] = (u[j] <= 0 && g > 0) || (u[j] >= 1 && g < 0);
    }
    for (std::size_t pass = 0; pass <= n; ++pass) {
        std::vector<std::size_t> free;
        for (std::size_t j = 0; j < n; ++j)
            if (!fixed[j]) free.push_back(j);
        if (free.empty()) break;
        // The residuals with the fixed parameters' steps in.
        std::vector<double> re = r;
        for (std::size_t j = 0; j < n; ++j)
            if (fixed[j] && d[j] != 0)
                for (std::size_t i = 0; i < re.size(); ++i) re[i] += jac[j][i] * d[j];
        const std::size_t m = free.size();
        std::vector<std::vector<double>> a(m, std::vector<double>(m));
        std::vector<double> b(m);
        for (std::size_t p = 0; p < m; ++p) {
            for (std::size_t q = 0; q < m; ++q) a[p][q] = dot(jac[free[p]], jac[free[q]]);
            b[p] = -dot(jac[free[p]], re);
        }
        for (std::size_t p = 0; p < m; ++p) a[p][p] *= 1 + lambda;
        const std::vector<double> x = solve(a, b);
        bool crossed = false;
        for (std::size_t p = 0; p < m; ++p) {
            const std::size_t j = free[p];
            d[j] = x[p];
            if (u[j] + d[j] < 0 || u[j] + d[j] > 1) {
                d[j] = std::clamp(u[j] + d[j], 0.0, 1.0) - u[j];
                fixed[j] = true;
                crossed = true;
            }
        }
        if (!crossed) break;
    }
    return d;
}

double fitExact(const Jacobian& jac, const std::vector<bool>& exact, std::vector<double>& u, std::vector<double>& r) {
    Jacobian cols;
    std::vector<double> at;
    std::vector<std::size_t> which;
    for (std::size_t j = 0; j < jac.size() && j < exact.size(); ++j)
        if (exact[j]) {
            cols.push_back(jac[j]);
            at.push_back(u[j]);
            which.push_back(j);
        }
    if (!cols.empty()) {
        // The residuals are linear in these: the step of the linear problem without damping is their optimum.
        const std::vector<double> d = boundedStep(cols, r, at, 0.0);
        for (std::size_t p = 0; p < cols.size(); ++p) {
            if (d[p] == 0) continue;
            u[which[p]] = std::clamp(at[p] + d[p], 0.0, 1.0);
            for (std::size_t i = 0; i < r.size(); ++i) r[i] += cols[p][i] * d[p];
        }
    }
    return dot(r, r);
}

std::optional<DifferenceJacobian> differenceJacobian(const DifferenceProblem& p, const std::vector<double>& u,
                                                     const std::vector<double>& base) {
    const std::size_t n = u.size();
    DifferenceJacobian out;
    out.jac.resize(n);
    const double sse0 = dot(base, base);
    std::vector<double> effect(n, 0.0), change(n, 0.0), step(n, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
        if (k < p.exact.size() && p.exact[k]) {
            out.jac[k] = p.exact_column(k);
            continue;
        }
        step[k] = u[k] + 0.1 <= 1 ? 0.1 : -0.1;
        std::vector<double> uk = u;
        uk[k] += step[k];
        auto rf = p.run(uk);
        if (!rf) return std::nullopt;
        if (rf->size() != base.size()) throw std::invalid_argument("differenceJacobian: the residuals changed in number");
        out.jac[k].resize(base.size());
        double ss = 0;
        for (std::size_t i = 0; i < base.size(); ++i) {
            ss += ((*rf)[i] - base[i]) * ((*rf)[i] - base[i]);
            out.jac[k][i] = ((*rf)[i] - base[i]) / step[k];
        }
        effect[k] = std::sqrt(ss / static_cast<double>(std::max<std::size_t>(1, base.size())));
        change[k] = std::abs(dot(*rf, *rf) - sse0);
        out.runs.push_back({std::move(uk), std::move(*rf)});
    }
    const double most_effect = *std::max_element(effect.begin(), effect.end());
    const double most_change = *std::max_element(change.begin(), change.end());
    for (std::size_t k = 0; k < n; ++k) {
        if (k < p.exact.size() && p.exact[k]) continue;
        if (!p.secant_always && effect[k] >= 0.2 * most_effect && change[k] >= 0.2 * most_change) continue;
        const double back = step[k] > 0 ? -std::min(0.25, u[k]) : std::min(0.25, 1 - u[k]);
        if (std::abs(back) < 0.05) continue;
        std::vector<double> uk = u;
        uk[k] += back;
        auto rb = p.run(uk);
        if (!rb) return std::nullopt;
        if (rb->size() != base.size()) throw std::invalid_argument("differenceJacobian: the residuals changed in number");
        // The forward point is base + step·column; the secant joins it to the far point.
        for (std::size_t i = 0; i < base.size(); ++i) out.jac[k][i] = (base[i] + step[k] * out.jac[k][i] - (*rb)[i]) / (step[k] - back);
        out.runs.push_back({std::move(uk), std::move(*rb)});
    }
    return out;
}

namespace {
double medianOf(std::vector<double> v) {
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}
}  // namespace

double quantisationNoise(std::vector<double> values) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
    const std::size_t samples = values.size();
    std::sort(values.begin(), values.end());
    std::vector<double> gaps;
    for (std::size_t i = 1; i < values.size(); ++i) {
        const double d = values[i] - values[i - 1];
        if (d > 1e-9 * std::max(1.0, std::abs(values[i]))) gaps.push_back(d);  // a new distinct value
    }
    if (gaps.empty() || 2 * (gaps.size() + 1) > samples) return 0;  // one value, or hardly a repeat
    const double q = *std::min_element(gaps.begin(), gaps.end());
    for (double d : gaps)
        if (std::abs(d / q - std::round(d / q)) > 0.01) return 0;
    return q / std::sqrt(12.0);
}

std::vector<double> quantisationFloors(const std::vector<std::vector<double>>& series) {
    std::vector<double> out, known;
    std::vector<bool> constant;
    for (const auto& s : series) {
        out.push_back(quantisationNoise(s));
        if (out.back() > 0) known.push_back(out.back());
        std::size_t n = 0;
        double first = std::nan(""), spread = 0;
        for (double v : s) {
            if (std::isnan(v)) continue;
            if (n++ == 0) first = v;
            spread = std::max(spread, std::abs(v - first));
        }
        constant.push_back(n >= 3 && spread <= 1e-9 * std::max(1.0, std::abs(first)));
    }
    if (known.empty()) return out;
    const double median = medianOf(std::move(known));
    for (std::size_t i = 0; i < out.size(); ++i)
        if (constant[i]) out[i] = median;
    return out;
}

double stepSigma(const std::vector<double>& r) {
    if (r.size() < 3) return -1;
    std::vector<double> step(r.size() - 1);
    for (std::size_t t = 1; t < r.size(); ++t) step[t - 1] = std::abs(r[t] - r[t - 1]);
    // Normal noise of σ: a step between two samples is normal of σ√2, the median of its size 0.6745 σ√2.
    return medianOf(std::move(step)) / (0.6745 * std::sqrt(2.0));
}

double quantisedSigma(double floor, const std::vector<double>& simulated) {
    if (!(floor > 0)) return 0;
    const double s = std::max(0.0, stepSigma(simulated));
    return std::sqrt(2 * s * s + floor * floor);
}

std::vector<double> noiseWeights(const std::vector<std::vector<double>>& series, const std::vector<double>& given) {
    if (!given.empty() && given.size() != series.size()) throw std::invalid_argument("noiseWeights: one sigma per series");
    std::vector<double> sigma(series.size(), -1.0), known;
    for (std::size_t s = 0; s < series.size(); ++s) {
        if (series[s].size() < 3) continue;
        sigma[s] = !given.empty() && given[s] > 0 ? given[s] : stepSigma(series[s]);
        known.push_back(sigma[s]);
    }
    std::vector<double> w(series.size(), 1.0);
    if (known.empty()) return w;
    const double median = medianOf(std::move(known));
    if (!(median > 0)) return w;
    for (std::size_t s = 0; s < series.size(); ++s)
        if (sigma[s] >= 0) w[s] = median / std::max(sigma[s], 0.1 * median);
    return w;
}

LeastSquaresResult levenbergMarquardt(const LeastSquaresProblem& p, std::vector<double> u0, std::vector<double> r0) {
    if (u0.size() != p.n) throw std::invalid_argument("levenbergMarquardt: the start has the wrong number of parameters");
    LeastSquaresResult out;
    out.u = std::move(u0);
    std::vector<double> r = std::move(r0);
    out.sse = dot(r, r);
    std::vector<bool> exact = p.exact;
    exact.resize(p.n, false);
    const int per_jacobian = static_cast<int>(std::count(exact.begin(), exact.end(), false));
    // A fresh Jacobian; when one of its runs beat the current point, the search goes on from there (the
    // Jacobian a little off there, as Broyden's updates leave it anyway).
    auto newJacobian = [&](Jacobian& jac) {
        int runs = 0;
        std::vector<Evaluation> seen;
        auto j = p.jacobian(out.u, r, runs, seen);
        out.runs += runs;
        if (!j) return false;
        if (j->size() != p.n) throw std::invalid_argument("levenbergMarquardt: a Jacobian with the wrong number of columns");
        jac = std::move(*j);
        ++out.jacobians;
        // Variable projection: the exact parameters at their best for the point's residuals, here and at every
        // run the Jacobian took (each is judged at its own best, so a step that moves a parameter the exact
        // ones must follow is not refused for the exact ones lagging behind).
        out.sse = fitExact(jac, exact, out.u, r);
        Evaluation* best = nullptr;
        double best_sse = out.sse;
        for (auto& e : seen) {
            if (e.r.size() != r.size() || e.u.size() != p.n) continue;
            const double sse = fitExact(jac, exact, e.u, e.r);
            if (sse < best_sse) {
                best_sse = sse;
                best = &e;
            }
        }
        if (best) {
            out.u = std::move(best->u);
            r = std::move(best->r);
            out.sse = best_sse;
            ++out.moved;
        }
        return true;
    };
    Jacobian jac;
    if (!newJacobian(jac)) {
        out.cancelled = true;
        out.stop = "cancelled";
        return out;
    }
    double lambda = 1e-2;
    int rejected_in_a_row = 0;
    out.stop = "the most runs allowed";
    while (out.runs < p.max_runs) {
        const std::vector<double> d = boundedStep(jac, r, out.u, lambda);
        double moved = 0;
        for (double v : d) moved = std::max(moved, std::abs(v));
        if (moved < p.xtol) {
            out.stop = "the parameters stopped moving";
            break;
        }
        const double predicted = out.sse - linearSse(jac, r, d);
        std::vector<double> un(p.n);
        for (std::size_t j = 0; j < p.n; ++j) un[j] = std::clamp(out.u[j] + d[j], 0.0, 1.0);
        auto rn = p.residuals(un);
        ++out.runs;
        ++out.iterations;
        if (!rn) {
            out.cancelled = true;
            out.stop = "cancelled";
            break;
        }
        if (rn->size() != r.size()) throw std::invalid_argument("levenbergMarquardt: the residuals changed in number");
        // Broyden: the Jacobian's columns that are not exact made to explain the change just seen along d.
        double dd = 0;
        for (std::size_t j = 0; j < p.n; ++j)
            if (!exact[j]) dd += d[j] * d[j];
        if (dd > 0) {
            std::vector<double> y(r.size());
            for (std::size_t i = 0; i < r.size(); ++i) {
                double jd = 0;
                for (std::size_t j = 0; j < p.n; ++j) jd += jac[j][i] * d[j];
                y[i] = (*rn)[i] - r[i] - jd;
            }
            for (std::size_t j = 0; j < p.n; ++j)
                if (!exact[j])
                    for (std::size_t i = 0; i < r.size(); ++i) jac[j][i] += y[i] * d[j] / dd;
        }
        const double sse = fitExact(jac, exact, un, *rn);  // the run judged with its exact parameters at their best
        const bool accepted = sse < out.sse;
        if (accepted) {
            const double gain = (out.sse - sse) / std::max(out.sse, 1e-300);
            const double rho = predicted > 0 ? (out.sse - sse) / predicted : 0;
            out.u = std::move(un);
            r = std::move(*rn);
            out.sse = sse;
            lambda = rho > 0.75 ? std::max(lambda / 3, 1e-7) : lambda;
            rejected_in_a_row = 0;
            if (gain < p.ftol_rel) {
                out.stop = "the error stopped improving";
                break;
            }
        } else {
            ++out.rejected;
            lambda *= 4;
            // Twice wrong: the Jacobian no longer describes the model here; a fresh one if the runs allow.
            if (++rejected_in_a_row >= 2 && out.runs + per_jacobian < p.max_runs) {
                if (!newJacobian(jac)) {
                    out.cancelled = true;
                    out.stop = "cancelled";
                    break;
                }
                rejected_in_a_row = 0;
                lambda = 1e-2;
            }
        }
    }
    return out;
}

}  // namespace ct::session
