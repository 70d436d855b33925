// One generated hall's floor: see builder_layout.hpp.
#include "builder_layout.hpp"

#include <clustertwin/model/error.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::model::detail {

namespace {

std::string fmt(const char* pattern, int a, int b = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, pattern, a, b);
    return buf;
}

/// Lengths are kept to whole millimetres so files read cleanly (no 7.199999999999999).
double mm(double v) { return std::round(v * 1000.0) / 1000.0; }
double roundUpTo(double v, double step) { return mm(std::ceil(v / step - 1e-9) * step); }

void require(bool ok, const std::string& field, const std::string& msg) {
    if (!ok) throw ModelError("hall parameters: " + field + ": " + msg);
}

constexpr double kTile = 0.6;

/// Everything sized from the parameters before anything is placed.
struct Sizing {
    const ServerModel* sm = nullptr;
    const RackModel* rm = nullptr;
    const CoolingUnitModel* um = nullptr;   ///< perimeter units
    const CoolingUnitModel* irc = nullptr;  ///< in-row coolers
    const CduModel* cm = nullptr;
    const RearDoorModel* door = nullptr;
    int nodes_per_rack = 1;
    double rack_load = 0, rack_air = 0, rack_liquid = 0;
    int units = 0, cdus = 0, inrow_per_row = 0;
    int pods = 1, rows_per_pod = 1;
    double row_len = 0, pod_depth = 0;
};

