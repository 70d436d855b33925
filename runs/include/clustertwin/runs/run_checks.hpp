#pragma once
// Is a recorded run's answer inside what the model represents (issue 16, "results explained")? The app shows
// these findings in a banner above the 3D view and `simulate` prints them as warnings.
#include <string>
#include <vector>

namespace ct::runs {
class RunReplay;

struct RunFinding {
    enum class Level { Warning, Error };
    Level level = Level::Warning;
    std::string text;    ///< one or two sentences, with the likely cause
    double t_s = 0;      ///< from the run's start: where to look
    std::string entity;  ///< what to look at ("" for the whole site)
};

/// Checks a simulated run: inlets past where IT equipment shuts down (the engine's physics_range alerts), and
/// a heat imbalance above 5 % once the run is steady (the hottest inlet moved less than 0.3 K over the last
/// tenth of the run, at least 5 minutes). Imported telemetry is what was measured and is not checked.
std::vector<RunFinding> checkRun(const RunReplay& run);

/// Heat into the air and heat removed differing by more than this share at steady state is a finding.
inline constexpr double kHeatImbalanceLimit = 0.05;

}  // namespace ct::runs
