// Air cooling lost to a failed unit, in-row cooler or water loop: see impact_parts.hpp.
#include "impact_parts.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/containment.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace ct::sim::detail {

namespace {

std::string kw(double w) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f kW", w / 1000);
    return b;
}

struct Group {
    std::string name;
    double capacity = 0, capacity_left = 0, heat = 0;
    std::vector<std::string> racks;
    bool hit = false;  ///< loses something to the failure
};

}  // namespace

void airCoolingImpact(const model::Scenario& s, const model::Catalog& c, const std::string& id, ImpactReport& r) {
    bool loop = false;
    for (const auto& l : s.plant.loops) loop = loop || l.id == id;
    for (const auto& h : s.halls) {
        // Which group each rack and unit belongs to: in-row coolers to their row's containment (else to the hall's
        // in-row group), perimeter units to the perimeter group.
        std::map<std::string, std::string> row_group;
        for (const auto& ct : h.containments)
            for (const auto& row : ct.rows) row_group[row] = "containment " + ct.id;
        std::map<std::string, Group> groups;
        bool perimeter = false, any_hit = false;
        for (const auto& u : h.cooling_units) {
            const auto* m = c.coolingUnit(u.model);
            if (!m) continue;
            const bool inrow = m->kind == "in-row";
            perimeter = perimeter || !inrow;
            const std::string g = !inrow ? "perimeter units" : row_group.count(u.row) ? row_group[u.row] : "in-row coolers";
            Group& gr = groups[g];
            gr.name = g;
            gr.capacity += m->capacity_w;
            const bool lost = u.id == id || (loop && u.loop == id);
            if (!lost) gr.capacity_left += m->capacity_w;
            gr.hit = gr.hit || lost;
            any_hit = any_hit || lost;
        }
        for (const auto& row : h.rows)
            for (const auto& rack : row.racks) {
                double air = model::rackNameplatePowerW(rack, c) - model::rackLiquidPowerW(rack, c);
                if (rack.rear_door) {
                    const auto* d = c.rearDoor(rack.rear_door->model);
                    const bool lost = loop && rack.rear_door->loop == id;
                    if (d && !lost) air = std::max(0.0, air - d->max_capacity_w);
                    any_hit = any_hit || lost;
                    if (lost) {
                        // Its heat now goes to the room: whoever cools the room carries it.
                        r.notes.push_back("rack " + rack.id + " loses its rear door: " + kw(air) + " more heat to the room");
                    }
                }
                std::string g = row_group.count(row.id) && groups.count(row_group[row.id]) ? row_group[row.id] : "";
                if (g.empty()) g = perimeter || !groups.count("in-row coolers") ? "perimeter units" : "in-row coolers";
                Group& gr = groups[g];
                gr.name = g;
                gr.heat += air;
                if (air > 0) gr.racks.push_back(rack.id);
                if (rack.rear_door && loop && rack.rear_door->loop == id) gr.hit = true;
            }
        if (!any_hit) continue;
        for (const auto& [name, g] : groups) {
            if (!g.hit) continue;
            r.air_capacity_left_w += g.capacity_left;
            r.air_heat_w += g.heat;
            if (g.heat > g.capacity_left) {
                r.racks_cooling_short.insert(r.racks_cooling_short.end(), g.racks.begin(), g.racks.end());
                r.notes.push_back("the " + g.name + " of hall " + h.id + " keep " + kw(g.capacity_left) + " of cooling for " + kw(g.heat) +
                                  " of nameplate air heat: inlets of their racks will rise (simulate the failure to see where first)");
            } else {
                r.notes.push_back("the " + g.name + " of hall " + h.id + " still carry their racks: " + kw(g.capacity_left) + " for " +
                                  kw(g.heat) + " of nameplate air heat");
            }
        }
    }
}

}  // namespace ct::sim::detail