Sizing size(const HallParams& p, const Catalog& c, const std::string& cooling) {
    require(p.rows >= 1 && p.rows <= 1000, "rows", "must be within 1..1000");
    require(p.racks_per_row >= 1 && p.racks_per_row <= 1000, "racks_per_row", "must be within 1..1000");
    require(p.cold_aisle_m >= 0.6 && p.hot_aisle_m >= 0.6, "cold_aisle_m/hot_aisle_m", "aisles must be at least 0.6 m");
    require(p.wall_clearance_m >= 0.6, "wall_clearance_m", "must be at least 0.6 m");
    require(p.cooling_redundancy >= 0, "cooling_redundancy", "must be >= 0");
    require(p.ceiling_height_m >= 2.5, "ceiling_height_m", "must be at least 2.5 m");
    require(p.raised_floor_m >= 0 && p.raised_floor_m < 2, "raised_floor_m", "must be within 0..2 m");
    require(p.pods >= 0 && p.pods <= p.rows, "pods", "must be within 0..rows (0 = chosen)");
    require(p.pod_gap_m >= 1.2, "pod_gap_m", "must be at least 1.2 m");
    Sizing z;
    z.sm = c.server(p.server_model);
    require(z.sm, "server_model", "unknown server model '" + p.server_model + "'");
    z.rm = c.rack(p.rack_model);
    require(z.rm, "rack_model", "unknown rack model '" + p.rack_model + "'");
    z.um = c.coolingUnit(p.cooling_unit_model);
    require(z.um, "cooling_unit_model", "unknown cooling unit model '" + p.cooling_unit_model + "'");
    require(z.um->kind != "in-row", "cooling_unit_model",
            "'" + p.cooling_unit_model + "' is an in-row cooler; give it as the in-row model");
    const bool rack_scale = z.sm->form_factor == "rack";
    z.nodes_per_rack = rack_scale ? 1 : p.nodes_per_rack;
    require(z.nodes_per_rack >= 1, "nodes_per_rack", "must be >= 1");
    require(z.nodes_per_rack * z.sm->height_u <= z.rm->height_u, "nodes_per_rack",
            std::to_string(z.nodes_per_rack) + " × " + std::to_string(z.sm->height_u) + "U do not fit in a " +
                std::to_string(z.rm->height_u) + "U rack");
    require(z.um->min_supply_temp_c <= p.supply_setpoint_c && p.supply_setpoint_c <= z.um->max_supply_temp_c, "supply_setpoint_c",
            "outside the cooling unit's range");
    z.rack_load = z.nodes_per_rack * z.sm->max_power_w;
    z.rack_liquid = z.rack_load * z.sm->liquid_fraction;
    z.rack_air = z.rack_load - z.rack_liquid;
    const int racks = p.rows * p.racks_per_row;
    if (cooling == "liquid")
        require(z.rack_liquid > 0, "cooling", "liquid cooling needs servers with cold plates; '" + p.server_model + "' is air-cooled");
    if (z.rack_liquid > 0) {
        z.cm = c.cdu(p.cdu_model);
        require(z.cm, "cdu_model", "unknown CDU model '" + p.cdu_model + "' (the servers need liquid cooling)");
        z.cdus = static_cast<int>(std::ceil(z.rack_liquid * racks / z.cm->capacity_w - 1e-9)) + p.cooling_redundancy;
    }
    const double air = z.rack_air * racks;
    if (cooling == "inrow") {
        z.irc = c.coolingUnit(p.inrow_model);
        require(z.irc && z.irc->kind == "in-row", "inrow_model", "'" + p.inrow_model + "' is not an in-row cooler in the catalog");
        require(std::fabs(z.irc->depth_m - z.rm->depth_m) < 0.05, "inrow_model",
                "its depth does not match the racks' (they stand in line)");
        if (z.rack_air > 0)
            z.inrow_per_row =
                static_cast<int>(std::ceil(z.rack_air * p.racks_per_row / z.irc->capacity_w - 1e-9)) + std::max(1, p.cooling_redundancy);
    } else if (cooling == "rear-door") {
        if (!p.rear_door_model.empty()) {
            z.door = c.rearDoor(p.rear_door_model);
            require(z.door, "rear_door_model", "unknown rear door '" + p.rear_door_model + "'");
        } else {
            for (const auto& d : c.rear_doors)
                if (d.max_capacity_w >= z.rack_air && (!z.door || d.max_capacity_w < z.door->max_capacity_w)) z.door = &d;
            require(z.door, "rear_door_model", "no rear door in the catalog carries a rack of " + std::to_string(z.rack_air / 1e3) + " kW");
        }
        // At full load the racks breathe the setpoint; the door takes ε ρ c_p Q (T_exhaust − T_water) of it.
        const double q = z.nodes_per_rack * z.sm->airflow_m3s, rho_cp = units::kAirDensityKgM3 * units::kAirCpJPerKgK;
        const double t_ex = p.supply_setpoint_c + z.rack_air / (rho_cp * q);
        const double taken =
            std::min(z.door->max_capacity_w, z.door->effectiveness() * rho_cp * q * std::max(0.0, t_ex - Plant{}.facility_water_temp_c));
        const double rest = std::max(0.0, z.rack_air - taken) * racks;
        z.units = std::max(2, static_cast<int>(std::ceil(rest / z.um->capacity_w - 1e-9)) + p.cooling_redundancy);
    } else if (air > 0) {
        z.units = static_cast<int>(std::ceil(air / z.um->capacity_w - 1e-9)) + p.cooling_redundancy;
    }
    z.row_len = p.racks_per_row * z.rm->width_m + (z.irc ? z.inrow_per_row * z.irc->width_m : 0.0);
    return z;
}

double podDepth(const HallParams& p, const Sizing& z, int rows, bool hot_first) {
    double d = rows * z.rm->depth_m;
    for (int r = 0; r + 1 < rows; ++r) d += ((r % 2 == 0) != hot_first) ? p.cold_aisle_m : p.hot_aisle_m;
    return d;
}

/// Where everything goes: pods across the hall, zones along the walls, perimeter units on as many walls as needed.
struct Floor {
    double width = 0, depth = 0;
    double west = 0, south = 0;  ///< the rows' region starts here
    double side_zone = 0, north_units_zone = 0, south_units_zone = 0, cdu_zone = 0;
    int units_we = 0, units_north = 0, units_south = 0;
    bool fits = true;
    double growth = 1;  ///< width / the width the rows alone would need
};

