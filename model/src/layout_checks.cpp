#include <clustertwin/model/layout_checks.hpp>

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/validate.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ct::model {

namespace {

std::vector<std::string> split(const std::string& p) {
    std::vector<std::string> parts;
    std::stringstream ss(p);
    std::string x;
    while (std::getline(ss, x, '/'))
        if (!x.empty()) parts.push_back(x);
    return parts;
}

bool index(const std::string& s, std::size_t n, std::size_t& i) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
    i = std::stoul(s);
    return i < n;
}

std::string kindOf(const std::string& message) {
    if (message.find("overlaps") != std::string::npos) return "overlap";
    if (message.find("has no supply") != std::string::npos) return "aisle_supply";
    if (message.find("no return path") != std::string::npos) return "aisle_return";
    if (message.find("rear door over capacity") != std::string::npos) return "rear_door_capacity";
    if (message.find("outside the hall") != std::string::npos) return "outside_hall";
    if (message.find("breakers") != std::string::npos) return "rack_power";
    if (message.find("capacity") != std::string::npos && message.find("load") != std::string::npos) return "pdu_capacity";
    if (message.find("weighs") != std::string::npos) return "rack_weight";
    return "invalid";
}

std::string kw(double w) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f kW", w / 1000);
    return b;
}

bool alongX(Facing f) { return f == Facing::North || f == Facing::South; }

}  // namespace

bool isLayoutProblem(const Diagnostic& d) { return kindOf(d.message) != "invalid"; }

std::string entityAt(const Scenario& s, const std::string& pointer) {
    const auto p = split(pointer);
    std::size_t i = 0, j = 0, k = 0;
    if (p.size() >= 2 && p[0] == "halls" && index(p[1], s.halls.size(), i)) {
        const Hall& h = s.halls[i];
        if (p.size() >= 4 && p[2] == "rows" && index(p[3], h.rows.size(), j)) {
            const Row& row = h.rows[j];
            if (p.size() >= 6 && p[4] == "racks" && index(p[5], row.racks.size(), k)) return row.racks[k].id;
            return row.id;
        }
        if (p.size() >= 4 && p[2] == "cooling_units" && index(p[3], h.cooling_units.size(), j)) return h.cooling_units[j].id;
        if (p.size() >= 4 && p[2] == "cdus" && index(p[3], h.cdus.size(), j)) return h.cdus[j].id;
        return h.id;
    }
    if (p.size() >= 3 && p[0] == "power") {
        if (p[1] == "pdus" && index(p[2], s.power.pdus.size(), i)) return s.power.pdus[i].id;
        if (p[1] == "ups" && index(p[2], s.power.ups.size(), i)) return s.power.ups[i].id;
        if (p[1] == "feeds" && index(p[2], s.power.feeds.size(), i)) return s.power.feeds[i].id;
    }
    if (p.size() >= 2 && p[0] == "jobs" && index(p[1], s.jobs.size(), i)) return s.jobs[i].id;
    return s.id;
}

