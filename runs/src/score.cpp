// Error statistics of simulated against measured series (definitions in score.hpp).
#include <clustertwin/runs/score.hpp>

#include <algorithm>
#include <cmath>

namespace ct::runs {

void ErrorAccumulator::add(double measured, double simulated) {
    const double e = simulated - measured;
    ++n_;
    sum_e_ += e;
    sum_e2_ += e * e;
    sum_abs_ += std::fabs(e);
    max_abs_ = std::max(max_abs_, std::fabs(e));
    sum_y_ += measured;
}

void ErrorAccumulator::add(const ErrorAccumulator& o) {
    n_ += o.n_;
    sum_e_ += o.sum_e_;
    sum_e2_ += o.sum_e2_;
    sum_abs_ += o.sum_abs_;
    max_abs_ = std::max(max_abs_, o.max_abs_);
    sum_y_ += o.sum_y_;
}

ErrorStats ErrorAccumulator::stats(int p) const {
    ErrorStats s;
    s.n = n_;
    if (n_ == 0) return s;
    const double n = static_cast<double>(n_);
    s.rmse = std::sqrt(sum_e2_ / n);
    s.mae = sum_abs_ / n;
    s.bias = sum_e_ / n;
    s.max_abs = max_abs_;
    s.measured_mean = sum_y_ / n;
    const double dof = n - p;
    if (dof > 0 && s.measured_mean != 0) {
        s.cv_rmse_pct = 100.0 * std::sqrt(sum_e2_ / dof) / s.measured_mean;
        s.nmbe_pct = 100.0 * (-sum_e_) / (dof * s.measured_mean);  // Σ(y − ŷ): measured minus simulated
    }
    return s;
}

double interpolateAt(const Points& series, double t_s) {
    if (series.empty() || !(t_s >= series.front().first) || !(t_s <= series.back().first)) return std::nan("");
    auto hi = std::lower_bound(series.begin(), series.end(), t_s, [](const auto& p, double t) { return p.first < t; });
    if (hi->first == t_s || hi == series.begin()) return hi->second;
    const auto lo = std::prev(hi);
    const double w = (t_s - lo->first) / (hi->first - lo->first);
    return lo->second + w * (hi->second - lo->second);
}

std::size_t pairSeries(const Points& measured, const Points& simulated, ErrorAccumulator& acc, double from_s, double to_s) {
    std::size_t added = 0;
    for (const auto& [t, y] : measured) {
        if (t < from_s || t > to_s || std::isnan(y)) continue;
        const double yhat = interpolateAt(simulated, t);
        if (std::isnan(yhat)) continue;
        acc.add(y, yhat);
        ++added;
    }
    return added;
}

}  // namespace ct::runs
