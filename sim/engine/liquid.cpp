// Liquid cooling (models.md §4): each CDU's load from its racks' liquid heat, shared over the live CDUs, and the
// supply and return temperatures of its secondary loop.
#include "engine/passes.hpp"

namespace ct::sim::detail {

namespace u = model::units;

void liquid(Site& s, Alerts& alerts) {
    std::vector<int> live_cdus_of_rack(s.racks.size(), 0);
    for (std::size_t ri = 0; ri < s.racks.size(); ++ri)
        for (int c : s.racks[ri].cdus) live_cdus_of_rack[ri] += s.cdus[c].failed ? 0 : 1;
    for (auto& c : s.cdus) c.load_w = 0;
    for (std::size_t ri = 0; ri < s.racks.size(); ++ri) {
        const double q = s.racks[ri].heat_liquid_w;  // its nodes' sum (rackAirflow())
        if (live_cdus_of_rack[ri] == 0) continue;
        for (int c : s.racks[ri].cdus)
            if (!s.cdus[c].failed) s.cdus[c].load_w += q / live_cdus_of_rack[ri];
    }
    for (auto& c : s.cdus) {
        const double mdot = u::lpmToM3s(c.model->coolant_flow_lpm) * u::kWaterDensityKgM3;
        if (c.failed) {
            c.load_w = 0;
            c.supply_c = c.return_c = c.setpoint_c;
            c.over_capacity = false;
            continue;
        }
        // Beyond capacity the excess warms the secondary supply.
        c.over_capacity = c.load_w > c.model->capacity_w;
        c.supply_c = c.setpoint_c + (c.over_capacity ? (c.load_w - c.model->capacity_w) / (mdot * u::kWaterCpJPerKgK) : 0.0);
        c.return_c = c.supply_c + c.load_w / (mdot * u::kWaterCpJPerKgK);
        alerts.set("cooling_short", c.cdu->id, "CDU " + c.cdu->id + " carries more than its capacity", c.over_capacity);
    }
}

}  // namespace ct::sim::detail
