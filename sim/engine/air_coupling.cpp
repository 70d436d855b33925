// The coupling of the equipment and the room air (models.md §3): how much air every port of a hall moves (racks
// by their fans, cooling units by the air they serve, tiles and grilles by what the plenum and the ceiling duct
// carry, and the leaks of every contained aisle by what is left over, so that each sealed region takes in
// exactly what it gives out), and at every air sub-step the temperatures the racks and units set on their ports.
#include "engine/passes.hpp"

#include <clustertwin/model/containment.hpp>
#include <clustertwin/sim/air/air_solver.hpp>

#include <algorithm>
#include <cmath>

namespace ct::sim::detail {

void rackAirflow(Site& s) {
    // Rack by rack (each sums only its own nodes, in node order), across the pool in a campus; also each rack's
    // AC draw and heat to liquid for liquid() and the frame.
    s.forEach(s.racks.size(), [&](std::size_t ri) {
        RackRt& rr = s.racks[ri];
        for (auto& lv : rr.levels) lv.q_m3s = lv.heat_w = 0;
        rr.power_ac_w = rr.heat_liquid_w = 0;
        for (int ni : rr.nodes) {
            const NodeRt& n = s.nodes[static_cast<std::size_t>(ni)];
            rr.power_ac_w += n.power_ac_w;  // the rack's draw and liquid heat while its nodes are at hand
            rr.heat_liquid_w += n.heat_liquid_w;
            for (const auto& [lvl, share] : n.levels) {
                rr.levels[lvl].q_m3s += n.airflow_m3s * share;
                rr.levels[lvl].heat_w += n.heat_air_w * share;
            }
        }
    });
    for (auto& ur : s.units) ur.no_water = ur.loop >= 0 && s.loops[static_cast<std::size_t>(ur.loop)].failed;
}

namespace {

/// The port flows of one hall as they are set: what every region takes in and gives out (leaks aside), and what
/// its racks draw from and blow into each.
struct HallFlows {
    HallRt& hr;
    AirSolver& air;
    std::size_t nreg;
    std::vector<double> src, snk, rack_in, rack_out;
    std::vector<double> inrow_q;  ///< in-row air serving each sealed aisle
    explicit HallFlows(HallRt& h)
        : hr(h),
          air(*h.solver),
          nreg(h.regions.size()),
          src(nreg, 0),
          snk(nreg, 0),
          rack_in(nreg, 0),
          rack_out(nreg, 0),
          inrow_q(nreg, 0) {}
    std::size_t reg(int port) const { return port >= 0 ? static_cast<std::size_t>(hr.port_region[static_cast<std::size_t>(port)]) : 0; }
    void set(int port, double q, bool source) {
        if (port < 0) return;
        air.setPortFlow(port, q);
        (source ? src : snk)[reg(port)] += q;
    }
    bool sealed(std::size_t r) const { return r > 0 && !hr.regions[r].containment.empty(); }
    /// What a sealed aisle asks of the cooling: its racks' air less the leak.
    double need(std::size_t r) const {
        const AirRegion& g = hr.regions[r];
        return (1 - g.leakage) * (g.cold ? rack_in[r] : rack_out[r]);
    }
};

/// Air through a rack level's openings, back to front (models.md §3). The servers draw their air q through two
/// parallel paths into the depression p_s at their intake: their face F from the front aisle, Q_f = F·√(2p_s/ρ),
/// and the openings A from the back aisle, an orifice Q_b = C_d·A·√(2(p_s + Δp)/ρ) with the sharp-edged
/// orifice's C_d = 0.61 (Idelchik, Handbook of Hydraulic Resistance, 3rd ed., diagram 4-9; ISO 5167-2) and Δp
/// the pressure of the aisle off the rack's back over the one off its front (lattice air; signed: a negative
/// Q_b is air passing the openings from front to back, bypass). Q_f + Q_b = q fixes p_s (bisection; the sum
/// grows with p_s). Without the aisles' pressure (quick mode) the share is C_d·A/(F + C_d·A). Held to 0.9 q back
/// and half the servers' air in bypass, the most the lattice's jets were sized for.
double leakFlow(const RackLevel& lv, const AirSolver& air) {
    if (lv.open_m2 <= 0 || lv.q_m3s <= 0 || lv.face_m2 <= 0) return 0.0;
    constexpr double kDischarge = model::kOrificeDischarge, kRho = model::units::kAirDensityKgM3;
    const double back = air.probePressurePa(lv.back_probe), front = air.probePressurePa(lv.front_probe);
    const double dp = std::isfinite(back) && std::isfinite(front) ? back - front : 0.0;
    const double ca = kDischarge * lv.open_m2, q = lv.q_m3s;
    auto orifice = [&](double p) { return std::copysign(ca * std::sqrt(2 * std::fabs(p) / kRho), p); };
    auto total = [&](double ps) { return lv.face_m2 * std::sqrt(2 * ps / kRho) + orifice(ps + dp); };
    double lo = 0, hi = 0.5 * kRho * (q / lv.face_m2) * (q / lv.face_m2) + std::max(0.0, -dp);
    if (total(lo) >= q) return std::min(orifice(dp), 0.9 * q);  // the back's pressure alone feeds the servers
    for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        (total(mid) < q ? lo : hi) = mid;
    }
    return std::clamp(orifice(0.5 * (lo + hi) + dp), -0.5 * q, 0.9 * q);
}

/// Racks: the room's share of the servers' air passes the rack's front and back: their air less what comes
/// back through the rack (a fixed share, or the openings' air), plus what passes it the other way.
void rackPorts(Site& s, HallFlows& hf) {
    for (int ri : hf.hr.racks) {
        RackRt& rr = s.racks[static_cast<std::size_t>(ri)];
        for (auto& lv : rr.levels) {
            lv.leak_m3s = rr.fixed_recirculation ? *rr.fixed_recirculation * lv.q_m3s : leakFlow(lv, hf.air);
            const double q = lv.q_m3s - lv.leak_m3s;
            hf.set(lv.intake_port, q, false);
            hf.set(lv.exhaust_port, q, true);
            hf.rack_in[hf.reg(lv.intake_port)] += q;
            hf.rack_out[hf.reg(lv.exhaust_port)] += q;
        }
    }
}

/// In-row coolers serve the sealed aisle they draw from (hot) or blow into (cold); those in the open room share
/// its racks' air with the perimeter units in proportion to their airflow. Returns the live perimeter units'
/// airflow capacity.
double unitFlows(Site& s, HallFlows& hf) {
    const HallRt& hr = hf.hr;
    std::vector<std::size_t> serving(hr.units.size(), 0);
    std::vector<double> inrow_cap(hf.nreg, 0);
    double room_cap = 0;
    for (std::size_t k = 0; k < hr.units.size(); ++k) {
        const UnitRt& ur = s.units[static_cast<std::size_t>(hr.units[k])];
        if (ur.failed) continue;
        std::size_t r = 0;
        if (ur.inrow) {
            const std::size_t ret = hf.reg(ur.return_port), sup = hf.reg(ur.supply_port);
            if (hf.sealed(ret) && !hr.regions[ret].cold) r = ret;
            else if (hf.sealed(sup) && hr.regions[sup].cold) r = sup;
        }
        serving[k] = r;
        if (r > 0) inrow_cap[r] += ur.airflowCap();
        else room_cap += ur.airflowCap();
    }
    const double room_demand = s.unit_airflow_margin * std::max(hf.rack_in[0], hf.rack_out[0]);
    double perimeter_cap = 0;
    for (std::size_t k = 0; k < hr.units.size(); ++k) {
        UnitRt& ur = s.units[static_cast<std::size_t>(hr.units[k])];
        const std::size_t r = serving[k];
        const double cap = ur.airflowCap();
        const bool driven = ur.flowFixed();  // a measured airflow, or fans held at a speed, is what the unit moves
        if (ur.failed) {
            ur.q_m3s = 0;
        } else if (r > 0) {
            ur.q_m3s = driven ? cap : std::min(cap, hf.need(r) * cap / inrow_cap[r]);
            hf.inrow_q[r] += ur.q_m3s;
        } else {
            ur.q_m3s = driven ? cap : std::min(cap, room_cap > 0 ? room_demand * cap / room_cap : 0.0);
            if (!ur.inrow) perimeter_cap += cap;
        }
    }
    return perimeter_cap;
}

/// What each tile (cold) or grille (hot) asks for: a sealed aisle of that side its need less what in-row units
/// give it. `room_open`: some port (or, with none, the units' own supply/return) opens into the room.
std::vector<double> sideNeeds(const HallFlows& hf, const std::vector<int>& ports, bool cold, bool& room_open) {
    std::vector<double> want(ports.size(), 0);
    room_open = ports.empty();
    for (std::size_t i = 0; i < ports.size(); ++i) {
        const std::size_t r = hf.reg(ports[i]);
        if (!hf.sealed(r)) room_open = true;
        else if (hf.hr.regions[r].cold == cold) want[i] = std::max(0.0, hf.need(r) - hf.inrow_q[r]);
    }
    return want;
}

/// Spreads `total` over the ports: the sealed ones what they want (scaled down if it is short), the rest evenly.
void shareOut(HallFlows& hf, const std::vector<int>& ports, const std::vector<double>& want, double total, bool source) {
    double sum = 0;
    for (double w : want) sum += w;
    const double scale = sum > total && sum > 0 ? total / sum : 1.0;
    const double left = total - sum * scale;
    int room_ports = 0;
    for (int p : ports) room_ports += hf.sealed(hf.reg(p)) ? 0 : 1;
    for (std::size_t i = 0; i < ports.size(); ++i)
        hf.set(ports[i], hf.sealed(hf.reg(ports[i])) ? want[i] * scale : (room_ports > 0 ? left / room_ports : 0.0), source);
}

/// Perimeter units: through the tiles (raised floor) or their own supply, from the grilles (ducted return) or
/// their own return. Sealed aisles fed that way ask for their need less what in-row units give them; the room
/// takes the rest, and a side with no opening into the room caps the total at what its sealed aisles take.
void perimeterFlows(Site& s, HallFlows& hf, double perimeter_cap) {
    const HallRt& hr = hf.hr;
    double perimeter_q = 0;
    for (int ui : hr.units)
        if (!s.units[static_cast<std::size_t>(ui)].inrow) perimeter_q += s.units[static_cast<std::size_t>(ui)].q_m3s;
    bool supply_room = true, return_room = true;
    const auto tile_want = sideNeeds(hf, hr.tile_ports, true, supply_room);
    const auto grille_want = sideNeeds(hf, hr.grille_ports, false, return_room);
    double sealed_supply = 0, sealed_return = 0;
    for (double w : tile_want) sealed_supply += w;
    for (double w : grille_want) sealed_return += w;
    double total = std::max(perimeter_q, std::max(sealed_supply, sealed_return));
    total = std::min(total, perimeter_cap);
    if (!supply_room) total = std::min(total, sealed_supply);
    if (!return_room) total = std::min(total, sealed_return);
    if (perimeter_q > 0 || total > 0) {
        // Units that move a fixed airflow (measured, or fans held at a speed) keep it; the rest of the total is
        // spread over the other live perimeter units in proportion to their airflow.
        double held = 0, free_cap = 0;
        for (int ui : hr.units) {
            const UnitRt& ur = s.units[static_cast<std::size_t>(ui)];
            if (ur.inrow || ur.failed) continue;
            if (ur.flowFixed()) held += ur.q_m3s;
            else free_cap += ur.airflowCap();
        }
        const double held_scale = held > total ? total / held : 1.0, rest = std::max(0.0, total - held);
        for (int ui : hr.units) {
            UnitRt& ur = s.units[static_cast<std::size_t>(ui)];
            if (ur.inrow || ur.failed) continue;
            ur.q_m3s = ur.flowFixed() ? ur.q_m3s * held_scale : (free_cap > 0 ? rest * ur.airflowCap() / free_cap : 0.0);
        }
    }
    shareOut(hf, hr.tile_ports, tile_want, total, true);
    shareOut(hf, hr.grille_ports, grille_want, total, false);
    for (int ui : hr.units) {
        const UnitRt& ur = s.units[static_cast<std::size_t>(ui)];
        hf.set(ur.return_port, ur.q_m3s, false);
        hf.set(ur.supply_port, !ur.inrow && !hr.tile_ports.empty() ? 0.0 : ur.q_m3s, true);
    }
}

/// Leaks: each sealed aisle takes in exactly what it gives out; the difference crosses its panels.
void leakFlows(HallFlows& hf) {
    for (std::size_t r = 1; r < hf.nreg; ++r) {
        const AirRegion& g = hf.hr.regions[r];
        if (g.leak_in_sink < 0) continue;
        const double net = hf.src[r] - hf.snk[r];
        hf.air.setPortFlow(g.leak_in_sink, std::max(0.0, -net));
        hf.air.setPortFlow(g.leak_in_source, std::max(0.0, -net));
        hf.air.setPortFlow(g.leak_out_sink, std::max(0.0, net));
        hf.air.setPortFlow(g.leak_out_source, std::max(0.0, net));
    }
}

/// A unit's airflow as the room's fluxes carry it (its fans' flow at the last flow solve): by its own return or
/// supply port, else (a ducted return onto a raised floor) by the share the grilles carry.
double unitCarriedFlow(const HallRt& hr, const UnitRt& ur, const AirModel& air) {
    auto ratio = [&](int p) {
        const double q = p >= 0 ? air.portFlow(p) : 0.0;
        return q > 0 ? air.carriedFlow(p) / q : -1.0;
    };
    double r = ratio(ur.return_port);
    if (r < 0) r = ratio(ur.supply_port);
    if (r < 0 && !hr.grille_ports.empty()) {
        double asked = 0, carried = 0;
        for (int p : hr.grille_ports) {
            asked += air.portFlow(p);
            carried += air.carriedFlow(p);
        }
        if (asked > 0) r = carried / asked;
    }
    return ur.q_m3s * (r < 0 ? 1.0 : r);
}
}  // namespace

