#pragma once
// What the floor plan colours each rack with (issue 19): the 3D view's metric, reduced to one value per rack.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include <map>
#include <set>
#include <string>

namespace ct::app {

struct PlanValues {
    std::map<std::string, double> rack;  ///< rack id -> value (NaN: no data)
    std::set<std::string> failed_units;  ///< cooling units failed in the frame
    std::string label;                   ///< "Rack inlet, hottest intake (°C)"
    double lo = 0, hi = 1;               ///< colour range
    bool high_is_good = false;           ///< red at the low end (clocks, Capture Index)
    int decimals = 1;
    /// An air inlet temperature: the legend marks ASHRAE's recommended range (18–27 °C) and class A1's
    /// allowable one (15–32 °C) on its colour bar (Thermal Guidelines for Data Processing Environments, 5th ed.).
    bool ashrae = false;
};

/// One value per rack for `metric` (a render::metrics() id): rack metrics as recorded; node metrics reduced
/// over the rack's nodes as a planner reads them (hottest GPU, summed power, mean utilization, lowest
/// clocks, largest change); the inlet is the rack's hottest intake (RackFrame::inlet_max_c, what the inspector,
/// the alerts and the report read); nameplate from the scenario (no frame needed: pass nullptr). The range is the
/// metric's, or the values' own when the metric has none (power).
PlanValues planValues(const model::Scenario& s, const model::Catalog& c, const model::Frame* f, const std::string& metric);

}  // namespace ct::app
