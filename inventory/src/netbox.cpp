// A scenario from a NetBox inventory: see netbox.hpp.
#include <clustertwin/importers/format.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/inventory/netbox.hpp>

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/units.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace ct::inventory {

namespace {

using importers::ImportError;
using nlohmann::json;

/// obj[key] when it is a string, else `dflt`.
std::string jsonText(const json& obj, const char* key, const std::string& dflt = {}) {
    if (!obj.is_object()) return dflt;
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : dflt;
}

std::string norm(const std::string& s) {
    std::string out;
    for (unsigned char c : s)
        if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
    return out;
}

/// An id for the scenario from a NetBox name: lower case, [a-z0-9-], never empty.
std::string slugOf(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
        else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? "x" : out;
}

double num(const json& o, const char* key, double dflt) {
    if (!o.is_object() || !o.contains(key)) return dflt;
    const json& v = o[key];
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
        try {
            return std::stod(v.get<std::string>());  // NetBox writes decimals as strings in places
        } catch (const std::exception&) {}
    }
    return dflt;
}

long idOf(const json& o, const char* key) {
    if (!o.is_object() || !o.contains(key)) return -1;
    const json& v = o[key];
    if (v.is_number_integer()) return v.get<long>();
    if (v.is_object() && v.contains("id") && v["id"].is_number_integer()) return v["id"].get<long>();
    return -1;
}

/// value of a {value, label} choice, or the string itself.
std::string choice(const json& o, const char* key) {
    if (!o.is_object() || !o.contains(key)) return {};
    const json& v = o[key];
    if (v.is_object()) return jsonText(v, "value");
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number()) return std::to_string(v.get<long>());
    return {};
}

struct Inventory {
    std::map<long, json> sites, locations, racks, types, devices, floorplans;
};

/// Which endpoint an object came from, by its fields.
const char* kindOf(const json& o) {
    if (!o.is_object()) return nullptr;
    if (o.contains("canvas")) return "floorplans";
    if (o.contains("device_type")) return "devices";
    if (o.contains("manufacturer") && o.contains("model") && o.contains("u_height")) return "device_types";
    if (o.contains("u_height") && o.contains("site")) return "racks";
    if (o.contains("site") && o.contains("parent")) return "locations";
    if (o.contains("slug") && (o.contains("facility") || o.contains("time_zone") || o.contains("physical_address") || o.contains("region")))
        return "sites";
    return nullptr;
}

void collect(const std::string& file, Inventory& inv, InventoryReport& rep) {
    json doc;
    std::string text;
    try {
        text = model::readTextFile(file);
        doc = json::parse(text);
    } catch (const json::exception& e) {
        rep.errors.push_back(file + ":" + std::to_string(importers::jsonErrorLine(text, e)) + ": not JSON: " + e.what());
        return;
    } catch (const std::exception& e) {
        rep.errors.push_back(file + ": " + e.what());
        return;
    }
    auto take = [&](const json& list, const std::string& ptr, const char* forced) {
        if (!list.is_array()) {
            rep.errors.push_back(file + ": " + ptr + ": expected an array of objects");
            return;
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
            const json& o = list[i];
            const char* k = forced ? forced : kindOf(o);
            const long id = idOf(o, "id");
            if (!k || id < 0) {
                rep.errors.push_back(
                    file + ": " + ptr + "/" + std::to_string(i) +
                    ": not a NetBox site, location, rack, device type, device or floor plan (no id or unknown fields); skipped");
                continue;
            }
            std::map<long, json>& m = std::string(k) == "sites"          ? inv.sites
                                      : std::string(k) == "locations"    ? inv.locations
                                      : std::string(k) == "racks"        ? inv.racks
                                      : std::string(k) == "device_types" ? inv.types
                                      : std::string(k) == "devices"      ? inv.devices
                                                                         : inv.floorplans;
            m[id] = o;
        }
    };
    if (doc.is_object() && doc.contains("results")) take(doc["results"], "/results", nullptr);
    else if (doc.is_array()) take(doc, "", nullptr);
    else if (doc.is_object()) {
        bool any = false;
        for (const char* k : {"sites", "locations", "racks", "device_types", "devices", "floorplans"})
            if (doc.contains(k)) {
                take(doc[k], std::string("/") + k, k);
                any = true;
            }
        if (!any) rep.errors.push_back(file + ": not a NetBox API list (no \"results\") nor an object of sites, racks, devices...");
    } else {
        rep.errors.push_back(file + ": not a NetBox API list");
    }
}

