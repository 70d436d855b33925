// The hall builder's site: halls side by side, one 2N power chain and plant, the network (builder.hpp); each
// hall's floor comes from builder_layout.cpp.
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/fabric.hpp>

#include "builder_layout.hpp"

#include <algorithm>
#include <cmath>

namespace ct::model {

namespace {

double roundUpTo(double v, double step) { return std::round(std::ceil(v / step - 1e-9) * step * 1000.0) / 1000.0; }

void require(bool ok, const std::string& field, const std::string& msg) {
    if (!ok) throw ModelError("hall parameters: " + field + ": " + msg);
}

/// Halls, rows and racks per row for `p.gpus` GPUs: halls of at most `max_racks_per_hall` racks.
HallParams sizedForGpus(HallParams p, const Catalog& c) {
    const ServerModel* sm = c.server(p.server_model);
    require(sm, "server_model", "unknown server model '" + p.server_model + "'");
    const int per_rack = (sm->form_factor == "rack" ? 1 : p.nodes_per_rack) * sm->gpu_count;
    require(per_rack > 0, "gpus", "'" + p.server_model + "' has no GPUs");
    require(p.max_racks_per_hall >= 1, "max_racks_per_hall", "must be >= 1");
    const long racks = (static_cast<long>(p.gpus) + per_rack - 1) / per_rack;
    p.halls = static_cast<int>((racks + p.max_racks_per_hall - 1) / p.max_racks_per_hall);
    const long per_hall = (racks + p.halls - 1) / p.halls;
    p.racks_per_row = static_cast<int>(std::min<long>(p.racks_per_row, per_hall));
    p.rows = static_cast<int>((per_hall + p.racks_per_row - 1) / p.racks_per_row);
    return p;
}

}  // namespace

std::vector<RackPdu> rackPdusFor(const std::string& rack_id, const std::string& upstream_a, const std::string& upstream_b,
                                 double rack_load_w) {
    return detail::sizedRackPdus(rack_id, upstream_a, upstream_b, rack_load_w);
}

namespace {

/// What the halls hold together, and each hall's nameplate IT load.
struct Totals {
    double load = 0;
    std::vector<double> hall_load;
    int racks = 0, units = 0, inrow = 0, doors = 0, cdus = 0;
};

void checkParams(const HallParams& p, const Catalog& c) {
    require(p.halls >= 1 && p.halls <= 100, "halls", "must be within 1..100");
    require(c.upsModel(p.ups_model), "ups_model", "unknown UPS model '" + p.ups_model + "'");
    require(c.server(p.server_model), "server_model", "unknown server model '" + p.server_model + "'");
    for (const auto& [field, value, allowed] : {std::tuple{"cooling", p.cooling, "auto|perimeter|inrow|rear-door|liquid"},
                                                std::tuple{"containment", p.containment, "auto|hot|cold|none"}}) {
        const std::string list = allowed;
        bool ok = false;
        for (std::size_t a = 0, b; a <= list.size(); a = b + 1) {
            b = list.find('|', a);
            if (b == std::string::npos) b = list.size();
            ok = ok || list.compare(a, b - a, value) == 0;
        }
        require(ok, field, "'" + value + "' is not one of " + list);
    }
    require(c.containment(p.containment_model), "containment_model", "unknown containment '" + p.containment_model + "'");
}

/// The cooling and containment the halls get ("auto" resolved).
detail::HallPlan planFor(const HallParams& p, const Catalog& c) {
    const ServerModel* sm = c.server(p.server_model);
    detail::HallPlan plan;
    plan.p = &p;
    plan.c = &c;
    plan.cooling = p.cooling;
    if (plan.cooling == "auto") plan.cooling = sm->liquid_fraction > 0 ? "liquid" : detail::perimeterFits(p, c) ? "perimeter" : "inrow";
    // Containment (auto): hot aisles closed wherever rack density makes recirculation the rule without it: in-row
    // halls, and air-cooled racks of 10 kW or more (our threshold; halls without containment are built for less).
    const double rack_air_w = (sm->form_factor == "rack" ? 1 : p.nodes_per_rack) * sm->max_power_w * (1 - sm->liquid_fraction);
    plan.containment = p.containment != "auto"                             ? p.containment
                       : plan.cooling == "inrow"                           ? "hot"
                       : plan.cooling != "rear-door" && rack_air_w >= 10e3 ? "hot"
                                                                           : "none";
    return plan;
}

/// Lays out every hall beside the last (a 10 m road between them), with their floor PDUs and loops.
Totals layHalls(Scenario& s, const HallParams& p, const Catalog& c, detail::HallPlan plan) {
    const ServerModel* sm = c.server(p.server_model);
    Totals t;
    const long total_nodes = static_cast<long>(p.halls) * p.rows * p.racks_per_row * (sm->form_factor == "rack" ? 1 : p.nodes_per_rack);
    const std::string node_fmt = total_nodes > 9999 ? "n%06d" : "n%04d";
    int node_seq = 0;
    double x = 0;
    for (int i = 0; i < p.halls; ++i) {
        plan.index = i;
        plan.prefix = i == 0 ? "" : "h" + std::to_string(i + 1) + "-";
        plan.ups_a = plan.prefix + "ups-a";
        plan.ups_b = plan.prefix + "ups-b";
        plan.loop = plan.cooling == "inrow" || plan.cooling == "rear-door" ? plan.prefix + "chw-close" : "";
        detail::HallBuilt b = detail::layoutHall(plan, node_seq, node_fmt);
        b.hall.site_position_m = {x, 0};
        x += b.hall.width_m + 10.0;  // a 10 m road between halls
        t.load += b.it_load_w;
        t.hall_load.push_back(b.it_load_w);
        t.racks += b.racks;
        t.units += b.units;
        t.inrow += b.inrow;
        t.doors += b.doors;
        t.cdus += b.cdus;
        s.power.pdus.insert(s.power.pdus.end(), b.floor_pdus.begin(), b.floor_pdus.end());
        if (!plan.loop.empty())
            s.plant.loops.push_back({plan.loop,
                                     (p.halls > 1 ? b.hall.name + " " : std::string()) + "close-coupled chilled water",
                                     Plant{}.facility_water_temp_c,
                                     0,
                                     {}});
        s.halls.push_back(std::move(b.hall));
    }
    return t;
}

/// Power (2N): side A and B each carry the whole load on their own: one utility feed per side for the site,
/// a UPS per side in every hall. A campus (several halls) takes its feeds at medium voltage: each hall's UPS
/// hangs on a transformer bank of its own.
void addPower(Scenario& s, const HallParams& p, const Catalog& c, const Totals& t) {
    for (const char* side : {"a", "b"}) {
        const std::string S = side[0] == 'a' ? "A" : "B";
        const std::string feed = std::string("util-") + side;
        s.power.feeds.push_back(
            {feed, "Utility feed " + S + (p.halls > 1 ? " (medium voltage)" : ""), roundUpTo(t.load * 1.1, 100e3), 0.0, {}});
        for (int i = 0; i < p.halls; ++i) {
            const std::string px = i == 0 ? "" : "h" + std::to_string(i + 1) + "-";
            const std::string hall = i == 0 && p.halls == 1 ? "" : s.halls[i].name + " ";
            std::string upstream = feed;
            if (p.halls > 1) {
                upstream = px + "tx-" + side;
                s.power.transformers.push_back(
                    {upstream, hall + "transformer bank " + S, feed, roundUpTo(t.hall_load[i] * 1.1, 250e3), 0.99, {}});
            }
            s.power.ups.push_back({px + "ups-" + side,
                                   hall + "UPS " + S,
                                   p.ups_model,
                                   upstream,
                                   std::max(1, static_cast<int>(std::ceil(t.hall_load[i] / c.upsModel(p.ups_model)->capacity_w - 1e-9))),
                                   {}});
        }
    }
}

/// The fabric, checked buildable: its shape exactly as asked, the GPUs within what the radix connects.
void addFabric(Scenario& s, const HallParams& p, const Catalog& c) {
    const ServerModel* sm = c.server(p.server_model);
    s.network.topology = p.topology;
    s.network.levels = p.fat_tree_levels > 0 ? p.fat_tree_levels : 2;
    s.network.oversubscription = p.oversubscription;
    s.network.link_speed_gbps = p.link_speed_gbps > 0 ? p.link_speed_gbps : sm->nic_speed_gbps > 0 ? sm->nic_speed_gbps : 400;
    s.network.routing = p.routing;
    require(p.link_speed_gbps >= 0 && std::isfinite(p.link_speed_gbps), "link_speed_gbps", "must be > 0 (0 = the server's NIC speed)");
    require(p.routing.empty() || p.routing == "dmodk" || p.routing == "ecmp", "routing", "must be dmodk or ecmp, got '" + p.routing + "'");
    if (p.topology != "none") {
        long long ports = 0;  // one NIC port per GPU joins the tree
        for (const Hall& h : s.halls)
            for (const Row& row : h.rows)
                for (const Rack& r : row.racks) ports += static_cast<long long>(r.nodes.size()) * sm->gpu_count;
        std::string model = p.switch_model;
        if (model.empty()) {
            model = "ib-ndr-qm9700";
            const SwitchModel* ib = c.switchModel(model);
            const int radix = p.radix > 0 ? p.radix : ib ? ib->ports : 64;
            const FatTreeShape three = fatTreeShape(radix, 3, p.oversubscription);
            if (p.radix == 0 && three.error.empty() && ports > three.max_hosts && c.switchModel("eth-sn5600-400g"))
                model = "eth-sn5600-400g";
        }
        const SwitchModel* sw = c.switchModel(model);
        require(sw, "switch_model", "unknown switch model '" + model + "'");
        s.network.switch_model = model;
        s.network.radix = p.radix > 0 ? p.radix : sw->ports;
        s.network.rails = p.topology == "rail-optimized" ? sm->gpu_count : 0;
        // The fabric must be buildable: its shape exactly as asked, and the GPUs within what the radix connects
        // (the fewest levels that do, unless levels were given).
        FatTreeShape shape = fatTreeShape(s.network.radix, s.network.levels, p.oversubscription);
        require(shape.error.empty(), p.radix > 0 ? "radix" : "oversubscription", shape.error);
        if (p.fat_tree_levels == 0 && ports > shape.max_hosts) {
            s.network.levels = 3;
            shape = fatTreeShape(s.network.radix, 3, p.oversubscription);
        }
        const std::string too_many = fatTreeCapacityError(shape, s.network.radix, s.network.levels, p.oversubscription, ports);
        require(too_many.empty(), p.fat_tree_levels > 0 ? "fat_tree_levels" : "radix", too_many);
        s.description += " Fabric: " + p.topology + ", " + std::to_string(s.network.levels) + " levels of " + sw->name + " (radix " +
                         std::to_string(s.network.radix) + ", " + std::to_string(shape.down) + " down and " + std::to_string(shape.up) +
                         " up per leaf), " +
                         (!p.routing.empty()       ? p.routing
                          : sw->kind == "ethernet" ? "ecmp"
                                                   : "dmodk") +
                         " routing" +
                         (p.switch_model.empty() && model != "ib-ndr-qm9700"
                              ? " (chosen: 64-port InfiniBand switches cannot connect " + std::to_string(ports) + " GPUs in three levels)"
                              : std::string()) +
                         ".";
    }
}

}  // namespace

Scenario buildHall(const HallParams& params, const Catalog& c) {
    require(params.gpus >= 0 && params.gpus <= 2000000, "gpus", "must be within 0..2,000,000");
    const HallParams p = params.gpus > 0 ? sizedForGpus(params, c) : params;
    checkParams(p, c);
    const detail::HallPlan plan = planFor(p, c);
    const ServerModel* sm = c.server(p.server_model);
    Scenario s;
    s.id = p.id;
    s.name = p.name;
    s.site.id = p.id + "-site";
    s.site.name = p.name + " site";
    const Totals t = layHalls(s, p, c, plan);
    addPower(s, p, c, t);
    s.description = "Generated by the ClusterTwin hall builder: " + std::to_string(t.racks) + " racks of " + sm->name + " in " +
                    std::to_string(p.halls) + (p.halls == 1 ? " hall" : " halls") + " (" + std::to_string(p.rows) + " rows of " +
                    std::to_string(p.racks_per_row) + " each), " + plan.cooling + " cooling (" + std::to_string(t.units) +
                    " perimeter units, " + std::to_string(t.inrow) + " in-row coolers, " + std::to_string(t.doors) + " rear doors, " +
                    std::to_string(t.cdus) + " CDUs), " + (plan.containment == "none" ? std::string("no") : plan.containment + "-aisle") +
                    " containment.";
    addFabric(s, p, c);
    s.linkParents();
    return s;
}

}  // namespace ct::model
