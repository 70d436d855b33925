// The frame of a step: every entity's state and the hall metrics (RCI, RTI, SHI, PUE), with the air field when asked.
#include "engine_impl.hpp"

#include <clustertwin/model/geometry.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>

namespace ct::sim {

namespace u = model::units;

namespace {
/// Resets a frame entry to a fresh one with this id, keeping the storage of its strings and vectors (a campus
/// has thousands of racks and rack PDUs, and the frame is rebuilt every step).
template <class Entry>
void renew(Entry& e, const std::string& id) {
    Entry fresh;
    std::swap(fresh.id, e.id);
    if constexpr (std::is_same_v<Entry, model::RackFrame>) {
        std::swap(fresh.inlet_c, e.inlet_c);
        std::swap(fresh.level_height_m, e.level_height_m);
        fresh.inlet_c.clear();
        fresh.level_height_m.clear();
    }
    if (fresh.id != id) fresh.id = id;
    e = std::move(fresh);
}
} // namespace

// ------------------------------------------------------------------ the frame

void Engine::Impl::ensureFrameIds() {
    // GPUs and nodes are updated in place: their ids (100k strings in a campus) are written once.
    if (frame_ids) return;
    model::Frame& f = frame;
    std::size_t n_gpus = 0;
    for (const auto& n : nodes) n_gpus += n.gpus.size();
    f.gpus.assign(n_gpus, {});
    f.nodes.assign(nodes.size(), {});
    node_gpu0.assign(nodes.size(), 0);
    std::size_t gi = 0;
    for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
        f.nodes[ni].id = nodes[ni].node->id;
        node_gpu0[ni] = gi;
        for (std::size_t g = 0; g < nodes[ni].gpus.size(); ++g) f.gpus[gi++].id = model::gpuId(nodes[ni].node->id, static_cast<int>(g));
    }
    frame_ids = true;
}

void Engine::Impl::writeNodeFrame(std::size_t ni) {
    model::Frame& f = frame;
    const NodeRt& n = nodes[ni];
    std::size_t gi = node_gpu0[ni];
    for (const GpuRt& gr : n.gpus) {
        model::GpuFrame& gf = f.gpus[gi++];
        gf.utilization = gr.util;
        gf.power_w = gr.power_w;
        gf.temp_c = gr.temp_c;
        gf.throttle = gr.throttle;
        gf.failed = gr.failed || gr.shutdown || n.failed || !n.powered;
    }
    model::NodeFrame& nf = f.nodes[ni];
    nf.power_dc_w = n.power_dc_w;
    nf.power_ac_w = n.power_ac_w;
    nf.psu_loss_w = n.psu_loss_w;
    nf.fan_speed = n.fan_speed;
    nf.fan_power_w = n.fan_power_w;
    nf.airflow_m3s = n.airflow_m3s;
    nf.inlet_c = n.inlet_c;
    nf.heat_to_liquid_w = n.heat_liquid_w;
    nf.powered = n.powered;
    nf.failed = n.failed;
}