Floor plan(const HallParams& p, const Sizing& z) {
    Floor f;
    const double clear = p.wall_clearance_m;
    const double pitch = z.um->width_m + kTile;
    const double rows_w = z.pods * z.row_len + (z.pods - 1) * p.pod_gap_m;
    f.cdu_zone = z.cm ? roundUpTo(z.cm->depth_m + clear, kTile) : 0;
    f.side_zone = z.units > 0 ? roundUpTo(z.um->depth_m + clear, kTile) : roundUpTo(clear, kTile);
    auto layout = [&](bool north, bool south) {
        f.north_units_zone = north ? roundUpTo(z.um->depth_m, kTile) : 0;
        f.south_units_zone = south ? roundUpTo(z.um->depth_m, kTile) : 0;
        f.width = roundUpTo(2 * f.side_zone + rows_w, kTile);
        if (z.cm) f.width = std::max(f.width, roundUpTo(2 * f.side_zone + z.cdus * (z.cm->width_m + kTile), kTile));
        f.depth = roundUpTo(f.cdu_zone + f.south_units_zone + 2 * clear + z.pod_depth + f.north_units_zone, kTile);
        f.west = mm((f.width - rows_w) / 2);
        f.south = mm(f.cdu_zone + f.south_units_zone + clear);
        const int we = 2 * std::max(0, static_cast<int>(std::floor((f.depth - f.cdu_zone - 2 * kTile) / pitch + 1e-9)));
        const int ns = std::max(0, static_cast<int>(std::floor((f.width - 2 * f.side_zone) / pitch + 1e-9)));
        f.units_we = std::min(z.units, we);
        int rest = z.units - f.units_we;
        f.units_north = north ? std::min(rest, ns) : 0;
        rest -= f.units_north;
        f.units_south = south ? std::min(rest, ns) : 0;
        rest -= f.units_south;
        f.fits = rest == 0;
    };
    layout(false, false);
    const double natural = f.width;
    if (!f.fits) layout(true, false);
    if (!f.fits && !z.cm) layout(true, true);
    if (!f.fits) {
        // Widen the hall until the north (and south) walls hold the rest, rows centred.
        const int walls = z.cm ? 1 : 2;
        const int rest = z.units - f.units_we;
        const int per_wall = (rest + walls - 1) / walls;
        f.width = std::max(f.width, roundUpTo(2 * f.side_zone + per_wall * pitch, kTile));
        f.west = mm((f.width - rows_w) / 2);
        f.units_north = std::min(rest, per_wall);
        f.units_south = rest - f.units_north;
        f.fits = true;
    }
    f.growth = f.width / natural;
    return f;
}

/// How much wider than its rows a perimeter hall may grow to hold its units on the walls: beyond this the
/// builder picks in-row cooling (auto) or refuses (perimeter asked for).
constexpr double kAutoGrowth = 2.0, kMaxGrowth = 3.0;

/// Pods (0 = choose): the count whose hall is nearest to square.
void choosePods(const HallParams& p, Sizing& z, bool hot_first) {
    auto apply = [&](int pods) {
        z.rows_per_pod = (p.rows + pods - 1) / pods;
        z.pods = (p.rows + z.rows_per_pod - 1) / z.rows_per_pod;
        z.pod_depth = podDepth(p, z, z.rows_per_pod, hot_first);
    };
    if (p.pods > 0) {
        apply(p.pods);
        return;
    }
    int best = 1;
    double best_score = 1e300;
    for (int pods = 1; pods <= std::min(p.rows, 16); ++pods) {
        apply(pods);
        if (z.pods != pods) continue;
        const double w = z.pods * z.row_len + (z.pods - 1) * p.pod_gap_m, d = z.pod_depth;
        const double score = std::fabs(std::log(w / d)) + (z.rows_per_pod % 2 ? 0.05 : 0.0);  // even pods pair their aisles
        if (score < best_score - 1e-9) best = pods, best_score = score;
    }
    apply(best);
}

}  // namespace

bool perimeterFits(const HallParams& p, const Catalog& c) {
    Sizing z = size(p, c, "perimeter");
    choosePods(p, z, false);
    return plan(p, z).growth <= kAutoGrowth;
}

