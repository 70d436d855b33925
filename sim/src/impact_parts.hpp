#pragma once
// Parts of the impact analysis in their own files. Private to ct_sim.
#include <clustertwin/sim/impact.hpp>

namespace ct::sim::detail {

/// Air cooling lost when `id` (a cooling unit, in-row cooler or water loop) fails: the hall's cooling falls into
/// groups (the perimeter units and the racks they serve; the in-row coolers of each containment and its racks),
/// each checked against its racks' nameplate air heat less what their working rear doors take. Fills
/// air_capacity_left_w, air_heat_w, racks_cooling_short and notes. Does nothing for other ids.
void airCoolingImpact(const model::Scenario& s, const model::Catalog& c, const std::string& id, ImpactReport& r);

}  // namespace ct::sim::detail
