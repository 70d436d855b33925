#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/model/validate.hpp>

#include <regex>

#include "json_util.hpp"
#include "validate_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace ct::model {

using detail::ptrJoin;

namespace {

std::string kw(double w) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f kW", w / 1000.0);
    return buf;
}

class Validator {
public:
    Validator(const Scenario& s, const Catalog& c) : s_(s), c_(c) {}

    Diagnostics run() {
        collectIds();
        checkTop();
        for (std::size_t h = 0; h < s_.halls.size(); ++h) {
            checkHall(s_.halls[h], ptrJoin("/halls", h));
            detail::checkCooling(s_, s_.halls[h], ptrJoin("/halls", h), c_, d_);
        }
        detail::checkLoops(s_, d_);
        checkPower();
        detail::checkNetwork(s_, c_, d_);
        checkJobs();
        checkEvents(s_.events, "/events", std::nullopt);
        checkMapping();
        return std::move(d_);
    }

    Diagnostics runEvents(const std::vector<Event>& events, const std::string& prefix, std::optional<double> end_s) {
        collectIds();
        d_.clear();  // id problems belong to the scenario, not to the events
        checkEvents(events, prefix, end_s);
        return std::move(d_);
    }

private:
    void err(const std::string& p, std::string m) { d_.push_back({Severity::Error, p, std::move(m)}); }
    void warn(const std::string& p, std::string m) { d_.push_back({Severity::Warning, p, std::move(m)}); }
    void positive(const std::string& p, double v) {
        if (!(v > 0)) err(p, "must be > 0 (is " + num(v) + ")");
    }
    static std::string num(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return buf;
    }

    void addId(const std::string& id, const std::string& ptr, EntityKind k) {
        if (id.empty()) {
            err(ptr + "/id", "id must not be empty");
            return;
        }
        auto [it, fresh] = ids_.emplace(id, std::make_pair(ptr, k));
        if (!fresh) err(ptr + "/id", "duplicate id '" + id + "' (also at " + it->second.first + ")");
    }

    void collectIds() {
        addId(s_.site.id, "/site", EntityKind::Site);
        for (std::size_t h = 0; h < s_.halls.size(); ++h) {
            const Hall& hall = s_.halls[h];
            const std::string hp = ptrJoin("/halls", h);
            addId(hall.id, hp, EntityKind::Hall);
            for (std::size_t r = 0; r < hall.rows.size(); ++r) {
                const std::string rp = ptrJoin(hp + "/rows", r);
                addId(hall.rows[r].id, rp, EntityKind::Row);
                for (std::size_t k = 0; k < hall.rows[r].racks.size(); ++k) {
                    const Rack& rack = hall.rows[r].racks[k];
                    const std::string kp = ptrJoin(rp + "/racks", k);
                    addId(rack.id, kp, EntityKind::Rack);
                    for (std::size_t n = 0; n < rack.nodes.size(); ++n)
                        addId(rack.nodes[n].id, ptrJoin(kp + "/nodes", n), EntityKind::Node);
                    for (std::size_t p = 0; p < rack.pdus.size(); ++p)
                        addId(rack.pdus[p].id, ptrJoin(kp + "/pdus", p), EntityKind::RackPdu);
                }
            }
            for (std::size_t u = 0; u < hall.cooling_units.size(); ++u)
                addId(hall.cooling_units[u].id, ptrJoin(hp + "/cooling_units", u), EntityKind::CoolingUnit);
            for (std::size_t u = 0; u < hall.cdus.size(); ++u) addId(hall.cdus[u].id, ptrJoin(hp + "/cdus", u), EntityKind::Cdu);
            for (std::size_t u = 0; u < hall.containments.size(); ++u)
                addId(hall.containments[u].id, ptrJoin(hp + "/containments", u), EntityKind::Containment);
            for (std::size_t u = 0; u < hall.sensors.size(); ++u)
                addId(hall.sensors[u].id, ptrJoin(hp + "/sensors", u), EntityKind::Sensor);
        }
        for (std::size_t i = 0; i < s_.plant.loops.size(); ++i)
            addId(s_.plant.loops[i].id, ptrJoin("/plant/loops", i), EntityKind::WaterLoop);
        for (std::size_t i = 0; i < s_.power.feeds.size(); ++i)
            addId(s_.power.feeds[i].id, ptrJoin("/power/feeds", i), EntityKind::UtilityFeed);
        for (std::size_t i = 0; i < s_.power.transformers.size(); ++i)
            addId(s_.power.transformers[i].id, ptrJoin("/power/transformers", i), EntityKind::Transformer);
        for (std::size_t i = 0; i < s_.power.ups.size(); ++i) addId(s_.power.ups[i].id, ptrJoin("/power/ups", i), EntityKind::Ups);
        for (std::size_t i = 0; i < s_.power.pdus.size(); ++i) addId(s_.power.pdus[i].id, ptrJoin("/power/pdus", i), EntityKind::Pdu);
        for (std::size_t i = 0; i < s_.jobs.size(); ++i) addId(s_.jobs[i].id, ptrJoin("/jobs", i), EntityKind::Job);
    }