namespace {

struct RowLine {
    std::size_t index;
    bool along_x;
    double across;  // centre across the row direction
    double depth;
    Facing facing;
};

/// Each row's line (racks that face another way than their row are findings).
std::vector<RowLine> rowLines(const Hall& h, const Catalog& c, const std::string& hp, std::vector<LayoutFinding>& out) {
    std::vector<RowLine> rows;
    for (std::size_t ri = 0; ri < h.rows.size(); ++ri) {
        const Row& row = h.rows[ri];
        if (row.racks.empty()) continue;
        const Facing f0 = row.racks.front().facing;
        double across = 0, depth = 0;
        for (std::size_t k = 0; k < row.racks.size(); ++k) {
            const Rack& r = row.racks[k];
            const RackModel* rm = c.rack(r.model);
            depth = std::max(depth, rm ? rm->depth_m : 1.2);
            across += alongX(f0) ? r.position_m.y_m : r.position_m.x_m;
            if (r.facing != f0)
                out.push_back({Severity::Warning, "aisle_orientation", r.id,
                               hp + "/rows/" + std::to_string(ri) + "/racks/" + std::to_string(k) + "/facing",
                               "rack " + r.id + " faces " + std::string(toString(r.facing)) + " while its row faces " +
                                   std::string(toString(f0)) + ": its exhaust goes into the aisle its neighbours breathe from"});
        }
        rows.push_back({ri, alongX(f0), across / row.racks.size(), depth, f0});
    }
    return rows;
}

/// Aisles: neighbouring rows should face each other (cold aisle) or turn their backs (hot aisle); a row facing
/// another's back breathes its exhaust. Within a row, every rack should face the same way.
void checkAisles(const Hall& h, const Catalog& c, const std::string& hp, std::vector<LayoutFinding>& out) {
    const std::vector<RowLine> rows = rowLines(h, c, hp, out);
    for (std::size_t a = 0; a < rows.size(); ++a)
        for (std::size_t b = 0; b < rows.size(); ++b) {
            const RowLine &A = rows[a], &B = rows[b];
            if (a == b || A.along_x != B.along_x || !(A.across < B.across)) continue;
            const double gap = B.across - A.across - (A.depth + B.depth) / 2;
            if (gap > 4.0) continue;  // too far apart to share an aisle
            bool nearer = false;      // only the next row across counts
            for (std::size_t m = 0; m < rows.size(); ++m)
                if (m != a && m != b && rows[m].along_x == A.along_x && rows[m].across > A.across && rows[m].across < B.across)
                    nearer = true;
            if (nearer) continue;
            // A is on the low side: its front faces B when it faces north (or east).
            const bool a_front_up = A.facing == Facing::North || A.facing == Facing::East;
            const bool b_front_down = B.facing == Facing::South || B.facing == Facing::West;
            if (a_front_up != b_front_down) {
                const Row& ra = h.rows[A.index];
                const Row& rb = h.rows[B.index];
                const std::string& hot = a_front_up ? rb.id : ra.id;
                out.push_back({Severity::Warning, "aisle_orientation", a_front_up ? ra.id : rb.id,
                               hp + "/rows/" + std::to_string(a_front_up ? A.index : B.index),
                               "row " + (a_front_up ? ra.id : rb.id) + " takes its air from the aisle row " + hot +
                                   " exhausts into (no hot/cold aisle separation)"});
            }
        }
}

/// Floor load: each rack's weight with its equipment over its footprint.
void checkFloorLoad(const Hall& h, const Catalog& c, const std::string& hp, std::vector<LayoutFinding>& out) {
    double rating = h.raised_floor ? kRaisedFloorRatingKgM2 : kSlabRatingKgM2;
    if (auto it = h.extra.find("floor_rating_kg_m2"); it != h.extra.end()) {
        try {
            rating = std::stod(it->second);
        } catch (const std::exception&) {}
    }
    for (std::size_t ri = 0; ri < h.rows.size(); ++ri)
        for (std::size_t k = 0; k < h.rows[ri].racks.size(); ++k) {
            const Rack& r = h.rows[ri].racks[k];
            const RackModel* rm = c.rack(r.model);
            if (!rm || rm->width_m <= 0 || rm->depth_m <= 0) continue;
            double kg = rm->weight_kg;
            for (const auto& n : r.nodes)
                if (const auto* sm = c.server(n.model)) kg += sm->weight_kg;
            const double load = kg / (rm->width_m * rm->depth_m);
            if (load > rating) {
                char b[200];
                std::snprintf(b, sizeof b, "rack %s puts %.0f kg/m² on the floor (%.0f kg on %.2f m²), above its rating of %.0f kg/m²",
                              r.id.c_str(), load, kg, rm->width_m * rm->depth_m, rating);
                out.push_back(
                    {Severity::Warning, "floor_load", r.id, hp + "/rows/" + std::to_string(ri) + "/racks/" + std::to_string(k), b});
            }
        }
}

/// Cooling capacity against nameplate heat, with every unit (N) and after the worst single loss (N−1).
void checkCoolingCapacity(const Scenario& s, const Catalog& c, std::vector<LayoutFinding>& out) {
    const ScenarioSummary sum = summarize(s, c);
    if (sum.air_heat_w > sum.air_cooling_capacity_w + 1e-6)
        out.push_back({Severity::Error, "cooling_n", s.halls.empty() ? s.id : s.halls.front().id, "/halls/0/cooling_units",
                       "air cooling " + kw(sum.air_cooling_capacity_w) + " is below the racks' nameplate air heat " + kw(sum.air_heat_w)});
    else if (!sum.air_n_minus_1.survives)
        out.push_back({Severity::Warning, "cooling_n_minus_1", sum.air_n_minus_1.worst_unit, "/halls/0/cooling_units",
                       "losing " + sum.air_n_minus_1.worst_unit + " leaves " + kw(sum.air_n_minus_1.worst_shortfall_w) +
                           " of air heat uncooled (no N+1)"});
    if (sum.liquid_heat_w > sum.liquid_cooling_capacity_w + 1e-6)
        out.push_back({Severity::Error, "cooling_n", s.halls.empty() ? s.id : s.halls.front().id, "/halls/0/cdus",
                       "CDU capacity " + kw(sum.liquid_cooling_capacity_w) + " is below the racks' liquid heat " + kw(sum.liquid_heat_w)});
    else if (!sum.liquid_n_minus_1.survives)
        out.push_back({Severity::Warning, "cooling_n_minus_1", sum.liquid_n_minus_1.worst_unit, "/halls/0/cdus",
                       "losing " + sum.liquid_n_minus_1.worst_unit + " leaves " + kw(sum.liquid_n_minus_1.worst_shortfall_w) +
                           " of liquid heat uncooled (no N+1)"});
}

}  // namespace

std::vector<LayoutFinding> checkLayout(const Scenario& s, const Catalog& c) {
    std::vector<LayoutFinding> out;
    for (const auto& d : validateScenario(s, c)) {
        if (d.location.rfind("/events", 0) == 0) continue;  // the timeline is not the layout
        out.push_back({d.severity, kindOf(d.message), entityAt(s, d.location), d.location, d.message});
    }
    for (std::size_t hi = 0; hi < s.halls.size(); ++hi) {
        const std::string hp = "/halls/" + std::to_string(hi);
        checkAisles(s.halls[hi], c, hp, out);
        checkFloorLoad(s.halls[hi], c, hp, out);
    }
    checkCoolingCapacity(s, c, out);
    return out;
}

}  // namespace ct::model