void hallAirflow(Site& s, HallRt& hr) {
    HallFlows hf(hr);
    rackPorts(s, hf);
    const double perimeter_cap = unitFlows(s, hf);
    perimeterFlows(s, hf, perimeter_cap);
    leakFlows(hf);
}

void rackAir(Site& s, RackRt& rr, AirModel& air, double sub) {
    // Servers breathe the room air at the front mixed with the share f of their own exhaust that comes back
    // through the rack: T_in = T_air + f/(1 − f)·ΔT, T_out = T_air + ΔT/(1 − f), ΔT = P / (ρ c_p Q). The room sees
    // (1 − f)·Q leave the front and come back at the back, carrying all of P. Air passing the other way (bypass)
    // joins the exhaust: the room's flow is larger than the servers', its exhaust cooler.
    double water_c = s.facility_water_c;
    bool water = true;
    if (rr.door_loop >= 0) {
        water_c = s.loops[static_cast<std::size_t>(rr.door_loop)].loop->supply_temp_c;
        water = !s.loops[static_cast<std::size_t>(rr.door_loop)].failed;
    }
    const double eps = rr.door && water ? rr.door->effectiveness() : 0.0;
    double door_w = 0;
    for (auto& lv : rr.levels) {
        lv.air_in_c = air.portMeanTemperature(lv.intake_port);
        // The room moves the flow its fluxes carry (the fans' at the last flow solve, within the re-solve
        // threshold of now): the exhaust that puts exactly P into it at that flow.
        const double q_room = air.carriedFlow(lv.exhaust_port);
        if (q_room <= 0 || lv.q_m3s <= 0) {
            lv.inlet_c = lv.exhaust_c = lv.air_in_c;
            continue;
        }
        const double rise = lv.heat_w / (kRhoCp * lv.q_m3s);
        const double f = std::max(0.0, lv.leak_m3s / lv.q_m3s);
        lv.inlet_c = lv.air_in_c + f / (1 - f) * rise;
        lv.exhaust_c = lv.air_in_c + lv.heat_w / (kRhoCp * q_room);
        door_w += eps * kRhoCp * q_room * std::max(0.0, lv.exhaust_c - water_c);
    }
    // A rear door takes ε ρ c_p Q (T_exhaust − T_water) from each level, never more than its rating in all.
    const double scale = door_w > 0 && rr.door && door_w > rr.door->max_capacity_w ? rr.door->max_capacity_w / door_w : 1.0;
    rr.door_at_capacity = scale < 1.0;
    for (auto& lv : rr.levels) {
        const double q_room = air.carriedFlow(lv.exhaust_port);
        if (q_room > 0 && lv.q_m3s > 0 && eps > 0) {
            const double removed = scale * eps * kRhoCp * q_room * std::max(0.0, lv.exhaust_c - water_c);
            lv.exhaust_c -= removed / (kRhoCp * q_room);
        }
        air.setPortTemperature(lv.exhaust_port, lv.exhaust_c);
    }
    rr.door_accum_j += door_w * scale * sub;
}