std::vector<RackPdu> sizedRackPdus(const std::string& rack_id, const std::string& upstream_a, const std::string& upstream_b,
                                   double rack_load) {
    // Smallest standard breaker (3-phase 230/400 V) that carries the whole rack on one side within the 80 % rule,
    // using more PDUs per side when one is not enough.
    const double volts = 230, pf = 0.95;
    const double breakers[] = {16, 32, 63, 100, 125};
    int per_side = 0;
    double breaker = 0;
    for (int n = 1; n <= 4 && breaker == 0; ++n)
        for (double b : breakers)
            if (units::kContinuousLoadFraction * 3 * volts * b * pf * n >= rack_load) {
                breaker = b;
                per_side = n;
                break;
            }
    if (breaker == 0)
        throw ModelError("a rack of " + std::to_string(static_cast<int>(rack_load / 1000)) +
                         " kW is too much for four 125 A PDUs per side");
    std::vector<RackPdu> out;
    for (const char* side : {"a", "b"})
        for (int i = 0; i < per_side; ++i) {
            RackPdu pdu;
            pdu.id = rack_id + "-pdu-" + side + (per_side > 1 ? std::to_string(i + 1) : "");
            pdu.feed = side[0] == 'a' ? "A" : "B";
            pdu.upstream = side[0] == 'a' ? upstream_a : upstream_b;
            pdu.voltage_v = volts;
            pdu.breaker_a = breaker;
            pdu.power_factor = pf;
            out.push_back(std::move(pdu));
        }
    return out;
}

namespace {

/// One hall laid out from its plan: the shell, pods of rows (racks and in-row coolers along each), the
/// perimeter units, the CDUs.
class HallLayout {
public:
    HallLayout(const HallPlan& hp, int& node_seq, const std::string& node_fmt, const Sizing& z, const Floor& f)
        : hp_(hp), p_(*hp.p), z_(z), f_(f), px_(hp.prefix), node_seq_(node_seq), node_fmt_(node_fmt), h_(out_.hall) {}

    HallBuilt build() {
        shell();
        for (int pod = 0; pod < z_.pods; ++pod) addPod(pod);
        if (hp_.containment == "hot" && z_.units > 0) h_.ceiling_return = CeilingReturn{};
        perimeterUnits();
        cdus();
        out_.it_load_w = z_.rack_load * out_.racks;
        return std::move(out_);
    }

private:
    void shell() {
        h_.id = px_.empty() ? "hall1" : "hall" + std::to_string(hp_.index + 1);
        h_.name = "Hall " + std::to_string(hp_.index + 1);
        h_.width_m = f_.width;
        h_.depth_m = f_.depth;
        h_.height_m = p_.ceiling_height_m;
        h_.tile_m = kTile;
        if (p_.raised_floor_m > 0) {
            // A perforated tile (25 % open) passes ~0.25 m³/s at usual plenum pressures; racks that need much more
            // stand on grates, as high-density raised floors are built.
            RaisedFloor rf;
            rf.height_m = p_.raised_floor_m;
            rf.tile = z_.nodes_per_rack * z_.sm->airflow_m3s > 0.5 ? "grate-56" : "perforated-25";
            h_.raised_floor = rf;
        }
        spacing_ = z_.rm->height_u >= z_.nodes_per_rack * (z_.sm->height_u + 1) ? z_.sm->height_u + 1 : z_.sm->height_u;
    }

    void addPod(int pod) {
        const bool hot_first = hp_.containment == "hot";
        const double x0 = f_.west + pod * (z_.row_len + p_.pod_gap_m);
        double y = f_.south;
        Containment cont;
        cont.id = px_ + fmt("pod%02d", pod + 1);
        cont.name = "Pod " + std::to_string(pod + 1) + " " + hp_.containment + "-aisle containment";
        cont.kind = hp_.containment;
        cont.model = p_.containment_model;
        for (int i = 0; i < z_.rows_per_pod; ++i) {
            const int r = pod * z_.rows_per_pod + i;
            if (r >= p_.rows) break;
            const Facing facing = (i % 2 == 0) ? (hot_first ? Facing::South : Facing::North) : (hot_first ? Facing::North : Facing::South);
            Row row = buildRow(r, x0, mm(y + z_.rm->depth_m / 2), facing);
            cont.rows.push_back(row.id);
            h_.rows.push_back(std::move(row));
            y += z_.rm->depth_m + (((i % 2 == 0) != hot_first) ? p_.cold_aisle_m : p_.hot_aisle_m);
        }
        if (hp_.containment != "none" && cont.rows.size() >= 2) h_.containments.push_back(std::move(cont));
    }

