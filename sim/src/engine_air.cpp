// The room air (MODELS.md §3) through an AirSolver: the hall's geometry, the port flows from the racks and units,
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
    hr.tile_port = ports.tiles;
    double t0 = 0;
    int n0 = 0;
    for (int ui : hr.units) {
        t0 += units[ui].setpoint_c;
        ++n0;
    }
    hr.air->fill(n0 ? t0 / n0 : 22.0);
    // Capture Index: a tracer at 1 in what the units supply (directly or through the tiles) and 0 in what racks
    // exhaust; the room starts full of supply air, as its temperature does.
    hr.air->enableTracer(1.0);
    for (int ui : hr.units) hr.air->setPortTracer(units[ui].supply_port, 1.0);
    if (hr.tile_port >= 0) hr.air->setPortTracer(hr.tile_port, 1.0);
}

// ------------------------------------------------------------------ air coupling (MODELS.md §3)

void Engine::Impl::airflowTargets() {
    for (auto& rr : racks)
        for (auto& lv : rr.levels) lv.q_m3s = lv.heat_w = 0;
    for (auto& n : nodes) {
        RackRt& rr = racks[n.rack];
        for (const auto& [lvl, share] : n.levels) {
            rr.levels[lvl].q_m3s += n.airflow_m3s * share;
            rr.levels[lvl].heat_w += n.heat_air_w * share;
        }
    }
    for (auto& hr : halls) {
        AirSolver& air = *hr.solver;
        double rack_q = 0;
        for (int ri : hr.racks)
            for (auto& lv : racks[ri].levels) {
                air.setPortFlow(lv.intake_port, lv.q_m3s);
                air.setPortFlow(lv.exhaust_port, lv.q_m3s);
                rack_q += lv.q_m3s;
            }
        int live = 0;
        for (int ui : hr.units) live += units[ui].failed ? 0 : 1;
        double unit_q = 0;
        for (int ui : hr.units) {
            UnitRt& ur = units[ui];
            ur.q_m3s = ur.failed || live == 0 ? 0.0 : std::min(ur.model->airflow_m3s, opt.unit_airflow_margin * rack_q / live);
            air.setPortFlow(ur.return_port, ur.q_m3s);
            air.setPortFlow(ur.supply_port, hr.tile_port >= 0 ? 0.0 : ur.q_m3s);
            unit_q += ur.q_m3s;
        }
        if (hr.tile_port >= 0) air.setPortFlow(hr.tile_port, unit_q);
    }
}

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

void Engine::Impl::advanceAir(double dt) {
    for (auto& ur : units) ur.load_accum_j = 0;
    for (auto& hr : halls) {
        AirModel& air = *hr.air;
        const int n = hr.solver->advance(dt, [&](double sub) {
            // Racks: exhaust = intake + P / (ṁ c_p), level by level.
            for (int ri : hr.racks)
                for (auto& lv : racks[ri].levels) {
                    lv.inlet_c = air.portMeanTemperature(lv.intake_port);
                    const double q = air.portFlow(lv.exhaust_port);
                    lv.exhaust_c = q > 0 ? lv.inlet_c + lv.heat_w / (kRhoCp * q) : lv.inlet_c;
                    air.setPortTemperature(lv.exhaust_port, lv.exhaust_c);
                }
            // Units: supply at setpoint while within capacity; above it the supply warms. No heating.
            double mix_q = 0, mix_t = 0;
            for (int ui : hr.units) {
                UnitRt& ur = units[ui];
                ur.return_c = air.portMeanTemperature(ur.return_port);
                const double q = ur.q_m3s;
                double sup = std::min(ur.setpoint_c, ur.return_c);
                ur.over_capacity = false;
                if (q > 0 && kRhoCp * q * (ur.return_c - sup) > ur.model->capacity_w) {
                    sup = ur.return_c - ur.model->capacity_w / (kRhoCp * q);
                    ur.over_capacity = true;
                }
                ur.supply_c = sup;
                air.setPortTemperature(ur.supply_port, sup);
                ur.load_accum_j += kRhoCp * q * (ur.return_c - sup) * sub;
                mix_q += q;
                mix_t += q * sup;
            }
            if (hr.tile_port >= 0 && mix_q > 0) air.setPortTemperature(hr.tile_port, mix_t / mix_q);
        });
        stats.air_substeps += n;  // inlet and exhaust stay those of the last sub-step, consistent with each other
        for (int ri : hr.racks)
            for (auto& lv : racks[ri].levels) lv.capture = air.portMeanTracer(lv.intake_port);
    }
    collectAirStats();
    for (auto& ur : units) {
        ur.load_w = ur.load_accum_j / dt;
        ur.fan_power_w = ur.model->fan_power_w * std::pow(ur.q_m3s / ur.model->airflow_m3s, 3.0);
    }
}
} // namespace ct::sim