namespace {
/// The supply a unit aims for: its setpoint, or under return-air control what its valve's integral action has
/// reached — the supply moved by (return − setpoint)·sub/τ, so that at a steady load (the return following the
/// supply one to one) the return settles on its setpoint with time constant τ; kept between the unit's lowest
/// supply and its return (a coil only cools), so that it does not wind up while the unit is at capacity.
double supplyTarget(UnitRt& ur, double sub) {
    if (!ur.return_control) return ur.setpoint_c;
    ur.control_supply_c -= sub / ur.control_tau_s * (ur.return_c - ur.setpoint_c);
    ur.control_supply_c = std::clamp(ur.control_supply_c, ur.model->min_supply_temp_c, std::max(ur.model->min_supply_temp_c, ur.return_c));
    return ur.control_supply_c;
}
}  // namespace

void unitAir(Site& s, HallRt& hr, AirModel& air, double sub) {
    // Ducted return: the perimeter s.units share what the grilles collect, mixed above the ceiling.
    if (!hr.grille_ports.empty()) {
        double q = 0, tq = 0;
        for (int p : hr.grille_ports) {
            q += air.carriedFlow(p);
            tq += air.carriedFlow(p) * air.portMeanTemperature(p);
        }
        if (q > 0) hr.return_c = tq / q;
    }
    // Units: supply at setpoint while within capacity; above it the supply warms. No heating; without chilled
    // water (a failed loop) the fans move the air uncooled.
    double mix_q = 0, mix_t = 0;
    for (int ui : hr.units) {
        UnitRt& ur = s.units[ui];
        ur.return_c = ur.return_port >= 0 ? air.portMeanTemperature(ur.return_port) : hr.return_c;
        const double q = unitCarriedFlow(hr, ur, air);  // what the room's fluxes move through the unit
        double sup = ur.no_water ? ur.return_c : std::min(supplyTarget(ur, sub), ur.return_c);
        ur.over_capacity = false;
        if (!std::isnan(ur.driven_supply_c)) {
            sup = ur.driven_supply_c;  // measured: what the unit supplied, whatever its control and capacity
        } else if (q > 0 && kRhoCp * q * (ur.return_c - sup) > ur.model->capacity_w) {
            sup = ur.return_c - ur.model->capacity_w / (kRhoCp * q);
            ur.over_capacity = true;
        }
        ur.supply_c = sup;
        air.setPortTemperature(ur.supply_port, sup);
        ur.load_accum_j += kRhoCp * q * (ur.return_c - sup) * sub;
        if (!ur.inrow) {
            mix_q += q;
            mix_t += q * sup;
        }
    }
    if (mix_q > 0) hr.plenum_c = mix_t / mix_q;
    for (int p : hr.tile_ports) air.setPortTemperature(p, hr.plenum_c);
    // Leaks carry the air (and its tracer) from one side of the containment to the other.
    for (std::size_t r = 1; r < hr.regions.size(); ++r) {
        const AirRegion& g = hr.regions[r];
        for (auto [sink, source] : {std::pair{g.leak_in_sink, g.leak_in_source}, std::pair{g.leak_out_sink, g.leak_out_source}}) {
            if (sink < 0 || source < 0) continue;
            air.setPortTemperature(source, air.portMeanTemperature(sink));
            if (air.tracerEnabled()) air.setPortTracer(source, air.portMeanTracer(sink));
        }
    }
}

void airLoads(Site& s, double dt) {
    for (auto& l : s.loops) l.load_w = 0;
    for (auto& ur : s.units) {
        ur.load_w = ur.load_accum_j / dt;
        ur.fan_power_w = ur.model->fan_power_w * std::pow(ur.q_m3s / ur.model->airflow_m3s, 3.0);
        if (ur.loop >= 0) s.loops[static_cast<std::size_t>(ur.loop)].load_w += ur.load_w;
    }
    for (auto& rr : s.racks) {
        rr.door_w = rr.door_accum_j / dt;
        if (rr.door_loop >= 0) s.loops[static_cast<std::size_t>(rr.door_loop)].load_w += rr.door_w;
    }
}

}  // namespace ct::sim::detail
