// Validation of close-coupled cooling and air paths (models.md §3): containment, in-row coolers, rear doors,
// blanking, water loops and the ducted ceiling return. Called by the validator for each hall (validate.cpp).
#include <clustertwin/model/containment.hpp>

#include "json_util.hpp"
#include "validate_parts.hpp"

#include <cmath>
#include <cstdio>
#include <set>

namespace ct::model::detail {

namespace {

std::string fmtNum(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string kw(double w) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f kW", w / 1000.0);
    return buf;
}

class CoolingChecks {
public:
    CoolingChecks(const Scenario& s, const Hall& h, const std::string& hp, const Catalog& c, Diagnostics& d)
        : s_(s), h_(h), hp_(hp), c_(c), d_(d) {
        for (const WaterLoop& l : s.plant.loops) loops_.insert(l.id);
    }

    void run() {
        if (h_.ceiling_return && !(h_.ceiling_return->plenum_height_m > 0)) err(hp_ + "/ceiling_return/plenum_height_m", "must be > 0");
        for (std::size_t u = 0; u < h_.cooling_units.size(); ++u) unit(h_.cooling_units[u], ptrJoin(hp_ + "/cooling_units", u));
        for (std::size_t r = 0; r < h_.rows.size(); ++r)
            for (std::size_t k = 0; k < h_.rows[r].racks.size(); ++k)
                rack(h_.rows[r].racks[k], ptrJoin(ptrJoin(hp_ + "/rows", r) + "/racks", k));
        for (std::size_t i = 0; i < h_.containments.size(); ++i) containment(h_.containments[i], ptrJoin(hp_ + "/containments", i));
        for (std::size_t i = 0; i < h_.sensors.size(); ++i) sensor(h_.sensors[i], ptrJoin(hp_ + "/sensors", i));
    }

private:
    /// A sensor on a rack of this hall (front or rear) or at a point inside it, below the ceiling.
    void sensor(const Sensor& x, const std::string& p) {
        if (!(x.height_m > 0) || (h_.height_m > 0 && x.height_m >= h_.height_m))
            err(p + "/height_m", "must be above the floor and below the ceiling (" + fmtNum(h_.height_m) + " m), is " + fmtNum(x.height_m));
        if (x.rack.empty()) {
            if (x.position_m.x_m < 0 || x.position_m.y_m < 0 || x.position_m.x_m > h_.width_m || x.position_m.y_m > h_.depth_m)
                err(p + "/position_m", "is outside hall " + h_.id + " (" + fmtNum(h_.width_m) + " × " + fmtNum(h_.depth_m) + " m)");
            return;
        }
        bool found = false;
        for (const Row& r : h_.rows)
            for (const Rack& k : r.racks) found = found || k.id == x.rack;
        if (!found) err(p + "/rack", "rack '" + x.rack + "' is not in hall " + h_.id);
        if (x.side != "front" && x.side != "rear") err(p + "/side", "must be \"front\" or \"rear\", is \"" + x.side + "\"");
    }

    void err(const std::string& p, std::string m) { d_.push_back({Severity::Error, p, std::move(m)}); }
    void warn(const std::string& p, std::string m) { d_.push_back({Severity::Warning, p, std::move(m)}); }

    void loop(const std::string& id, const std::string& p) {
        if (!id.empty() && !loops_.count(id)) err(p, "unknown water loop '" + id + "' (the plant's loops)");
    }

    void unit(const CoolingUnit& u, const std::string& up) {
        loop(u.loop, up + "/loop");
        const CoolingUnitModel* m = c_.coolingUnit(u.model);
        if (!m) return;  // reported by the validator
        const bool inrow = m->kind == "in-row";
        if (inrow && u.row.empty()) {
            err(up + "/row", "in-row cooler '" + u.id + "' must name the row it stands in");
            return;
        }
        if (!inrow && !u.row.empty()) {
            err(up + "/row", "'" + u.model + "' is a perimeter unit (" + m->kind + "), not an in-row cooler");
            return;
        }
        if (!inrow) return;
        const Row* row = nullptr;
        for (const Row& r : h_.rows)
            if (r.id == u.row) row = &r;
        if (!row) {
            err(up + "/row", "row '" + u.row + "' is not in hall " + h_.id);
            return;
        }
        const auto line = rowLine(h_, *row, c_);
        if (!line) return;
        if (u.facing != line->facing) {
            err(up + "/facing", "in-row cooler '" + u.id + "' faces " + std::string(toString(u.facing)) + " but the racks of " + row->id +
                                    " face " + std::string(toString(line->facing)) + ": it would blow into the hot aisle");
            return;
        }
        const Box2 b = footprint(u.position_m, m->width_m, m->depth_m, u.facing);
        const double off = line->along_x ? std::fabs((b.y0 + b.y1) - (line->core.y0 + line->core.y1)) / 2
                                         : std::fabs((b.x0 + b.x1) - (line->core.x0 + line->core.x1)) / 2;
        if (off > 0.15)
            err(up + "/position_m",
                "in-row cooler '" + u.id + "' is " + fmtNum(std::round(off * 100) / 100) + " m out of the line of row " + row->id);
    }

