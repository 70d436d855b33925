#include <clustertwin/sim/engine.hpp>
#include <clustertwin/sim/jobs.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include "engine_state.hpp"

#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unistd.h>
#include <unordered_map>

namespace ct::sim {

using namespace detail;
namespace u = model::units;

namespace {

constexpr double kRhoCp = u::kAirDensityKgM3 * u::kAirCpJPerKgK;  // J/(m³·K)
constexpr double kInletLimitC = 27.0;       // ASHRAE recommended upper inlet (RCI_HI, alerts)
constexpr double kInletAllowableC = 32.0;   // ASHRAE A1 allowable upper inlet
constexpr double kInletLowC = 18.0, kInletLowAllowableC = 15.0;

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

struct Engine::Impl {
    Backend air_backend = Backend::Cpu;
    model::Scenario scenario;
    model::Catalog catalog;
    EngineOptions opt;
    std::shared_ptr<Workload> workload;
    ThreadPool pool;
    double t = 0;
    EngineStats stats;
    model::Frame frame;

    std::vector<HallRt> halls;
    std::vector<NodeRt> nodes;
    std::vector<RackRt> racks;
    std::vector<UnitRt> units;
    std::vector<CduRt> cdus;
    std::vector<RackPduRt> rpdus;
    std::vector<ChainRt> pdus, ups, feeds;
    std::vector<model::Event> timeline;  // sorted by time
    std::size_t next_event = 0;
    std::set<std::string> active_alerts;
    std::unordered_map<std::string, int> node_by_id, rack_by_id, unit_by_id, cdu_by_id, rpdu_by_id, pdu_by_id, ups_by_id,
        feed_by_id;

    Impl(const model::Scenario& s, const model::Catalog& c, const EngineOptions& o, std::shared_ptr<Workload> w)
        : scenario(s), catalog(c), opt(o), workload(std::move(w)), pool(o.threads) {}

