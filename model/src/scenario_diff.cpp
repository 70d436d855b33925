// Layout changes between two versions of a scenario (scenario_diff.hpp).
#include <clustertwin/model/scenario_diff.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace ct::model {

namespace {

std::string num(double v, int decimals = 1) {
    char b[48];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

/// "racks added (3): a, b, c" (at most 8 named).
std::string listed(const std::string& what, const std::vector<std::string>& ids) {
    std::string s = what + " (" + std::to_string(ids.size()) + "): ";
    for (std::size_t i = 0; i < ids.size() && i < 8; ++i) s += (i ? ", " : "") + ids[i];
    if (ids.size() > 8) s += ", … " + std::to_string(ids.size() - 8) + " more";
    return s;
}

/// Added and removed ids of two maps, as lines.
template <class T>
void addedRemoved(const std::string& what, const std::map<std::string, const T*>& a, const std::map<std::string, const T*>& b,
                  std::vector<std::string>& out) {
    std::vector<std::string> added, removed;
    for (const auto& [id, x] : b)
        if (!a.count(id)) added.push_back(id);
    for (const auto& [id, x] : a)
        if (!b.count(id)) removed.push_back(id);
    if (!added.empty()) out.push_back(listed(what + " added", added));
    if (!removed.empty()) out.push_back(listed(what + " removed", removed));
}

struct Index {
    std::map<std::string, const Rack*> racks;
    std::map<std::string, const CoolingUnit*> units;
    std::map<std::string, const Cdu*> cdus;
    std::map<std::string, const Hall*> halls;
    explicit Index(const Scenario& s) {
        for (const auto& h : s.halls) {
            halls[h.id] = &h;
            for (const auto& row : h.rows)
                for (const auto& r : row.racks) racks[r.id] = &r;
            for (const auto& u : h.cooling_units) units[u.id] = &u;
            for (const auto& c : h.cdus) cdus[c.id] = &c;
        }
    }
};

void racks(const Index& a, const Index& b, std::vector<std::string>& out) {
    addedRemoved("racks", a.racks, b.racks, out);
    std::vector<std::string> moved, turned, servers, models, doors;
    for (const auto& [id, rb] : b.racks) {
        const auto it = a.racks.find(id);
        if (it == a.racks.end()) continue;
        const Rack& ra = *it->second;
        const double d = std::hypot(rb->position_m.x_m - ra.position_m.x_m, rb->position_m.y_m - ra.position_m.y_m);
        if (d > 0.01) moved.push_back(id + " " + num(d) + " m");
        if (rb->facing != ra.facing) turned.push_back(id);
        if (rb->nodes.size() != ra.nodes.size())
            servers.push_back(id + " " + std::to_string(ra.nodes.size()) + " → " + std::to_string(rb->nodes.size()));
        std::map<std::string, std::string> ma;
        for (const auto& n : ra.nodes) ma[n.id] = n.model;
        for (const auto& n : rb->nodes)
            if (ma.count(n.id) && ma[n.id] != n.model) models.push_back(n.id + " " + ma[n.id] + " → " + n.model);
        if (rb->rear_door.has_value() != ra.rear_door.has_value()) doors.push_back(id + (rb->rear_door ? " gains one" : " loses its"));
    }
    if (!moved.empty()) out.push_back(listed("racks moved", moved));
    if (!turned.empty()) out.push_back(listed("racks turned", turned));
    if (!servers.empty()) out.push_back(listed("servers per rack changed", servers));
    if (!models.empty()) out.push_back(listed("server models changed", models));
    if (!doors.empty()) out.push_back(listed("rear-door coolers", doors));
}

void cooling(const Index& a, const Index& b, std::vector<std::string>& out) {
    addedRemoved("cooling units", a.units, b.units, out);
    addedRemoved("CDUs", a.cdus, b.cdus, out);
    for (const auto& [id, ub] : b.units) {
        const auto it = a.units.find(id);
        if (it == a.units.end()) continue;
        const CoolingUnit& ua = *it->second;
        std::vector<std::string> what;
        if (ub->model != ua.model) what.push_back("model " + ua.model + " → " + ub->model);
        const double d = std::hypot(ub->position_m.x_m - ua.position_m.x_m, ub->position_m.y_m - ua.position_m.y_m);
        if (d > 0.01) what.push_back("moved " + num(d) + " m");
        if (std::abs(ub->supply_setpoint_c - ua.supply_setpoint_c) > 1e-9)
            what.push_back("supply setpoint " + num(ua.supply_setpoint_c) + " → " + num(ub->supply_setpoint_c) + " °C");
        if (ub->fan_speed != ua.fan_speed)
            what.push_back("fans " + (ua.fan_speed ? num(100 * *ua.fan_speed, 0) + " %" : std::string("following the racks")) + " → " +
                           (ub->fan_speed ? num(100 * *ub->fan_speed, 0) + " %" : std::string("following the racks")));
        if (!what.empty()) {
            std::string s = id + ":";
            for (std::size_t i = 0; i < what.size(); ++i) s += (i ? ", " : " ") + what[i];
            out.push_back(s);
        }
    }
    for (const auto& [id, hb] : b.halls) {
        const auto it = a.halls.find(id);
        if (it != a.halls.end() && it->second->containments != hb->containments)
            out.push_back(id + ": containment changed (" + std::to_string(it->second->containments.size()) + " → " +
                          std::to_string(hb->containments.size()) + " contained aisles)");
    }
}

template <class T>
std::map<std::string, const T*> byId(const std::vector<T>& v) {
    std::map<std::string, const T*> m;
    for (const auto& x : v) m[x.id] = &x;
    return m;
}

}  // namespace

std::vector<std::string> scenarioChanges(const Scenario& before, const Scenario& after) {
    std::vector<std::string> out;
    const Index a(before), b(after);
    addedRemoved("halls", a.halls, b.halls, out);
    racks(a, b, out);
    cooling(a, b, out);
    addedRemoved("utility feeds", byId(before.power.feeds), byId(after.power.feeds), out);
    addedRemoved("UPSs", byId(before.power.ups), byId(after.power.ups), out);
    addedRemoved("floor PDUs", byId(before.power.pdus), byId(after.power.pdus), out);
    const auto ups_before = byId(before.power.ups);  // held: an iterator into a temporary map was used after it went
    for (const auto& [id, ub] : byId(after.power.ups)) {
        const auto ua = ups_before.find(id);
        if (ua != ups_before.end() && (ua->second->model != ub->model || ua->second->modules != ub->modules))
            out.push_back(id + ": " + std::to_string(ua->second->modules) + " × " + ua->second->model + " → " +
                          std::to_string(ub->modules) + " × " + ub->model);
    }
    if (before.network.topology != after.network.topology || before.network.link_speed_gbps != after.network.link_speed_gbps)
        out.push_back("network: " + before.network.topology + ", " + num(before.network.link_speed_gbps, 0) + " Gb/s → " +
                      after.network.topology + ", " + num(after.network.link_speed_gbps, 0) + " Gb/s");
    addedRemoved("jobs", byId(before.jobs), byId(after.jobs), out);
    if (before.events != after.events)
        out.push_back("events: " + std::to_string(before.events.size()) + " → " + std::to_string(after.events.size()) + " scheduled");
    return out;
}

}  // namespace ct::model