void Engine::Impl::finishFrame(bool with_air) {
    model::Frame& f = frame;
    f.time_s = t;
    f.cdus.clear();
    f.pdus.clear();
    f.ups.clear();
    f.feeds.clear();
    f.transformers.clear();
    f.it_power_w = f.heat_in_w = f.heat_removed_w = f.liquid_heat_w = f.rear_door_heat_w = 0;
    f.loops.clear();
    if (!node_frame_fresh) {  // gpuTemperatures() writes them as it goes
        ensureFrameIds();
        forNodes([&](std::size_t ni) { writeNodeFrame(ni); });
    }
    node_frame_fresh = false;
    for (const auto& rr : racks) {  // every node sits in a rack; its sums are airflowTargets()'s
        f.it_power_w += rr.power_ac_w;
        f.liquid_heat_w += rr.heat_liquid_w;
    }
    f.max_inlet_c = -1e9;
    double rci_hi_sum = 0, rci_lo_sum = 0, t_in_q = 0, t_out_q = 0, q_r = 0, shi_num = 0, shi_den = 0;
    int levels_n = 0;
    double t_supply_q = 0, t_return_q = 0, q_u = 0;
    for (const auto& ur : units) {
        t_supply_q += ur.supply_c * ur.q_m3s;
        t_return_q += ur.return_c * ur.q_m3s;
        q_u += ur.q_m3s;
    }
    const double t_sup_mean = q_u > 0 ? t_supply_q / q_u : 0;
    // Each rack's entry and its share of the hall metrics (across the pool in a campus), then the sums and
    // alerts in rack order.
    struct RackSums {
        double rci_hi = 0, rci_lo = 0, shi_num = 0, shi_den = 0, tin = 0, tout = 0, q = 0;
        int levels = 0;
    };
    std::vector<RackSums> sums(racks.size());
    f.racks.resize(racks.size());
    auto rackEntry = [&](std::size_t ri) {
        const RackRt& rr = racks[ri];
        model::RackFrame& rf = f.racks[ri];
        RackSums& rs = sums[ri];
        renew(rf, rr.rack->id);  // fresh values; the id and the level vectors keep their storage
        double capture = 0;
        rf.inlet_max_c = -1e9;
        rf.power_w = rr.power_ac_w;
        for (const auto& lv : rr.levels) {
            rf.inlet_c.push_back(lv.inlet_c);
            rf.level_height_m.push_back(lv.z_m);
            rf.heat_to_air_w += lv.heat_w;
            if (lv.q_m3s <= 0) continue;
            rs.q += lv.q_m3s;
            rs.tin += lv.q_m3s * lv.inlet_c;
            rs.tout += lv.q_m3s * lv.exhaust_c;
            capture += lv.q_m3s * lv.capture;
            rf.inlet_max_c = std::max(rf.inlet_max_c, lv.inlet_c);
            // RCI over every breathing level (Herrlin): over-temperature against 27 °C (of 27–32), under against 18 °C.
            rs.rci_hi += std::max(0.0, lv.inlet_c - kInletLimitC);
            rs.rci_lo += std::max(0.0, kInletLowC - lv.inlet_c);
            ++rs.levels;
            rs.shi_num += lv.q_m3s * (lv.inlet_c - t_sup_mean);
            rs.shi_den += lv.q_m3s * (lv.exhaust_c - t_sup_mean);
        }
        const double q = rs.q;
        rf.airflow_m3s = q;
        rf.rear_door_w = rr.door_w;
        rf.inlet_mean_c = q > 0 ? rs.tin / q : (rr.levels.empty() ? 0 : rr.levels.front().inlet_c);
        rf.exhaust_c = q > 0 ? rs.tout / q : rf.inlet_mean_c;
        rf.capture_index = q > 0 ? capture / q : (rr.levels.empty() ? rf.capture_index : rr.levels.front().capture);
        if (rf.inlet_max_c < -1e8) rf.inlet_max_c = rf.inlet_mean_c;
    };
    forEach(racks.size(), rackEntry);
    for (std::size_t ri = 0; ri < racks.size(); ++ri) {
        RackRt& rr = racks[ri];
        const model::RackFrame& rf = f.racks[ri];
        const RackSums& rs = sums[ri];
        rci_hi_sum += rs.rci_hi;
        rci_lo_sum += rs.rci_lo;
        levels_n += rs.levels;
        shi_num += rs.shi_num;
        shi_den += rs.shi_den;
        t_in_q += rs.tin;
        t_out_q += rs.tout;
        q_r += rs.q;
        f.rear_door_heat_w += rr.door_w;
        f.heat_in_w += rf.heat_to_air_w;
        if (rf.inlet_max_c > f.max_inlet_c) {
            f.max_inlet_c = rf.inlet_max_c;
            f.max_inlet_rack = rf.id;
        }
        alertOnChange(rr.door_alerted, "cooling_short", rf.id, rr.door_at_capacity,
                      [&] { return "rear door of rack " + rf.id + " is at capacity; the room takes the rest"; });
        alertOnChange(rr.inlet_alerted, "inlet_high", rf.id, rf.inlet_max_c > kInletLimitC, [&] { return "rack " + rf.id + " inlet above 27 °C"; },
                      rf.inlet_max_c, kInletLimitC);
    }
    f.rci_hi = levels_n ? 100.0 * (1.0 - rci_hi_sum / (levels_n * (kInletAllowableC - kInletLimitC))) : 100.0;
    f.rci_lo = levels_n ? 100.0 * (1.0 - rci_lo_sum / (levels_n * (kInletLowC - kInletLowAllowableC))) : 100.0;
    // RTI: (return − supply) / (rack exhaust − rack intake), airflow-weighted; SHI: (T_in − T_sup)/(T_out − T_sup).
    const double dt_units = q_u > 0 ? (t_return_q - t_supply_q) / q_u : 0;
    const double dt_racks = q_r > 0 ? (t_out_q - t_in_q) / q_r : 0;
    f.rti = dt_racks > 0 ? 100.0 * dt_units / dt_racks : 0;
    f.shi = shi_den > 0 ? shi_num / shi_den : 0;

    double cooling_w = 0, plant_heat = 0;
    f.cooling_units.resize(units.size());
    for (std::size_t ui = 0; ui < units.size(); ++ui) {
        UnitRt& ur = units[ui];
        model::CoolingUnitFrame& uf = f.cooling_units[ui];
        renew(uf, ur.unit->id);
        uf.return_c = ur.return_c;
        uf.supply_c = ur.supply_c;
        uf.load_w = ur.load_w;
        uf.airflow_m3s = ur.q_m3s;
        uf.fan_power_w = ur.fan_power_w;
        uf.failed = ur.failed;
        uf.over_capacity = ur.over_capacity;
        f.heat_removed_w += ur.load_w;
        plant_heat += ur.load_w;
        cooling_w += ur.fan_power_w;
        alertOnChange(ur.short_alerted, "cooling_short", ur.unit->id, ur.over_capacity,
                      [&] { return "cooling unit " + ur.unit->id + " is at capacity; supply above setpoint"; });
    }
    physicsRange(f);
    plant_heat += f.rear_door_heat_w;
    for (const auto& rr : racks)
        if (rr.door) cooling_w += rr.door->fan_power_w;
    for (const auto& l : loops) {
        f.loops.push_back({l.loop->id, l.load_w, l.loop->supply_temp_c, l.failed});
        alert("cooling_short", l.loop->id, "water loop " + l.loop->id + " carries more than its capacity",
              !l.failed && l.loop->capacity_w > 0 && l.load_w > l.loop->capacity_w, l.load_w, l.loop->capacity_w);
    }
    for (const auto& c : cdus) {
        f.cdus.push_back({c.cdu->id, c.supply_c, c.return_c, c.load_w, c.failed, c.over_capacity});
        plant_heat += c.load_w;
        cooling_w += c.failed ? 0 : c.model->pump_power_w;
    }
    f.rack_pdus.resize(rpdus.size());
    forEach(rpdus.size(), [&](std::size_t pi) {  // entries across the pool, alerts after in order
        const RackPduRt& r = rpdus[pi];
        model::RackPduFrame& rf = f.rack_pdus[pi];
        renew(rf, r.pdu->id);
        rf.load_w = r.load_w;
        rf.alive = r.alive;
        const double v = r.pdu->voltage_v * r.pdu->power_factor;
        double imax = 0, imin = 1e300, isum = 0;
        const int ph = r.pdu->phases == 3 ? 3 : 1;
        for (int p = 0; p < ph; ++p) {
            rf.phase_current_a[p] = r.phase_w[p] / v;
            imax = std::max(imax, rf.phase_current_a[p]);
            imin = std::min(imin, rf.phase_current_a[p]);
            isum += rf.phase_current_a[p];
        }
        rf.breaker_utilization = imax / r.pdu->breaker_a;
        rf.phase_imbalance = isum > 0 ? (imax - imin) / (isum / ph) : 0;
    });
    for (std::size_t pi = 0; pi < rpdus.size(); ++pi) {
        const model::RackPduFrame& rf = f.rack_pdus[pi];
        alertOnChange(rpdus[pi].breaker_alerted, "breaker_high", rf.id, rf.breaker_utilization > u::kContinuousLoadFraction,
                      [&] { return "rack PDU " + rf.id + " above 80 % of its breaker"; }, rf.breaker_utilization,
                      u::kContinuousLoadFraction);
    }
    auto chain = [&](std::vector<ChainRt>& v, std::vector<model::PowerNodeFrame>& out, const char* what) {
        for (auto& x : v) {
            out.push_back({x.id, x.load_w, x.loss_w, x.capacity_w > 0 ? x.load_w / x.capacity_w : 0, x.alive});
            alertOnChange(x.overload_alerted, "feed_overload", x.id, x.capacity_w > 0 && x.load_w > x.capacity_w,
                          [&] { return std::string(what) + " " + x.id + " above its capacity"; }, x.load_w, x.capacity_w);
        }
    };
    chain(pdus, f.pdus, "PDU");
    chain(ups, f.ups, "UPS");
    chain(txs, f.transformers, "transformer");
    chain(feeds, f.feeds, "feed");
    // How fast each feed's draw changes: a large job's synchronous phases (or its stop on a failure) swing it
    // by megawatts within seconds; utilities limit the ramp.
    if (feed_prev_w.size() == feeds.size() && stats.steps > 1) {
        for (std::size_t i = 0; i < feeds.size(); ++i) {
            const double limit = i < scenario.power.feeds.size() ? scenario.power.feeds[i].ramp_limit_w_per_s : 0.0;
            const double ramp = std::fabs(feeds[i].load_w - feed_prev_w[i]) / opt.step_s;
            char buf[96];
            std::snprintf(buf, sizeof buf, " changes by %.0f kW/s, above its ramp limit of %.0f kW/s", ramp / 1e3, limit / 1e3);
            alert("power_ramp", feeds[i].id, "feed " + feeds[i].id + buf, limit > 0 && ramp > limit, ramp, limit);
        }
    }
    feed_prev_w.resize(feeds.size());
    for (std::size_t i = 0; i < feeds.size(); ++i) feed_prev_w[i] = feeds[i].load_w;
    f.transformer_loss_w = 0;
    for (const auto& x : txs) f.transformer_loss_w += x.loss_w;
    f.ups_loss_w = 0;
    for (const auto& x : ups) f.ups_loss_w += x.loss_w;
    f.cooling_power_w = cooling_w + plant_heat / scenario.plant.chiller_cop + scenario.plant.pump_power_w;
    f.facility_power_w = f.it_power_w + f.ups_loss_w + f.transformer_loss_w + f.cooling_power_w;
    f.pue = f.it_power_w > 0 ? f.facility_power_w / f.it_power_w : 0;
    if (f.max_inlet_c < -1e8) f.max_inlet_c = 0;

    f.air.reset();
    f.other_halls_air.clear();
    if (with_air && !halls.empty()) {
        f.air = hallAirField(0);
        for (std::size_t h = 1; h < halls.size(); ++h) f.other_halls_air.push_back(hallAirField(h));
    }
}

