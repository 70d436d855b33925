// The engine: building the runtime state, the timeline of events, the public API (see engine_impl.hpp).
#include "engine/engine_impl.hpp"

#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/geometry.hpp>

#include <algorithm>
#include <chrono>
#include <clustertwin/sim/jobs.hpp>
#include <cmath>
#include <limits>
#include <mutex>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace ct::sim {

// ------------------------------------------------------------------ building

void Engine::Impl::build() {
    chooseModels();
    facility_water_c = scenario.plant.facility_water_temp_c;
    unit_airflow_margin = scenario.simulation.unit_airflow_margin.value_or(opt.unit_airflow_margin);
    for (const auto& f : scenario.power.feeds) feed_ramp_limit_w_per_s.push_back(f.ramp_limit_w_per_s);
    buildPowerChain();  // first: rack PDUs refer to it
    for (const auto& l : scenario.plant.loops) {
        loop_by_id[l.id] = static_cast<int>(loops.size());
        loops.push_back({&l});
    }
    for (int h = 0; h < static_cast<int>(scenario.halls.size()); ++h) {
        halls.emplace_back();
        for (const auto& row : scenario.halls[static_cast<std::size_t>(h)].rows)
            for (const auto& r : row.racks) buildRack(h, r);
        buildCooling(h);
    }
    assignRanks();
    for (int h = 0; h < static_cast<int>(halls.size()); ++h) {
        // The air starts at the mean of the hall's units' setpoints, as do the plenum and the ceiling return.
        HallRt& hr = halls[static_cast<std::size_t>(h)];
        double t0 = 0;
        for (int ui : hr.units) t0 += units[static_cast<std::size_t>(ui)].setpoint_c;
        hr.fill_c = hr.plenum_c = hr.return_c = hr.units.empty() ? 22.0 : t0 / static_cast<double>(hr.units.size());
        if (!mine(static_cast<std::size_t>(h))) continue;
        if (!spread()) {
            buildAir(h);
            continue;
        }
        try {  // over ranks every rank must hear of it (shareLayout), or the others wait for this one forever
            buildAir(h);
        } catch (const std::exception& e) {
            hr.error = e.what();
        }
    }
    if (spread()) shareLayout();  // throws SimError for the first hall whose air could not be built
    for (int h = 0; h < static_cast<int>(halls.size()); ++h)
        for (const auto& id : halls[static_cast<std::size_t>(h)].unsealed)
            frame.alerts.push_back({0, "containment_open", id,
                                    "containment " + id + " does not seal its aisle at a " + std::to_string(opt.cell_m).substr(0, 4) +
                                        " m grid (no roof or end doors, or a gap): its aisle is simulated as part of the room"});

    drive.build(*this, scenario.jobs, std::move(opt.drive));
    opt.drive.clear();
    // Start at rest: air at the mean supply setpoint, GPUs at the temperature of their initial power (Engine()).
    timeline = scenario.events;
    std::stable_sort(timeline.begin(), timeline.end(), [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
}

int Engine::Impl::loopOf(const std::string& id) const {
    const auto it = loop_by_id.find(id);
    return it != loop_by_id.end() ? it->second : -1;
}

void Engine::Impl::chooseModels() {
    if (!(opt.step_s > 0 && opt.step_s <= 3600)) throw SimError("step must be within (0, 3600] s");
    if (!(opt.cell_m >= 0.1 - 1e-12 && opt.cell_m <= 0.5 + 1e-12)) throw SimError("air cell size must be within 0.1–0.5 m");
    air_backend = chooseBackend(opt.backend);  // throws when unavailable, saying why
    air_solver = !opt.air.empty() ? opt.air : !scenario.simulation.air.empty() ? scenario.simulation.air : airSolverNames().front();
    try {
        requireAirSolver(air_solver);
    } catch (const SimError& e) {
        if (!opt.air.empty()) throw;
        throw SimError(std::string("/simulation/air: ") + e.what());  // the scenario's choice: point at it
    }
    scenario.linkParents();
    placeJobs(scenario, catalog);
    if (!workload) {
        const bool coupled =
            std::any_of(scenario.jobs.begin(), scenario.jobs.end(), [](const model::Job& j) { return j.training || j.inference; });
        if (coupled) workload = std::make_shared<JobWorkload>(scenario, catalog);
        else workload = std::make_shared<ProfileWorkload>(scenario);
    }
}

void Engine::Impl::buildPowerChain() {
    for (const auto& f : scenario.power.feeds) {
        feed_by_id[f.id] = static_cast<int>(feeds.size());
        feeds.push_back({f.id, -1, f.capacity_w, nullptr});
    }
    for (const auto& x : scenario.power.transformers) {
        tx_by_id[x.id] = static_cast<int>(txs.size());
        ChainRt tx{x.id, feed_by_id.count(x.feed) ? feed_by_id[x.feed] : -1, x.capacity_w, nullptr};
        tx.efficiency = x.efficiency > 0 ? x.efficiency : 1.0;
        txs.push_back(tx);
    }
    for (const auto& x : scenario.power.ups) {
        ups_by_id[x.id] = static_cast<int>(ups.size());
        const auto* m = catalog.upsModel(x.model);
        ChainRt u{x.id, feed_by_id.count(x.feed) ? feed_by_id[x.feed] : -1, m ? m->capacity_w * x.modules : 0,
                  m ? catalog.curve(m->efficiency_curve) : nullptr};
        if (tx_by_id.count(x.feed)) u.via = tx_by_id[x.feed];
        ups.push_back(u);
    }
    for (const auto& p : scenario.power.pdus) {
        pdu_by_id[p.id] = static_cast<int>(pdus.size());
        pdus.push_back({p.id, ups_by_id.count(p.ups) ? ups_by_id[p.ups] : -1, p.capacity_w, nullptr});
    }
}

void Engine::Impl::buildRack(int h, const model::Rack& r) {
    const int ri = static_cast<int>(racks.size());
    rack_by_id[r.id] = ri;
    halls[h].racks.push_back(ri);
    RackRt rr;
    rr.rack = &r;
    rr.hall = h;
    rr.fixed_recirculation = model::fixedRecirculation(r, catalog);
    if (r.rear_door) {
        rr.door = catalog.rearDoor(r.rear_door->model);
        if (!rr.door) throw SimError("rack " + r.id + ": unknown rear door " + r.rear_door->model);
        rr.door_loop = loopOf(r.rear_door->loop);
    }
    for (const auto& p : r.pdus) {
        rpdu_by_id[p.id] = static_cast<int>(rpdus.size());
        RackPduRt x;
        x.pdu = &p;
        x.rack = ri;
        x.upstream = pdu_by_id.count(p.upstream) ? pdu_by_id[p.upstream] : -1;
        rpdus.push_back(x);
    }
    for (const auto& n : r.nodes) {
        NodeRt nr;
        nr.node = &n;
        nr.server = catalog.server(n.model);
        if (!nr.server) throw SimError("node " + n.id + ": unknown server model " + n.model);
        nr.gpu = catalog.gpu(nr.server->gpu_model);
        nr.psu_curve = catalog.curve(nr.server->psu_curve);
        nr.rack = ri;
        nr.gpus.resize(static_cast<std::size_t>(nr.server->gpu_count));
        for (const auto& f : n.feeds)
            if (rpdu_by_id.count(f)) nr.feeds.push_back(rpdu_by_id[f]);
        node_by_id[n.id] = static_cast<int>(nodes.size());
        rr.nodes.push_back(static_cast<int>(nodes.size()));
        nodes.push_back(std::move(nr));
    }
    racks.push_back(std::move(rr));
}

void Engine::Impl::buildCooling(int h) {
    const model::Hall& hall = scenario.halls[static_cast<std::size_t>(h)];
    for (const auto& cu : hall.cooling_units) {
        unit_by_id[cu.id] = static_cast<int>(units.size());
        halls[h].units.push_back(static_cast<int>(units.size()));
        UnitRt ur;
        ur.unit = &cu;
        ur.model = catalog.coolingUnit(cu.model);
        if (!ur.model) throw SimError("cooling unit " + cu.id + ": unknown model " + cu.model);
        ur.hall = h;
        ur.setpoint_c = ur.supply_c = cu.supply_setpoint_c;
        ur.inrow = ur.model->kind == "in-row";
        if (cu.fan_speed) ur.held_q_m3s = *cu.fan_speed * ur.model->airflow_m3s;
        ur.return_control = cu.control == "return" && cu.return_setpoint_c;
        if (ur.return_control) {
            ur.setpoint_c = *cu.return_setpoint_c;
            ur.control_supply_c = cu.supply_setpoint_c;
            ur.control_tau_s = ur.model->control_time_constant_s;
        }
        ur.loop = loopOf(cu.loop);
        units.push_back(ur);
    }
    for (const auto& cd : hall.cdus) {
        cdu_by_id[cd.id] = static_cast<int>(cdus.size());
        CduRt c;
        c.cdu = &cd;
        c.model = catalog.cdu(cd.model);
        if (!c.model) throw SimError("CDU " + cd.id + ": unknown model " + cd.model);
        c.setpoint_c = c.supply_c = c.return_c = cd.supply_temp_c;
        for (const auto& r : cd.racks)
            if (rack_by_id.count(r)) racks[rack_by_id[r]].cdus.push_back(static_cast<int>(cdus.size()));
        cdus.push_back(c);
    }
}

// ------------------------------------------------------------------ events

void Engine::Impl::applyEvents() {
    while (next_event < timeline.size() && timeline[next_event].time_s <= t + 1e-9) applyEvent(timeline[next_event++]);
}

void Engine::Impl::applyEvent(const model::Event& e) {
    const std::string& k = e.kind;
    const bool fail = k.size() > 5 && k.compare(k.size() - 5, 5, "_fail") == 0;
    auto setNodes = [&](const std::vector<int>& ns, double v) {
        for (int n : ns) nodes[n].override_util = v;
    };
    if (k == "cooling_unit_fail" || k == "cooling_unit_restore") {
        if (auto it = unit_by_id.find(e.target); it != unit_by_id.end()) {
            units[it->second].failed = fail;
            alert("unit_failed", e.target, "cooling unit " + e.target + " failed", fail);
        }
    } else if (k == "loop_fail" || k == "loop_restore") {
        if (auto it = loop_by_id.find(e.target); it != loop_by_id.end()) {
            loops[it->second].failed = fail;
            alert("unit_failed", e.target, "water loop " + e.target + " failed: what it cools gets no chilled water", fail);
        }
    } else if (k == "cdu_fail" || k == "cdu_restore") {
        if (auto it = cdu_by_id.find(e.target); it != cdu_by_id.end()) {
            cdus[it->second].failed = fail;
            alert("unit_failed", e.target, "CDU " + e.target + " failed", fail);
        }
    } else if (k == "setpoint_change" && e.value) {
        if (auto it = unit_by_id.find(e.target); it != unit_by_id.end()) units[it->second].setpoint_c = *e.value;
        if (auto it = cdu_by_id.find(e.target); it != cdu_by_id.end()) cdus[it->second].setpoint_c = *e.value;
    } else if (k == "node_fail" || k == "node_restore") {
        if (auto it = node_by_id.find(e.target); it != node_by_id.end()) {
            NodeRt& n = nodes[it->second];
            n.failed = fail;
            if (!fail)
                for (auto& g : n.gpus) g.shutdown = false;
        }
    } else if (k == "gpu_fail" || k == "gpu_restore") {
        const auto slash = e.target.rfind("/gpu");
        if (slash != std::string::npos)
            if (auto it = node_by_id.find(e.target.substr(0, slash)); it != node_by_id.end()) {
                const int gi = std::atoi(e.target.c_str() + slash + 4);
                auto& gs = nodes[it->second].gpus;
                if (gi >= 0 && gi < static_cast<int>(gs.size())) {
                    gs[gi].failed = fail;
                    if (!fail) gs[gi].shutdown = false;
                }
            }
    } else if (k == "feed_fail" || k == "feed_restore") {
        if (auto it = feed_by_id.find(e.target); it != feed_by_id.end()) feeds[it->second].failed = fail;
        if (auto it = tx_by_id.find(e.target); it != tx_by_id.end()) txs[it->second].failed = fail;
        if (auto it = ups_by_id.find(e.target); it != ups_by_id.end()) ups[it->second].failed = fail;
        if (auto it = pdu_by_id.find(e.target); it != pdu_by_id.end()) pdus[it->second].failed = fail;
        if (auto it = rpdu_by_id.find(e.target); it != rpdu_by_id.end()) rpdus[it->second].failed = fail;
    } else if (k == "workload_change" && e.value) {
        if (auto it = node_by_id.find(e.target); it != node_by_id.end()) setNodes({it->second}, *e.value);
        if (auto it = rack_by_id.find(e.target); it != rack_by_id.end()) setNodes(racks[it->second].nodes, *e.value);
        for (const auto& j : scenario.jobs)
            if (j.id == e.target)
                for (const auto& nid : j.nodes)
                    if (auto it = node_by_id.find(nid); it != node_by_id.end()) setNodes({it->second}, *e.value);
    }
    workload->onEvent(e);  // link failures reach the fabric
    frame.alerts.push_back({t, "event", e.target, k + (e.value ? " " + std::to_string(*e.value) : std::string())});
}

namespace {
/// A hall's step allocates and frees buffers of megabytes (the lattice's mean flow, the projection's vectors, the
/// heat's rates), above glibc's mmap threshold: each came from the kernel again, zeroed page by page (the
/// 80-rack hall, 2 simulated minutes: 60,600 page faults, ~7 % of the run). Served from the heap and kept
/// there, they are reused: 23,100 faults. Up to 256 MB of freed memory stays with the process.
void keepFreedBuffers() {
#ifdef __GLIBC__
    static std::once_flag once;
    std::call_once(once, [] {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest; also stops it from moving the threshold itself
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
    });
#endif
}
}  // namespace

// ------------------------------------------------------------------ public

Engine::Engine(const model::Scenario& s, const model::Catalog& c, const EngineOptions& opt, std::shared_ptr<Workload> w)
    : d_(std::make_unique<Impl>(s, c, opt, std::move(w))) {
    keepFreedBuffers();
    d_->build();
    std::uint64_t cells = 0;
    for (const auto& h : d_->halls) cells += h.cells;
    d_->stats.grid_cells = cells;
    d_->stats.air_solver = d_->air_solver;
    d_->stats.ranks = d_->spread() ? d_->opt.hall_ranks->size() : 1;
    d_->stats.hall_ranks = d_->hall_rank;
    for (const auto& m : d_->hall_members) d_->stats.hall_slabs.push_back(static_cast<int>(m.size()));
    for (const auto& h : d_->halls) {
        d_->stats.air_approximate = d_->stats.air_approximate || h.approximate;
        if (!d_->stats.air_summary.empty()) d_->stats.air_summary += '\n';
        d_->stats.air_summary += h.summary;
    }
    // Initial state: the room at rest, GPUs at the temperature of their power, flows solved, frame at t = 0.
    d_->applyEvents();
    d_->drive.jobs(*d_, 0, false);
    d_->workload->update(0, d_->opt.step_s, d_->frame, d_->frame);
    detail::feedsAlive(*d_);
    detail::equipment(*d_, *d_->workload, 0, d_->alerts);
    d_->drive.nodes(*d_, 0, false);
    detail::powerChain(*d_);
    for (auto& n : d_->nodes) {
        // The room starts uniform, at its fill temperature as the grid stores it (a float).
        n.inlet_c = static_cast<float>(d_->halls[static_cast<std::size_t>(d_->racks[static_cast<std::size_t>(n.rack)].hall)].fill_c);
        for (auto& g : n.gpus) g.temp_c = n.inlet_c;
    }
    d_->drive.cooling(*d_, 0, false);
    d_->airflowTargets();
    d_->afterAir();  // the units' airflow and the sensors of halls on other ranks
    detail::liquid(*d_, d_->alerts);
    // GPUs start at the temperature of their initial power on that air or coolant, not at the air's own: real
    // H100s read 41 °C idle (issue 44's real captures, where a twin starting them at the inlet read 24 K cold).
    for (auto& n : d_->nodes) detail::gpusAtSteadyState(*d_, n);
    d_->finishFrame(false);
}

Engine::~Engine() = default;

void Engine::addEvents(const std::vector<model::Event>& events) {
    auto& tl = d_->timeline;
    std::vector<model::Event> rest(tl.begin() + static_cast<long>(d_->next_event), tl.end());
    rest.insert(rest.end(), events.begin(), events.end());
    std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
    tl.resize(d_->next_event);
    tl.insert(tl.end(), rest.begin(), rest.end());
}

const model::Frame& Engine::step(bool with_air) {
    Impl& d = *d_;
    const double dt = d.opt.step_s;
    using Clock = std::chrono::steady_clock;
    auto mark = Clock::now();
    int phase = 0;
    auto done = [&] {  // closes the current phase (kEnginePhases)
        const auto now = Clock::now();
        d.stats.phase_seconds[phase++] += std::chrono::duration<double>(now - mark).count();
        mark = now;
    };
    // The alerts of the initial frame (raised while the engine was built: a link busy from t = 0, a breaker
    // loaded from the start) go out with the first step; they used to be cleared unseen, so a link at 98.8 %
    // from the start never raised link_high (issue 16).
    if (d.stats.steps > 0) d.frame.alerts.clear();
    d.alerts.t = d.t;
    d.applyEvents();
    // Driven inputs take the measured value at the step's end, the time its frame is stamped with, so a run
    // records what was measured at each of its sample times.
    const double t_end = d.t + dt;
    const bool driven = !d.drive.empty();
    if (driven) d.drive.jobs(d, t_end, true);
    done();
    d.workload->update(d.t, dt, d.frame, d.frame);  // jobs pace themselves on the last step's clocks and the fabric
    done();
    detail::feedsAlive(d);  // which feeds are live decides which nodes run
    done();
    detail::equipment(d, *d.workload, d.t, d.alerts);
    if (driven) d.drive.nodes(d, t_end, true);
    done();
    detail::powerChain(d);  // loads of this step, PSU losses, heat to air
    done();
    if (driven) d.drive.cooling(d, t_end, true);
    d.airflowTargets();
    done();
    d.advanceAir(dt);
    const auto after_air = Clock::now();
    d.stats.air_seconds += std::chrono::duration<double>(after_air - mark).count();
    mark = after_air;
    detail::liquid(d, d.alerts);
    done();
    d.gpuTemperatures(dt);
    done();
    d.t += dt;
    d.alerts.t = d.t;
    ++d.stats.steps;
    d.finishFrame(with_air);
    done();
    d.stats.other_seconds = 0;
    for (double s : d.stats.phase_seconds) d.stats.other_seconds += s;
    return d.frame;
}

const model::Frame& Engine::frame() const { return d_->frame; }
const std::vector<model::Job>& Engine::jobs() const { return d_->scenario.jobs; }
double Engine::timeS() const { return d_->t; }
const EngineStats& Engine::stats() const { return d_->stats; }
const std::vector<DriveCount>& Engine::driveCounts() const { return d_->drive.counts; }

double Engine::flowThroughTimeS() const {
    double volume = 0, q = 0;
    for (const auto& h : d_->halls) volume += static_cast<double>(h.cells - h.solids) * h.cell_m * h.cell_m * h.cell_m;
    for (const auto& u : d_->units) q += u.q_m3s;
    return q > 0 ? volume / q : std::numeric_limits<double>::infinity();
}

double Engine::airTemperatureAt(double x, double y, double z, int hall) const {
    const HallRt& hr = d_->halls.at(static_cast<std::size_t>(hall));
    if (!hr.air)
        throw SimError("hall " + d_->scenario.halls[static_cast<std::size_t>(hall)].id + "'s air is stepped on rank " +
                       std::to_string(d_->hall_rank[static_cast<std::size_t>(hall)]) + ", not on this one");
    const AirModel& air = *hr.air;
    int i, j, k;
    air.cellOf(x, y, z, i, j, k);
    const int c = air.index(i, j, k);
    return air.solid(c) ? std::nan("") : air.temperature(c);
}
}  // namespace ct::sim