    void rack(const Rack& r, const std::string& kp) {
        if (!r.blanking.empty() && !c_.blanking(r.blanking)) {
            std::string known;
            for (const auto& b : c_.blankings) known += (known.empty() ? "" : ", ") + b.id;
            err(kp + "/blanking", "unknown blanking '" + r.blanking + "' (the catalog's blankings: " + known + ")");
        }
        if (r.recirculation_fraction && !(*r.recirculation_fraction >= 0 && *r.recirculation_fraction <= 0.9))
            err(kp + "/recirculation_fraction", "must be within 0..0.9 (is " + fmtNum(*r.recirculation_fraction) + ")");
        if (r.floor_gap_m && !(*r.floor_gap_m >= 0 && *r.floor_gap_m <= 0.2))
            err(kp + "/floor_gap_m", "must be within 0..0.2 m (is " + fmtNum(*r.floor_gap_m) + ")");
        if (!r.rear_door) return;
        loop(r.rear_door->loop, kp + "/rear_door/loop");
        const RearDoorModel* m = c_.rearDoor(r.rear_door->model);
        if (!m) {
            err(kp + "/rear_door/model", "unknown rear door '" + r.rear_door->model + "' (the catalog's rear_doors)");
            return;
        }
        double air_w = 0;
        for (const Node& n : r.nodes)
            if (const ServerModel* sm = c_.server(n.model)) air_w += sm->max_power_w * (1 - sm->liquid_fraction);
        if (air_w > m->max_capacity_w)
            warn(kp + "/rear_door", "rear door over capacity: rack " + r.id + " gives " + kw(air_w) + " to the air at full power, its " +
                                        m->name + " takes at most " + kw(m->max_capacity_w) + "; the room gets the rest");
    }

    void containment(const Containment& c, const std::string& cp) {
        if (c.kind != "hot" && c.kind != "cold") {
            err(cp + "/kind", "must be 'hot' or 'cold' (is '" + c.kind + "')");
            return;
        }
        if (!c.model.empty() && !c_.containment(c.model))
            err(cp + "/model", "unknown containment '" + c.model + "' (the catalog's containments)");
        if (c.leakage_fraction && !(*c.leakage_fraction >= 0 && *c.leakage_fraction < 1))
            err(cp + "/leakage_fraction", "must be within 0..1 (is " + fmtNum(*c.leakage_fraction) + ")");
        std::string why;
        const auto aisles = containedAisles(h_, c, c_, &why);
        if (aisles.empty()) {
            err(cp + "/rows", "containment '" + c.id + "': " + why);
            return;
        }
        if (!c.roof && !c.end_doors) warn(cp, "containment '" + c.id + "' has neither roof nor end doors: it closes nothing");
        for (const ContainedAisle& a : aisles) {
            const std::string between = "the " + c.kind + " aisle between " + a.row_a + " and " + a.row_b;
            int inrow = 0;
            for (const CoolingUnit& u : h_.cooling_units)
                if ((u.row == a.row_a || u.row == a.row_b) && isInRow(u, c_)) ++inrow;
            if (c.kind == "cold" && !h_.raised_floor && inrow == 0)
                warn(cp, "cold aisle has no supply: " + between +
                             " is contained but gets no cooled air (no raised-floor tiles, no in-row "
                             "cooler); its racks will draw their air through the containment's gaps");
            if (c.kind == "hot" && !h_.ceiling_return && inrow == 0)
                warn(cp, "contained aisle has no return path: " + between +
                             " has no ducted ceiling return and no in-row cooler; the racks' "
                             "exhaust can only leave through the containment's gaps");
        }
    }

    const Scenario& s_;
    const Hall& h_;
    std::string hp_;
    const Catalog& c_;
    Diagnostics& d_;
    std::set<std::string> loops_;
};

}  // namespace

void checkCooling(const Scenario& s, const Hall& h, const std::string& hp, const Catalog& c, Diagnostics& d) {
    CoolingChecks(s, h, hp, c, d).run();
}

void checkLoops(const Scenario& s, Diagnostics& d) {
    for (std::size_t i = 0; i < s.plant.loops.size(); ++i) {
        const WaterLoop& l = s.plant.loops[i];
        const std::string p = ptrJoin("/plant/loops", i);
        if (l.supply_temp_c < 5 || l.supply_temp_c > 45)
            d.push_back({Severity::Error, p + "/supply_temp_c", "must be within 5–45 °C (is " + fmtNum(l.supply_temp_c) + ")"});
        if (l.capacity_w < 0) d.push_back({Severity::Error, p + "/capacity_w", "must be >= 0"});
    }
}

}  // namespace ct::model::detail