const model::ServerModel* serverFor(const json& type, const model::Catalog& c) {
    const std::string slug = norm(jsonText(type, "slug")), m = norm(jsonText(type, "model"));
    for (const auto& s : c.servers)
        if (norm(s.id) == slug || norm(s.id) == m) return &s;
    for (const auto& s : c.servers) {
        const std::string name = norm(s.name);
        if ((!m.empty() && name.find(m) != std::string::npos) || (!slug.empty() && name.find(slug) != std::string::npos)) return &s;
    }
    return nullptr;
}

const model::RackModel* rackFor(const json& r, const model::Catalog& c, bool& exact) {
    const int u = static_cast<int>(num(r, "u_height", 42));
    const bool inch = choice(r, "outer_unit") == "in";
    const double w = num(r, "outer_width", 0) * (inch ? 0.0254 : 0.001), d = num(r, "outer_depth", 0) * (inch ? 0.0254 : 0.001);
    const model::RackModel* best = nullptr;
    double best_score = 1e300;
    for (const auto& m : c.racks) {
        const double score = std::abs(m.height_u - u) * 10 + (w > 0 ? std::abs(m.width_m - w) : 0) + (d > 0 ? std::abs(m.depth_m - d) : 0);
        if (score < best_score) best = &m, best_score = score;
    }
    exact = best_score < 0.06;
    return best;
}

double roundUp(double v) { return std::ceil(v / 0.6 - 1e-9) * 0.6; }

model::Facing facingOfAngle(double deg) {
    const int q = static_cast<int>(std::lround(std::fmod(std::fmod(deg, 360) + 360, 360) / 90)) % 4;
    return q == 0 ? model::Facing::North : q == 1 ? model::Facing::East : q == 2 ? model::Facing::South : model::Facing::West;
}

/// Rack centres (metres, y north) and facings from a floor plan's canvas: its rack groups, 100 canvas units per
/// metre, the canvas's y pointing down the plan. An angle of 0 faces north (up the plan), 90 east.
std::map<long, std::pair<model::Vec2, model::Facing>> floorplanRacks(const json& fp, double& w_m, double& d_m) {
    std::map<long, std::pair<model::Vec2, model::Facing>> out;
    w_m = num(fp, "width", 0) / 100.0;
    d_m = num(fp, "height", 0) / 100.0;
    const json canvas = fp.contains("canvas") && fp["canvas"].is_string() ? json::parse(fp["canvas"].get<std::string>(), nullptr, false)
                                                                          : fp.value("canvas", json());
    if (!canvas.is_object() || !canvas.contains("objects") || !canvas["objects"].is_array()) return out;
    for (const json& o : canvas["objects"]) {
        const json meta = o.value("custom_meta", json());
        if (!meta.is_object() || jsonText(meta, "object_type") != "rack") continue;
        const long id = idOf(meta, "object_id") >= 0 ? idOf(meta, "object_id") : static_cast<long>(num(meta, "object_id", -1));
        if (id < 0) continue;
        const double angle = num(o, "angle", 0);
        const double left = num(o, "left", 0), top = num(o, "top", 0), w = num(o, "width", 0) * num(o, "scaleX", 1),
                     h = num(o, "height", 0) * num(o, "scaleY", 1);
        const bool centred = jsonText(o, "originX") == "center";
        const double cx = centred ? left : left + w / 2, cy = centred ? top : top + h / 2;
        out[id] = {{cx / 100.0, d_m > 0 ? d_m - cy / 100.0 : -cy / 100.0}, facingOfAngle(angle)};
    }
    return out;
}

}  // namespace

namespace {

using Placement = std::pair<model::Vec2, model::Facing>;

/// Builds the scenario from a collected inventory, stage by stage: the site, the devices that can be simulated,
/// one hall per location (racks placed, grouped into rows, cooled), and the power chain.
class NetboxBuild {
public:
    NetboxBuild(const Inventory& inv, const model::Catalog& c, InventoryResult& res)
        : inv_(inv), c_(c), rep_(res.report), s_(res.scenario), crah_(c.coolingUnit("crah-cw-120kw")) {}

