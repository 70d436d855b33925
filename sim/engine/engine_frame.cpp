// The frame of a step: every entity's state and the hall metrics (RCI, RTI, SHI, PUE), with the air field when asked.
#include "engine/engine_impl.hpp"

#include <clustertwin/model/geometry.hpp>

#include <algorithm>
#include <atomic>
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
}  // namespace

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
    const double to_air_w = std::max(0.0, n.power_ac_w - n.heat_liquid_w);
    nf.exhaust_c = n.airflow_m3s > 1e-9 ? n.inlet_c + to_air_w / (kRhoCp * n.airflow_m3s) : n.inlet_c;
    nf.heat_to_liquid_w = n.heat_liquid_w;
    nf.powered = n.powered;
    nf.failed = n.failed;
}

void Engine::Impl::gpuTemperatures(double dt) {
    ensureFrameIds();
    std::atomic<bool> any_alert{false};
    // The node's entries of the frame in the same pass: its state is final for this step but for shutdowns,
    // which gpuAlerts writes into the frame too.
    forNodes([&](std::size_t ni) {
        prefetchNode(ni);
        if (nodeTemperatures(*this, ni, dt)) any_alert.store(true, std::memory_order_relaxed);
        writeNodeFrame(ni);
    });
    node_frame_fresh = true;
    // Shutdowns and throttling alerts, in GPU order (the pass only flags the nodes that have some).
    if (any_alert.load()) gpuAlerts(*this, frame.gpus, node_gpu0, alerts);
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
    frameRacks(f);
    frameSensors(f);
    framePower(f, frameCooling(f));
    alerts.t = t;
    frameAlerts(*this, f, stats.air_approximate, physics_alerted, alerts);
    // How fast each feed's draw changes (not at the first steps: the initial frame has no step before it).
    if (stats.steps <= 1) feed_prev_w.clear();
    feedRampAlerts(*this, feed_ramp_limit_w_per_s, opt.step_s, feed_prev_w, alerts);

    f.air.reset();
    f.other_halls_air.clear();
    if (with_air && spread()) {
        gatherAirFields(f);
    } else if (with_air && !halls.empty()) {
        f.air = hallAirField(0);
        for (std::size_t h = 1; h < halls.size(); ++h) f.other_halls_air.push_back(hallAirField(h));
    }
}

