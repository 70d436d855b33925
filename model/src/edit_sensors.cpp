// Sensors placed and edited (the editor's Add sensor, its inspector): see edit.hpp.
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/geometry.hpp>

#include <cmath>
#include <cstdio>

#include "edit_parts.hpp"

namespace ct::model {

using detail::Where;

namespace {

/// "1.20": a height in a sensor's id.
std::string metres(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.2f", v);
    return b;
}

/// The front half of a rack's footprint (the side its cold air comes in) holds point p.
bool inFrontHalf(const Rack& r, const Box2& b, Vec2 p) {
    switch (r.facing) {
        case Facing::North:
            return p.y_m >= (b.y0 + b.y1) / 2;
        case Facing::South:
            return p.y_m < (b.y0 + b.y1) / 2;
        case Facing::East:
            return p.x_m >= (b.x0 + b.x1) / 2;
        default:
            return p.x_m < (b.x0 + b.x1) / 2;
    }
}

/// Throws ModelError when sensor x cannot be in hall h: a rack not in it, a side that is neither, a point off
/// its floor, a height off its air.
void check(const Hall& h, const Sensor& x) {
    if (!x.rack.empty()) {
        bool found = false;
        for (const auto& row : h.rows)
            for (const auto& r : row.racks) found = found || r.id == x.rack;
        if (!found) throw ModelError("sensor " + x.id + ": rack '" + x.rack + "' is not in hall " + h.id);
        if (x.side != "front" && x.side != "rear") throw ModelError("sensor " + x.id + ": side must be front or rear");
    } else if (!(x.position_m.x_m >= 0 && x.position_m.x_m <= h.width_m && x.position_m.y_m >= 0 && x.position_m.y_m <= h.depth_m)) {
        throw ModelError("sensor " + x.id + ": the point is off the hall's floor");
    }
    if (!(x.height_m >= 0 && x.height_m <= h.height_m))
        throw ModelError("sensor " + x.id + ": height " + metres(x.height_m) + " m is not within the hall's 0–" + metres(h.height_m) +
                         " m");
}

}  // namespace

Sensor sensorAt(const Scenario& s, const Catalog& c, const std::string& hall_id, Vec2 at, double height_m) {
    const Hall* h = nullptr;
    for (const auto& x : s.halls)
        if (x.id == hall_id) h = &x;
    if (!h) throw ModelError("no hall with id '" + hall_id + "'");
    Sensor x;
    x.height_m = height_m;
    for (const auto& row : h->rows)
        for (const auto& r : row.racks) {
            const RackModel* rm = c.rack(r.model);
            if (!rm) continue;
            const Box2 b = footprint(r.position_m, rm->width_m, rm->depth_m, r.facing);
            if (at.x_m < b.x0 || at.x_m > b.x1 || at.y_m < b.y0 || at.y_m > b.y1) continue;
            x.rack = r.id;
            x.side = inFrontHalf(r, b, at) ? "front" : "rear";
        }
    if (x.rack.empty()) x.position_m = at;
    std::set<std::string> used = detail::allIds(s);
    x.id = detail::fresh(used, x.rack.empty() ? "sensor-" + metres(at.x_m) + "-" + metres(at.y_m) + "-" + metres(height_m)
                                              : x.rack + "-" + x.side + "-" + metres(height_m));
    return x;
}

std::string addSensor(Scenario& s, const std::string& hall_id, Sensor x) {
    Hall* h = nullptr;
    for (auto& y : s.halls)
        if (y.id == hall_id) h = &y;
    if (!h) throw ModelError("no hall with id '" + hall_id + "'");
    std::set<std::string> used = detail::allIds(s);
    if (x.id.empty()) x.id = detail::fresh(used, "sensor");
    else if (used.count(x.id)) throw ModelError("sensor " + x.id + ": the id is already used");
    check(*h, x);
    std::string id = x.id;
    h->sensors.push_back(std::move(x));
    s.linkParents();
    return id;
}

namespace detail {

void setSensorProperty(Hall& h, Sensor& x, const std::string& key, const std::string& value) {
    Sensor y = x;  // checked whole before it replaces x
    if (key == "name") y.name = value;
    else if (key == "height_m") y.height_m = number(key, value);
    else if (key == "side" && !y.rack.empty()) y.side = value;
    else if ((key == "x_m" || key == "y_m") && y.rack.empty()) (key == "x_m" ? y.position_m.x_m : y.position_m.y_m) = number(key, value);
    else throw ModelError("'" + key + "' is not an editable property of sensor '" + x.id + "'");
    check(h, y);
    x = std::move(y);
}

}  // namespace detail

}  // namespace ct::model
