#pragma once
// What a hall measured, beside a simulated run in the app (issue 44): the measured series that paired with the
// run's (session::scoreRun), keyed by scenario entity and the twin's metric, on the run's clock (seconds from
// its t = 0, the run's own time base). The Charts dock draws them dotted beside the simulated curves; the 3D
// view and the floor plan colour each node by its inlet's residual, simulated − measured.
#include <clustertwin/runs/score.hpp>

#include <cmath>
#include <map>
#include <string>
#include <utility>

namespace ct::app {

struct MeasuredOverlay {
    std::string label;  ///< where the measurements came from ("hall.sqlite, run 2")
    std::map<std::pair<std::string, std::string>, runs::Points> series;

    const runs::Points* find(const std::string& entity, const std::string& metric) const {
        const auto it = series.find({entity, metric});
        return it == series.end() ? nullptr : &it->second;
    }
    /// The measured value at t_s on the run's clock, linear between the samples around it; NaN outside the
    /// series' span or where there is none.
    double at(const std::string& entity, const std::string& metric, double t_s) const {
        const auto* p = find(entity, metric);
        return p ? runs::interpolateAt(*p, t_s) : std::nan("");
    }
};

}  // namespace ct::app
