#pragma once
// Steady state for planners: a hall is steady when no rack's inlet moved by more than a tolerance over one
// flow-through time of its air (fluid volume / air blown in). Resolved turbulence makes instantaneous inlets
// flicker, so what must hold still is each rack's mean inlet over consecutive flow-through windows. Feed it
// every frame of a run.
#include <clustertwin/model/frame.hpp>

#include <vector>

namespace ct::sim {

class SteadyDetector {
public:
    /// `flow_through_s`: the window; `tolerance_k`: the largest change of a window's mean inlet allowed.
    SteadyDetector(double flow_through_s, double tolerance_k = 0.05);
    /// Takes a frame (in time order); true once every rack's mean inlet over the last window is within the
    /// tolerance of its mean over the window before.
    bool update(const model::Frame& f);
    bool steady() const { return steady_; }
    /// The largest change between the last two windows (K); infinite before two windows have passed.
    double lastChangeK() const { return last_change_; }
    double windowS() const { return window_; }

private:
    double window_, tol_;
    double last_change_;
    bool steady_ = false;
    double window_start_ = -1, last_t_ = 0;
    std::vector<double> sum_, previous_;  // time-weighted inlet sums of this window; the last window's means
};

} // namespace ct::sim