    void build();
    void buildAir(int h);
    void applyEvents();
    void applyEvent(const model::Event& e);
    void equipment();
    void airflowTargets();
    void advanceAir(double dt);
    void gpuTemperatures(double dt);
    void liquid();
    void powerChain();
    void finishFrame(bool with_air);
    void alert(const std::string& kind, const std::string& entity, const std::string& msg, bool active);
};

// ------------------------------------------------------------------ building

void Engine::Impl::build() {
    if (!(opt.step_s > 0 && opt.step_s <= 3600)) throw SimError("step must be within (0, 3600] s");
    if (!(opt.cell_m >= 0.1 - 1e-12 && opt.cell_m <= 0.5 + 1e-12)) throw SimError("air cell size must be within 0.1–0.5 m");
    air_backend = chooseBackend(opt.backend);  // throws when unavailable, saying why
    scenario.linkParents();
    placeJobs(scenario, catalog);
    if (!workload) {
        const bool coupled = std::any_of(scenario.jobs.begin(), scenario.jobs.end(),
                                         [](const model::Job& j) { return j.training || j.inference; });
        if (coupled) workload = std::make_shared<JobWorkload>(scenario, catalog);
        else workload = std::make_shared<ProfileWorkload>(scenario);
    }

    // Power chain first: rack PDUs refer to it.
    for (const auto& f : scenario.power.feeds) {
        feed_by_id[f.id] = static_cast<int>(feeds.size());
        feeds.push_back({f.id, -1, f.capacity_w, nullptr});
    }
    for (const auto& x : scenario.power.ups) {
        ups_by_id[x.id] = static_cast<int>(ups.size());
        const auto* m = catalog.upsModel(x.model);
        ups.push_back({x.id, feed_by_id.count(x.feed) ? feed_by_id[x.feed] : -1, m ? m->capacity_w * x.modules : 0,
                       m ? catalog.curve(m->efficiency_curve) : nullptr});
    }
    for (const auto& p : scenario.power.pdus) {
        pdu_by_id[p.id] = static_cast<int>(pdus.size());
        pdus.push_back({p.id, ups_by_id.count(p.ups) ? ups_by_id[p.ups] : -1, p.capacity_w, nullptr});
    }

    for (int h = 0; h < static_cast<int>(scenario.halls.size()); ++h) {
        const model::Hall& hall = scenario.halls[h];
        halls.emplace_back();
        for (const auto& row : hall.rows)
            for (const auto& r : row.racks) {
                const int ri = static_cast<int>(racks.size());
                rack_by_id[r.id] = ri;
                halls[h].racks.push_back(ri);
                RackRt rr;
                rr.rack = &r;
                rr.hall = h;
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
        for (const auto& cu : hall.cooling_units) {
            unit_by_id[cu.id] = static_cast<int>(units.size());
            halls[h].units.push_back(static_cast<int>(units.size()));
            UnitRt ur;
            ur.unit = &cu;
            ur.model = catalog.coolingUnit(cu.model);
            if (!ur.model) throw SimError("cooling unit " + cu.id + ": unknown model " + cu.model);
            ur.hall = h;
            ur.setpoint_c = ur.supply_c = cu.supply_setpoint_c;
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
    for (int h = 0; h < static_cast<int>(halls.size()); ++h) buildAir(h);

    // Start at thermal rest: air at the mean supply setpoint, equipment at its inlet.
    timeline = scenario.events;
    std::stable_sort(timeline.begin(), timeline.end(), [](const auto& a, const auto& b) { return a.time_s < b.time_s; });
}

void Engine::Impl::buildAir(int h) {
    const model::Hall& hall = scenario.halls[h];
    AirGridSpec spec{hall.width_m, hall.depth_m, hall.height_m, opt.cell_m, opt.kappa_m2s};
    spec.backend = air_backend;
    const std::uint64_t need = airModelBytes(spec);
    const std::uint64_t limit = opt.max_grid_bytes ? opt.max_grid_bytes : physicalMemory() / 10 * 8;
    if (need > limit)
        throw SimError("hall " + hall.id + ": an air grid of " + std::to_string(opt.cell_m) + " m needs " + gib(need) +
                       " of memory, more than the " + gib(limit) + " available; use a coarser --cell");
    HallRt& hr = halls[h];
    hr.air = std::make_unique<AirModel>(spec, pool);
    AirModel& air = *hr.air;
    const double c = air.cellM();

    auto solidOf = [&](const model::Box2& b, double height) { air.addSolidBox(b.x0, b.y0, 0, b.x1, b.y1, height); };
    for (int ri : hr.racks) {
        const auto* rm = catalog.rack(racks[ri].rack->model);
        if (!rm) throw SimError("rack " + racks[ri].rack->id + ": unknown rack model");
        solidOf(model::footprint(racks[ri].rack->position_m, rm->width_m, rm->depth_m, racks[ri].rack->facing), rm->height_m);
    }
    for (int ui : hr.units) {
        const auto& m = *units[ui].model;
        solidOf(model::footprint(units[ui].unit->position_m, m.width_m, m.depth_m, units[ui].unit->facing), m.height_m);
    }
    for (const auto& cd : hall.cdus)
        if (const auto* m = catalog.cdu(cd.model)) solidOf(model::footprint(cd.position_m, m->width_m, m->depth_m, cd.facing), m->height_m);

    // Cells one layer outside a face of a footprint, for levels [k0, k1).
    auto faceCells = [&](const model::Box2& b, model::Facing side, int k0, int k1, bool* blocked) {
        std::vector<int> cells;
        const bool ns = side == model::Facing::North || side == model::Facing::South;
        const double a0 = ns ? b.x0 : b.y0, a1 = ns ? b.x1 : b.y1;
        const int na = std::max(1, static_cast<int>(std::lround((a1 - a0) / c)));
        for (int kk = k0; kk < k1; ++kk)
            for (int s = 0; s < na; ++s) {
                const double a = a0 + (s + 0.5) * (a1 - a0) / na;
                double x = a, y = a;
                if (side == model::Facing::North) y = b.y1 + c / 2;
                if (side == model::Facing::South) y = b.y0 - c / 2;
                if (side == model::Facing::East) x = b.x1 + c / 2;
                if (side == model::Facing::West) x = b.x0 - c / 2;
                if (x < 0 || y < 0 || x > hall.width_m || y > hall.depth_m) {
                    *blocked = true;
                    continue;
                }
                int i, j, kz;
                air.cellOf(x, y, (kk + 0.5) * c, i, j, kz);
                const int cell = air.index(i, j, kz);
                if (air.solid(cell)) {
                    *blocked = true;
                    continue;
                }
                if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
            }
        return cells;
    };
    auto opposite = [](model::Facing f) {
        switch (f) {
        case model::Facing::North: return model::Facing::South;
        case model::Facing::South: return model::Facing::North;
        case model::Facing::East: return model::Facing::West;
        default: return model::Facing::East;
        }
    };

    for (int ri : hr.racks) {
        RackRt& rr = racks[ri];
        const auto* rm = catalog.rack(rr.rack->model);
        const model::Box2 b = model::footprint(rr.rack->position_m, rm->width_m, rm->depth_m, rr.rack->facing);
        const int levels = std::clamp(static_cast<int>(std::lround(rm->height_m / c)), 1, air.nz());
        for (int kk = 0; kk < levels; ++kk) {
            bool blocked_in = false, blocked_out = false;
            auto in = faceCells(b, rr.rack->facing, kk, kk + 1, &blocked_in);
            auto out = faceCells(b, opposite(rr.rack->facing), kk, kk + 1, &blocked_out);
            if (in.empty() || out.empty())
                throw SimError("rack " + rr.rack->id + ": its " + std::string(in.empty() ? "intake (front)" : "exhaust (back)") +
                               " is blocked by a wall or equipment at " + std::to_string((kk + 0.5) * c) + " m");
            RackLevel lv;
            lv.intake_port = air.addPort(in, false);
            lv.exhaust_port = air.addPort(out, true);
            lv.z_m = (kk + 0.5) * c;
            rr.levels.push_back(lv);
        }
        // Nodes occupy levels by their U span (1U = 44.45 mm from the rack floor).
        for (int ni : rr.nodes) {
            NodeRt& n = nodes[ni];
            const double z0 = (n.node->u_position - 1) * u::kRackUnitM;
            const double z1 = z0 + n.server->height_u * u::kRackUnitM;
            for (int kk = 0; kk < levels; ++kk) {
                const double lo = std::max(z0, kk * c), hi = std::min(z1, (kk + 1) * c);
                if (hi > lo) n.levels.emplace_back(kk, (hi - lo) / (z1 - z0));
            }
            if (n.levels.empty()) n.levels.emplace_back(levels - 1, 1.0);
        }
    }
    for (int ui : hr.units) {
        UnitRt& ur = units[ui];
        const auto& m = *ur.model;
        const model::Box2 b = model::footprint(ur.unit->position_m, m.width_m, m.depth_m, ur.unit->facing);
        const int levels = std::clamp(static_cast<int>(std::lround(m.height_m / c)), 1, air.nz());
        bool blocked = false;
        // Supply low at the front; return through the top (or the upper back when the unit reaches the ceiling).
        auto supply = faceCells(b, ur.unit->facing, 0, std::max(1, levels / 2), &blocked);
        std::vector<int> ret;
        if (levels < air.nz()) {
            int i0, j0, k0, i1, j1, k1;
            air.cellOf(b.x0 + c / 2, b.y0 + c / 2, (levels + 0.5) * c, i0, j0, k0);
            air.cellOf(b.x1 - c / 2, b.y1 - c / 2, (levels + 0.5) * c, i1, j1, k1);
            for (int j = j0; j <= j1; ++j)
                for (int i = i0; i <= i1; ++i)
                    if (!air.solid(air.index(i, j, k0))) ret.push_back(air.index(i, j, k0));
        }
        if (ret.empty()) ret = faceCells(b, opposite(ur.unit->facing), levels / 2, levels, &blocked);
        if (supply.empty() || ret.empty()) throw SimError("cooling unit " + ur.unit->id + ": its supply or return is blocked");
        ur.supply_port = air.addPort(supply, true);
        ur.return_port = air.addPort(ret, false);
    }
    // Raised floor: the units blow into the plenum, which feeds perforated tiles in front of every rack (the
    // first two cells of its cold aisle); the plenum mixes the units' supply. The tiles' jets are spread over
    // the lowest half metre of the aisle, where they carry their air.
    if (hall.raised_floor && !hr.units.empty()) {
        std::vector<int> tiles;
        for (int ri : hr.racks) {
            const auto* rm = catalog.rack(racks[ri].rack->model);
            model::Box2 b = model::footprint(racks[ri].rack->position_m, rm->width_m, rm->depth_m, racks[ri].rack->facing);
            const int jet_levels = std::clamp(static_cast<int>(std::lround(0.5 / c)), 1, air.nz());
            for (int layer = 0; layer < 2; ++layer) {
                bool blocked = false;
                for (int cell : faceCells(b, racks[ri].rack->facing, 0, jet_levels, &blocked))
                    if (std::find(tiles.begin(), tiles.end(), cell) == tiles.end()) tiles.push_back(cell);
                // Step the box one cell further into the aisle for the second layer.
                switch (racks[ri].rack->facing) {
                case model::Facing::North: b.y1 += c; break;
                case model::Facing::South: b.y0 -= c; break;
                case model::Facing::East: b.x1 += c; break;
                case model::Facing::West: b.x0 -= c; break;
                }
            }
        }
        if (!tiles.empty()) hr.tile_port = air.addPort(tiles, true);
    }
    double t0 = 0;
    int n0 = 0;
    for (int ui : hr.units) {
        t0 += units[ui].setpoint_c;
        ++n0;
    }
    air.fill(n0 ? t0 / n0 : 22.0);
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

void Engine::Impl::alert(const std::string& kind, const std::string& entity, const std::string& msg, bool active) {
    const std::string key = kind + '\x1f' + entity;
    if (active) {
        if (active_alerts.insert(key).second) frame.alerts.push_back({t, kind, entity, msg});
    } else {
        active_alerts.erase(key);
    }
}

// ------------------------------------------------------------------ equipment (MODELS.md §2, §4)

void Engine::Impl::equipment() {
    for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
        NodeRt& n = nodes[ni];
        const auto& sm = *n.server;
        const bool on = n.powered && !n.failed;
        double gpu_w = 0, util_sum = 0, gpu_max = 0;
        for (int g = 0; g < static_cast<int>(n.gpus.size()); ++g) {
            GpuRt& gr = n.gpus[g];
            gpu_max += n.gpu ? n.gpu->max_power_w : 0;
            if (!on || gr.failed || gr.shutdown || !n.gpu) {
                gr.util = 0;
                gr.power_w = 0;
                gr.throttle = 1;
                continue;
            }
            const auto& gm = *n.gpu;
            // Above the slowdown temperature clocks drop: utilization (work done) and power fall with them.
            gr.throttle = gr.temp_c <= gm.slowdown_temp_c
                              ? 1.0
                              : std::clamp(1.0 - 0.8 * (gr.temp_c - gm.slowdown_temp_c) / (gm.shutdown_temp_c - gm.slowdown_temp_c), 0.2, 1.0);
            const double demand = n.override_util ? *n.override_util : workload->gpuDemand(ni, g, t);
            gr.util = std::clamp(demand, 0.0, 1.0) * gr.throttle;
            gr.power_w = gm.idle_power_w + (gm.max_power_w - gm.idle_power_w) * std::pow(gr.util, gm.power_exponent);
            gpu_w += gr.power_w;
            util_sum += gr.util;
        }
        if (!on) {
            n.power_dc_w = n.fan_power_w = n.airflow_m3s = n.heat_air_w = n.heat_liquid_w = 0;
            n.fan_speed = 0;
            continue;
        }
        const double u_mean = n.gpus.empty() ? 0.0 : util_sum / static_cast<double>(n.gpus.size());
        const double cpu_w = sm.cpu_count * (sm.cpu_idle_power_w + (sm.cpu_max_power_w - sm.cpu_idle_power_w) * u_mean);
        const double other_w = sm.nic_power_w + sm.other_power_w * (0.5 + 0.5 * u_mean);
        const double compute_max = gpu_max + sm.cpu_count * sm.cpu_max_power_w;
        const double load_frac = compute_max > 0 ? (gpu_w + cpu_w) / compute_max : 0.0;
        // Fans follow load and inlet temperature; power by the affinity law (∝ speed³), airflow ∝ speed.
        n.fan_speed = std::clamp(0.3 + 0.7 * load_frac + 0.04 * std::max(0.0, n.inlet_c - 25.0), 0.3, 1.0);
        n.fan_power_w = sm.fan_max_power_w * n.fan_speed * n.fan_speed * n.fan_speed;
        n.airflow_m3s = sm.airflow_m3s * n.fan_speed;
        n.power_dc_w = gpu_w + cpu_w + other_w + n.fan_power_w;
        n.heat_liquid_w = n.power_dc_w * sm.liquid_fraction;
    }
}

// ------------------------------------------------------------------ power chain (MODELS.md §2)

void Engine::Impl::powerChain() {
    for (auto& f : feeds) f.alive = !f.failed;
    for (auto& x : ups) x.alive = !x.failed && x.parent >= 0 && feeds[x.parent].alive;
    for (auto& x : pdus) x.alive = !x.failed && x.parent >= 0 && ups[x.parent].alive;
    for (auto& r : rpdus) {
        r.alive = !r.failed && r.upstream >= 0 && pdus[r.upstream].alive;
        r.load_w = 0;
        r.phase_w = {0, 0, 0};
    }
    for (std::size_t ni = 0; ni < nodes.size(); ++ni) {
        NodeRt& n = nodes[ni];
        std::vector<int> alive;
        for (int f : n.feeds)
            if (rpdus[f].alive) alive.push_back(f);
        const bool was = n.powered;
        n.powered = !alive.empty();
        if (was != n.powered || !n.powered)
            alert("node_unpowered", n.node->id, "node " + n.node->id + " lost all its power feeds", !n.powered);
        if (!n.powered || n.failed) {
            n.power_ac_w = n.psu_loss_w = 0;
            n.heat_air_w = 0;
            continue;
        }
        // PSUs on the live feeds share the load; efficiency at their load fraction.
        const auto& sm = *n.server;
        const int psus = std::max(1, static_cast<int>(std::lround(sm.psu_count * static_cast<double>(alive.size()) / n.feeds.size())));
        const auto* curve = catalog.curve(sm.psu_curve);
        const double frac = n.power_dc_w / (psus * sm.psu_rating_w);
        const double eta = curve ? curve->efficiencyAt(frac) : 1.0;
        n.power_ac_w = n.power_dc_w / eta;
        n.psu_loss_w = n.power_ac_w - n.power_dc_w;
        n.heat_air_w = n.power_ac_w - n.heat_liquid_w;
        // Each live feed takes an equal share; a 3-phase PDU's share is spread over its phases PSU by PSU.
        const double share = n.power_ac_w / static_cast<double>(alive.size());
        const int psus_per_feed = std::max(1, psus / static_cast<int>(alive.size()));
        for (int f : alive) {
            RackPduRt& r = rpdus[f];
            r.load_w += share;
            if (r.pdu->phases == 3) {
                for (int p = 0; p < psus_per_feed; ++p) r.phase_w[(ni + p) % 3] += share / psus_per_feed;
            } else {
                r.phase_w[0] += share;
            }
        }
    }
    for (auto& x : pdus) x.load_w = x.loss_w = 0;
    for (auto& x : ups) x.load_w = x.loss_w = 0;
    for (auto& x : feeds) x.load_w = x.loss_w = 0;
    for (const auto& r : rpdus)
        if (r.alive) pdus[r.upstream].load_w += r.load_w;
    for (const auto& p : pdus)
        if (p.alive && p.parent >= 0) ups[p.parent].load_w += p.load_w;
    for (auto& x : ups) {
        if (!x.alive || x.load_w <= 0) continue;
        const double eta = x.curve ? x.curve->efficiencyAt(x.load_w / x.capacity_w) : 1.0;
        x.loss_w = x.load_w * (1.0 / eta - 1.0);
        if (x.parent >= 0) feeds[x.parent].load_w += x.load_w + x.loss_w;
    }
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
        AirModel& air = *hr.air;
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
        // Re-solve only when flows moved enough (a unit failed, fans changed speed): the L1 change of the
        // port flows since the last solve against the hall's total.
        std::vector<double> now;
        for (int ri : hr.racks)
            for (auto& lv : racks[ri].levels) now.push_back(lv.q_m3s);
        for (int ui : hr.units) now.push_back(units[ui].q_m3s);
        double total = 0, moved = 0;
        for (double q : now) total += q;
        bool resolve = hr.port_flow_at_solve.size() != now.size();
        if (!resolve) {
            for (std::size_t i = 0; i < now.size(); ++i) moved += std::fabs(now[i] - hr.port_flow_at_solve[i]);
            resolve = moved > opt.flow_resolve_change * std::max(total, 1e-12);
        }
        if (resolve) {
            const FlowSolveStats st = air.solveFlow(opt.flow_residual);
            ++stats.flow_solves;
            stats.flow_iterations += st.iterations;
            stats.last_flow_residual = st.relative_residual;
            stats.max_divergence_error = std::max(stats.max_divergence_error, st.max_divergence_error);
            hr.port_flow_at_solve = std::move(now);
        }
    }
}

void Engine::Impl::advanceAir(double dt) {
    for (auto& ur : units) ur.load_accum_j = 0;
    for (auto& hr : halls) {
        AirModel& air = *hr.air;
        const int n = air.advance(dt, [&](double sub) {
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
    }
    for (auto& ur : units) {
        ur.load_w = ur.load_accum_j / dt;
        ur.fan_power_w = ur.model->fan_power_w * std::pow(ur.q_m3s / ur.model->airflow_m3s, 3.0);
    }
}

void Engine::Impl::liquid() {
    std::vector<int> live_cdus_of_rack(racks.size(), 0);
    for (std::size_t ri = 0; ri < racks.size(); ++ri)
        for (int c : racks[ri].cdus) live_cdus_of_rack[ri] += cdus[c].failed ? 0 : 1;
    for (auto& c : cdus) c.load_w = 0;
    for (std::size_t ri = 0; ri < racks.size(); ++ri) {
        double q = 0;
        for (int ni : racks[ri].nodes) q += nodes[ni].heat_liquid_w;
        if (live_cdus_of_rack[ri] == 0) continue;
        for (int c : racks[ri].cdus)
            if (!cdus[c].failed) cdus[c].load_w += q / live_cdus_of_rack[ri];
    }
    for (auto& c : cdus) {
        const double mdot = u::lpmToM3s(c.model->coolant_flow_lpm) * u::kWaterDensityKgM3;
        if (c.failed) {
            c.load_w = 0;
            c.supply_c = c.return_c = c.setpoint_c;
            c.over_capacity = false;
            continue;
        }
        // Beyond capacity the excess warms the secondary supply.
        c.over_capacity = c.load_w > c.model->capacity_w;
        c.supply_c = c.setpoint_c + (c.over_capacity ? (c.load_w - c.model->capacity_w) / (mdot * u::kWaterCpJPerKgK) : 0.0);
        c.return_c = c.supply_c + c.load_w / (mdot * u::kWaterCpJPerKgK);
        alert("cooling_short", c.cdu->id, "CDU " + c.cdu->id + " carries more than its capacity", c.over_capacity);
    }
}

void Engine::Impl::gpuTemperatures(double dt) {
    for (auto& n : nodes) {
        const RackRt& rr = racks[n.rack];
        double qs = 0, ts = 0;
        for (const auto& [lvl, share] : n.levels) {
            qs += share;
            ts += share * rr.levels[lvl].inlet_c;
        }
        n.inlet_c = qs > 0 ? ts / qs : 20.0;
        if (!n.gpu) continue;
        const auto& gm = *n.gpu;
        // Liquid-cooled GPUs sit on the coolant supply; without a live CDU their cold plates fail to the air,
        // badly (twice the resistance).
        double ref = n.inlet_c, r_scale = 1.0 / std::sqrt(std::max(n.fan_speed, 0.3));
        if (n.server->liquid_fraction > 0) {
            double sup = 0;
            int live = 0;
            for (int c : rr.cdus)
                if (!cdus[c].failed) {
                    sup += cdus[c].supply_c;
                    ++live;
                }
            if (live > 0) {
                ref = sup / live;
                r_scale = 1.0;
            } else {
                r_scale = 2.0;
            }
        }
        const double a = 1.0 - std::exp(-dt / gm.thermal_time_constant_s);
        for (std::size_t g = 0; g < n.gpus.size(); ++g) {
            GpuRt& gr = n.gpus[g];
            const double target = ref + gr.power_w * gm.thermal_resistance_k_per_w * r_scale;
            gr.temp_c += (target - gr.temp_c) * a;
            const std::string gid = model::gpuId(n.node->id, static_cast<int>(g));
            if (!gr.shutdown && !gr.failed && gr.temp_c >= gm.shutdown_temp_c) {
                gr.shutdown = true;
                frame.alerts.push_back({t, "gpu_shutdown", gid, "GPU " + gid + " shut down at " + std::to_string(gr.temp_c) + " °C"});
            }
            alert("throttling", gid, "GPU " + gid + " is throttling", gr.throttle < 1.0 && !gr.shutdown);
        }
    }
}

// ------------------------------------------------------------------ the frame

void Engine::Impl::finishFrame(bool with_air) {
    model::Frame& f = frame;
    f.time_s = t;
    f.gpus.clear();
    f.nodes.clear();
    f.racks.clear();
    f.cooling_units.clear();
    f.cdus.clear();
    f.rack_pdus.clear();
    f.pdus.clear();
    f.ups.clear();
    f.feeds.clear();
    f.it_power_w = f.heat_in_w = f.heat_removed_w = f.liquid_heat_w = 0;
    for (const auto& n : nodes) {
        for (std::size_t g = 0; g < n.gpus.size(); ++g) {
            const auto& gr = n.gpus[g];
            f.gpus.push_back({model::gpuId(n.node->id, static_cast<int>(g)), gr.util, gr.power_w, gr.temp_c, gr.throttle,
                              gr.failed || gr.shutdown || n.failed || !n.powered});
        }
        f.nodes.push_back({n.node->id, n.power_dc_w, n.power_ac_w, n.psu_loss_w, n.fan_speed, n.fan_power_w, n.airflow_m3s,
                           n.inlet_c, n.heat_liquid_w, n.powered, n.failed});
        f.it_power_w += n.power_ac_w;
        f.liquid_heat_w += n.heat_liquid_w;
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
    for (const auto& rr : racks) {
        model::RackFrame rf;
        rf.id = rr.rack->id;
        double q = 0, tin = 0, tout = 0;
        rf.inlet_max_c = -1e9;
        for (int ni : rr.nodes) rf.power_w += nodes[ni].power_ac_w;
        for (const auto& lv : rr.levels) {
            rf.inlet_c.push_back(lv.inlet_c);
            rf.level_height_m.push_back(lv.z_m);
            rf.heat_to_air_w += lv.heat_w;
            if (lv.q_m3s <= 0) continue;
            q += lv.q_m3s;
            tin += lv.q_m3s * lv.inlet_c;
            tout += lv.q_m3s * lv.exhaust_c;
            rf.inlet_max_c = std::max(rf.inlet_max_c, lv.inlet_c);
            // RCI over every breathing level (Herrlin): over-temperature against 27 °C (of 27–32), under against 18 °C.
            rci_hi_sum += std::max(0.0, lv.inlet_c - kInletLimitC);
            rci_lo_sum += std::max(0.0, kInletLowC - lv.inlet_c);
            ++levels_n;
            shi_num += lv.q_m3s * (lv.inlet_c - t_sup_mean);
            shi_den += lv.q_m3s * (lv.exhaust_c - t_sup_mean);
        }
        rf.airflow_m3s = q;
        rf.inlet_mean_c = q > 0 ? tin / q : (rr.levels.empty() ? 0 : rr.levels.front().inlet_c);
        rf.exhaust_c = q > 0 ? tout / q : rf.inlet_mean_c;
        if (rf.inlet_max_c < -1e8) rf.inlet_max_c = rf.inlet_mean_c;
        t_in_q += tin;
        t_out_q += tout;
        q_r += q;
        f.heat_in_w += rf.heat_to_air_w;
        if (rf.inlet_max_c > f.max_inlet_c) {
            f.max_inlet_c = rf.inlet_max_c;
            f.max_inlet_rack = rf.id;
        }
        alert("inlet_high", rf.id, "rack " + rf.id + " inlet above 27 °C", rf.inlet_max_c > kInletLimitC);
        f.racks.push_back(std::move(rf));
    }
    f.rci_hi = levels_n ? 100.0 * (1.0 - rci_hi_sum / (levels_n * (kInletAllowableC - kInletLimitC))) : 100.0;
    f.rci_lo = levels_n ? 100.0 * (1.0 - rci_lo_sum / (levels_n * (kInletLowC - kInletLowAllowableC))) : 100.0;
    // RTI: (return − supply) / (rack exhaust − rack intake), airflow-weighted; SHI: (T_in − T_sup)/(T_out − T_sup).
    const double dt_units = q_u > 0 ? (t_return_q - t_supply_q) / q_u : 0;
    const double dt_racks = q_r > 0 ? (t_out_q - t_in_q) / q_r : 0;
    f.rti = dt_racks > 0 ? 100.0 * dt_units / dt_racks : 0;
    f.shi = shi_den > 0 ? shi_num / shi_den : 0;

    double cooling_w = 0, plant_heat = 0;
    for (const auto& ur : units) {
        f.cooling_units.push_back({ur.unit->id, ur.return_c, ur.supply_c, ur.load_w, ur.q_m3s, ur.fan_power_w, ur.failed, ur.over_capacity});
        f.heat_removed_w += ur.load_w;
        plant_heat += ur.load_w;
        cooling_w += ur.fan_power_w;
        alert("cooling_short", ur.unit->id, "cooling unit " + ur.unit->id + " is at capacity; supply above setpoint", ur.over_capacity);
    }
    for (const auto& c : cdus) {
        f.cdus.push_back({c.cdu->id, c.supply_c, c.return_c, c.load_w, c.failed, c.over_capacity});
        plant_heat += c.load_w;
        cooling_w += c.failed ? 0 : c.model->pump_power_w;
    }
    for (const auto& r : rpdus) {
        model::RackPduFrame rf;
        rf.id = r.pdu->id;
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
        alert("breaker_high", rf.id, "rack PDU " + rf.id + " above 80 % of its breaker", rf.breaker_utilization > u::kContinuousLoadFraction);
        f.rack_pdus.push_back(rf);
    }
    auto chain = [&](const std::vector<ChainRt>& v, std::vector<model::PowerNodeFrame>& out, const char* what) {
        for (const auto& x : v) {
            out.push_back({x.id, x.load_w, x.loss_w, x.capacity_w > 0 ? x.load_w / x.capacity_w : 0, x.alive});
            alert("feed_overload", x.id, std::string(what) + " " + x.id + " above its capacity", x.capacity_w > 0 && x.load_w > x.capacity_w);
        }
    };
    chain(pdus, f.pdus, "PDU");
    chain(ups, f.ups, "UPS");
    chain(feeds, f.feeds, "feed");
    f.ups_loss_w = 0;
    for (const auto& x : ups) f.ups_loss_w += x.loss_w;
    f.cooling_power_w = cooling_w + plant_heat / scenario.plant.chiller_cop + scenario.plant.pump_power_w;
    f.facility_power_w = f.it_power_w + f.ups_loss_w + f.cooling_power_w;
    f.pue = f.it_power_w > 0 ? f.facility_power_w / f.it_power_w : 0;
    if (f.max_inlet_c < -1e8) f.max_inlet_c = 0;

    f.air.reset();
    if (with_air && !halls.empty()) {
        const AirModel& air = *halls.front().air;
        model::AirField af{air.nx(), air.ny(), air.nz(), air.cellM(), air.temperatures(), {}, {}};
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
        const HallRt& hr = halls.front();
        if (hr.tile_port >= 0 && air.portFlow(hr.tile_port) > 0) inlets = air.portCells(hr.tile_port);
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
        f.air = std::move(af);
    }
}

// ------------------------------------------------------------------ public

Engine::Engine(const model::Scenario& s, const model::Catalog& c, const EngineOptions& opt, std::shared_ptr<Workload> w)
    : d_(std::make_unique<Impl>(s, c, opt, std::move(w))) {
    d_->build();
    std::uint64_t cells = 0;
    for (const auto& h : d_->halls) cells += h.air->cellCount();
    d_->stats.grid_cells = cells;
    // Initial state: equipment at its inlet, flows solved, frame at t = 0.
    d_->applyEvents();
    d_->workload->update(0, d_->frame, d_->frame);
    d_->powerChain();
    d_->equipment();
    d_->powerChain();
    for (auto& n : d_->nodes) {
        n.inlet_c = d_->halls[d_->racks[n.rack].hall].air->temperature(0);  // the room starts uniform
        for (auto& g : n.gpus) g.temp_c = n.inlet_c;
    }
    d_->airflowTargets();
    d_->liquid();
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
    d.frame.alerts.clear();
    d.applyEvents();
    d.workload->update(d.t, d.frame, d.frame);  // jobs pace themselves on the last step's clocks and the fabric
    d.powerChain();        // which feeds are live decides which nodes run
    d.equipment();
    d.powerChain();        // loads of this step, PSU losses, heat to air
    d.airflowTargets();
    d.advanceAir(dt);
    d.liquid();
    d.gpuTemperatures(dt);
    d.t += dt;
    ++d.stats.steps;
    d.finishFrame(with_air);
    return d.frame;
}

const model::Frame& Engine::frame() const { return d_->frame; }
double Engine::timeS() const { return d_->t; }
const EngineStats& Engine::stats() const { return d_->stats; }

double Engine::airTemperatureAt(double x, double y, double z, int hall) const {
    const AirModel& air = *d_->halls.at(static_cast<std::size_t>(hall)).air;
    int i, j, k;
    air.cellOf(x, y, z, i, j, k);
    const int c = air.index(i, j, k);
    return air.solid(c) ? std::nan("") : air.temperature(c);
}

} // namespace ct::sim
