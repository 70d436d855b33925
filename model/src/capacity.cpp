// Capacity headroom and rack placement (capacity.hpp).
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/capacity.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace ct::model {

namespace {

/// Hall air cooling at N+1: the units' capacity less the largest, against the heat its racks give the air.
Headroom hallCooling(const Hall& h, const Catalog& c) {
    Headroom r{h.id, "hall", "cooling", 0, 0, "W", "air cooling with the largest unit out (N+1) against the racks' nameplate heat to air"};
    double largest = 0;
    for (const auto& u : h.cooling_units)
        if (const auto* m = c.coolingUnit(u.model)) {
            r.capacity += m->capacity_w;
            largest = std::max(largest, m->capacity_w);
        }
    r.capacity -= largest;
    for (const auto& row : h.rows)
        for (const auto& rack : row.racks) r.used += rackNameplatePowerW(rack, c) - rackLiquidPowerW(rack, c);
    return r;
}

void rackHeadroom(const Rack& rack, const Catalog& c, std::vector<Headroom>& out, Headroom& row_space, Headroom& row_power) {
    if (const RackModel* rm = c.rack(rack.model)) {
        Headroom sp{rack.id, "rack", "space", static_cast<double>(rm->height_u), 0, "U", "rack units occupied"};
        for (const auto& n : rack.nodes)
            if (const auto* sm = c.server(n.model)) sp.used += static_cast<double>(sm->height_u) / std::max(1, sm->slot_count);
        sp.used = std::ceil(sp.used - 1e-9);
        out.push_back(sp);
        row_space.capacity += sp.capacity;
        row_space.used += sp.used;
    }
    std::map<std::string, double> side;  // 80 % of each side's breakers
    for (const auto& p : rack.pdus) side[p.feed] += units::kContinuousLoadFraction * p.ratedPowerW();
    if (side.empty()) return;
    auto weakest = std::min_element(side.begin(), side.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    Headroom pw{rack.id,
                "rack",
                "power",
                weakest->second,
                rackNameplatePowerW(rack, c),
                "W",
                side.size() > 1 ? "80 % of the " + weakest->first + "-side breakers, carrying the whole rack when the other side fails"
                                : "80 % of its breakers (one side: no redundancy)"};
    out.push_back(pw);
    row_power.capacity += pw.capacity;
    row_power.used += pw.used;
}

}  // namespace

std::vector<Headroom> capacityHeadroom(const Scenario& s, const Catalog& c) {
    std::vector<Headroom> out;
    for (const auto& h : s.halls) {
        for (const auto& row : h.rows) {
            Headroom space{row.id, "row", "space", 0, 0, "U", "its racks' units"};
            Headroom power{row.id, "row", "power", 0, 0, "W", "its racks' breakers at 80 %, each side carrying its racks"};
            for (const auto& rack : row.racks) rackHeadroom(rack, c, out, space, power);
            if (space.capacity > 0) out.push_back(space);
            if (power.capacity > 0) out.push_back(power);
        }
        const Headroom cool = hallCooling(h, c);
        if (cool.capacity > 0 || cool.used > 0) out.push_back(cool);
    }
    const ChainLoad l = chainLoads(s, c).failover;
    const std::string basis = "its capacity against its load with the other side failed";
    for (const auto& p : s.power.pdus)
        if (p.capacity_w > 0) out.push_back({p.id, "floor_pdu", "power", p.capacity_w, l.pdu.count(p.id) ? l.pdu.at(p.id) : 0, "W", basis});
    for (const auto& u : s.power.ups)
        if (const auto* m = c.upsModel(u.model); m && m->capacity_w > 0)
            out.push_back({u.id, "ups", "power", m->capacity_w * u.modules, l.ups.count(u.id) ? l.ups.at(u.id) : 0, "W", basis});
    for (const auto& f : s.power.feeds)
        if (f.capacity_w > 0) out.push_back({f.id, "feed", "power", f.capacity_w, l.feed.count(f.id) ? l.feed.at(f.id) : 0, "W", basis});
    return out;
}

namespace {

/// The least power headroom on the chain (floor PDUs, UPSs, feeds) and the hall's air cooling left at N+1.
void leftAfter(const Scenario& s, const Catalog& c, const std::string& hall_id, Placement& p) {
    p.power_left_w = 1e300;
    p.cooling_left_w = 0;
    for (const Headroom& h : capacityHeadroom(s, c)) {
        if ((h.kind == "floor_pdu" || h.kind == "ups" || h.kind == "feed") && h.what == "power" && h.left() < p.power_left_w) {
            p.power_left_w = h.left();
            p.tightest = (h.kind == "floor_pdu" ? "floor PDU " : h.kind == "ups" ? "UPS " : "feed ") + h.id;
        }
        if (h.kind == "hall" && h.id == hall_id) p.cooling_left_w = h.left();
    }
}

}  // namespace

RowPlan planRacks(const Scenario& s, const Catalog& c, const std::string& hall_id, const std::string& row_id, int count,
                  const std::string& rack_model, const std::string& server_model, int servers) {
    RowPlan rp;
    Placement& p = rp.place;
    p.hall_id = hall_id;
    p.row_id = row_id;
    Scenario t = s;
    std::string target = row_id;
    for (int k = 0; k < count; ++k) {
        RackPlan plan = planRack(t, c, hall_id, target, rack_model, server_model, servers);
        if (!plan.problem.empty()) {
            rp.problem =
                (count > 1 ? "rack " + std::to_string(k + 1) + " of " + std::to_string(count) + ": " : std::string()) + plan.problem;
            break;
        }
        if (!plan.warning.empty() && p.warning.empty()) p.warning = plan.warning;
        if (k == 0) {
            p.new_row_name = plan.new_row_name;
            p.floor_pdu_a = plan.upstream_a;
            p.floor_pdu_b = plan.upstream_b;
        }
        p.positions.push_back(plan.position_m);
        const std::string id = addPlannedRack(t, c, plan, rack_model, server_model, servers);
        if (target.empty())  // the racks after the first join the new row
            for (const auto& h : t.halls)
                for (const auto& row : h.rows)
                    for (const auto& r : row.racks)
                        if (r.id == id) target = row.id;
        rp.racks.push_back(std::move(plan));
    }
    if (!rp.problem.empty()) return rp;
    leftAfter(t, c, hall_id, p);
    auto kw = [](double w) { return std::to_string(static_cast<long long>(std::llround(w / 1e3))) + " kW"; };
    if (p.floor_pdu_a == p.floor_pdu_b) rp.redundancy = "none: both sides from floor PDU " + p.floor_pdu_a;
    else if (p.power_left_w < 0)
        rp.redundancy =
            "lost: " + p.tightest + " could not carry everything with the other side failed (short by " + kw(-p.power_left_w) + ")";
    else if (!p.warning.empty()) rp.redundancy = "lost: " + p.warning;
    else
        rp.redundancy = "2N: side A from " + p.floor_pdu_a + " and side B from " + p.floor_pdu_b + ", each able to carry them alone (" +
                        kw(p.power_left_w) + " left on " + p.tightest + " with the other side failed)";
    rp.redundancy += p.cooling_left_w < 0 ? "; the hall's air cooling falls short at N+1 by " + kw(-p.cooling_left_w)
                                          : "; the hall's air cooling holds at N+1 (" + kw(p.cooling_left_w) + " left)";
    return rp;
}

PlacementAnswer placeRacks(const Scenario& s, const Catalog& c, int count, const std::string& rack_model, const std::string& server_model,
                           int servers) {
    PlacementAnswer a;
    if (count < 1) throw ModelError("place at least one rack");
    if (!c.rack(rack_model)) throw ModelError("unknown rack model '" + rack_model + "'");
    if (!server_model.empty() && !c.server(server_model)) throw ModelError("unknown server model '" + server_model + "'");
    for (const auto& h : s.halls) {
        std::vector<std::string> rows;
        for (const auto& row : h.rows) rows.push_back(row.id);
        rows.push_back("");  // a new row
        for (const std::string& row_id : rows) {
            RowPlan rp = planRacks(s, c, h.id, row_id, count, rack_model, server_model, servers);
            const std::string where = h.id + "/" + (row_id.empty() ? std::string("a new row") : row_id);
            Placement& p = rp.place;
            if (!rp.problem.empty()) {
                a.refused.push_back(where + ": " + rp.problem);
            } else if (p.power_left_w < 0) {
                a.refused.push_back(where + ": " + p.tightest + " could not carry them with the other side failed (short by " +
                                    std::to_string(static_cast<long long>(std::llround(-p.power_left_w / 1e3))) + " kW)");
            } else if (p.cooling_left_w < 0) {
                a.refused.push_back(where + ": the hall's air cooling could not carry them with its largest unit out (short by " +
                                    std::to_string(static_cast<long long>(std::llround(-p.cooling_left_w / 1e3))) + " kW)");
            } else {
                a.fits.push_back(std::move(p));
            }
        }
    }
    std::stable_sort(a.fits.begin(), a.fits.end(), [](const Placement& x, const Placement& y) {
        return std::min(x.power_left_w, x.cooling_left_w) > std::min(y.power_left_w, y.cooling_left_w);
    });
    return a;
}

}  // namespace ct::model
