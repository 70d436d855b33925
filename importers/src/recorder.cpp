#include <clustertwin/importers/recorder.hpp>

#include <clustertwin/model/scenario_io.hpp>

#include <nlohmann/json.hpp>

#include <cmath>

namespace ct::importers {

std::vector<EntityInfo> scenarioEntities(const model::Scenario& s, const model::Catalog& c) {
    std::vector<EntityInfo> e{{s.id, "site", "", s.name}};
    for (const auto& h : s.halls) {
        e.push_back({h.id, "hall", s.id, h.name});
        for (const auto& row : h.rows) {
            e.push_back({row.id, "row", h.id, row.name});
            for (const auto& r : row.racks) {
                e.push_back({r.id, "rack", row.id, r.name});
                for (const auto& p : r.pdus) e.push_back({p.id, "rack_pdu", r.id, p.name});
                for (const auto& n : r.nodes) {
                    e.push_back({n.id, "node", r.id, n.name});
                    if (const auto* sm = c.server(n.model))
                        for (int g = 0; g < sm->gpu_count; ++g) e.push_back({model::gpuId(n.id, g), "gpu", n.id, ""});
                }
            }
        }
        for (const auto& u : h.cooling_units) e.push_back({u.id, "cooling_unit", h.id, u.name});
        for (const auto& u : h.cdus) e.push_back({u.id, "cdu", h.id, u.name});
    }
    for (const auto& f : s.power.feeds) e.push_back({f.id, "utility_feed", s.id, f.name});
    for (const auto& t : s.power.transformers) e.push_back({t.id, "transformer", t.feed, t.name});
    for (const auto& u : s.power.ups) e.push_back({u.id, "ups", u.feed, u.name});
    for (const auto& l : s.plant.loops) e.push_back({l.id, "water_loop", s.id, l.name});
    for (const auto& p : s.power.pdus) e.push_back({p.id, "pdu", p.ups, p.name});
    for (const auto& j : s.jobs) e.push_back({j.id, "job", s.id, j.name});
    return e;
}

RunRecorder::RunRecorder(TelemetryStore& store, const model::Scenario& s, const model::Catalog& c, const std::string& name,
                         const std::string& meta_json, const std::vector<model::Job>* placed_jobs)
    : store_(store), site_(s.id) {
    // The scenario's fingerprint goes with the run: the app shows a run only on the scenario it was made from.
    nlohmann::json meta = meta_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(meta_json, nullptr, false);
    if (!meta.is_object()) throw ImportError("run metadata is not a JSON object: " + meta_json);
    if (!meta.contains("scenario_hash")) meta["scenario_hash"] = model::scenarioHash(s);
    if (placed_jobs) {
        nlohmann::json nodes = nlohmann::json::object();
        for (const auto& j : *placed_jobs)
            if (!j.nodes.empty()) nodes[j.id] = j.nodes;
        meta["job_nodes"] = std::move(nodes);
    }
    run_ = store_.createRun(name, "simulated", s.id, meta.dump());
    store_.upsertEntities(scenarioEntities(s, c));
}

RunRecorder::~RunRecorder() = default;

void RunRecorder::put(const std::string& entity, const char* metric, const char* unit, double t, double v) {
    const std::string key = entity + '\x1f' + metric;
    auto it = ids_.find(key);
    if (it == ids_.end()) it = ids_.emplace(key, store_.series(run_, {entity, metric, unit, "sim"})).first;
    batch_.push_back({it->second, t, v});
}

void RunRecorder::record(const model::Frame& f) {
    const std::string& site = site_;
    const double t = f.time_s;
    for (const auto& g : f.gpus) {
        put(g.id, "power_w", "W", t, g.power_w);
        put(g.id, "temp_c", "degC", t, g.temp_c);
        put(g.id, "utilization", "ratio", t, g.utilization);
        put(g.id, "throttle", "ratio", t, g.throttle);
    }
    for (const auto& n : f.nodes) {
        put(n.id, "power_w", "W", t, n.power_ac_w);
        put(n.id, "inlet_c", "degC", t, n.inlet_c);
        put(n.id, "fan_speed", "ratio", t, n.fan_speed);
    }
    for (const auto& r : f.racks) {
        put(r.id, "power_w", "W", t, r.power_w);
        put(r.id, "inlet_max_c", "degC", t, r.inlet_max_c);
        put(r.id, "inlet_mean_c", "degC", t, r.inlet_mean_c);
        put(r.id, "exhaust_c", "degC", t, r.exhaust_c);
        if (!std::isnan(r.capture_index)) put(r.id, "capture_index", "ratio", t, r.capture_index);
    }
    for (const auto& u : f.cooling_units) {
        put(u.id, "return_c", "degC", t, u.return_c);
        put(u.id, "supply_c", "degC", t, u.supply_c);
        put(u.id, "load_w", "W", t, u.load_w);
        put(u.id, "fan_power_w", "W", t, u.fan_power_w);
    }
    for (const auto& c : f.cdus) {
        put(c.id, "supply_c", "degC", t, c.supply_c);
        put(c.id, "return_c", "degC", t, c.return_c);
        put(c.id, "load_w", "W", t, c.load_w);
    }
    for (const auto& p : f.rack_pdus) {
        put(p.id, "load_w", "W", t, p.load_w);
        put(p.id, "breaker_utilization", "ratio", t, p.breaker_utilization);
    }
    for (const auto& u : f.ups) {
        put(u.id, "load_w", "W", t, u.load_w);
        put(u.id, "loss_w", "W", t, u.loss_w);
    }
    for (const auto& u : f.transformers) {
        put(u.id, "load_w", "W", t, u.load_w);
        put(u.id, "loss_w", "W", t, u.loss_w);
    }
    for (const auto& l : f.loops) put(l.id, "load_w", "W", t, l.load_w);
    for (const auto& r : f.racks)
        if (r.rear_door_w > 0) put(r.id, "rear_door_w", "W", t, r.rear_door_w);
    for (const auto& j : f.jobs) {
        put(j.id, "step_time_s", "s", t, j.step_time_s);
        put(j.id, "comm_share", "ratio", t, j.comm_share);
        put(j.id, "mfu", "ratio", t, j.mfu);
        put(j.id, "utilization", "ratio", t, j.utilization);
        if (j.bubble_share > 0) put(j.id, "bubble_share", "ratio", t, j.bubble_share);
        if (j.interruptions > 0) put(j.id, "interruptions", "count", t, j.interruptions);
        if (j.tokens_per_s > 0) {
            put(j.id, "tokens_per_s", "1/s", t, j.tokens_per_s);
            put(j.id, "ttft_p99_s", "s", t, j.ttft_p99_s);
            put(j.id, "tpot_p99_s", "s", t, j.tpot_p99_s);
        }
    }
    // The 50 busiest links, and the switch-to-switch ones (leaf–spine and up, for the Fabric dock's matrix) up
    // to 2,000 of them, busiest first; GPU links are named by their host ("n0001/gpu0<->leaf0").
    std::size_t fabric = 0;
    for (std::size_t i = 0; i < f.links.size(); ++i) {
        const std::string& id = f.links[i].id;
        const bool switches = id.find('/') == std::string::npos && id.find("nvsw") == std::string::npos;
        if (i < 50 || (switches && fabric < 2000)) put(id, "utilization", "ratio", t, f.links[i].utilization);
        fabric += switches ? 1 : 0;
        if (i >= 50 && fabric >= 2000) break;
    }
    put(site, "it_power_w", "W", t, f.it_power_w);
    put(site, "facility_power_w", "W", t, f.facility_power_w);
    put(site, "cooling_power_w", "W", t, f.cooling_power_w);
    put(site, "pue", "ratio", t, f.pue);
    put(site, "heat_in_w", "W", t, f.heat_in_w);
    put(site, "heat_removed_w", "W", t, f.heat_removed_w);
    if (f.rear_door_heat_w > 0) put(site, "rear_door_heat_w", "W", t, f.rear_door_heat_w);
    put(site, "max_inlet_c", "degC", t, f.max_inlet_c);
    put(site, "rci_hi", "percent", t, f.rci_hi);
    put(site, "rci_lo", "percent", t, f.rci_lo);
    put(site, "rti", "percent", t, f.rti);
    put(site, "shi", "ratio", t, f.shi);
    if (batch_.size() > 200000) flush();
}

void RunRecorder::collectAlerts(const model::Frame& f) {
    auto opt = [](double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); };
    for (const auto& al : f.alerts) events_.push_back({al.time_s, al.kind, al.entity, opt(al.value), al.message, opt(al.threshold)});
}

void RunRecorder::flush() {
    store_.writeBatch(std::move(batch_));
    batch_.clear();
}

void RunRecorder::finish(double end_s) {
    flush();
    store_.writeEvents(run_, events_);
    events_.clear();
    store_.finishRun(run_, end_s);
}

} // namespace ct::importers
