// The room air (models.md §3) through an AirSolver: the hall's geometry, the port flows from the racks and units,
// and the coupling of their temperatures at every air sub-step.
#include "engine/engine_impl.hpp"

#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/geometry.hpp>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <exception>
#include <map>

#include "air/hall_air.hpp"

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

/// Spreads a rack's openings (model::rackOpenings) over its levels by height, a level's share split over its
/// columns. An opening where no server draws (open U above the top server) goes to the nearest server, over
/// its levels by its share of each: its fans draw what comes through (Schneider Electric White Paper 44:
/// exhaust back through open U space into the servers beside it). Each level's face is its share of the rails'
/// clear opening.
void placeOpenings(RackRt& rr, const std::vector<model::RackOpening>& openings, const RackAirPorts& rp, double cell) {
    const std::size_t n = rr.levels.size();
    std::vector<bool> served(n, false);
    for (const auto& share : rp.node_levels)
        for (const auto& [entry, f] : share)
            if (f > 0) served[static_cast<std::size_t>(entry)] = true;
    for (std::size_t e = 0; e < n; ++e) {
        RackLevel& lv = rr.levels[e];
        const double cols = std::max(1, rp.columns[e]);
        lv.face_m2 = 0.450 * cell / cols;
        double a = 0;
        for (const auto& o : openings) {
            const double lo = std::max(o.z0_m, lv.z_m - cell / 2), hi = std::min(o.z1_m, lv.z_m + cell / 2);
            // As an orifice's area: the level's air through it is kOrificeDischarge · open_m2 · √(2Δp/ρ).
            if (hi > lo) a += o.area_m2 * o.discharge / model::kOrificeDischarge * (hi - lo) / (o.z1_m - o.z0_m) / cols;
        }
        if (a <= 0) continue;
        if (served[e]) {
            lv.open_m2 += a;
            continue;
        }
        const std::vector<std::pair<int, double>>* nearest = nullptr;
        double best = 1e300;
        for (const auto& share : rp.node_levels)
            for (const auto& [entry, f] : share) {
                const double d = std::fabs(rr.levels[static_cast<std::size_t>(entry)].z_m - lv.z_m);
                if (f > 0 && d < best) {
                    best = d;
                    nearest = &share;
                }
            }
        if (nearest)
            for (const auto& [entry, f] : *nearest) rr.levels[static_cast<std::size_t>(entry)].open_m2 += a * f;
    }
}

}  // namespace

