#include <clustertwin/model/scenario.hpp>

#include <algorithm>
#include <cmath>

namespace ct::model {

double UtilizationProfile::valueAt(double t) const {
    double v = level;
    if (kind == "diurnal") {
        v = mean + amplitude * std::sin(2 * M_PI * (t - phase_s) / period_s);
    } else if ((kind == "steps" || kind == "list") && !points.empty()) {
        if (t <= points.front().first) {
            v = points.front().second;
        } else if (t >= points.back().first) {
            v = points.back().second;
        } else {
            auto hi = std::upper_bound(points.begin(), points.end(), t, [](double x, const auto& p) { return x < p.first; });
            auto lo = hi - 1;
            v = kind == "steps" ? lo->second : lo->second + (t - lo->first) / (hi->first - lo->first) * (hi->second - lo->second);
        }
    }
    return std::clamp(v, 0.0, 1.0);
}

std::string_view toString(Facing f) {
    switch (f) {
        case Facing::North:
            return "north";
        case Facing::East:
            return "east";
        case Facing::South:
            return "south";
        case Facing::West:
            return "west";
    }
    return "north";
}

std::optional<Facing> facingFromString(std::string_view s) {
    if (s == "north") return Facing::North;
    if (s == "east") return Facing::East;
    if (s == "south") return Facing::South;
    if (s == "west") return Facing::West;
    return std::nullopt;
}

std::string_view toString(EntityKind k) {
    switch (k) {
        case EntityKind::Site:
            return "site";
        case EntityKind::Hall:
            return "hall";
        case EntityKind::Row:
            return "row";
        case EntityKind::Rack:
            return "rack";
        case EntityKind::Node:
            return "node";
        case EntityKind::Gpu:
            return "gpu";
        case EntityKind::RackPdu:
            return "rack_pdu";
        case EntityKind::CoolingUnit:
            return "cooling_unit";
        case EntityKind::Cdu:
            return "cdu";
        case EntityKind::UtilityFeed:
            return "utility_feed";
        case EntityKind::Ups:
            return "ups";
        case EntityKind::Pdu:
            return "pdu";
        case EntityKind::Job:
            return "job";
        case EntityKind::Containment:
            return "containment";
        case EntityKind::WaterLoop:
            return "water_loop";
        case EntityKind::Transformer:
            return "transformer";
        case EntityKind::Sensor:
            return "sensor";
    }
    return "?";
}

std::string gpuId(std::string_view node_id, int index) { return std::string(node_id) + "/gpu" + std::to_string(index); }

void Scenario::linkParents() {
    for (auto& h : halls) {
        for (auto& row : h.rows) {
            row.hall_id = h.id;
            for (auto& r : row.racks) {
                r.row_id = row.id;
                r.hall_id = h.id;
                for (auto& n : r.nodes) n.rack_id = r.id;
                for (auto& p : r.pdus) p.rack_id = r.id;
            }
        }
        for (auto& u : h.cooling_units) u.hall_id = h.id;
        for (auto& c : h.cdus) c.hall_id = h.id;
        for (auto& c : h.containments) c.hall_id = h.id;
        for (auto& x : h.sensors) x.hall_id = h.id;
    }
}

}  // namespace ct::model