    void run() {
        chooseSite();
        sortDevices();
        std::map<long, std::vector<long>> hall_racks;  // racks without a location share one hall named after the site
        for (const auto& [id, r] : inv_.racks)
            if (idOf(r, "site") == site_id_) hall_racks[idOf(r, "location")].push_back(id);
        for (auto& [loc, rack_ids] : hall_racks) buildHall(loc, rack_ids);
        addPower();
        for (const auto& [what, n] : unmapped_) rep_.unmapped.push_back(std::to_string(n) + " × " + what);
        s_.network.topology = "none";
        s_.linkParents();
    }

private:
    /// The site: the one most racks stand in.
    void chooseSite() {
        std::map<long, int> per_site;
        for (const auto& [id, r] : inv_.racks) ++per_site[idOf(r, "site")];
        site_id_ = std::max_element(per_site.begin(), per_site.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
        const auto known = inv_.sites.find(site_id_);
        const json site = known != inv_.sites.end() ? known->second : inv_.racks.begin()->second.value("site", json::object());
        s_.id = slugOf(jsonText(site, "slug", jsonText(site, "name", "netbox-site")));
        s_.name = jsonText(site, "name", s_.id);
        s_.description = "Built from a NetBox inventory: " + std::to_string(inv_.racks.size()) + " racks, " +
                         std::to_string(inv_.devices.size()) + " devices";
        s_.site.id = s_.id + "-site";
        s_.site.name = s_.name;
        s_.site.location = jsonText(site, "physical_address", jsonText(site, "facility"));
        if (per_site.size() > 1)
            rep_.notes.push_back("racks of " + std::to_string(per_site.size() - 1) + " other site(s) left out: a scenario is one site");
    }

    const model::ServerModel* serverOf(const json& device) const {
        const auto t = type_server_.find(idOf(device, "device_type"));
        return t != type_server_.end() ? t->second : serverFor(device.value("device_type", json::object()), c_);
    }

    /// Device types → catalog servers; the devices that can be simulated by rack, the rest counted by why.
    void sortDevices() {
        for (const auto& [id, t] : inv_.types) type_server_[id] = serverFor(t, c_);
        for (const auto& [id, d] : inv_.devices) {
            const long rack = idOf(d, "rack");
            const json dt = d.value("device_type", json::object());
            const std::string what = jsonText(dt, "model", jsonText(dt, "display", "unknown type"));
            if (!serverOf(d)) ++unmapped_[what + " (no catalog server: not simulated)"];
            else if (rack < 0 || !inv_.racks.count(rack)) ++unmapped_[what + " (not in a rack of this site: left out)"];
            else if (num(d, "position", -1) < 1) ++unmapped_[what + " (racked without a U position: left out)"];
            else rack_devices_[rack].push_back(&d);
        }
    }

    std::string fresh(const std::string& base) {
        std::string id = base;
        for (int i = 2; used_ids_.count(id); ++i) id = base + "-" + std::to_string(i);
        used_ids_.insert(id);
        return id;
    }

    const json& rack(long id) const { return inv_.racks.at(id); }

    void buildHall(long loc, std::vector<long>& rack_ids) {
        model::Hall h;
        const auto found = inv_.locations.find(loc);
        const json location = found != inv_.locations.end() ? found->second : json::object();
        h.id = fresh(loc >= 0 ? slugOf(jsonText(location, "slug", jsonText(location, "name", "hall"))) : "hall");
        h.name = loc >= 0 ? jsonText(location, "name", h.id) : s_.name + " hall";
        h.height_m = 4.0;
        double fp_w = 0, fp_d = 0;
        const auto where = placeRacks(h, loc, rack_ids, fp_w, fp_d);
        double x_max = 0, y_max = 0;
        for (const auto& [rid, pf] : where) addRack(h, rid, pf, x_max, y_max);
        h.width_m = std::max(fp_w, roundUp(x_max + margin()));
        h.depth_m = std::max(fp_d, roundUp(y_max + 1.8));
        addCooling(h);
        h.site_position_m = {site_x_, 0};
        site_x_ += h.width_m + 10;
        s_.halls.push_back(std::move(h));
    }

    double margin() const { return roundUp(crah_->depth_m + 1.8); }

    /// Rack positions from this location's floor plan (or the site's, for racks without a location); racks
    /// without one in rows of ten beside each other, alternating to make hot and cold aisles.
    std::vector<std::pair<long, Placement>> placeRacks(const model::Hall& h, long loc, std::vector<long>& rack_ids, double& fp_w,
                                                       double& fp_d) {
        std::map<long, Placement> placed;
        for (const auto& [fid, fp] : inv_.floorplans)
            if ((loc >= 0 && idOf(fp, "location") == loc) || (loc < 0 && idOf(fp, "location") < 0 && idOf(fp, "site") == site_id_))
                placed = floorplanRacks(fp, fp_w, fp_d);
        std::sort(rack_ids.begin(), rack_ids.end(), [&](long a, long b) { return jsonText(rack(a), "name") < jsonText(rack(b), "name"); });
        std::vector<std::pair<long, Placement>> where;
        int k = 0;
        for (long rid : rack_ids) {
            if (const auto p = placed.find(rid); p != placed.end()) {
                where.emplace_back(rid, p->second);
                ++rep_.racks_placed;
                continue;
            }
            bool exact = false;
            const model::RackModel* rm = rackFor(rack(rid), c_, exact);
            const int row = k / 10, col = k % 10;
            ++k;
            const double y = margin() + rm->depth_m / 2 + row * (rm->depth_m + 1.2);
            where.emplace_back(
                rid, Placement{{margin() + (col + 0.5) * rm->width_m, y}, row % 2 == 0 ? model::Facing::North : model::Facing::South});
        }
        if (k > 0)
            rep_.notes.push_back("hall " + h.id + ": " + std::to_string(k) +
                                 " rack(s) without a floor-plan position laid out in rows of ten");
        return where;
    }

    /// Rack rid with its devices, into the row of racks facing the same way on its line (within 0.3 m across).
    void addRack(model::Hall& h, long rid, const Placement& pf, double& x_max, double& y_max) {
        const json& r = rack(rid);
        bool exact = false;
        const model::RackModel* rm = rackFor(r, c_, exact);
        if (!exact)
            ++unmapped_["rack " + jsonText(r, "name") + " (" + std::to_string(static_cast<int>(num(r, "u_height", 42))) +
                        "U) approximated as " + rm->id];
        model::Rack rk;
        rk.id = fresh(slugOf(jsonText(r, "name", "rack")));
        rk.name = jsonText(r, "name", rk.id);
        rk.model = rm->id;
        rk.position_m = {std::round(pf.first.x_m * 1000) / 1000, std::round(pf.first.y_m * 1000) / 1000};
        rk.facing = pf.second;
        for (const json* d : rack_devices_[rid]) {
            model::Node n;
            n.id = fresh(slugOf(jsonText(*d, "name", "device-" + std::to_string(idOf(*d, "id")))));
            n.name = jsonText(*d, "name");
            n.hostname = n.name;
            n.model = serverOf(*d)->id;
            n.u_position = static_cast<int>(std::floor(num(*d, "position", 1)));
            rk.nodes.push_back(std::move(n));
            ++rep_.nodes;
        }
        const model::Box2 b = model::footprint(rk.position_m, rm->width_m, rm->depth_m, rk.facing);
        x_max = std::max(x_max, b.x1);
        y_max = std::max(y_max, b.y1);
        auto across = [](const model::Rack& x) {
            const bool ns = x.facing == model::Facing::North || x.facing == model::Facing::South;
            return ns ? x.position_m.y_m : x.position_m.x_m;
        };
        auto row = std::find_if(h.rows.begin(), h.rows.end(), [&](const model::Row& x) {
            return x.racks.front().facing == rk.facing && std::abs(across(x.racks.front()) - across(rk)) < 0.3;
        });
        if (row == h.rows.end()) {
            model::Row nr;
            nr.id = fresh(h.id + "-row" + std::to_string(h.rows.size() + 1));
            nr.name = "Row " + std::to_string(h.rows.size() + 1);
            h.rows.push_back(nr);
            row = h.rows.end() - 1;
        }
        row->racks.push_back(std::move(rk));
    }

    /// NetBox has none of what cooling needs: perimeter CRAHs, N+1 for the hall's air heat, on the west and east
    /// walls (the hall grows deep enough to hold them).
    void addCooling(model::Hall& h) {
        double air = 0, load = 0;
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes)
                    if (const auto* sm = c_.server(n.model)) {
                        load += sm->max_power_w;
                        air += sm->max_power_w * (1 - sm->liquid_fraction);
                    }
        load_total_ += load;
        const int units = air > 0 ? static_cast<int>(std::ceil(air / crah_->capacity_w - 1e-9)) + 1 : 0;
        const int west_units = (units + 1) / 2;
        h.depth_m = std::max(h.depth_m, roundUp(west_units * (crah_->width_m + 0.6) + 1.2));
        for (int i = 0; i < units; ++i) {
            const bool west = i % 2 == 0;
            const int per = west ? west_units : units / 2;
            const int slot = i / 2;
            model::CoolingUnit u;
            u.id = fresh("crah-" + std::to_string(++unit_seq_));
            u.name = "CRAH " + std::to_string(unit_seq_);
            u.model = crah_->id;
            u.facing = west ? model::Facing::East : model::Facing::West;
            u.position_m = {west ? crah_->depth_m / 2 : h.width_m - crah_->depth_m / 2,
                            std::round(h.depth_m * (slot + 0.5) / per * 1000) / 1000};
            u.supply_setpoint_c = 20;
            h.cooling_units.push_back(u);
        }
        if (units > 0)
            rep_.notes.push_back("hall " + h.id + ": " + std::to_string(units) + " perimeter CRAHs (" + crah_->id + ", N+1 for " +
                                 std::to_string(static_cast<int>(air / 1000)) + " kW of air heat) added on the west and east walls");
    }