model::AirField Engine::Impl::hallAirField(std::size_t h) const {
    const HallRt& hr = halls[h];
    const AirModel& air = *hr.air;
    model::AirField af{air.nx(), air.ny(), air.nz(), air.cellM(), air.temperatures(), {}, {}, static_cast<int>(h)};
    for (std::size_t c = 0; c < af.temp_c.size(); ++c)
        if (air.solid(static_cast<int>(c))) af.temp_c[c] = std::nanf("");
    // Cell-centred velocity: the mean of the two opposite face fluxes over the face area.
    const int nx = air.nx(), ny = air.ny(), nz = air.nz();
    const auto& fx = air.fluxX();
    const auto& fy = air.fluxY();
    const auto& fz = air.fluxZ();
    const float inv_area = static_cast<float>(1.0 / (air.cellM() * air.cellM()));
    af.velocity_ms.resize(3 * af.temp_c.size());
    for (int kk = 0; kk < nz; ++kk)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const std::size_t c = static_cast<std::size_t>(i) + static_cast<std::size_t>(nx) * (j + static_cast<std::size_t>(ny) * kk);
                const std::size_t xf = static_cast<std::size_t>(i) + static_cast<std::size_t>(nx + 1) * (j + static_cast<std::size_t>(ny) * kk);
                const std::size_t yf = static_cast<std::size_t>(i) + static_cast<std::size_t>(nx) * (j + static_cast<std::size_t>(ny + 1) * kk);
                af.velocity_ms[3 * c] = 0.5f * (fx[xf] + fx[xf + 1]) * inv_area;
                af.velocity_ms[3 * c + 1] = 0.5f * (fy[yf] + fy[yf + nx]) * inv_area;
                af.velocity_ms[3 * c + 2] = 0.5f * (fz[c] + fz[c + static_cast<std::size_t>(nx) * ny]) * inv_area;
            }
    // Streamline seeds: the cells where supply air enters (unit fronts or floor tiles), thinned to ~300.
    std::vector<int> inlets;
    for (int p : hr.tile_ports)
        if (air.portFlow(p) > 0)
            for (int cell : air.portCells(p)) inlets.push_back(cell);
    for (int ui : hr.units)
        if (air.portFlow(units[ui].supply_port) > 0)
            for (int cell : air.portCells(units[ui].supply_port)) inlets.push_back(cell);
    const std::size_t stride = std::max<std::size_t>(1, inlets.size() / 300);
    const double cm = air.cellM();
    for (std::size_t q = 0; q < inlets.size(); q += stride) {
        const int cell = inlets[q];
        const int i = cell % nx, j = (cell / nx) % ny, kk = cell / (nx * ny);
        af.supply_points_m.insert(af.supply_points_m.end(), {static_cast<float>((i + 0.5) * cm), static_cast<float>((j + 0.5) * cm),
                                                             static_cast<float>((kk + 0.5) * cm)});
    }
    return af;
}