void Engine::Impl::buildAir(int h) {
    const model::Hall& hall = scenario.halls[h];
    AirSolverSpec spec;
    spec.grid = AirGridSpec{hall.width_m, hall.depth_m, hall.height_m, opt.cell_m, opt.kappa_m2s};
    spec.grid.backend = air_backend;
    spec.grid.substep_s = opt.quick_substep_s;  // quick; lbm takes heat_substep_s
    spec.heat_substep_s = opt.heat_substep_s;
    spec.lattice_levels = opt.lattice_levels;
    spec.flow_residual = opt.flow_residual;
    spec.flow_resolve_change = opt.flow_resolve_change;
    spec.lattice_stride = opt.lattice_stride;
    spec.lattice_stride_max_s = opt.lattice_stride_max_s;
    spec.lattice_mach = opt.lattice_mach;
    spec.lattice_soft_start = opt.lattice_soft_start;
    spec.lattice_slabs = halls[static_cast<std::size_t>(h)].slabs.get();
    const std::uint64_t need = airSolverBytes(air_solver, spec.grid);
    const std::uint64_t limit = opt.max_grid_bytes ? opt.max_grid_bytes : physicalMemory() / 10 * 8;
    if (need > limit)
        throw SimError("hall " + hall.id + ": an air grid of " + std::to_string(opt.cell_m) + " m needs " + gib(need) +
                       " of memory, more than the " + gib(limit) + " available; use a coarser --cell");
    HallRt& hr = halls[h];
    hr.solver = makeAirSolver(air_solver, spec, pool);
    hr.air = &hr.solver->air();
    const HallAirPorts ports = buildHallAir(hall, catalog, *hr.solver, opt.unit_airflow_margin);
    // The fastest air sets the lattice's step (Mach 0.15 there by default); a floor keeps a still hall from a huge step.
    hr.solver->setFastestJet(std::max(ports.fastest_jet_ms, 0.5));
    // Gaps between cabinets narrower than a cell (the grid closes them: buildHallAir) pass air as openings.
    std::map<const model::Rack*, std::vector<model::CabinetGap>> beside;
    for (const auto& row : hall.rows)
        for (const auto& g : model::cabinetGaps(row, catalog))
            if (g.width_m < hr.air->cellM()) {
                beside[&row.racks[g.a]].push_back(g);
                beside[&row.racks[g.b]].push_back(g);
            }
    for (std::size_t q = 0; q < hr.racks.size(); ++q) {
        RackRt& rr = racks[hr.racks[q]];
        const RackAirPorts& rp = ports.racks[q];
        for (std::size_t kk = 0; kk < rp.intake.size(); ++kk) {
            RackLevel lv;
            lv.intake_port = rp.intake[kk];
            lv.exhaust_port = rp.exhaust[kk];
            lv.z_m = rp.level_z_m[kk];
            lv.front_probe = rp.front_probe[kk];
            lv.back_probe = rp.back_probe[kk];
            rr.levels.push_back(lv);
        }
        const auto gaps = beside.find(rr.rack);
        placeOpenings(rr, model::rackOpenings(*rr.rack, catalog, gaps == beside.end() ? std::vector<model::CabinetGap>{} : gaps->second),
                      rp, hr.air->cellM());
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
    hr.unsealed = ports.unsealed;  // build() raises their alerts, every hall's in hall order
    hr.cells = hr.air->cellCount();
    hr.solids = hr.air->solidCount();
    hr.cell_m = hr.air->cellM();
    hr.approximate = hr.solver->approximate();
    hr.summary = hr.solver->summary();
    for (const auto& x : hall.sensors)
        if (x.rack.empty()) {
            int i = 0, j = 0, k = 0;
            hr.air->cellOf(x.position_m.x_m, x.position_m.y_m, x.height_m, i, j, k);
            hr.sensor_cells.push_back(hr.air->index(i, j, k));
        }
    hr.sensor_c.assign(hr.sensor_cells.size(), std::nan(""));
    hr.air->fill(hr.fill_c);
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
        const AirSolverStats& s = hr.stats;
        sum.flow_solves += s.flow_solves;
        sum.flow_iterations += s.flow_iterations;
        sum.lattice_steps += s.lattice_steps;
        sum.max_speed_ms = std::max(sum.max_speed_ms, s.max_speed_ms);
        sum.max_mach = std::max(sum.max_mach, s.max_mach);
        sum.lattice_restarts += s.lattice_restarts;
        sum.lattice_rescales += s.lattice_rescales;
        sum.lattice_seconds += s.lattice_seconds;
        sum.last_flow_residual = std::max(sum.last_flow_residual, s.last_flow_residual);
        sum.max_divergence_error = std::max(sum.max_divergence_error, s.max_divergence_error);
        sum.flow_seconds += s.flow_seconds;
    }
    stats.flow_solves = sum.flow_solves;
    stats.flow_iterations = sum.flow_iterations;
    stats.lattice_steps = sum.lattice_steps;
    stats.max_air_speed_ms = sum.max_speed_ms;
    stats.max_lattice_mach = sum.max_mach;
    stats.lattice_restarts = sum.lattice_restarts;
    stats.lattice_rescales = sum.lattice_rescales;
    stats.lattice_seconds = sum.lattice_seconds;
    stats.last_flow_residual = sum.last_flow_residual;
    stats.max_divergence_error = sum.max_divergence_error;
    stats.flow_seconds = sum.flow_seconds;
}

void Engine::Impl::airflowTargets() {
    rackAirflow(*this);
    // Halls are independent here (each sets its own ports and units): a campus's eight across the pool. Only
    // this process's halls: another rank's send their units' airflow with their air (afterAir).
    const std::vector<std::size_t> own = ownHalls();
    if (own.size() > 1 && parallel(own.size(), 2)) pool.run(own.size(), [&](std::size_t k) { hallAirflow(*this, halls[own[k]]); });
    else
        for (std::size_t h : own) hallAirflow(*this, halls[h]);
}

int Engine::Impl::advanceHall(HallRt& hr, double dt) {
    AirModel& air = *hr.air;
    const int n = hr.solver->advance(dt, [&](double sub) {
        for (int ri : hr.racks) rackAir(*this, racks[ri], air, sub);
        unitAir(*this, hr, air, sub);
    });
    // Inlet and exhaust stay those of the last sub-step, consistent with each other.
    for (int ri : hr.racks)
        for (auto& lv : racks[ri].levels) lv.capture = air.portMeanTracer(lv.intake_port);
    return n;
}