    /// A 2N chain sized to the load; every rack on PDUs that carry its servers.
    void addPower() {
        const model::UpsModel* ups = c_.upsModel("ups-500kw");
        for (const char* side : {"a", "b"}) {
            const std::string S = side[0] == 'a' ? "A" : "B";
            s_.power.feeds.push_back(
                {std::string("util-") + side, "Utility feed " + S, std::ceil(std::max(load_total_, 1e5) * 1.1 / 1e5) * 1e5, 0.0, {}});
            s_.power.ups.push_back({std::string("ups-") + side,
                                    "UPS " + S,
                                    ups->id,
                                    std::string("util-") + side,
                                    std::max(1, static_cast<int>(std::ceil(load_total_ / ups->capacity_w - 1e-9))),
                                    {}});
        }
        for (auto& h : s_.halls)
            for (auto& row : h.rows) {
                double row_load = 0;
                for (auto& r : row.racks) {
                    double rl = 0;
                    for (const auto& n : r.nodes) rl += c_.server(n.model)->max_power_w;
                    row_load += rl;
                    r.pdus = model::rackPdusFor(r.id, "pdu-" + row.id + "-a", "pdu-" + row.id + "-b", std::max(rl, 1.0));
                    std::vector<std::string> feeds;
                    for (const auto& p : r.pdus) feeds.push_back(p.id);
                    for (auto& n : r.nodes) n.feeds = feeds;
                }
                for (const char* side : {"a", "b"})
                    s_.power.pdus.push_back({"pdu-" + row.id + "-" + side,
                                             "Floor PDU " + row.id + " " + (side[0] == 'a' ? "A" : "B"),
                                             std::string("ups-") + side,
                                             std::max(50e3, std::ceil(row_load / 50e3) * 50e3),
                                             {}});
            }
        rep_.notes.push_back(
            "power: a 2N chain (utility feeds, UPS A and B, a floor PDU per row and side) sized to the servers' nameplate, " +
            std::to_string(static_cast<int>(load_total_ / 1000)) + " kW");
    }