    bool isKind(const std::string& id, EntityKind k) const {
        auto it = ids_.find(id);
        return it != ids_.end() && it->second.second == k;
    }

    void checkTop() {
        if (s_.id.empty()) err("/id", "id must not be empty");
        if (s_.halls.empty()) err("/halls", "a scenario needs at least one hall");
        positive("/plant/chiller_cop", s_.plant.chiller_cop);
        if (s_.plant.pump_power_w < 0) err("/plant/pump_power_w", "must be >= 0");
        if (const auto& m = s_.simulation.unit_airflow_margin; m && !(*m >= 0.2 && *m <= 5))
            err("/simulation/unit_airflow_margin", "must be within 0.2–5 (the racks' airflow the cooling units blow)");
    }

    struct Placed {
        Box2 box;
        std::string id, ptr, what;
    };

    void checkHall(const Hall& h, const std::string& hp) {
        positive(hp + "/width_m", h.width_m);
        positive(hp + "/depth_m", h.depth_m);
        positive(hp + "/height_m", h.height_m);
        positive(hp + "/tile_m", h.tile_m);
        if (h.raised_floor) {
            const double rf = h.raised_floor->height_m;
            if (!(rf > 0) || rf >= h.height_m)
                err(hp + "/raised_floor/height_m", "must be > 0 and below the hall height (is " + num(rf) + ")");
            if (!c_.floorTile(h.raised_floor->tile))
                err(hp + "/raised_floor/tile", "unknown floor tile '" + h.raised_floor->tile + "' (the catalog's floor_tiles)");
        }
        std::vector<Placed> placed;
        const bool dims_ok = h.width_m > 0 && h.depth_m > 0;
        auto place = [&](const Box2& b, const std::string& id, const std::string& ptr, const std::string& what) {
            if (dims_ok && !b.inside(h.width_m, h.depth_m))
                err(ptr + "/position_m", what + " '" + id + "' lies outside the hall (" + num(h.width_m) + " × " + num(h.depth_m) + " m)");
            placed.push_back({b, id, ptr, what});
        };

        std::set<std::string> cdu_racks;
        for (const Cdu& c : h.cdus) cdu_racks.insert(c.racks.begin(), c.racks.end());

        for (std::size_t r = 0; r < h.rows.size(); ++r) {
            const Row& row = h.rows[r];
            const std::string rp = ptrJoin(hp + "/rows", r);
            for (std::size_t k = 0; k < row.racks.size(); ++k) {
                const Rack& rack = row.racks[k];
                const std::string kp = ptrJoin(rp + "/racks", k);
                const RackModel* rm = c_.rack(rack.model);
                if (!rm) {
                    err(kp + "/model", "unknown rack model '" + rack.model + "' (not in the catalog)");
                } else {
                    place(footprint(rack.position_m, rm->width_m, rm->depth_m, rack.facing), rack.id, kp, "rack");
                }
                checkRack(rack, rm, kp, h, cdu_racks.count(rack.id) > 0);
            }
        }
        for (std::size_t u = 0; u < h.cooling_units.size(); ++u) {
            const CoolingUnit& cu = h.cooling_units[u];
            const std::string up = ptrJoin(hp + "/cooling_units", u);
            const CoolingUnitModel* m = c_.coolingUnit(cu.model);
            if (!m) {
                err(up + "/model", "unknown cooling unit model '" + cu.model + "' (not in the catalog)");
                continue;
            }
            place(footprint(cu.position_m, m->width_m, m->depth_m, cu.facing), cu.id, up, "cooling unit");
            if (cu.supply_setpoint_c < m->min_supply_temp_c || cu.supply_setpoint_c > m->max_supply_temp_c)
                err(up + "/supply_setpoint_c", "setpoint " + num(cu.supply_setpoint_c) + " °C is outside the unit's range " +
                                                   num(m->min_supply_temp_c) + "–" + num(m->max_supply_temp_c) + " °C");
            if (cu.fan_speed && !(*cu.fan_speed > 0 && *cu.fan_speed <= 1))
                err(up + "/fan_speed", "must be within (0, 1]: the share of the unit's full fan speed");
            checkUnitControl(cu, *m, up);
        }
        for (std::size_t u = 0; u < h.cdus.size(); ++u) {
            const Cdu& cdu = h.cdus[u];
            const std::string up = ptrJoin(hp + "/cdus", u);
            const CduModel* m = c_.cdu(cdu.model);
            if (!m) err(up + "/model", "unknown CDU model '" + cdu.model + "' (not in the catalog)");
            else place(footprint(cdu.position_m, m->width_m, m->depth_m, cdu.facing), cdu.id, up, "CDU");
            if (cdu.supply_temp_c < 5 || cdu.supply_temp_c > 60)
                err(up + "/supply_temp_c", "must be within 5–60 °C (is " + num(cdu.supply_temp_c) + ")");
            if (cdu.racks.empty()) warn(up + "/racks", "CDU feeds no racks");
            for (std::size_t i = 0; i < cdu.racks.size(); ++i) {
                if (!isKind(cdu.racks[i], EntityKind::Rack)) err(ptrJoin(up + "/racks", i), "unknown rack '" + cdu.racks[i] + "'");
                else if (!rackInHall(cdu.racks[i], h)) err(ptrJoin(up + "/racks", i), "rack '" + cdu.racks[i] + "' is in another hall");
            }
        }
        // Overlaps: sweep over x so large halls stay fast.
        std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.box.x0 < b.box.x0; });
        for (std::size_t i = 0; i < placed.size(); ++i) {
            for (std::size_t j = i + 1; j < placed.size() && placed[j].box.x0 < placed[i].box.x1; ++j) {
                if (!placed[i].box.overlaps(placed[j].box)) continue;
                // Report on the later one in file order so messages read naturally.
                const Placed& a = placed[i].ptr < placed[j].ptr ? placed[i] : placed[j];
                const Placed& b = placed[i].ptr < placed[j].ptr ? placed[j] : placed[i];
                err(b.ptr + "/position_m", "overlaps " + a.what + " " + a.id);
            }
        }
    }

    bool rackInHall(const std::string& rack_id, const Hall& h) const {
        for (const Row& row : h.rows)
            for (const Rack& r : row.racks)
                if (r.id == rack_id) return true;
        return false;
    }

    /// What a unit controls: its supply air, or its return air at a setpoint it can reach.
    void checkUnitControl(const CoolingUnit& cu, const CoolingUnitModel& m, const std::string& up) {
        if (cu.control != "supply" && cu.control != "return") {
            err(up + "/control", "must be 'supply' or 'return' (the air the unit's valve holds at its setpoint)");
        } else if (cu.control == "return" && !cu.return_setpoint_c) {
            err(up + "/return_setpoint_c", "a unit that controls its return air needs the return's setpoint");
        } else if (cu.control == "supply" && cu.return_setpoint_c) {
            err(up + "/return_setpoint_c", "given, but the unit controls its supply air (set control to 'return')");
        } else if (cu.return_setpoint_c && !(*cu.return_setpoint_c > m.min_supply_temp_c && *cu.return_setpoint_c <= 45)) {
            err(up + "/return_setpoint_c",
                "must be above the unit's lowest supply (" + num(m.min_supply_temp_c) + " °C) and at most 45 °C");
        }
    }

    void checkRack(const Rack& rack, const RackModel* rm, const std::string& kp, const Hall& h, bool on_cdu) {
        // Nodes: models, U positions, feeds.
        struct Used {
            int lo, hi;  // U range
            WidthSpan w;
            std::size_t node;
        };
        std::vector<Used> used;
        double weight = 0, load = 0, liquid = 0;
        std::set<std::string> pdu_ids;
        for (const RackPdu& p : rack.pdus) pdu_ids.insert(p.id);
        for (std::size_t n = 0; n < rack.nodes.size(); ++n) {
            const Node& node = rack.nodes[n];
            const std::string np = ptrJoin(kp + "/nodes", n);
            const ServerModel* sm = c_.server(node.model);
            if (!sm) {
                err(np + "/model", "unknown server model '" + node.model + "' (not in the catalog)");
                continue;
            }
            weight += sm->weight_kg;
            load += sm->max_power_w;
            liquid += sm->max_power_w * sm->liquid_fraction;
            const int lo = node.u_position, hi = node.u_position + sm->height_u - 1;
            if (rm && (lo < 1 || hi > rm->height_u)) {
                err(np + "/u_position",
                    "U " + std::to_string(lo) + "–" + std::to_string(hi) + " does not fit in a " + std::to_string(rm->height_u) + "U rack");
            }
            if (node.slot < 1 || node.slot > sm->slot_count)
                err(np + "/slot", sm->slot_count == 1 ? "server model '" + node.model + "' is full width: slot must be 1"
                                                      : "must be within 1.." + std::to_string(sm->slot_count) + " (server model '" +
                                                            node.model + "' has " + std::to_string(sm->slot_count) + " side by side)");
            const WidthSpan w = widthSpan(node.slot, sm->slot_count);
            for (const Used& u : used) {
                if (lo <= u.hi && u.lo <= hi && w.overlaps(u.w))
                    err(np + "/u_position", "overlaps node " + rack.nodes[u.node].id + " in the rack");
            }
            used.push_back({lo, hi, w, n});
            if (node.feeds.empty()) err(np + "/feeds", "node has no power feed (list its rack PDUs)");
            for (std::size_t f = 0; f < node.feeds.size(); ++f)
                if (!pdu_ids.count(node.feeds[f]))
                    err(ptrJoin(np + "/feeds", f), "'" + node.feeds[f] + "' is not a PDU of rack " + rack.id);
            std::set<int> gpu_idx;
            for (std::size_t g = 0; g < node.gpus.size(); ++g) {
                const int i = node.gpus[g].index;
                if (i < 0 || i >= sm->gpu_count)
                    err(ptrJoin(np + "/gpus", g) + "/index",
                        "GPU index " + std::to_string(i) + " but " + node.model + " has " + std::to_string(sm->gpu_count));
                if (!gpu_idx.insert(i).second) err(ptrJoin(np + "/gpus", g) + "/index", "duplicate GPU index");
            }
        }
        if (rm && rm->max_static_load_kg > 0 && weight > rm->max_static_load_kg)
            err(kp + "/nodes", "equipment weighs " + num(weight) + " kg; the rack carries at most " + num(rm->max_static_load_kg) + " kg");

        // Power: a feed, breakers that carry the load.
        if (rack.pdus.empty()) {
            err(kp + "/pdus", "rack has no power feed (no rack PDU)");
        }
        std::map<std::string, double> side_capacity;  // continuous (80 %) capacity per feed side
        for (std::size_t p = 0; p < rack.pdus.size(); ++p) {
            const RackPdu& pdu = rack.pdus[p];
            const std::string pp = ptrJoin(kp + "/pdus", p);
            if (pdu.phases != 1 && pdu.phases != 3) err(pp + "/phases", "must be 1 or 3");
            positive(pp + "/voltage_v", pdu.voltage_v);
            positive(pp + "/breaker_a", pdu.breaker_a);
            if (!(pdu.power_factor > 0 && pdu.power_factor <= 1)) err(pp + "/power_factor", "must be within (0, 1]");
            if (pdu.feed.empty()) err(pp + "/feed", "feed side must not be empty");
            if (!isKind(pdu.upstream, EntityKind::Pdu))
                err(pp + "/upstream", "unknown floor PDU '" + pdu.upstream + "' (rack is not connected to a feed)");
            side_capacity[pdu.feed] += units::kContinuousLoadFraction * pdu.ratedPowerW();
        }
        if (!side_capacity.empty() && load > 0) {
            const double per_side = load / static_cast<double>(side_capacity.size());
            for (const auto& [side, cap] : side_capacity) {
                if (per_side > cap) {
                    err(kp + "/pdus", "rack load " + kw(load) + " puts feed " + side + " at " + kw(per_side) +
                                          ", above 80 % of its breakers (" + kw(cap) + ")");
                } else if (side_capacity.size() > 1 && load > cap) {
                    warn(kp + "/pdus", "feed " + side + " cannot carry the whole rack (" + kw(load) + ") within 80 % of its breakers (" +
                                           kw(cap) + ") if the other feed fails");
                }
            }
        }

        // Cooling source.
        if (load > 0) {
            if (load - liquid > 1e-9 && h.cooling_units.empty()) err(kp, "rack has no cooling source: its hall has no air cooling unit");
            if (liquid > 0 && !on_cdu) err(kp, "rack needs liquid cooling (" + kw(liquid) + ") but no CDU feeds it");
        }
    }

    void checkPower() {
        const PowerChain& pc = s_.power;
        if (pc.feeds.empty()) err("/power/feeds", "no utility feed");
        for (std::size_t i = 0; i < pc.feeds.size(); ++i) positive(ptrJoin("/power/feeds", i) + "/capacity_w", pc.feeds[i].capacity_w);
        for (std::size_t i = 0; i < pc.ups.size(); ++i) {
            const Ups& u = pc.ups[i];
            const std::string p = ptrJoin("/power/ups", i);
            if (!c_.upsModel(u.model)) err(p + "/model", "unknown UPS model '" + u.model + "' (not in the catalog)");
            if (!isKind(u.feed, EntityKind::UtilityFeed) && !isKind(u.feed, EntityKind::Transformer))
                err(p + "/feed", "unknown utility feed or transformer '" + u.feed + "'");
            if (u.modules < 1) err(p + "/modules", "must be >= 1");
        }
        for (std::size_t i = 0; i < pc.transformers.size(); ++i) {
            const Transformer& t = pc.transformers[i];
            const std::string p = ptrJoin("/power/transformers", i);
            if (!isKind(t.feed, EntityKind::UtilityFeed)) err(p + "/feed", "unknown utility feed '" + t.feed + "'");
            positive(p + "/capacity_w", t.capacity_w);
            if (!(t.efficiency >= 0.9 && t.efficiency <= 1)) err(p + "/efficiency", "must be within 0.9..1 (is " + num(t.efficiency) + ")");
        }
        for (std::size_t i = 0; i < pc.pdus.size(); ++i) {
            const Pdu& u = pc.pdus[i];
            const std::string p = ptrJoin("/power/pdus", i);
            if (!isKind(u.ups, EntityKind::Ups)) err(p + "/ups", "unknown UPS '" + u.ups + "'");
            positive(p + "/capacity_w", u.capacity_w);
        }
        // Load on each level of the chain, in normal operation and with one side failed (chainLoads).
        ChainLoads l = chainLoads(s_, c_);
        for (std::size_t i = 0; i < pc.pdus.size(); ++i) {
            const Pdu& u = pc.pdus[i];
            checkLoad(ptrJoin("/power/pdus", i), "PDU", u.capacity_w, l.normal.pdu[u.id], l.failover.pdu[u.id]);
        }
        for (std::size_t i = 0; i < pc.ups.size(); ++i) {
            const Ups& u = pc.ups[i];
            if (const UpsModel* m = c_.upsModel(u.model))
                checkLoad(ptrJoin("/power/ups", i), "UPS", m->capacity_w * u.modules, l.normal.ups[u.id], l.failover.ups[u.id]);
        }
        for (std::size_t i = 0; i < pc.transformers.size(); ++i) {
            const Transformer& t = pc.transformers[i];
            checkLoad(ptrJoin("/power/transformers", i), "transformer", t.capacity_w, l.normal.feed[t.id], l.failover.feed[t.id]);
        }
        for (std::size_t i = 0; i < pc.feeds.size(); ++i) {
            const UtilityFeed& f = pc.feeds[i];
            checkLoad(ptrJoin("/power/feeds", i), "feed", f.capacity_w, l.normal.feed[f.id], l.failover.feed[f.id]);
            if (!(f.ramp_limit_w_per_s >= 0)) err(ptrJoin("/power/feeds", i) + "/ramp_limit_w_per_s", "must be >= 0 (0 = no limit)");
        }
    }

    void checkLoad(const std::string& p, const std::string& what, double cap, double normal_w, double fail_w) {
        if (!(cap > 0)) return;
        if (normal_w > cap) err(p + "/capacity_w", what + " load " + kw(normal_w) + " exceeds its capacity " + kw(cap));
        else if (fail_w > cap)
            warn(p + "/capacity_w", what + " would carry " + kw(fail_w) + " if the other side failed, above its capacity " + kw(cap));
    }

    void checkJobs() {
        for (std::size_t i = 0; i < s_.jobs.size(); ++i) {
            const Job& j = s_.jobs[i];
            const std::string p = ptrJoin("/jobs", i);
            if (j.kind != "training" && j.kind != "inference") err(p + "/kind", "must be 'training' or 'inference'");
            if (j.nodes.empty() && j.gpus <= 0) err(p + "/nodes", "a job needs its nodes, or a number of gpus to place");
            if (!j.nodes.empty() && j.gpus > 0) err(p + "/gpus", "give either nodes or gpus, not both");
            if (j.gpus < 0) err(p + "/gpus", "must be >= 0");
            if (j.gpus > 0) {
                int total = 0;
                for (const Hall& h : s_.halls)
                    for (const Row& row : h.rows)
                        for (const Rack& r : row.racks)
                            for (const Node& n : r.nodes)
                                if (const ServerModel* sm = c_.server(n.model)) total += sm->gpu_count;
                if (j.gpus > total)
                    err(p + "/gpus", "asks for " + std::to_string(j.gpus) + " GPUs; the scenario has " + std::to_string(total));
            }
            if (j.placement != "packed" && j.placement != "topology-aware") err(p + "/placement", "must be 'packed' or 'topology-aware'");
            for (std::size_t k = 0; k < j.nodes.size(); ++k)
                if (!isKind(j.nodes[k], EntityKind::Node)) err(ptrJoin(p + "/nodes", k), "unknown node '" + j.nodes[k] + "'");
            if (j.start_s < 0) err(p + "/start_s", "must be >= 0");
            if (j.end_s && *j.end_s <= j.start_s) err(p + "/end_s", "must be after start_s");
            if (j.utilization < 0 || j.utilization > 1) err(p + "/utilization", "must be within 0..1");
            if (j.profile) checkProfile(*j.profile, p + "/profile");
            if (j.training && j.inference) err(p, "a job is either training or inference, not both");
            if (j.training) {
                // GPUs of the job and of a node, for the parallel layout's checks.
                int gpus = j.nodes.empty() ? j.gpus : 0, gpn = 0;
                for (const Hall& h : s_.halls)  // GPUs per node, for jobs placed by count
                    for (const Row& row : h.rows)
                        for (const Rack& r : row.racks)
                            for (const Node& n : r.nodes)
                                if (const ServerModel* sm = c_.server(n.model); sm && gpn == 0) gpn = sm->gpu_count;
                for (const auto& nid : j.nodes)
                    for (const Hall& h : s_.halls)
                        for (const Row& row : h.rows)
                            for (const Rack& r : row.racks)
                                for (const Node& n : r.nodes)
                                    if (n.id == nid)
                                        if (const ServerModel* sm = c_.server(n.model)) {
                                            gpus += sm->gpu_count;
                                            gpn = sm->gpu_count;
                                        }
                detail::checkTraining(*j.training, p + "/training", gpus, gpn, d_);
            }
            if (j.inference) {
                int gpus = j.nodes.empty() ? j.gpus : 0;
                for (const auto& nid : j.nodes)
                    for (const Hall& h : s_.halls)
                        for (const Row& row : h.rows)
                            for (const Rack& r : row.racks)
                                for (const Node& n : r.nodes)
                                    if (n.id == nid)
                                        if (const ServerModel* sm = c_.server(n.model)) gpus += sm->gpu_count;
                detail::checkInference(*j.inference, p + "/inference", gpus, d_);
            }
        }
    }

    void checkProfile(const UtilizationProfile& pr, const std::string& p) {
        static const std::set<std::string> kinds{"constant", "steps", "list", "diurnal"};
        if (!kinds.count(pr.kind)) {
            err(p + "/kind", "unknown profile kind '" + pr.kind + "' (constant, steps, list, diurnal)");
            return;
        }
        if (pr.kind == "constant" && (pr.level < 0 || pr.level > 1)) err(p + "/level", "must be within 0..1");
        if (pr.kind == "diurnal") {
            positive(p + "/period_s", pr.period_s);
            if (pr.mean - std::fabs(pr.amplitude) < 0 || pr.mean + std::fabs(pr.amplitude) > 1)
                warn(p + "/amplitude", "mean ± amplitude leaves 0..1; values are clamped");
        }
        if (pr.kind == "steps" || pr.kind == "list") {
            if (pr.points.empty()) err(p + "/points", "needs at least one [time_s, utilization] point");
            for (std::size_t i = 0; i < pr.points.size(); ++i) {
                if (pr.points[i].second < 0 || pr.points[i].second > 1) err(ptrJoin(p + "/points", i), "utilization must be within 0..1");
                if (i > 0 && pr.points[i].first <= pr.points[i - 1].first) err(ptrJoin(p + "/points", i), "times must ascend");
            }
        }
    }

    bool gpuExists(const std::string& id) const {
        const auto slash = id.rfind("/gpu");
        if (slash == std::string::npos) return false;
        const std::string node = id.substr(0, slash);
        auto it = ids_.find(node);
        if (it == ids_.end() || it->second.second != EntityKind::Node) return false;
        for (const Hall& h : s_.halls)
            for (const Row& row : h.rows)
                for (const Rack& r : row.racks)
                    for (const Node& n : r.nodes)
                        if (n.id == node) {
                            const ServerModel* sm = c_.server(n.model);
                            try {
                                const int idx = std::stoi(id.substr(slash + 4));
                                return sm && gpuId(node, idx) == id && idx >= 0 && idx < sm->gpu_count;
                            } catch (const std::exception&) {
                                return false;
                            }
                        }
        return false;
    }

    void checkMapping() {
        for (std::size_t i = 0; i < s_.telemetry_mapping.size(); ++i) {
            const MappingRule& m = s_.telemetry_mapping[i];
            const std::string p = ptrJoin("/telemetry_mapping", i);
            if (m.label != "hostname" && m.label != "gpu_uuid" && m.label != "chassis" && m.label != "ib_guid")
                err(p + "/label", "unknown label '" + m.label + "' (hostname, gpu_uuid, chassis or ib_guid)");
            try {
                std::regex re(m.pattern, std::regex::ECMAScript);
            } catch (const std::regex_error& e) {
                err(p + "/pattern", "not a regular expression: " + std::string(e.what()));
            }
            if (m.entity.empty()) err(p + "/entity", "must not be empty");
            else if (m.entity.find('$') == std::string::npos && !isKind(m.entity, EntityKind::Node) && !gpuExists(m.entity) &&
                     !isKind(m.entity, EntityKind::Rack) && !isKind(m.entity, EntityKind::RackPdu) &&
                     !isKind(m.entity, EntityKind::CoolingUnit) && !isKind(m.entity, EntityKind::Cdu))
                err(p + "/entity", "'" + m.entity + "' is not an entity of this scenario");
        }
    }

    void checkEvents(const std::vector<Event>& events, const std::string& prefix, std::optional<double> end_s) {
        for (std::size_t i = 0; i < events.size(); ++i) {
            const Event& e = events[i];
            const std::string p = ptrJoin(prefix, i);
            if (e.time_s < 0) err(p + "/time_s", "must be >= 0");
            else if (end_s && e.time_s > *end_s)
                err(p + "/time_s", "at " + num(e.time_s) + " s, after the end of the run (" + num(*end_s) + " s)");
            const std::string& k = e.kind;
            const bool known = std::any_of(std::begin(kEventKinds), std::end(kEventKinds), [&](const char* x) { return k == x; });
            if (!known) {
                err(p + "/kind", "unknown event kind '" + k + "'");
                continue;
            }
            auto want = [&](std::initializer_list<EntityKind> kinds, const char* what) {
                for (EntityKind ek : kinds)
                    if (isKind(e.target, ek)) return;
                err(p + "/target", "'" + e.target + "' is not a " + what + " of this scenario");
            };
            if (k.rfind("cooling_unit_", 0) == 0) want({EntityKind::CoolingUnit}, "cooling unit");
            else if (k.rfind("loop_", 0) == 0) want({EntityKind::WaterLoop}, "water loop");
            else if (k.rfind("cdu_", 0) == 0) want({EntityKind::Cdu}, "CDU");
            else if (k.rfind("node_", 0) == 0) want({EntityKind::Node}, "node");
            else if (k.rfind("feed_", 0) == 0)
                want({EntityKind::UtilityFeed, EntityKind::Transformer, EntityKind::Ups, EntityKind::Pdu, EntityKind::RackPdu},
                     "power feed, transformer, UPS or PDU");
            else if (k.rfind("job_", 0) == 0) want({EntityKind::Job}, "job");
            else if (k == "setpoint_change") want({EntityKind::CoolingUnit, EntityKind::Cdu}, "cooling unit or CDU");
            else if (k == "workload_change") want({EntityKind::Node, EntityKind::Job, EntityKind::Rack}, "node, rack or job");
            else if (k.rfind("gpu_", 0) == 0) {
                if (!gpuExists(e.target)) err(p + "/target", "'" + e.target + "' is not a GPU of this scenario (ids look like node/gpu0)");
            } else if (k.rfind("link_", 0) == 0) {
                if (e.target.empty()) err(p + "/target", "must name a link");
            }
            if (k == "setpoint_change" && !e.value) err(p + "/value", "setpoint_change needs a value (°C)");
            if (k == "workload_change") {
                if (!e.value) err(p + "/value", "workload_change needs a value (utilization 0..1)");
                else if (*e.value < 0 || *e.value > 1) err(p + "/value", "utilization must be within 0..1");
            }
        }
    }

    const Scenario& s_;
    const Catalog& c_;
    Diagnostics d_;
    std::unordered_map<std::string, std::pair<std::string, EntityKind>> ids_;
};

}  // namespace

Diagnostics validateScenario(const Scenario& s, const Catalog& catalog) { return Validator(s, catalog).run(); }

Diagnostics validateEvents(const Scenario& s, const Catalog& catalog, const std::vector<Event>& events, const std::string& pointer_prefix,
                           std::optional<double> run_end_s) {
    return Validator(s, catalog).runEvents(events, pointer_prefix, run_end_s);
}

}  // namespace ct::model
