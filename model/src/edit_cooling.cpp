// Layout edits for halls as they are built now: racks placed in the next free slot with feeds that carry them,
// containment, in-row coolers, rear doors and halls (edit.hpp).
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/units.hpp>

#include "builder_layout.hpp"
#include "edit_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::model {

using detail::allIds;
using detail::fresh;
using detail::require;
using detail::Where;

namespace {

/// Footprints of everything standing in a hall.
std::vector<Box2> occupied(const Hall& h, const Catalog& c) {
    std::vector<Box2> out;
    for (const auto& row : h.rows)
        for (const auto& r : row.racks)
            if (const auto* m = c.rack(r.model)) out.push_back(footprint(r.position_m, m->width_m, m->depth_m, r.facing));
    for (const auto& u : h.cooling_units)
        if (const auto* m = c.coolingUnit(u.model)) out.push_back(footprint(u.position_m, m->width_m, m->depth_m, u.facing));
    for (const auto& u : h.cdus)
        if (const auto* m = c.cdu(u.model)) out.push_back(footprint(u.position_m, m->width_m, m->depth_m, u.facing));
    return out;
}

bool freeAt(const Hall& h, const std::vector<Box2>& taken, const Box2& b) {
    if (!b.inside(h.width_m, h.depth_m)) return false;
    return std::none_of(taken.begin(), taken.end(), [&](const Box2& o) { return o.overlaps(b); });
}

const Hall* hallById(const Scenario& s, const std::string& id) {
    for (const auto& h : s.halls)
        if (h.id == id) return &h;
    return nullptr;
}

/// The next free centre along a row for an item `width_m` wide: after its far end, else before its near end.
bool slotInRow(const Hall& h, const Catalog& c, const Row& row, double width_m, double depth_m, Vec2& at, Facing& facing) {
    const auto line = rowLine(h, row, c);
    if (!line) return false;
    facing = line->facing;
    const auto taken = occupied(h, c);
    const bool ax = line->along_x;
    const double across = ax ? (line->core.y0 + line->core.y1) / 2 : (line->core.x0 + line->core.x1) / 2;
    for (int dir : {+1, -1}) {
        for (int k = 0; k < 200; ++k) {
            const double along = dir > 0 ? (ax ? line->extent.x1 : line->extent.y1) + (k + 0.5) * width_m
                                         : (ax ? line->extent.x0 : line->extent.y0) - (k + 0.5) * width_m;
            const Vec2 c2 = ax ? Vec2{along, across} : Vec2{across, along};
            const Box2 b = footprint(c2, width_m, depth_m, facing);
            if (!b.inside(h.width_m, h.depth_m)) break;
            if (freeAt(h, taken, b)) {
                at = {std::round(c2.x_m * 1000) / 1000, std::round(c2.y_m * 1000) / 1000};
                return true;
            }
        }
    }
    return false;
}

}  // namespace

namespace {

/// The floor PDU with the most room left on failover for side A, and for side B the roomiest on another UPS
/// (else any other one).
void roomiestFloorPdus(const Scenario& s, const Catalog& c, std::string& a, std::string& b) {
    std::map<std::string, double> failover = chainLoads(s, c).failover.pdu;
    const Pdu* best_a = nullptr;
    double room_a = -1e300;
    for (const auto& p : s.power.pdus)
        if (const double room = p.capacity_w - failover[p.id]; room > room_a) {
            best_a = &p;
            room_a = room;
        }
    if (!best_a) return;
    a = best_a->id;
    double room_b = -1e300;
    bool other_ups = false;
    for (const auto& p : s.power.pdus) {
        if (p.id == a) continue;
        const bool other = p.ups != best_a->ups;
        const double room = p.capacity_w - failover[p.id];
        if ((other && !other_ups) || (other == other_ups && room > room_b)) {
            b = p.id;
            room_b = room;
            other_ups = other;
        }
    }
}

/// The redundancy a plan would lose: both sides on one floor PDU, or a floor PDU that could not carry its racks
/// with this one when the other side fails.
std::string failoverWarning(const Scenario& s, const Catalog& c, const RackPlan& p) {
    if (p.upstream_a == p.upstream_b) return "both sides from floor PDU " + p.upstream_a + ": no redundancy if it fails";
    std::string out;
    std::map<std::string, double> failover = chainLoads(s, c).failover.pdu;
    for (const std::string& id : {p.upstream_a, p.upstream_b}) {
        const auto it = std::find_if(s.power.pdus.begin(), s.power.pdus.end(), [&](const Pdu& x) { return x.id == id; });
        if (it == s.power.pdus.end() || !(it->capacity_w > 0)) continue;
        const double load = failover[id] + p.load_w;
        if (load <= it->capacity_w) continue;
        char b[200];
        std::snprintf(b, sizeof b,
                      "floor PDU %s would carry %.1f of its %.1f kW when the other side fails: the racks on it lose their redundancy",
                      id.c_str(), load / 1e3, it->capacity_w / 1e3);
        out += (out.empty() ? "" : "; ") + std::string(b);
    }
    return out;
}

}  // namespace

