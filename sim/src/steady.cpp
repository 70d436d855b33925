#include <clustertwin/sim/steady.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ct::sim {

namespace {

/// Student's t at 97.5 % for `dof` degrees of freedom (Cornish–Fisher expansion about z = 1.96; within 10 % at
/// 2 degrees of freedom, within 1 % from 5).
double tQuantile(int dof) {
    const double z = 1.959964, v = dof;
    return z + (z * z * z + z) / (4 * v) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * v * v);
}

}  // namespace

SteadyDetector::SteadyDetector(double flow_through_s, double tolerance_k)
    : window_(std::max(flow_through_s, 1e-9)), tol_(tolerance_k), last_change_(std::numeric_limits<double>::infinity()) {}

bool SteadyDetector::update(const model::Frame& f) {
    if (window_start_ < 0 || sum_.size() != f.racks.size()) {  // the first frame opens the first window
        window_start_ = last_t_ = f.time_s;
        sum_.assign(f.racks.size(), 0.0);
        means_.clear();
        return steady_;
    }
    const double dt = f.time_s - last_t_;
    last_t_ = f.time_s;
    for (std::size_t i = 0; i < f.racks.size(); ++i) sum_[i] += f.racks[i].inlet_mean_c * dt;
    const double span = f.time_s - window_start_;
    if (span + 1e-9 < window_) return steady_;
    std::vector<double> mean(sum_.size());
    for (std::size_t i = 0; i < sum_.size(); ++i) mean[i] = sum_[i] / span;
    means_.push_back(std::move(mean));
    if (means_.size() > static_cast<std::size_t>(kMaxWindows)) means_.pop_front();
    std::fill(sum_.begin(), sum_.end(), 0.0);
    window_start_ = f.time_s;
    test();
    return steady_;
}

void SteadyDetector::test() {
    const int total = static_cast<int>(means_.size());
    if (total < 4) return;
    const std::size_t racks = means_.back().size();
    // The start-up transient is cut where the Marginal Standard Error Rule (White 1997) puts it: the first d
    // windows that minimise the scatter of the rest over (K − d)², summed over the racks, d within the first half.
    std::vector<double> s1(racks, 0.0), s2(racks, 0.0);
    double best_mser = std::numeric_limits<double>::infinity();
    int cut = 0;
    for (int d = total - 1; d >= 0; --d) {
        double ss = 0;
        const int m = total - d;
        for (std::size_t r = 0; r < racks; ++r) {
            const double x = means_[static_cast<std::size_t>(d)][r] - means_.back()[r];
            s1[r] += x;
            s2[r] += x * x;
            ss += s2[r] - s1[r] * s1[r] / m;
        }
        const double mser = ss / (static_cast<double>(m) * m);
        if (m >= 4 && 2 * d <= total && mser <= best_mser) {
            best_mser = mser;
            cut = d;
        }
    }
    // A straight line through the remaining n window means of each rack, x = 0..n-1; the drift bound is
    // |slope| + t·SE(slope) with SE from the scatter about the line.
    const int n = total - cut;
    const double sxx = n * (static_cast<double>(n) * n - 1) / 12.0, xbar = (n - 1) / 2.0;
    const double t = tQuantile(n - 2);
    double worst = 0;
    for (std::size_t r = 0; r < racks; ++r) {
        const double ref = means_.back()[r];
        double sm = 0, sxm = 0;
        for (int x = 0; x < n; ++x) {
            const double m = means_[static_cast<std::size_t>(cut) + static_cast<std::size_t>(x)][r] - ref;
            sm += m;
            sxm += (x - xbar) * m;
        }
        const double slope = sxm / sxx, mbar = sm / n;
        double ss = 0;
        for (int x = 0; x < n; ++x) {
            const double e = means_[static_cast<std::size_t>(cut) + static_cast<std::size_t>(x)][r] - ref - mbar - slope * (x - xbar);
            ss += e * e;
        }
        worst = std::max(worst, std::fabs(slope) + t * std::sqrt(ss / (n - 2) / sxx));
    }
    last_change_ = worst;
    if (!(worst < tol_)) return;
    steady_ = true;
    avg_windows_ = n;
    steady_inlets_.assign(racks, 0.0);
    for (int x = cut; x < total; ++x)
        for (std::size_t r = 0; r < racks; ++r) steady_inlets_[r] += means_[static_cast<std::size_t>(x)][r] / n;
}

}  // namespace ct::sim