void Engine::Impl::physicsRange(model::Frame& f) {
    // Issue 16: a rack inlet past where IT equipment would have shut down (the model keeps it running and
    // heating) is a result outside what the model represents: one critical alert naming the likely cause,
    // raised when it happens and again only after the hall came back in range.
    const bool beyond = f.max_inlet_c > kInletShutdownC;
    if (beyond && !physics_alerted) {
        int failed = 0, short_units = 0;
        double working_w = 0;
        for (const auto& ur : units) {
            failed += ur.failed ? 1 : 0;
            short_units += ur.over_capacity ? 1 : 0;
            if (!ur.failed && ur.model) working_w += ur.model->capacity_w;
        }
        char buf[320];
        std::string cause;
        if (f.heat_in_w > working_w) {
            std::snprintf(buf, sizeof buf, "cooling short: %.0f kW of heat into the air for %.0f kW of working cooling units", f.heat_in_w / 1e3,
                          working_w / 1e3);
            cause = buf;
        } else if (failed > 0) {
            cause = std::to_string(failed) + " of " + std::to_string(units.size()) + " cooling units failed";
        } else if (short_units > 0) {
            cause = std::to_string(short_units) + " cooling unit(s) at capacity";
        } else {
            cause = "hot exhaust reaches the inlets (recirculation: layout, containment or airflow)";
        }
        if (stats.air_approximate) cause += "; the quick air model (potential flow) cannot carry supply jets across the room";
        std::snprintf(buf, sizeof buf, "rack %s inlet %.1f °C is above %.0f °C, where IT equipment shuts down: results from here on are outside "
                      "what the model represents. Likely cause: ", f.max_inlet_rack.c_str(), f.max_inlet_c, kInletShutdownC);
        frame.alerts.push_back({t, "physics_range", f.max_inlet_rack, buf + cause, f.max_inlet_c, kInletShutdownC});
    }
    physics_alerted = beyond;
}

} // namespace ct::sim
