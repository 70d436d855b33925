#pragma once
// Steady state for planners: a hall is steady when no rack's inlet drifts by more than a tolerance over one
// flow-through time of its air (fluid volume / air blown in). Resolved turbulence makes the inlets of a lattice
// run flicker for ever (window means of the 32-rack slab hall scatter by ~0.3 K), so "steady" is statistical:
// each rack's mean inlet over consecutive flow-through windows; the start-up transient cut off where the Marginal
// Standard Error Rule puts it (White 1997; at most the first half); a straight line fitted to the rest, and the
// drift per window bounded at 95 % (|slope| + t·standard error). A smooth approach settles as soon as its slope is
// small, a flickering one once enough windows average the flicker out. The answer is each rack's mean over the
// windows kept. Feed it every frame of a run.
#include <clustertwin/model/frame.hpp>

#include <deque>
#include <vector>

namespace ct::sim {

class SteadyDetector {
public:
    /// `flow_through_s`: the window; `tolerance_k`: the largest drift of a rack's inlet per window allowed.
    SteadyDetector(double flow_through_s, double tolerance_k = 0.05);
    /// Takes a frame (in time order); true once, over the windows after the transient (at least four), every
    /// rack's inlet drifts by less than the tolerance per window (95 % bound).
    bool update(const model::Frame& f);
    bool steady() const { return steady_; }
    /// The bound on the drift per window (K) over the windows tested last; infinite before four have passed.
    double lastChangeK() const { return last_change_; }
    double windowS() const { return window_; }
    /// The averaging period behind steadyInlets() (seconds; whole windows).
    double averagingS() const { return static_cast<double>(avg_windows_) * window_; }
    /// Each rack's mean inlet (°C, frame order) over the averaging period: the steady answer once steady().
    const std::vector<double>& steadyInlets() const { return steady_inlets_; }

    /// The most windows kept (older ones are forgotten): 256, over an hour on most halls.
    static constexpr int kMaxWindows = 256;

private:
    void test();

    double window_, tol_;
    double last_change_;
    bool steady_ = false;
    double window_start_ = -1, last_t_ = 0;
    std::vector<double> sum_;                // time-weighted inlet sums of this window
    std::deque<std::vector<double>> means_;  // window means, oldest first
    int avg_windows_ = 0;
    std::vector<double> steady_inlets_;
};

}  // namespace ct::sim
