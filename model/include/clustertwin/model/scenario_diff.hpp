#pragma once
// What differs between two versions of a scenario, as a planner reads it (issue 40: two runs of two versions
// compared — before and after a layout change — say what changed in the layout).
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::model {

/// One line per kind of change, layout first: racks, servers, cooling, power, the network, jobs and events
/// ("racks added (2): r05-01, r05-02", "r01-03 moved 0.6 m", "crah-02: supply setpoint 20.0 → 18.0 °C"). Empty
/// when the two are the same in everything the lines cover (names and descriptions are not changes).
std::vector<std::string> scenarioChanges(const Scenario& before, const Scenario& after);

}  // namespace ct::model