namespace {
/// One rack's share of the hall metrics.
struct RackSums {
    double rci_hi = 0, rci_lo = 0, shi_num = 0, shi_den = 0, tin = 0, tout = 0, q = 0;
    int levels = 0;
};

/// A rack's profile up its height: for each level (bottom up) its centre height into `z` and value(level) into
/// `v`, a level split across the rack (servers side by side, its columns one after another) as their mean.
template <class Value>
void profileByHeight(const std::vector<RackLevel>& levels, Value value, std::vector<double>& z, std::vector<double>& v) {
    int at_height = 0;  // columns of the level being summed
    for (const RackLevel& l : levels) {
        if (!z.empty() && z.back() == l.z_m) {
            v.back() += (value(l) - v.back()) / ++at_height;
        } else {
            z.push_back(l.z_m);
            v.push_back(value(l));
            at_height = 1;
        }
    }
}

/// Rack rr's frame entry and its share of the hall metrics, given the units' mean supply temperature.
RackSums rackEntry(const RackRt& rr, model::RackFrame& rf, double t_sup_mean) {
    RackSums rs;
    renew(rf, rr.rack->id);  // fresh values; the id and the level vectors keep their storage
    double capture = 0;
    rf.inlet_max_c = -1e9;
    rf.power_w = rr.power_ac_w;
    profileByHeight(
        rr.levels, [](const RackLevel& l) { return l.inlet_c; }, rf.level_height_m, rf.inlet_c);
    for (const auto& lv : rr.levels) {
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
    double leak = 0;
    for (const auto& lv : rr.levels) leak += lv.leak_m3s;
    rf.recirculation = q > 0 ? leak / q : 0.0;
    rf.inlet_mean_c = q > 0 ? rs.tin / q : (rr.levels.empty() ? 0 : rr.levels.front().inlet_c);
    rf.exhaust_c = q > 0 ? rs.tout / q : rf.inlet_mean_c;
    rf.capture_index = q > 0 ? capture / q : (rr.levels.empty() ? rf.capture_index : rr.levels.front().capture);
    if (rf.inlet_max_c < -1e8) rf.inlet_max_c = rf.inlet_mean_c;
    return rs;
}

/// What a strip sensor on a rack's front (the room air arriving) or rear (what its servers blow out) reads at
/// height z: linear between the rack's levels (their centre heights), the end levels' values beyond them; a
/// level split across the rack (servers side by side) reads the mean of its columns. NaN without levels.
double rackSensorReading(const RackRt& rr, bool rear, double z) {
    std::vector<double> h, v;
    profileByHeight(
        rr.levels, [rear](const RackLevel& l) { return rear ? l.exhaust_c : l.air_in_c; }, h, v);
    if (h.empty()) return std::nan("");
    double t = z <= h.front() ? v.front() : v.back();
    for (std::size_t k = 1; k < h.size(); ++k)
        if (z >= h[k - 1] && z <= h[k]) {
            const double w = h[k] > h[k - 1] ? (z - h[k - 1]) / (h[k] - h[k - 1]) : 0;
            t = (1 - w) * v[k - 1] + w * v[k];
            break;
        }
    return t;
}
}  // namespace

void Engine::Impl::frameSensors(model::Frame& f) {
    if (!sensors_built) {
        sensors_built = true;
        for (std::size_t h = 0; h < scenario.halls.size() && h < halls.size(); ++h) {
            int point = 0;
            for (const auto& x : scenario.halls[h].sensors) {
                SensorRt sr;
                sr.sensor = &x;
                sr.rear = x.side == "rear";
                if (!x.rack.empty()) {
                    for (std::size_t ri = 0; ri < racks.size(); ++ri)
                        if (racks[ri].rack->id == x.rack) sr.rack = static_cast<int>(ri);
                } else {
                    sr.hall = static_cast<int>(h);
                    sr.cell = point++;  // its reading in the hall's sensor_c (afterAir)
                }
                sensors.push_back(sr);
            }
        }
    }
    f.sensors.resize(sensors.size());
    for (std::size_t i = 0; i < sensors.size(); ++i) {
        const SensorRt& sr = sensors[i];
        model::SensorFrame& sf = f.sensors[i];
        sf.id = sr.sensor->id;
        sf.temp_c = std::nan("");
        if (sr.rack >= 0) {
            sf.temp_c = rackSensorReading(racks[static_cast<std::size_t>(sr.rack)], sr.rear, sr.sensor->height_m);
        } else if (sr.hall >= 0) {
            const HallRt& hr = halls[static_cast<std::size_t>(sr.hall)];
            if (static_cast<std::size_t>(sr.cell) < hr.sensor_c.size()) sf.temp_c = hr.sensor_c[static_cast<std::size_t>(sr.cell)];
        }
    }
}

void Engine::Impl::frameRacks(model::Frame& f) {
    for (const auto& rr : racks) {  // every node sits in a rack; its sums are rackAirflow()'s
        f.it_power_w += rr.power_ac_w;
        f.liquid_heat_w += rr.heat_liquid_w;
    }
    f.max_inlet_c = -1e9;
    double t_supply_q = 0, t_return_q = 0, q_u = 0;
    for (const auto& ur : units) {
        t_supply_q += ur.supply_c * ur.q_m3s;
        t_return_q += ur.return_c * ur.q_m3s;
        q_u += ur.q_m3s;
    }
    const double t_sup_mean = q_u > 0 ? t_supply_q / q_u : 0;
    // Each rack's entry and its share of the hall metrics (across the pool in a campus), then the sums in rack
    // order.
    std::vector<RackSums> sums(racks.size());
    f.racks.resize(racks.size());
    forEach(racks.size(), [&](std::size_t ri) { sums[ri] = rackEntry(racks[ri], f.racks[ri], t_sup_mean); });
    RackSums all;
    for (std::size_t ri = 0; ri < racks.size(); ++ri) {
        const model::RackFrame& rf = f.racks[ri];
        const RackSums& rs = sums[ri];
        all.rci_hi += rs.rci_hi;
        all.rci_lo += rs.rci_lo;
        all.levels += rs.levels;
        all.shi_num += rs.shi_num;
        all.shi_den += rs.shi_den;
        all.tin += rs.tin;
        all.tout += rs.tout;
        all.q += rs.q;
        f.rear_door_heat_w += racks[ri].door_w;
        f.heat_in_w += rf.heat_to_air_w;
        if (rf.inlet_max_c > f.max_inlet_c) {
            f.max_inlet_c = rf.inlet_max_c;
            f.max_inlet_rack = rf.id;
        }
    }
    const int n = all.levels;
    f.rci_hi = n ? 100.0 * (1.0 - all.rci_hi / (n * (kInletAllowableC - kInletLimitC))) : 100.0;
    f.rci_lo = n ? 100.0 * (1.0 - all.rci_lo / (n * (kInletLowC - kInletLowAllowableC))) : 100.0;
    // RTI: (return − supply) / (rack exhaust − rack intake), airflow-weighted; SHI: (T_in − T_sup)/(T_out − T_sup).
    const double dt_units = q_u > 0 ? (t_return_q - t_supply_q) / q_u : 0;
    const double dt_racks = all.q > 0 ? (all.tout - all.tin) / all.q : 0;
    f.rti = dt_racks > 0 ? 100.0 * dt_units / dt_racks : 0;
    f.shi = all.shi_den > 0 ? all.shi_num / all.shi_den : 0;
}

double Engine::Impl::frameCooling(model::Frame& f) {
    double cooling_w = 0, plant_heat = 0;
    f.cooling_units.resize(units.size());
    for (std::size_t ui = 0; ui < units.size(); ++ui) {
        const UnitRt& ur = units[ui];
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
    }
    plant_heat += f.rear_door_heat_w;
    for (const auto& rr : racks)
        if (rr.door) cooling_w += rr.door->fan_power_w;
    for (const auto& l : loops) f.loops.push_back({l.loop->id, l.load_w, l.loop->supply_temp_c, l.failed});
    for (const auto& c : cdus) {
        f.cdus.push_back({c.cdu->id, c.supply_c, c.return_c, c.load_w, c.failed, c.over_capacity});
        plant_heat += c.load_w;
        cooling_w += c.failed ? 0 : c.model->pump_power_w;
    }
    return cooling_w + plant_heat / scenario.plant.chiller_cop + scenario.plant.pump_power_w;
}

void Engine::Impl::framePower(model::Frame& f, double cooling_w) {
    f.rack_pdus.resize(rpdus.size());
    forEach(rpdus.size(), [&](std::size_t pi) {
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
    auto chain = [](const std::vector<ChainRt>& v, std::vector<model::PowerNodeFrame>& out) {
        for (const auto& x : v) out.push_back({x.id, x.load_w, x.loss_w, x.capacity_w > 0 ? x.load_w / x.capacity_w : 0, x.alive});
    };
    chain(pdus, f.pdus);
    chain(ups, f.ups);
    chain(txs, f.transformers);
    chain(feeds, f.feeds);
    f.transformer_loss_w = 0;
    for (const auto& x : txs) f.transformer_loss_w += x.loss_w;
    f.ups_loss_w = 0;
    for (const auto& x : ups) f.ups_loss_w += x.loss_w;
    f.cooling_power_w = cooling_w;
    f.facility_power_w = f.it_power_w + f.ups_loss_w + f.transformer_loss_w + f.cooling_power_w;
    f.pue = f.it_power_w > 0 ? f.facility_power_w / f.it_power_w : 0;
    if (f.max_inlet_c < -1e8) f.max_inlet_c = 0;
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
                const std::size_t xf =
                    static_cast<std::size_t>(i) + static_cast<std::size_t>(nx + 1) * (j + static_cast<std::size_t>(ny) * kk);
                const std::size_t yf =
                    static_cast<std::size_t>(i) + static_cast<std::size_t>(nx) * (j + static_cast<std::size_t>(ny + 1) * kk);
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

}  // namespace ct::sim
