#include <clustertwin/sim/steady.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ct::sim {

SteadyDetector::SteadyDetector(double flow_through_s, double tolerance_k)
    : window_(std::max(flow_through_s, 1e-9)), tol_(tolerance_k), last_change_(std::numeric_limits<double>::infinity()) {}

bool SteadyDetector::update(const model::Frame& f) {
    if (window_start_ < 0 || sum_.size() != f.racks.size()) {  // the first frame opens the first window
        window_start_ = last_t_ = f.time_s;
        sum_.assign(f.racks.size(), 0.0);
        previous_.clear();
        return steady_;
    }
    const double dt = f.time_s - last_t_;
    last_t_ = f.time_s;
    for (std::size_t i = 0; i < f.racks.size(); ++i) sum_[i] += f.racks[i].inlet_mean_c * dt;
    const double span = f.time_s - window_start_;
    if (span + 1e-9 < window_) return steady_;
    std::vector<double> mean(sum_.size());
    for (std::size_t i = 0; i < sum_.size(); ++i) mean[i] = sum_[i] / span;
    if (previous_.size() == mean.size()) {
        double change = 0;
        for (std::size_t i = 0; i < mean.size(); ++i) change = std::max(change, std::fabs(mean[i] - previous_[i]));
        last_change_ = change;
        steady_ = change < tol_;
    }
    previous_ = std::move(mean);
    std::fill(sum_.begin(), sum_.end(), 0.0);
    window_start_ = f.time_s;
    return steady_;
}

} // namespace ct::sim