RackPlan planRack(const Scenario& s, const Catalog& c, const std::string& hall_id, const std::string& row_id, const std::string& rack_model,
                  const std::string& server_model, int nodes) {
    RackPlan p;
    p.hall_id = hall_id;
    p.row_id = row_id;
    const Hall* h = hallById(s, hall_id);
    const RackModel* rm = c.rack(rack_model);
    const ServerModel* sm = server_model.empty() ? nullptr : c.server(server_model);
    if (!h) return p.problem = "no hall '" + hall_id + "'", p;
    if (!rm) return p.problem = "unknown rack model '" + rack_model + "'", p;
    if (!server_model.empty() && !sm) return p.problem = "unknown server model '" + server_model + "'", p;
    if (nodes < 0 || (sm && nodes * sm->height_u > rm->height_u))
        return p.problem = std::to_string(nodes) + " × " + server_model + " do not fit in " + std::to_string(rm->height_u) + "U", p;
    p.load_w = sm ? nodes * sm->max_power_w : 0.0;
    const Row* row = nullptr;
    for (const auto& r : h->rows)
        if (r.id == row_id) row = &r;
    if (!row_id.empty() && !row) return p.problem = "no row '" + row_id + "' in hall " + hall_id, p;
    bool placed = false;
    if (row && !row->racks.empty()) {
        placed = slotInRow(*h, c, *row, rm->width_m, rm->depth_m, p.position_m, p.facing);
        if (!placed) return p.problem = "row " + row->id + " has no free slot left within the hall's walls", p;
    } else {
        // A new row (or an empty one): beside the last row with racks, across an aisle, facing the other way.
        const Row* last = nullptr;
        for (const auto& r : h->rows)
            if (!r.racks.empty()) last = &r;
        const auto taken = occupied(*h, c);
        if (last) {
            const auto line = rowLine(*h, *last, c);
            const double aisle = 1.2;
            p.facing = line->facing == Facing::North   ? Facing::South
                       : line->facing == Facing::South ? Facing::North
                       : line->facing == Facing::East  ? Facing::West
                                                       : Facing::East;
            for (int side : {+1, -1}) {
                const Vec2 at = line->along_x
                                    ? Vec2{line->extent.x0 + rm->width_m / 2,
                                           side > 0 ? line->extent.y1 + aisle + rm->depth_m / 2 : line->extent.y0 - aisle - rm->depth_m / 2}
                                    : Vec2{side > 0 ? line->extent.x1 + aisle + rm->depth_m / 2 : line->extent.x0 - aisle - rm->depth_m / 2,
                                           line->extent.y0 + rm->width_m / 2};
                if (freeAt(*h, taken, footprint(at, rm->width_m, rm->depth_m, p.facing))) {
                    p.position_m = at;
                    placed = true;
                    break;
                }
            }
        }
        // Else the first free spot on the tile grid, a metre and a bit clear of the walls.
        for (double y = 1.8; !placed && y + rm->depth_m <= h->depth_m; y += h->tile_m)
            for (double x = 1.8; !placed && x + rm->width_m <= h->width_m; x += h->tile_m) {
                const Vec2 at{x + rm->width_m / 2, y + rm->depth_m / 2};
                if (freeAt(*h, taken, footprint(at, rm->width_m, rm->depth_m, Facing::North))) {
                    p.position_m = at;
                    p.facing = Facing::North;
                    placed = true;
                }
            }
        if (!placed) return p.problem = "hall " + hall_id + " has no free floor for a " + rm->name, p;
        p.position_m = {std::round(p.position_m.x_m * 1000) / 1000, std::round(p.position_m.y_m * 1000) / 1000};
        if (!row) p.new_row_name = "Row " + std::to_string(h->rows.size() + 1);
    }
    // Feeds: the floor PDUs the row's racks use, else the two with the most room on failover; breakers that carry
    // the servers.
    const Row* powered = row && !row->racks.empty() ? row : nullptr;
    if (powered)
        for (const auto& pdu : powered->racks.front().pdus) (pdu.feed == "A" ? p.upstream_a : p.upstream_b) = pdu.upstream;
    if (p.upstream_a.empty() && p.upstream_b.empty()) roomiestFloorPdus(s, c, p.upstream_a, p.upstream_b);
    if (p.upstream_a.empty()) return p.problem = "the scenario has no floor PDU to power a rack from", p;
    if (p.upstream_b.empty()) p.upstream_b = p.upstream_a;
    p.warning = failoverWarning(s, c, p);
    try {
        const auto pdus = detail::sizedRackPdus("x", p.upstream_a, p.upstream_b, std::max(p.load_w, 1.0));
        p.breaker_a = pdus.front().breaker_a;
        p.pdus_per_side = static_cast<int>(pdus.size() / 2);
    } catch (const ModelError& e) {
        p.problem = e.what();
    }
    return p;
}