    /// Row r with its floor PDUs: racks and in-row coolers from x0, the coolers spread evenly between the racks.
    Row buildRow(int r, double x0, double yc, Facing facing) {
        Row row;
        row.id = px_ + fmt("row%02d", r + 1);
        row.name = (px_.empty() ? "" : h_.name + " ") + fmt("Row %d", r + 1);
        const std::string row_pdu = "pdu-" + row.id + "-";
        const double row_load = z_.rack_load * p_.racks_per_row;
        for (const char* side : {"a", "b"})
            out_.floor_pdus.push_back({row_pdu + side,
                                       "Floor PDU " + row.name + " " + (side[0] == 'a' ? "A" : "B"),
                                       side[0] == 'a' ? hp_.ups_a : hp_.ups_b,
                                       roundUpTo(row_load, 50e3),
                                       {}});
        const int items = p_.racks_per_row + z_.inrow_per_row;
        double x = x0;
        int rack_k = 0, cooler_k = 0;
        for (int s = 0; s < items; ++s) {
            const bool cooler =
                z_.inrow_per_row > 0 && (s + 1) * z_.inrow_per_row / items > s * z_.inrow_per_row / items && cooler_k < z_.inrow_per_row;
            if (cooler || rack_k >= p_.racks_per_row) {
                addCooler(row.id, r, ++cooler_k, x, yc, facing);
                x += z_.irc->width_m;
                continue;
            }
            row.racks.push_back(buildRack(r, ++rack_k, x, yc, facing, row_pdu));
            x += z_.rm->width_m;
        }
        out_.inrow += cooler_k;
        return row;
    }

    void addCooler(const std::string& row_id, int r, int k, double x, double yc, Facing facing) {
        CoolingUnit u;
        u.id = px_ + fmt("irc-%02d-%02d", r + 1, k);
        u.name = "In-row cooler " + std::to_string(r + 1) + "-" + std::to_string(k);
        u.model = p_.inrow_model;
        u.position_m = {mm(x + z_.irc->width_m / 2), yc};
        u.facing = facing;
        u.supply_setpoint_c = p_.supply_setpoint_c;
        u.row = row_id;
        u.loop = hp_.loop;
        h_.cooling_units.push_back(u);
    }

    Rack buildRack(int r, int k, double x, double yc, Facing facing, const std::string& row_pdu) {
        Rack rack;
        rack.id = px_ + fmt("r%02d-%02d", r + 1, k);
        rack.name = "Rack " + std::to_string(r + 1) + "-" + std::to_string(k);
        rack.model = p_.rack_model;
        rack.position_m = {mm(x + z_.rm->width_m / 2), yc};
        rack.facing = facing;
        rack.pdus = sizedRackPdus(rack.id, row_pdu + "a", row_pdu + "b", z_.rack_load);
        std::vector<std::string> feeds;
        for (const auto& pdu : rack.pdus) feeds.push_back(pdu.id);
        for (int n = 0; n < z_.nodes_per_rack; ++n) {
            Node node;
            char buf[32];
            std::snprintf(buf, sizeof buf, node_fmt_.c_str(), ++node_seq_);
            node.id = buf;
            node.model = p_.server_model;
            node.u_position = 1 + n * spacing_;
            node.hostname = node.id;
            node.feeds = feeds;
            rack.nodes.push_back(std::move(node));
        }
        if (z_.door) {
            rack.rear_door = RearDoor{z_.door->id, hp_.loop, {}};
            ++out_.doors;
        }
        if (z_.rack_liquid > 0) liquid_racks_.push_back(rack.id);
        out_.nodes += z_.nodes_per_rack;
        ++out_.racks;
        return rack;
    }