    const Inventory& inv_;
    const model::Catalog& c_;
    InventoryReport& rep_;
    model::Scenario& s_;
    const model::CoolingUnitModel* crah_;
    long site_id_ = -1;
    std::map<long, const model::ServerModel*> type_server_;
    std::map<std::string, int> unmapped_;  ///< what was left out or approximated, with how many of each
    std::map<long, std::vector<const json*>> rack_devices_;
    std::set<std::string> used_ids_;
    double site_x_ = 0, load_total_ = 0;
    int unit_seq_ = 0;
};

}  // namespace

InventoryResult importNetbox(const std::vector<std::string>& files, const model::Catalog& c) {
    InventoryResult res;
    InventoryReport& rep = res.report;
    Inventory inv;
    for (const auto& f : files) collect(f, inv, rep);
    rep.sites = static_cast<int>(inv.sites.size());
    rep.locations = static_cast<int>(inv.locations.size());
    rep.racks = static_cast<int>(inv.racks.size());
    rep.device_types = static_cast<int>(inv.types.size());
    rep.devices = static_cast<int>(inv.devices.size());
    rep.floorplans = static_cast<int>(inv.floorplans.size());
    if (inv.racks.empty())
        throw ImportError(rep.errors.empty() ? "no NetBox racks in the files given (export /api/dcim/racks/ with the rest)"
                                             : "no NetBox racks read; first problem: " + rep.errors.front());
    NetboxBuild(inv, c, res).run();
    return res;
}

}  // namespace ct::inventory
