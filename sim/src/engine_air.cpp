// The room air (models.md §3) through an AirSolver: the hall's geometry, the port flows from the racks and units,
// and the coupling of their temperatures at every air sub-step.
#include "engine_impl.hpp"

#include <clustertwin/model/geometry.hpp>

#include <algorithm>
#include <cmath>
#include <unistd.h>

#include "../air/hall_air.hpp"

namespace ct::sim {

namespace {

std::uint64_t physicalMemory() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size) : (8ull << 30);
}

std::string gib(std::uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

} // namespace

void Engine::Impl::buildAir(int h) {
    const model::Hall& hall = scenario.halls[h];
    AirSolverSpec spec;
    spec.grid = AirGridSpec{hall.width_m, hall.depth_m, hall.height_m, opt.cell_m, opt.kappa_m2s};
    spec.grid.backend = air_backend;
    spec.grid.substep_s = opt.quick_substep_s;  // only the upwind (quick) transport takes it
    spec.flow_residual = opt.flow_residual;
    spec.flow_resolve_change = opt.flow_resolve_change;
    spec.lattice_stride = opt.lattice_stride;
    const std::uint64_t need = airSolverBytes(air_solver, spec.grid);
    const std::uint64_t limit = opt.max_grid_bytes ? opt.max_grid_bytes : physicalMemory() / 10 * 8;
    if (need > limit)
        throw SimError("hall " + hall.id + ": an air grid of " + std::to_string(opt.cell_m) + " m needs " + gib(need) +
                       " of memory, more than the " + gib(limit) + " available; use a coarser --cell");
    HallRt& hr = halls[h];
    hr.solver = makeAirSolver(air_solver, spec, pool);
    hr.air = &hr.solver->air();
    const HallAirPorts ports = buildHallAir(hall, catalog, *hr.solver, opt.unit_airflow_margin);
    // The fastest jet sets the lattice's step (Mach 0.1 there); a floor keeps a still hall from a huge step.
    hr.solver->setFastestJet(std::max(ports.fastest_jet_ms, 0.5));
    for (std::size_t q = 0; q < hr.racks.size(); ++q) {
        RackRt& rr = racks[hr.racks[q]];
        const RackAirPorts& rp = ports.racks[q];
        for (std::size_t kk = 0; kk < rp.intake.size(); ++kk) {
            RackLevel lv;
            lv.intake_port = rp.intake[kk];
            lv.exhaust_port = rp.exhaust[kk];
            lv.z_m = rp.level_z_m[kk];
            rr.levels.push_back(lv);
        }
        for (std::size_t n = 0; n < rr.nodes.size(); ++n) nodes[rr.nodes[n]].levels = rp.node_levels[n];
    }
    for (std::size_t q = 0; q < hr.units.size(); ++q) {
        units[hr.units[q]].supply_port = ports.units[q].supply;
        units[hr.units[q]].return_port = ports.units[q].ret;
    }
    hr.tile_ports = ports.tiles;
    hr.grille_ports = ports.grilles;
    hr.regions = ports.regions;
    hr.port_region = ports.port_region;
    for (const auto& id : ports.unsealed)
        frame.alerts.push_back({0, "containment_open", id,
                                "containment " + id + " does not seal its aisle at a " + std::to_string(opt.cell_m).substr(0, 4) +
                                    " m grid (no roof or end doors, or a gap): its aisle is simulated as part of the room"});
    double t0 = 0;
    int n0 = 0;
    for (int ui : hr.units) {
        t0 += units[ui].setpoint_c;
        ++n0;
    }
    hr.air->fill(n0 ? t0 / n0 : 22.0);
    hr.plenum_c = hr.return_c = n0 ? t0 / n0 : 22.0;
    // Capture Index: a tracer at 1 in what the units supply (directly or through the tiles) and 0 in what racks
    // exhaust; the room starts full of supply air, as its temperature does.
    hr.air->enableTracer(1.0);
    for (int ui : hr.units) hr.air->setPortTracer(units[ui].supply_port, 1.0);
    for (int p : hr.tile_ports) hr.air->setPortTracer(p, 1.0);
}