    /// Perimeter units: the west and east walls first (facing the aisles), then the north and south walls.
    void perimeterUnits() {
        const double um_d = z_.um->depth_m;
        const int west = (f_.units_we + 1) / 2, east = f_.units_we / 2;
        int seq = 0;
        auto unit = [&](double x, double y, Facing facing) {
            CoolingUnit u;
            u.id = px_ + fmt("crah-%02d", ++seq);
            u.name = "CRAH " + std::to_string(seq);
            u.model = p_.cooling_unit_model;
            u.position_m = {mm(x), mm(y)};
            u.facing = facing;
            u.supply_setpoint_c = p_.supply_setpoint_c;
            h_.cooling_units.push_back(u);
        };
        const double span0 = f_.cdu_zone + f_.south_units_zone, span1 = f_.depth - f_.north_units_zone;
        for (int i = 0; i < f_.units_we; ++i) {
            const bool w = i % 2 == 0;
            const int k = i / 2, count = w ? west : east;
            unit(w ? um_d / 2 : f_.width - um_d / 2, span0 + (span1 - span0) * (k + 0.5) / count, w ? Facing::East : Facing::West);
        }
        const double x0 = f_.side_zone, x1 = f_.width - f_.side_zone;
        for (int i = 0; i < f_.units_north; ++i) unit(x0 + (x1 - x0) * (i + 0.5) / f_.units_north, f_.depth - um_d / 2, Facing::South);
        for (int i = 0; i < f_.units_south; ++i) unit(x0 + (x1 - x0) * (i + 0.5) / f_.units_south, f_.cdu_zone + um_d / 2, Facing::North);
        out_.units = seq;
    }

    void cdus() {
        for (int i = 0; i < z_.cdus; ++i) {
            Cdu cdu;
            cdu.id = px_ + fmt("cdu-%02d", i + 1);
            cdu.name = "CDU " + std::to_string(i + 1);
            cdu.model = p_.cdu_model;
            cdu.facing = Facing::North;
            cdu.position_m = {mm(f_.side_zone + (i + 0.5) * (z_.cm->width_m + kTile)), mm(z_.cm->depth_m / 2)};
            cdu.supply_temp_c = p_.cdu_supply_temp_c;
            cdu.racks = liquid_racks_;  // a shared secondary manifold: every CDU feeds every liquid rack
            h_.cdus.push_back(std::move(cdu));
        }
        out_.cdus = z_.cdus;
    }

    const HallPlan& hp_;
    const HallParams& p_;
    const Sizing z_;
    const Floor& f_;
    const std::string& px_;
    int& node_seq_;
    const std::string& node_fmt_;
    HallBuilt out_;
    Hall& h_;
    int spacing_ = 1;  ///< U between the nodes of a rack
    std::vector<std::string> liquid_racks_;
};

}  // namespace

HallBuilt layoutHall(const HallPlan& hp, int& node_seq, const std::string& node_fmt) {
    const HallParams& p = *hp.p;
    const Catalog& c = *hp.c;
    Sizing z = size(p, c, hp.cooling);
    const bool hot_first = hp.containment == "hot";
    if (hp.containment == "cold")
        require(p.raised_floor_m > 0 || hp.cooling == "inrow", "containment",
                "cold-aisle containment on a slab floor gets no cooled air; give a raised floor or use in-row cooling");
    choosePods(p, z, hot_first);
    const Floor f = plan(p, z);
    require(f.growth <= kMaxGrowth, "cooling",
            "perimeter cooling needs " + std::to_string(z.units) + " units along the walls, which would make the hall " +
                std::to_string(static_cast<int>(std::round(f.growth * 10)) / 10.0).substr(0, 3) +
                " times as wide as its rows; use in-row or rear-door cooling, or fewer racks per hall");
    return HallLayout(hp, node_seq, node_fmt, z, f).build();
}

}  // namespace ct::model::detail
