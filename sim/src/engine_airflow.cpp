// How much air every port of a hall moves this step (models.md §3): racks by their fans, cooling units by the
// air they serve, tiles and grilles by what the plenum and the ceiling duct carry, and the leaks of every
// contained aisle by what is left over, so that each sealed region takes in exactly what it gives out.
#include "engine_impl.hpp"

#include <algorithm>
#include <cmath>

namespace ct::sim {

void Engine::Impl::airflowTargets() {
    // Rack by rack (each sums only its own nodes, in node order), across the pool in a campus; also each rack's
    // AC draw and heat to liquid for liquid() and the frame.
    auto rackLevels = [&](std::size_t ri) {
        RackRt& rr = racks[ri];
        for (auto& lv : rr.levels) lv.q_m3s = lv.heat_w = 0;
        rr.power_ac_w = rr.heat_liquid_w = 0;
        for (int ni : rr.nodes) {
            const NodeRt& n = nodes[static_cast<std::size_t>(ni)];
            rr.power_ac_w += n.power_ac_w;  // the rack's draw and liquid heat while its nodes are at hand
            rr.heat_liquid_w += n.heat_liquid_w;
            for (const auto& [lvl, share] : n.levels) {
                rr.levels[lvl].q_m3s += n.airflow_m3s * share;
                rr.levels[lvl].heat_w += n.heat_air_w * share;
            }
        }
    };
    forEach(racks.size(), rackLevels);
    for (auto& ur : units) ur.no_water = ur.loop >= 0 && loops[static_cast<std::size_t>(ur.loop)].failed;
    // Halls are independent here (each sets its own ports and units): a campus's eight across the pool.
    if (halls.size() > 1 && nodes.size() >= kParallelNodes && pool.size() > 1)
        pool.run(halls.size(), [&](std::size_t h) { hallAirflow(halls[h]); });
    else
        for (auto& hr : halls) hallAirflow(hr);
}

void Engine::Impl::hallAirflow(HallRt& hr) {
    AirSolver& air = *hr.solver;
    const std::size_t nreg = hr.regions.size();
    auto reg = [&](int port) { return port >= 0 ? static_cast<std::size_t>(hr.port_region[static_cast<std::size_t>(port)]) : 0; };
    std::vector<double> src(nreg, 0), snk(nreg, 0);  // what every region takes in and gives out, leaks aside
    auto set = [&](int port, double q, bool source) {
        if (port < 0) return;
        air.setPortFlow(port, q);
        (source ? src : snk)[reg(port)] += q;
    };

    // Racks: the room's share of the servers' air passes the rack's front and back.
    std::vector<double> rack_in(nreg, 0), rack_out(nreg, 0);
    for (int ri : hr.racks) {
        const RackRt& rr = racks[ri];
        for (const auto& lv : rr.levels) {
            const double q = lv.q_m3s * (1 - rr.recirculation);
            set(lv.intake_port, q, false);
            set(lv.exhaust_port, q, true);
            rack_in[reg(lv.intake_port)] += q;
            rack_out[reg(lv.exhaust_port)] += q;
        }
    }
    auto need = [&](std::size_t r) {  // what a sealed aisle asks of the cooling: its racks' air less the leak
        const AirRegion& g = hr.regions[r];
        return (1 - g.leakage) * (g.cold ? rack_in[r] : rack_out[r]);
    };
    auto sealed = [&](std::size_t r) { return r > 0 && !hr.regions[r].containment.empty(); };

    // In-row coolers serve the sealed aisle they draw from (hot) or blow into (cold); those in the open room share
    // its racks' air with the perimeter units in proportion to their airflow.
    std::vector<int> serving(units.size(), 0);
    std::vector<double> inrow_cap(nreg, 0);
    double room_cap = 0;
    for (int ui : hr.units) {
        const UnitRt& ur = units[ui];
        if (ur.failed) continue;
        std::size_t r = 0;
        if (ur.inrow) {
            if (sealed(reg(ur.return_port)) && !hr.regions[reg(ur.return_port)].cold) r = reg(ur.return_port);
            else if (sealed(reg(ur.supply_port)) && hr.regions[reg(ur.supply_port)].cold) r = reg(ur.supply_port);
        }
        serving[static_cast<std::size_t>(ui)] = static_cast<int>(r);
        if (r > 0) inrow_cap[r] += ur.model->airflow_m3s;
        else room_cap += ur.model->airflow_m3s;
    }
    const double room_demand = opt.unit_airflow_margin * std::max(rack_in[0], rack_out[0]);
    double perimeter_cap = 0;
    std::vector<double> inrow_q(nreg, 0);  // in-row air serving each sealed aisle
    for (int ui : hr.units) {
        UnitRt& ur = units[ui];
        const std::size_t r = static_cast<std::size_t>(serving[static_cast<std::size_t>(ui)]);
        if (ur.failed) {
            ur.q_m3s = 0;
        } else if (r > 0) {
            ur.q_m3s = std::min(ur.model->airflow_m3s, need(r) * ur.model->airflow_m3s / inrow_cap[r]);
            inrow_q[r] += ur.q_m3s;
        } else {
            ur.q_m3s = std::min(ur.model->airflow_m3s, room_cap > 0 ? room_demand * ur.model->airflow_m3s / room_cap : 0.0);
            if (!ur.inrow) perimeter_cap += ur.model->airflow_m3s;
        }
    }

    // Perimeter units: through the tiles (raised floor) or their own supply, from the grilles (ducted return) or
    // their own return. Sealed aisles fed that way ask for their need less what in-row units give them; the room
    // takes the rest, and a side with no opening into the room caps the total at what its sealed aisles take.
    double perimeter_q = 0;
    for (int ui : hr.units)
        if (!units[ui].inrow) perimeter_q += units[ui].q_m3s;
    auto sideNeeds = [&](const std::vector<int>& ports, bool cold, bool& room_open) {
        std::vector<double> want(ports.size(), 0);
        room_open = ports.empty();  // no tiles (grilles): the units' own supply (return) is in the room
        for (std::size_t i = 0; i < ports.size(); ++i) {
            const std::size_t r = reg(ports[i]);
            if (!sealed(r)) room_open = true;
            else if (hr.regions[r].cold == cold) want[i] = std::max(0.0, need(r) - inrow_q[r]);
        }
        return want;
    };
    bool supply_room = true, return_room = true;
    const auto tile_want = sideNeeds(hr.tile_ports, true, supply_room);
    const auto grille_want = sideNeeds(hr.grille_ports, false, return_room);
    double sealed_supply = 0, sealed_return = 0;
    for (double w : tile_want) sealed_supply += w;
    for (double w : grille_want) sealed_return += w;
    double total = std::max(perimeter_q, std::max(sealed_supply, sealed_return));
    total = std::min(total, perimeter_cap);
    if (!supply_room) total = std::min(total, sealed_supply);
    if (!return_room) total = std::min(total, sealed_return);
    if (perimeter_q > 0 || total > 0) {
        // Spread the total over the live perimeter units in proportion to their airflow.
        for (int ui : hr.units) {
            UnitRt& ur = units[ui];
            if (ur.inrow || ur.failed) continue;
            ur.q_m3s = perimeter_cap > 0 ? total * ur.model->airflow_m3s / perimeter_cap : 0.0;
        }
    }
    auto share = [&](const std::vector<int>& ports, const std::vector<double>& want, bool source) {
        double sum = 0;
        for (double w : want) sum += w;
        const double scale = sum > total && sum > 0 ? total / sum : 1.0;
        double left = total - sum * scale;
        int room_ports = 0;
        for (int p : ports) room_ports += sealed(reg(p)) ? 0 : 1;
        for (std::size_t i = 0; i < ports.size(); ++i)
            set(ports[i], sealed(reg(ports[i])) ? want[i] * scale : (room_ports > 0 ? left / room_ports : 0.0), source);
    };
    share(hr.tile_ports, tile_want, true);
    share(hr.grille_ports, grille_want, false);
    for (int ui : hr.units) {
        const UnitRt& ur = units[ui];
        set(ur.return_port, ur.q_m3s, false);
        set(ur.supply_port, !ur.inrow && !hr.tile_ports.empty() ? 0.0 : ur.q_m3s, true);
    }

    // Leaks: each sealed aisle takes in exactly what it gives out; the difference crosses its panels.
    for (std::size_t r = 1; r < nreg; ++r) {
        const AirRegion& g = hr.regions[r];
        if (g.leak_in_sink < 0) continue;
        const double net = src[r] - snk[r];
        air.setPortFlow(g.leak_in_sink, std::max(0.0, -net));
        air.setPortFlow(g.leak_in_source, std::max(0.0, -net));
        air.setPortFlow(g.leak_out_sink, std::max(0.0, net));
        air.setPortFlow(g.leak_out_source, std::max(0.0, net));
    }
}

} // namespace ct::sim
