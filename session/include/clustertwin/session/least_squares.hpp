#pragma once
// Least squares for expensive models (calibrate.hpp's default method): a bounded Levenberg–Marquardt on the
// residual vector — every scored sample of every series, not only their sum — whose Jacobian comes from finite
// differences once (on a cheaper model when there is one) and is then kept up to date by Broyden's rank-one
// update from each new run, so that each iteration costs one run of the expensive model. The derivative-free
// Gauss–Newton of Cartis & Roberts ("A derivative-free Gauss–Newton method", Mathematical Programming
// Computation 11, 2019) builds its linear models the same way; Broyden's update: C. G. Broyden, "A class of
// methods for solving nonlinear simultaneous equations", Mathematics of Computation 19, 1965.
//
// A problem whose residuals vanish at the solution (a twin experiment, up to its noise) converges in a few
// iterations even from a Jacobian that is only roughly right, as Gauss–Newton with an approximate Jacobian does.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ct::session {

/// Column-major: jac[j] is the residuals' derivative by parameter j.
using Jacobian = std::vector<std::vector<double>>;

struct LeastSquaresProblem {
    std::size_t n = 0;  ///< parameters, each scaled to [0, 1]
    /// The residuals at u (one run of the expensive model); nullopt when cancelled. Their count never changes.
    std::function<std::optional<std::vector<double>>(const std::vector<double>& u)> residuals;
    /// A Jacobian at u, where the residuals are r (finite differences, exact columns where known); nullopt when
    /// cancelled. `runs` is set to the expensive runs it took (0 on a cheaper model).
    std::function<std::optional<Jacobian>(const std::vector<double>& u, const std::vector<double>& r, int& runs)> jacobian;
    /// Columns that are exact (a parameter the residuals depend on linearly, known in closed form): Broyden's
    /// update leaves them alone.
    std::vector<bool> exact;
    int max_runs = 20;       ///< runs of the expensive model, the start's not counted
    double xtol = 1e-3;      ///< stop when no parameter moves more than this (of its range)
    double ftol_rel = 1e-3;  ///< stop when an accepted step lowers the sum of squares by less than this share
};

struct LeastSquaresResult {
    std::vector<double> u;  ///< the best parameters seen
    double sse = 0;         ///< their sum of squared residuals
    int runs = 0;           ///< expensive runs (the start's not counted), the Jacobians' among them
    int iterations = 0, rejected = 0, jacobians = 0;
    std::string stop;
    bool cancelled = false;
};

/// From u0, whose residuals are r0. The bounds are kept by fixing a parameter at the bound its step would cross
/// and solving again for the others.
LeastSquaresResult levenbergMarquardt(const LeastSquaresProblem& p, std::vector<double> u0, std::vector<double> r0);

/// The step of the linearised problem min |r + J d|² + λ Σ (JᵀJ)ᵢᵢ dᵢ² with u + d inside [0, 1] (exposed for tests).
std::vector<double> boundedStep(const Jacobian& jac, const std::vector<double>& r, const std::vector<double>& u, double lambda);

}  // namespace ct::session