std::string addPlannedRack(Scenario& s, const Catalog& c, const RackPlan& plan, const std::string& rack_model,
                           const std::string& server_model, int nodes) {
    if (!plan.problem.empty()) throw ModelError(plan.problem);
    std::string row = plan.row_id.empty() ? addRow(s, plan.hall_id, plan.new_row_name) : plan.row_id;
    std::string id = addRack(s, c, row, rack_model, server_model, nodes, plan.position_m, plan.facing);
    Where w = require(s, id);
    std::set<std::string> used = allIds(s);
    for (const auto& p : w.rack->pdus) used.erase(p.id);
    w.rack->pdus = detail::sizedRackPdus(id, plan.upstream_a, plan.upstream_b, std::max(plan.load_w, 1.0));
    for (auto& p : w.rack->pdus) p.id = fresh(used, p.id);
    std::vector<std::string> feeds;
    for (const auto& p : w.rack->pdus) feeds.push_back(p.id);
    for (auto& n : w.rack->nodes) n.feeds = feeds;
    s.linkParents();
    return id;
}

std::string addContainment(Scenario& s, const Catalog& c, const std::vector<std::string>& row_ids, const std::string& kind,
                           const std::string& model) {
    if (row_ids.empty()) throw ModelError("containment: give the rows whose aisle it closes");
    Where w = require(s, row_ids.front());
    if (!w.row || w.rack) throw ModelError("'" + row_ids.front() + "' is not a row");
    if (!c.containment(model)) throw ModelError("unknown containment '" + model + "'");
    Containment ct;
    ct.kind = kind;
    ct.model = model;
    ct.rows = row_ids;
    // Rows in floor order, so consecutive ones face each other across the aisles.
    std::sort(ct.rows.begin(), ct.rows.end(), [&](const std::string& a, const std::string& b) {
        const auto la = rowLine(*w.hall, *require(s, a).row, c), lb = rowLine(*w.hall, *require(s, b).row, c);
        if (!la || !lb) return a < b;
        return la->along_x ? la->extent.y0 < lb->extent.y0 : la->extent.x0 < lb->extent.x0;
    });
    std::string why;
    if (containedAisles(*w.hall, ct, c, &why).empty()) throw ModelError("containment: " + why);
    std::set<std::string> used = allIds(s);
    ct.id = fresh(used, "cont-" + ct.rows.front());
    ct.name = (kind == "hot" ? "Hot" : "Cold") + std::string("-aisle containment ") + ct.rows.front() + "–" + ct.rows.back();
    w.hall->containments.push_back(ct);
    s.linkParents();
    return ct.id;
}

std::string addInRowCooler(Scenario& s, const Catalog& c, const std::string& row_id, const std::string& model, const std::string& loop) {
    Where w = require(s, row_id);
    if (!w.row || w.rack) throw ModelError("'" + row_id + "' is not a row");
    const CoolingUnitModel* m = c.coolingUnit(model);
    if (!m || m->kind != "in-row") throw ModelError("'" + model + "' is not an in-row cooler in the catalog");
    if (!loop.empty() && std::none_of(s.plant.loops.begin(), s.plant.loops.end(), [&](const WaterLoop& l) { return l.id == loop; }))
        throw ModelError("no water loop '" + loop + "'");
    CoolingUnit u;
    if (!slotInRow(*w.hall, c, *w.row, m->width_m, m->depth_m, u.position_m, u.facing))
        throw ModelError("row " + row_id + " has no racks to stand beside, or no free slot within the hall's walls");
    std::set<std::string> used = allIds(s);
    u.id = fresh(used, "irc-" + row_id);
    u.name = m->name;
    u.model = model;
    u.row = row_id;
    u.loop = loop;
    u.supply_setpoint_c = std::clamp(20.0, m->min_supply_temp_c, m->max_supply_temp_c);
    w.hall->cooling_units.push_back(u);
    s.linkParents();
    return u.id;
}

void fitRearDoor(Scenario& s, const Catalog& c, const std::string& rack_id, const std::string& model, const std::string& loop) {
    Where w = require(s, rack_id);
    if (!w.rack || w.node) throw ModelError("'" + rack_id + "' is not a rack");
    if (model.empty()) {
        w.rack->rear_door.reset();
        return;
    }
    if (!c.rearDoor(model)) throw ModelError("unknown rear door '" + model + "'");
    if (!loop.empty() && std::none_of(s.plant.loops.begin(), s.plant.loops.end(), [&](const WaterLoop& l) { return l.id == loop; }))
        throw ModelError("no water loop '" + loop + "'");
    w.rack->rear_door = RearDoor{model, loop, {}};
}

std::string addHall(Scenario& s, double width_m, double depth_m, double height_m) {
    if (!(width_m > 0 && depth_m > 0 && height_m >= 2.5))
        throw ModelError("a hall needs a width and depth above 0 and at least 2.5 m of height");
    std::set<std::string> used = allIds(s);
    Hall h;
    h.id = fresh(used, "hall" + std::to_string(s.halls.size() + 1));
    h.name = "Hall " + std::to_string(s.halls.size() + 1);
    h.width_m = width_m;
    h.depth_m = depth_m;
    h.height_m = height_m;
    double x = 0;
    for (const auto& o : s.halls) x = std::max(x, o.site_position_m.x_m + o.width_m + 10.0);
    h.site_position_m = {x, 0};
    s.halls.push_back(std::move(h));
    s.linkParents();
    return s.halls.back().id;
}

}  // namespace ct::model
