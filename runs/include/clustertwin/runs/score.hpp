#pragma once
// How far a simulated series is from a measured one (issue 44): the error statistics of every measured sample
// against the simulation at that time, the calibration ones as ASHRAE Guideline 14 (2014) defines them. The
// pairing of a run's series with a measured database's (the score command) builds on these.
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace ct::runs {

/// A series: (time in s, value), ascending time.
using Points = std::vector<std::pair<double, double>>;

/// Error statistics of n pairs (measured yᵢ, simulated ŷᵢ), the error eᵢ = ŷᵢ − yᵢ (positive: the model reads
/// high). CV(RMSE) and NMBE are ASHRAE Guideline 14's, with its sign (measured minus simulated) and its n − p
/// degrees of freedom, in % of the measured mean; they are NaN where that mean is 0, and mean little for a
/// quantity whose zero is arbitrary (°C): read RMSE, MAE and bias (in the metric's unit) there.
struct ErrorStats {
    std::size_t n = 0;
    double rmse = std::numeric_limits<double>::quiet_NaN();
    double mae = std::numeric_limits<double>::quiet_NaN();
    double bias = std::numeric_limits<double>::quiet_NaN();     ///< mean of ŷ − y
    double max_abs = std::numeric_limits<double>::quiet_NaN();  ///< largest |ŷ − y|
    double measured_mean = std::numeric_limits<double>::quiet_NaN();
    double cv_rmse_pct = std::numeric_limits<double>::quiet_NaN();  ///< 100·√(Σ(y − ŷ)²/(n − p)) / ȳ
    double nmbe_pct = std::numeric_limits<double>::quiet_NaN();     ///< 100·Σ(y − ŷ) / ((n − p)·ȳ)
};

/// Accumulates pairs and gives their statistics; several series (an entity kind, a time window, all) add up.
class ErrorAccumulator {
public:
    void add(double measured, double simulated);
    void add(const ErrorAccumulator& other);
    /// `p`: the parameters fitted, Guideline 14's p (1 by default: a calibrated simulation's own figure).
    ErrorStats stats(int p = 1) const;
    std::size_t count() const { return n_; }

private:
    std::size_t n_ = 0;
    double sum_e_ = 0, sum_e2_ = 0, sum_abs_ = 0, max_abs_ = 0, sum_y_ = 0;
};

/// Pairs every measured sample within [from_s, to_s] with the simulated series at its time, linearly
/// interpolated between the simulated samples around it (none outside the simulated series' span: those
/// samples are not scored, nor are NaN values), into `acc`. Returns how many pairs were added.
std::size_t pairSeries(const Points& measured, const Points& simulated, ErrorAccumulator& acc,
                       double from_s = -std::numeric_limits<double>::infinity(), double to_s = std::numeric_limits<double>::infinity());

/// The simulated series at t: linear between the samples around it; NaN outside its span or where a sample is NaN.
double interpolateAt(const Points& series, double t_s);

}  // namespace ct::runs
