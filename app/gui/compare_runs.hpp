#pragma once
// Baseline against what-if (issue 19): per-rack differences at a time and a summary over the runs, read from
// two replays with times counted from each run's start. No Qt.
#include <cstddef>
#include <string>
#include <vector>

namespace ct::runs {
class RunReplay;
}

namespace ct::app {

struct RackDiff {
    std::string rack;
    double base_inlet_c = 0, what_inlet_c = 0;  ///< hottest level (NaN when not recorded)
    double delta_k = 0;                         ///< what-if − baseline
    double base_power_kw = 0, what_power_kw = 0;
    int alerts = 0;  ///< the what-if's alerts on the rack (and its nodes) up to the time
};

/// Every rack recorded in the what-if at `t_s` from the start, largest rise first.
std::vector<RackDiff> rackDiffs(const runs::RunReplay& base, const runs::RunReplay& what, double t_s);

struct CompareSummary {
    double largest_rise_k = 0;  ///< the largest rack inlet rise over the runs (what-if − baseline)
    std::string largest_rack;
    double largest_at_s = 0;  ///< when, from the start
    std::size_t racks = 0;
    std::size_t over_base = 0, over_what = 0;               ///< racks above the limit at the end
    double first_over_base_s = -1, first_over_what_s = -1;  ///< first time any rack crosses the limit (−1: never)
    std::string first_over_rack;                            ///< which, in the what-if
    double limit_c = 27;
};

/// Over the what-if's recorded times.
CompareSummary compareRuns(const runs::RunReplay& base, const runs::RunReplay& what, double limit_c = 27);

}  // namespace ct::app