// ------------------------------------------------------------------ air coupling (models.md §3)

void Engine::Impl::collectAirStats() {
    AirSolverStats sum;
    for (const auto& hr : halls) {
        const AirSolverStats& s = hr.solver->stats();
        sum.flow_solves += s.flow_solves;
        sum.flow_iterations += s.flow_iterations;
        sum.lattice_steps += s.lattice_steps;
        sum.last_flow_residual = std::max(sum.last_flow_residual, s.last_flow_residual);
        sum.max_divergence_error = std::max(sum.max_divergence_error, s.max_divergence_error);
        sum.flow_seconds += s.flow_seconds;
    }
    stats.flow_solves = sum.flow_solves;
    stats.flow_iterations = sum.flow_iterations;
    stats.lattice_steps = sum.lattice_steps;
    stats.last_flow_residual = sum.last_flow_residual;
    stats.max_divergence_error = sum.max_divergence_error;
    stats.flow_seconds = sum.flow_seconds;
}

void Engine::Impl::rackAir(RackRt& rr, AirModel& air, double sub) {
    // Servers breathe the room air at the front mixed with the share f of their own exhaust that recirculates
    // inside the rack: T_in = T_air + f/(1 − f)·ΔT, T_out = T_air + ΔT/(1 − f), ΔT = P / (ρ c_p Q). The room sees
    // (1 − f)·Q leave the front and come back at the back, carrying all of P.
    const double f = rr.recirculation;
    double water_c = scenario.plant.facility_water_temp_c;
    bool water = true;
    if (rr.door_loop >= 0) {
        water_c = loops[static_cast<std::size_t>(rr.door_loop)].loop->supply_temp_c;
        water = !loops[static_cast<std::size_t>(rr.door_loop)].failed;
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
} // namespace

void Engine::Impl::unitAir(HallRt& hr, AirModel& air, double sub) {
    // Ducted return: the perimeter units share what the grilles collect, mixed above the ceiling.
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
        UnitRt& ur = units[ui];
        ur.return_c = ur.return_port >= 0 ? air.portMeanTemperature(ur.return_port) : hr.return_c;
        const double q = unitCarriedFlow(hr, ur, air);  // what the room's fluxes move through the unit
        double sup = ur.no_water ? ur.return_c : std::min(ur.setpoint_c, ur.return_c);
        ur.over_capacity = false;
        if (q > 0 && kRhoCp * q * (ur.return_c - sup) > ur.model->capacity_w) {
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

void Engine::Impl::advanceAir(double dt) {
    for (auto& ur : units) ur.load_accum_j = 0;
    for (auto& rr : racks) rr.door_accum_j = 0;
    for (auto& hr : halls) {
        AirModel& air = *hr.air;
        const int n = hr.solver->advance(dt, [&](double sub) {
            for (int ri : hr.racks) rackAir(racks[ri], air, sub);
            unitAir(hr, air, sub);
        });
        stats.air_substeps += n;  // inlet and exhaust stay those of the last sub-step, consistent with each other
        for (int ri : hr.racks)
            for (auto& lv : racks[ri].levels) lv.capture = air.portMeanTracer(lv.intake_port);
    }
    collectAirStats();
    for (auto& l : loops) l.load_w = 0;
    for (auto& ur : units) {
        ur.load_w = ur.load_accum_j / dt;
        ur.fan_power_w = ur.model->fan_power_w * std::pow(ur.q_m3s / ur.model->airflow_m3s, 3.0);
        if (ur.loop >= 0) loops[static_cast<std::size_t>(ur.loop)].load_w += ur.load_w;
    }
    for (auto& rr : racks) {
        rr.door_w = rr.door_accum_j / dt;
        if (rr.door_loop >= 0) loops[static_cast<std::size_t>(rr.door_loop)].load_w += rr.door_w;
    }
}
} // namespace ct::sim