std::vector<std::vector<std::size_t>> Engine::Impl::cpuHallGroups(const std::vector<std::size_t>& own) const {
    const std::size_t threads = static_cast<std::size_t>(pool.size());
    if (air_backend != Backend::Cpu || threads < 2 || own.size() < threads) return {};
    for (std::size_t h : own)
        if (halls[h].slabs) return {};  // a slab's halo exchange is MPI, which this process calls from one thread
    // The q·T largest halls (T threads), balanced over the threads by their cells; the rest go across the pool.
    std::vector<std::size_t> order(own.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return halls[own[a]].cells > halls[own[b]].cells; });
    order.resize(own.size() / threads * threads);
    std::sort(order.begin(), order.end());  // each thread's halls in hall order
    std::vector<std::uint64_t> weights(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) weights[i] = halls[own[order[i]]].cells;
    const std::vector<int> thread = assignHalls(weights, static_cast<int>(threads));
    std::vector<std::vector<std::size_t>> groups(threads);
    for (std::size_t i = 0; i < order.size(); ++i) groups[static_cast<std::size_t>(thread[i])].push_back(order[i]);
    return groups;
}

void Engine::Impl::advanceAir(double dt) {
    for (auto& ur : units) ur.load_accum_j = 0;
    for (auto& rr : racks) rr.door_accum_j = 0;
    const std::vector<std::size_t> own = ownHalls();
    // A campus's halls side by side where their solvers allow it (quick mode on a device: each hall queues on its
    // own thread's stream, and the host's coupling of one hall overlaps the device's work for another). A hall's
    // coupling touches only its own racks, units and ports.
    bool side_by_side = own.size() > 1 && parallel(own.size(), 2);
    for (std::size_t h : own) side_by_side = side_by_side && halls[h].solver->advancesSideBySide();
    std::vector<std::exception_ptr> failed(own.size());  // the pool does not carry exceptions: each hall keeps its own
    auto advance = [&](std::size_t k) {
        try {
            halls[own[k]].substeps = advanceHall(halls[own[k]], dt);
            if (side_by_side) halls[own[k]].solver->finish();
        } catch (...) {
            failed[k] = std::current_exception();
        }
    };
    stats.halls_side_by_side = side_by_side ? static_cast<int>(own.size()) : 0;
    if (side_by_side) {
        for (std::size_t h : own) halls[h].solver->prepare();  // flow re-solves use the pool: before, not inside it
        pool.run(own.size(), advance);
    } else {
        // On the CPU the pool's threads take whole halls side by side, each hall's loops then in its own thread
        // (ThreadPool::run inside a chunk), and the halls left over (fewer than the threads) go one after another
        // across every thread: one hall across two threads ran each of its kernels about a third slower per cell
        // on the 2-core VM measured (docs/performance.md), separate halls on separate threads lost nothing.
        const std::vector<std::vector<std::size_t>> groups = cpuHallGroups(own);
        std::vector<bool> grouped(own.size(), false);
        for (const auto& g : groups)
            for (std::size_t k : g) {
                grouped[k] = true;
                ++stats.halls_side_by_side;
            }
        if (!groups.empty())
            pool.run(groups.size(), [&](std::size_t g) {
                for (std::size_t k : groups[g]) advance(k);
            });
        bool stopped = false;  // one process stops at its first failed hall, in hall order
        for (std::size_t k = 0; k < own.size(); ++k) {
            if (!grouped[k] && !(stopped && !spread())) advance(k);
            stopped = stopped || failed[k] != nullptr;
        }
    }
    for (std::size_t k = 0; k < own.size(); ++k) {
        if (!failed[k]) continue;
        if (!spread()) std::rethrow_exception(failed[k]);  // the first hall's failure, as one after another raises it
        try {
            std::rethrow_exception(failed[k]);
        } catch (const std::exception& e) {
            halls[own[k]].error = e.what();  // every rank raises it after the exchange (afterAir)
        } catch (...) {
            halls[own[k]].error = "an unknown failure";
        }
    }
    afterAir();
    airLoads(*this, dt);
}

void Engine::Impl::afterAir() {
    for (std::size_t h = 0; h < halls.size(); ++h) {
        HallRt& hr = halls[h];
        if (!mine(h)) continue;
        hr.stats = hr.solver->stats();
        for (std::size_t k = 0; k < hr.sensor_cells.size(); ++k)  // inside equipment: no air to read
            hr.sensor_c[k] = hr.air->solid(hr.sensor_cells[k]) ? std::nan("") : hr.air->temperature(hr.sensor_cells[k]);
    }
    for (auto& hr : halls)  // a hall's lattice and heat split over ranks: what its slabs received this step
        if (hr.slabs) stats.exchanged_bytes += hr.slabs->takeReceivedBytes();
    if (spread()) shareAir();
    for (std::size_t h = 0; h < halls.size(); ++h)
        if (!halls[h].error.empty())
            throw SimError("hall " + scenario.halls[h].id + " (rank " + std::to_string(hall_rank[h]) + "): " + halls[h].error);
    for (auto& hr : halls) {
        stats.air_substeps += hr.substeps;
        hr.substeps = 0;
    }
    collectAirStats();
}

}  // namespace ct::sim
