// Reading and writing a hall and what stands in it (rows, racks, nodes, units, CDUs, containment): see
// scenario_io.hpp. Private to the model library.
#include "scenario_io_parts.hpp"

namespace ct::model::detail {

namespace {

void read(ObjReader& r, NodeGpu& g) {
    r.get("index", g.index, true);
    r.get("uuid", g.uuid);
}

void read(ObjReader& r, Node& n, Diagnostics& d) {
    r.get("id", n.id, true);
    r.get("name", n.name);
    r.get("model", n.model, true);
    r.get("u_position", n.u_position, true);
    r.get("slot", n.slot);
    r.get("hostname", n.hostname);
    r.get("feeds", n.feeds);
    r.forEach("gpus", false, [&](const json& e, const std::string& p) {
        ObjReader gr(e, p, d);
        if (!gr.valid()) return;
        NodeGpu g;
        read(gr, g);
        g.extra = gr.finish();
        n.gpus.push_back(std::move(g));
    });
}

void read(ObjReader& r, RackPdu& p) {
    r.get("id", p.id, true);
    r.get("name", p.name);
    r.get("feed", p.feed, true);
    r.get("upstream", p.upstream, true);
    r.get("phases", p.phases);
    r.get("voltage_v", p.voltage_v);
    r.get("breaker_a", p.breaker_a, true);
    r.get("power_factor", p.power_factor);
}

void read(ObjReader& r, Rack& k, Diagnostics& d) {
    r.get("id", k.id, true);
    r.get("name", k.name);
    r.get("model", k.model, true);
    r.get("position_m", k.position_m, true);
    r.get("facing", k.facing, true);
    if (const json* rd = r.member("rear_door"); rd && !rd->is_null()) {
        ObjReader dr(*rd, r.pointer("rear_door"), d);
        if (dr.valid()) {
            RearDoor door;
            dr.get("model", door.model, true);
            dr.get("loop", door.loop);
            door.extra = dr.finish();
            k.rear_door = door;
        }
    }
    r.get("blanking", k.blanking);
    r.get("recirculation_fraction", k.recirculation_fraction);
    r.get("floor_gap_m", k.floor_gap_m);
    r.forEach("nodes", false, [&](const json& e, const std::string& p) {
        ObjReader nr(e, p, d);
        if (!nr.valid()) return;
        Node n;
        read(nr, n, d);
        n.extra = nr.finish();
        k.nodes.push_back(std::move(n));
    });
    r.forEach("pdus", false, [&](const json& e, const std::string& p) {
        ObjReader pr(e, p, d);
        if (!pr.valid()) return;
        RackPdu x;
        read(pr, x);
        x.extra = pr.finish();
        k.pdus.push_back(std::move(x));
    });
}

void read(ObjReader& r, CoolingUnit& u) {
    r.get("id", u.id, true);
    r.get("name", u.name);
    r.get("model", u.model, true);
    r.get("position_m", u.position_m, true);
    r.get("facing", u.facing, true);
    r.get("supply_setpoint_c", u.supply_setpoint_c, true);
    r.get("fan_speed", u.fan_speed);
    r.get("control", u.control);
    r.get("return_setpoint_c", u.return_setpoint_c);
    r.get("row", u.row);
    r.get("loop", u.loop);
}

void read(ObjReader& r, Cdu& c) {
    r.get("id", c.id, true);
    r.get("name", c.name);
    r.get("model", c.model, true);
    r.get("position_m", c.position_m, true);
    r.get("facing", c.facing);
    r.get("supply_temp_c", c.supply_temp_c, true);
    r.get("racks", c.racks, true);
}

}  // namespace

void readHall(ObjReader& r, Hall& h, Diagnostics& d) {
    r.get("id", h.id, true);
    r.get("name", h.name);
    r.get("width_m", h.width_m, true);
    r.get("depth_m", h.depth_m, true);
    r.get("height_m", h.height_m, true);
    r.get("tile_m", h.tile_m);
    r.get("site_position_m", h.site_position_m);
    if (const json* rf = r.member("raised_floor"); rf && !rf->is_null()) {
        ObjReader fr(*rf, r.pointer("raised_floor"), d);
        if (fr.valid()) {
            RaisedFloor f;
            fr.get("height_m", f.height_m, true);
            fr.get("tile", f.tile);
            f.extra = fr.finish();
            h.raised_floor = f;
        }
    }
    readList(r, "rows", false, h.rows, d, [&](ObjReader& rr, Row& row) {
        rr.get("id", row.id, true);
        rr.get("name", row.name);
        readList(rr, "racks", false, row.racks, d, [&](ObjReader& kr, Rack& k) { read(kr, k, d); });
    });
    readList(r, "cooling_units", false, h.cooling_units, d, [](ObjReader& ur, CoolingUnit& u) { read(ur, u); });
    readList(r, "cdus", false, h.cdus, d, [](ObjReader& cr, Cdu& c) { read(cr, c); });
    readList(r, "containments", false, h.containments, d, [](ObjReader& cr, Containment& c) {
        cr.get("id", c.id, true);
        cr.get("name", c.name);
        cr.get("kind", c.kind, true);
        cr.get("model", c.model);
        cr.get("rows", c.rows, true);
        cr.get("roof", c.roof);
        cr.get("end_doors", c.end_doors);
        cr.get("leakage_fraction", c.leakage_fraction);
    });
    readList(r, "sensors", false, h.sensors, d, [](ObjReader& sr, Sensor& x) {
        sr.get("id", x.id, true);
        sr.get("name", x.name);
        sr.get("rack", x.rack);
        sr.get("side", x.side);
        sr.get("height_m", x.height_m);
        sr.get("position_m", x.position_m);
        x.extra = sr.finish();
    });
    if (const json* cr = r.member("ceiling_return"); cr && !cr->is_null()) {
        ObjReader x(*cr, r.pointer("ceiling_return"), d);
        if (x.valid()) {
            CeilingReturn c;
            x.get("plenum_height_m", c.plenum_height_m);
            c.extra = x.finish();
            h.ceiling_return = c;
        }
    }
}

namespace {

ojson write(const CoolingUnit& u) {
    ojson x;
    x["id"] = u.id;
    putIfNotEmpty(x, "name", u.name);
    x["model"] = u.model;
    x["position_m"] = vec2(u.position_m);
    x["facing"] = std::string(toString(u.facing));
    x["supply_setpoint_c"] = num(u.supply_setpoint_c);
    if (u.fan_speed) x["fan_speed"] = num(*u.fan_speed);
    if (u.control != "supply") x["control"] = u.control;
    if (u.return_setpoint_c) x["return_setpoint_c"] = num(*u.return_setpoint_c);
    putIfNotEmpty(x, "row", u.row);
    putIfNotEmpty(x, "loop", u.loop);
    putExtras(x, u.extra);
    return x;
}

ojson write(const Node& n) {
    ojson o;
    o["id"] = n.id;
    putIfNotEmpty(o, "name", n.name);
    o["model"] = n.model;
    o["u_position"] = n.u_position;
    if (n.slot != 1) o["slot"] = n.slot;
    putIfNotEmpty(o, "hostname", n.hostname);
    if (!n.feeds.empty()) o["feeds"] = n.feeds;
    if (!n.gpus.empty()) {
        ojson a = ojson::array();
        for (const auto& g : n.gpus) {
            ojson go;
            go["index"] = g.index;
            putIfNotEmpty(go, "uuid", g.uuid);
            putExtras(go, g.extra);
            a.push_back(std::move(go));
        }
        o["gpus"] = std::move(a);
    }
    putExtras(o, n.extra);
    return o;
}

ojson write(const RackPdu& p) {
    ojson o;
    o["id"] = p.id;
    putIfNotEmpty(o, "name", p.name);
    o["feed"] = p.feed;
    o["upstream"] = p.upstream;
    o["phases"] = p.phases;
    o["voltage_v"] = num(p.voltage_v);
    o["breaker_a"] = num(p.breaker_a);
    o["power_factor"] = num(p.power_factor);
    putExtras(o, p.extra);
    return o;
}

ojson write(const Rack& k) {
    ojson o;
    o["id"] = k.id;
    putIfNotEmpty(o, "name", k.name);
    o["model"] = k.model;
    o["position_m"] = vec2(k.position_m);
    o["facing"] = std::string(toString(k.facing));
    if (k.rear_door) {
        ojson d;
        d["model"] = k.rear_door->model;
        putIfNotEmpty(d, "loop", k.rear_door->loop);
        putExtras(d, k.rear_door->extra);
        o["rear_door"] = std::move(d);
    }
    putIfNotEmpty(o, "blanking", k.blanking);
    if (k.recirculation_fraction) o["recirculation_fraction"] = num(*k.recirculation_fraction);
    if (k.floor_gap_m) o["floor_gap_m"] = num(*k.floor_gap_m);
    ojson pdus = ojson::array();
    for (const auto& p : k.pdus) pdus.push_back(write(p));
    o["pdus"] = std::move(pdus);
    ojson nodes = ojson::array();
    for (const auto& n : k.nodes) nodes.push_back(write(n));
    o["nodes"] = std::move(nodes);
    putExtras(o, k.extra);
    return o;
}

ojson writeSensors(const std::vector<Sensor>& sensors) {
    ojson xs = ojson::array();
    for (const auto& x : sensors) {
        ojson so;
        so["id"] = x.id;
        putIfNotEmpty(so, "name", x.name);
        if (!x.rack.empty()) {
            so["rack"] = x.rack;
            so["side"] = x.side;
        } else {
            so["position_m"] = vec2(x.position_m);
        }
        so["height_m"] = num(x.height_m);
        putExtras(so, x.extra);
        xs.push_back(std::move(so));
    }
    return xs;
}

}  // namespace

/// A hall as the file format writes it, field by field in the schema's order. Over 80 lines on purpose: one line
/// per field of the hall and its parts, in the order the file shows them (as scenarioToJson).
ojson writeHall(const Hall& h) {
    ojson o;
    o["id"] = h.id;
    putIfNotEmpty(o, "name", h.name);
    o["width_m"] = num(h.width_m);
    o["depth_m"] = num(h.depth_m);
    o["height_m"] = num(h.height_m);
    o["tile_m"] = num(h.tile_m);
    if (h.site_position_m != Vec2{}) o["site_position_m"] = vec2(h.site_position_m);
    if (h.raised_floor) {
        ojson f;
        f["height_m"] = num(h.raised_floor->height_m);
        f["tile"] = h.raised_floor->tile;
        putExtras(f, h.raised_floor->extra);
        o["raised_floor"] = std::move(f);
    }
    ojson units = ojson::array();
    for (const auto& u : h.cooling_units) units.push_back(write(u));
    o["cooling_units"] = std::move(units);
    ojson cdus = ojson::array();
    for (const auto& c : h.cdus) {
        ojson x;
        x["id"] = c.id;
        putIfNotEmpty(x, "name", c.name);
        x["model"] = c.model;
        x["position_m"] = vec2(c.position_m);
        x["facing"] = std::string(toString(c.facing));
        x["supply_temp_c"] = num(c.supply_temp_c);
        x["racks"] = c.racks;
        putExtras(x, c.extra);
        cdus.push_back(std::move(x));
    }
    o["cdus"] = std::move(cdus);
    ojson rows = ojson::array();
    for (const auto& row : h.rows) {
        ojson x;
        x["id"] = row.id;
        putIfNotEmpty(x, "name", row.name);
        ojson racks = ojson::array();
        for (const auto& k : row.racks) racks.push_back(write(k));
        x["racks"] = std::move(racks);
        putExtras(x, row.extra);
        rows.push_back(std::move(x));
    }
    o["rows"] = std::move(rows);
    if (!h.containments.empty()) {
        ojson cs = ojson::array();
        for (const auto& c : h.containments) {
            ojson x;
            x["id"] = c.id;
            putIfNotEmpty(x, "name", c.name);
            x["kind"] = c.kind;
            x["model"] = c.model;
            x["rows"] = c.rows;
            x["roof"] = c.roof;
            x["end_doors"] = c.end_doors;
            if (c.leakage_fraction) x["leakage_fraction"] = num(*c.leakage_fraction);
            putExtras(x, c.extra);
            cs.push_back(std::move(x));
        }
        o["containments"] = std::move(cs);
    }
    if (!h.sensors.empty()) o["sensors"] = writeSensors(h.sensors);
    if (h.ceiling_return) {
        ojson c;
        c["plenum_height_m"] = num(h.ceiling_return->plenum_height_m);
        putExtras(c, h.ceiling_return->extra);
        o["ceiling_return"] = std::move(c);
    }
    putExtras(o, h.extra);
    return o;
}

}  // namespace ct::model::detail
