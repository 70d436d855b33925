#include <clustertwin/model/edit.hpp>

#include "edit_parts.hpp"

#include <clustertwin/model/error.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>
#include <set>

namespace ct::model {

using detail::allIds;
using detail::fresh;
using detail::number;
using detail::require;
using detail::Where;

namespace {

Facing clockwise(Facing f) {
    switch (f) {
        case Facing::North:
            return Facing::East;
        case Facing::East:
            return Facing::South;
        case Facing::South:
            return Facing::West;
        case Facing::West:
            return Facing::North;
    }
    return f;
}

}  // namespace

double snapToTiles(double d_m, double tile_m) {
    if (!(tile_m > 0)) return d_m;
    return std::round(d_m / tile_m) * tile_m;
}

void moveEntities(Scenario& s, const std::vector<std::string>& ids, double dx_m, double dy_m) {
    std::vector<Where> ws;
    ws.reserve(ids.size());
    for (const auto& id : ids) ws.push_back(require(s, id));  // all found before anything moves
    for (const Where& w : ws) {
        const double tile = w.hall->tile_m > 0 ? w.hall->tile_m : 0.6;
        const double dx = snapToTiles(dx_m, tile), dy = snapToTiles(dy_m, tile);
        Vec2* p = w.rack && !w.node                    ? &w.rack->position_m
                  : w.unit                             ? &w.unit->position_m
                  : w.cdu                              ? &w.cdu->position_m
                  : w.sensor && w.sensor->rack.empty() ? &w.sensor->position_m
                                                       : nullptr;
        if (w.row && !w.rack) {
            for (auto& r : w.row->racks) {
                r.position_m.x_m += dx;
                r.position_m.y_m += dy;
            }
        } else if (p) {
            p->x_m += dx;
            p->y_m += dy;
        } else {
            throw ModelError(w.node ? "'" + w.node->id + "' cannot be moved on the floor (a node moves with its rack)"
                                    : "'" + w.sensor->id + "' cannot be moved on the floor (a rack's sensor moves with its rack)");
        }
    }
}

void rotateEntities(Scenario& s, const std::vector<std::string>& ids) {
    std::vector<Facing*> fs;
    for (const auto& id : ids) {
        Where w = require(s, id);
        if (w.rack && !w.node) fs.push_back(&w.rack->facing);
        else if (w.unit) fs.push_back(&w.unit->facing);
        else if (w.cdu) fs.push_back(&w.cdu->facing);
        else if (w.row && !w.rack)
            for (auto& r : w.row->racks) fs.push_back(&r.facing);
        else throw ModelError("'" + id + "' cannot be rotated");
    }
    for (Facing* f : fs) *f = clockwise(*f);
}

std::vector<std::string> duplicateRacks(Scenario& s, const Catalog& c, const std::vector<std::string>& ids) {
    std::vector<std::pair<Row*, Rack>> copies;
    std::set<std::string> used = allIds(s);
    std::vector<std::string> out;
    for (const auto& id : ids) {
        Where w = require(s, id);
        if (!w.rack || w.node) throw ModelError("'" + id + "' is not a rack; only racks are duplicated");
        Rack r = *w.rack;
        const RackModel* rm = c.rack(r.model);
        const double width = rm ? rm->width_m : 0.6;
        const double tile = w.hall->tile_m > 0 ? w.hall->tile_m : 0.6;
        const double step = std::ceil(width / tile - 1e-9) * tile;
        // Along the row: racks facing north or south stand side by side along x.
        if (r.facing == Facing::North || r.facing == Facing::South) r.position_m.x_m += step;
        else r.position_m.y_m += step;
        r.id = fresh(used, r.id + "-copy");
        r.name = r.name.empty() ? r.name : r.name + " (copy)";
        for (auto& n : r.nodes) {
            const std::string old = n.id;
            n.id = fresh(used, n.id + "-copy");
            n.hostname.clear();
            for (auto& g : n.gpus) g.uuid.clear();
        }
        std::map<std::string, std::string> pdu_ids;
        for (auto& p : r.pdus) {
            const std::string nid = fresh(used, p.id + "-copy");
            pdu_ids[p.id] = nid;
            p.id = nid;
        }
        for (auto& n : r.nodes)
            for (auto& f : n.feeds)
                if (pdu_ids.count(f)) f = pdu_ids[f];
        out.push_back(r.id);
        copies.emplace_back(w.row, std::move(r));
    }
    for (auto& [row, r] : copies) row->racks.push_back(std::move(r));
    s.linkParents();
    return out;
}

void removeEntities(Scenario& s, const std::vector<std::string>& ids) {
    std::set<std::string> containments;
    for (const auto& h : s.halls)
        for (const auto& c : h.containments) containments.insert(c.id);
    for (const auto& id : ids)
        if (!containments.count(id)) require(s, id);
    std::set<std::string> gone(ids.begin(), ids.end());
    std::set<std::string> gone_nodes;
    for (auto& h : s.halls) {
        for (auto& row : h.rows)
            for (auto& r : row.racks)
                if (gone.count(row.id) || gone.count(r.id)) {
                    gone.insert(r.id);
                    for (const auto& n : r.nodes) gone_nodes.insert(n.id);
                    for (const auto& p : r.pdus) gone.insert(p.id);
                }
        for (auto& row : h.rows)
            for (auto& r : row.racks)
                for (const auto& n : r.nodes)
                    if (gone.count(n.id)) gone_nodes.insert(n.id);
    }
    gone.insert(gone_nodes.begin(), gone_nodes.end());
    for (const auto& h : s.halls)
        for (const auto& u : h.cooling_units)
            if (gone.count(u.row)) gone.insert(u.id);  // in-row coolers go with their row
    for (auto& h : s.halls) {
        std::erase_if(h.rows, [&](const Row& row) { return gone.count(row.id) > 0; });
        for (auto& row : h.rows) {
            std::erase_if(row.racks, [&](const Rack& r) { return gone.count(r.id) > 0; });
            for (auto& r : row.racks) std::erase_if(r.nodes, [&](const Node& n) { return gone.count(n.id) > 0; });
        }
        std::erase_if(h.cooling_units, [&](const CoolingUnit& u) { return gone.count(u.id) > 0 || gone.count(u.row) > 0; });
        // A containment loses removed rows; with fewer than two left it closes nothing and goes too.
        for (auto& c : h.containments) std::erase_if(c.rows, [&](const std::string& r) { return gone.count(r) > 0; });
        std::erase_if(h.containments, [&](const Containment& c) { return gone.count(c.id) > 0 || c.rows.size() < 2; });
        std::erase_if(h.cdus, [&](const Cdu& u) { return gone.count(u.id) > 0; });
        for (auto& u : h.cdus) std::erase_if(u.racks, [&](const std::string& r) { return gone.count(r) > 0; });
        std::erase_if(h.sensors, [&](const Sensor& x) { return gone.count(x.id) > 0 || gone.count(x.rack) > 0; });  // with their rack
    }
    for (auto& j : s.jobs) std::erase_if(j.nodes, [&](const std::string& n) { return gone.count(n) > 0; });
    std::erase_if(s.events, [&](const Event& e) {
        if (gone.count(e.target)) return true;
        const auto slash = e.target.rfind("/gpu");  // GPU targets of removed nodes
        return slash != std::string::npos && gone.count(e.target.substr(0, slash)) > 0;
    });
    s.linkParents();
}

std::string addRow(Scenario& s, const std::string& hall_id, const std::string& name) {
    auto h = std::find_if(s.halls.begin(), s.halls.end(), [&](const Hall& x) { return x.id == hall_id; });
    if (h == s.halls.end()) throw ModelError("no hall with id '" + hall_id + "'");
    std::set<std::string> used = allIds(s);
    int n = static_cast<int>(h->rows.size()) + 1;
    std::string id;
    do {
        char buf[16];
        std::snprintf(buf, sizeof buf, "row%02d", n++);
        id = buf;
    } while (used.count(id));
    Row row;
    row.id = id;
    row.name = name.empty() ? "Row " + std::to_string(n - 1) : name;
    h->rows.push_back(row);
    s.linkParents();
    return id;
}

std::string addRack(Scenario& s, const Catalog& c, const std::string& row_id, const std::string& rack_model,
                    const std::string& server_model, int nodes, Vec2 position_m, Facing facing) {
    Where w = require(s, row_id);
    if (!w.row || w.rack) throw ModelError("'" + row_id + "' is not a row");
    const RackModel* rm = c.rack(rack_model);
    if (!rm) throw ModelError("unknown rack model '" + rack_model + "'");
    const ServerModel* sm = server_model.empty() ? nullptr : c.server(server_model);
    if (!server_model.empty() && !sm) throw ModelError("unknown server model '" + server_model + "'");
    if (nodes < 0 || (sm && nodes * sm->height_u > rm->height_u))
        throw ModelError(std::to_string(nodes) + " × " + server_model + " do not fit in " + std::to_string(rm->height_u) + "U");
    std::set<std::string> used = allIds(s);
    Rack r;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s-%02d", row_id.c_str(), static_cast<int>(w.row->racks.size()) + 1);
    r.id = fresh(used, buf);
    r.name = r.id;
    r.model = rack_model;
    r.position_m = position_m;
    r.facing = facing;
    // Power it like its neighbours; else from the first floor PDUs, sides A and B.
    if (!w.row->racks.empty()) {
        for (const auto& p : w.row->racks.front().pdus) {
            RackPdu q = p;
            q.id = fresh(used, r.id + "-pdu-" + p.feed);
            q.name.clear();
            r.pdus.push_back(q);
        }
    } else {
        const char* sides[] = {"A", "B"};
        for (std::size_t i = 0; i < std::min<std::size_t>(2, s.power.pdus.size()); ++i) {
            RackPdu q;
            q.feed = sides[i];
            q.upstream = s.power.pdus[i].id;
            q.id = fresh(used, r.id + "-pdu-" + q.feed);
            r.pdus.push_back(q);
        }
    }
    int u = 1;
    for (int i = 0; sm && i < nodes; ++i) {
        Node n;
        n.id = fresh(used, r.id + "-n" + std::to_string(i + 1));
        n.model = server_model;
        n.u_position = u;
        n.slot = 1 + i % sm->slot_count;  // side by side across the rack's width, then the next U up
        if (n.slot == sm->slot_count) u += sm->height_u;
        for (const auto& p : r.pdus) n.feeds.push_back(p.id);
        r.nodes.push_back(std::move(n));
    }
    std::string id = r.id;
    w.row->racks.push_back(std::move(r));
    s.linkParents();
    return id;
}

void setProperty(Scenario& s, const std::string& id, const std::string& key, const std::string& value) {
    Where w = require(s, id);
    if (w.sensor) return detail::setSensorProperty(*w.hall, *w.sensor, key, value);
    std::string* name = w.node ? &w.node->name : w.rack ? &w.rack->name : w.row ? &w.row->name : w.unit ? &w.unit->name : &w.cdu->name;
    Vec2* pos = w.node ? nullptr : w.rack ? &w.rack->position_m : w.unit ? &w.unit->position_m : w.cdu ? &w.cdu->position_m : nullptr;
    Facing* facing = w.node ? nullptr : w.rack ? &w.rack->facing : w.unit ? &w.unit->facing : w.cdu ? &w.cdu->facing : nullptr;
    if (key == "name") {
        *name = value;
    } else if ((key == "x_m" || key == "y_m") && pos) {
        (key == "x_m" ? pos->x_m : pos->y_m) = number(key, value);
    } else if (key == "facing" && facing) {
        const auto f = facingFromString(value);
        if (!f) throw ModelError("facing: '" + value + "' is not north, east, south or west");
        *facing = *f;
    } else if (key == "model" && (w.node || w.rack || w.unit || w.cdu)) {
        (w.node ? w.node->model : w.rack ? w.rack->model : w.unit ? w.unit->model : w.cdu->model) = value;
    } else if (key == "supply_setpoint_c" && w.unit) {
        w.unit->supply_setpoint_c = number(key, value);
    } else if (key == "fan_speed" && w.unit) {  // a share of full speed; empty: follow the racks' airflow again
        if (value.empty()) w.unit->fan_speed.reset();
        else w.unit->fan_speed = number(key, value);
    } else if (key == "supply_temp_c" && w.cdu) {
        w.cdu->supply_temp_c = number(key, value);
    } else if (key == "u_position" && w.node) {
        const double u = number(key, value);
        if (u < 1 || u != std::floor(u)) throw ModelError("u_position: must be a whole number from 1");
        w.node->u_position = static_cast<int>(u);
    } else if (key == "slot" && w.node) {
        const double v = number(key, value);
        if (v < 1 || v != std::floor(v)) throw ModelError("slot: must be a whole number from 1");
        w.node->slot = static_cast<int>(v);
    } else {
        throw ModelError("'" + key + "' is not an editable property of '" + id + "'");
    }
}

}  // namespace ct::model
