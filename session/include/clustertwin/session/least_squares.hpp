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

/// A run of the model: the parameters (scaled to [0, 1]) and its residuals.
struct Evaluation {
    std::vector<double> u, r;
};

struct LeastSquaresProblem {
    std::size_t n = 0;  ///< parameters, each scaled to [0, 1]
    /// The residuals at u (one run of the expensive model); nullopt when cancelled. Their count never changes.
    std::function<std::optional<std::vector<double>>(const std::vector<double>& u)> residuals;
    /// A Jacobian at u, where the residuals are r (finite differences, exact columns where known); nullopt when
    /// cancelled. `runs` is set to the expensive runs it took (0 on a cheaper model), and `seen` to those runs'
    /// points and residuals: the search moves to the best of them when it beats u.
    std::function<std::optional<Jacobian>(const std::vector<double>& u, const std::vector<double>& r, int& runs,
                                          std::vector<Evaluation>& seen)>
        jacobian;
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
    int moved = 0;  ///< Jacobians one of whose own runs beat the point they were taken at: the search went on from the best
    std::string stop;
    bool cancelled = false;
};

/// A Jacobian by differences (calibrate's, exposed for tests): forward differences of a tenth of each range
/// towards the inside of the box, and where that step did next to nothing — its residuals moved, or their sum of
/// squares changed, by less than a fifth of what the most effective parameter's did — a secant from there to a
/// quarter of the range the other way. A model can be flat on one side of a kink (a cooling unit's airflow
/// scale does nothing while its rating exceeds what its airflow rule asks of it, and matters once it is below),
/// and a difference taken on the flat side alone would never move that parameter; chaotic noise (a lattice's
/// eddies, realised anew by each run) moves every residual a little and hides such a parameter from the first
/// test, not from the second.
struct DifferenceProblem {
    /// The residuals at u (one run); nullopt when cancelled.
    std::function<std::optional<std::vector<double>>(const std::vector<double>& u)> run;
    std::vector<bool> exact;                                       ///< parameters whose column is known in closed form
    std::function<std::vector<double>(std::size_t)> exact_column;  ///< that column
    bool secant_always = false;  ///< a secant for every parameter (a cheap model whose noise hides small effects)
};
struct DifferenceJacobian {
    Jacobian jac;
    std::vector<Evaluation> runs;  ///< every run it took
};
std::optional<DifferenceJacobian> differenceJacobian(const DifferenceProblem& p, const std::vector<double>& u,
                                                     const std::vector<double>& base);

/// Weights for residuals that come in series of unequal noise (generalised least squares, A. C. Aitken, "On least
/// squares and linear combination of observations", Proc. Royal Society of Edinburgh 55, 1935): each series'
/// noise σ estimated from its successive differences — what changes from one sample to the next is noise, what a
/// parameter does to a series changes slowly — as their median size over 0.6745·√2 (normal noise of σ makes
/// steps of σ√2; the median, unlike their mean square, is not carried off by the few steps of a load change the
/// model follows late), and its weight the median series' σ over its own, so a median series keeps weight 1.
/// A σ under a tenth of the median counts as a tenth (no series near a constant outweighs the rest), and a
/// series of fewer than 3 samples has weight 1. `sigma` (one per series, or empty): where > 0, the series' σ as
/// known otherwise, used instead of its steps — a quantised series' (quantisedSigma): a sensor that reads whole
/// degrees mostly repeats its last reading, or flips between two near a half degree, so its steps say nothing
/// of its error.
std::vector<double> noiseWeights(const std::vector<std::vector<double>>& series, const std::vector<double>& sigma = {});

/// What noiseWeights takes a series' σ from: the median size of its successive differences over 0.6745·√2; -1
/// for fewer than 3 values.
double stepSigma(const std::vector<double>& series);

/// The σ of a quantised series' residuals: its readings' rounding, q/√12 (`floor`, quantisationFloors), and the
/// eddies of the room twice (the measured ones and the simulated ones, alike by the twin's premise), told by the
/// steps of the simulated series at the measured times: √(2·stepSigma(simulated)² + floor²). 0 where floor is 0.
double quantisedSigma(double floor, const std::vector<double>& simulated);

/// The noise of a series' resolution: q/√12 (a reading rounded to a step of q errs uniformly within ±q/2) when its
/// values are quantised — at most half as many distinct values as samples, every gap between neighbouring distinct
/// values a whole multiple of the least, q, within 1 % — else 0 (a measured series of 1 °C steps: 0.289 K). NaNs
/// are skipped.
double quantisationNoise(std::vector<double> values);

/// quantisationNoise of each series, and for a series of at least 3 samples that never changed (one value: no
/// step to tell its resolution by) the median of the quantised series' noise — a sensor that read the same whole
/// degree for hours is the coarsest of all, not the quietest — or 0 when no series is quantised.
std::vector<double> quantisationFloors(const std::vector<std::vector<double>>& series);

/// Moves the parameters whose columns are exact (the residuals linear in them: a sensor's offset) to their best
/// for the residuals r at u, within [0, 1], and r with them; returns the new sum of squares. Variable projection
/// (G. H. Golub and V. Pereyra, "The differentiation of pseudo-inverses and nonlinear least squares problems
/// whose variables separate", SIAM J. Numer. Anal. 10, 1973): the search then judges every run at the exact
/// parameters' best rather than where the step left them.
double fitExact(const Jacobian& jac, const std::vector<bool>& exact, std::vector<double>& u, std::vector<double>& r);

/// From u0, whose residuals are r0. The bounds are kept by fixing a parameter at the bound its step would cross
/// and solving again for the others. Every point, once a Jacobian gives the exact columns, is judged with its
/// exact parameters at their best (fitExact): the start, each run the Jacobians take and each step's run; the
/// result's u carries them.
LeastSquaresResult levenbergMarquardt(const LeastSquaresProblem& p, std::vector<double> u0, std::vector<double> r0);

/// The step of the linearised problem min |r + J d|² + λ Σ (JᵀJ)ᵢᵢ dᵢ² with u + d inside [0, 1] (exposed for tests).
std::vector<double> boundedStep(const Jacobian& jac, const std::vector<double>& r, const std::vector<double>& u, double lambda);

}  // namespace ct::session
