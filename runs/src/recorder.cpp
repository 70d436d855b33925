#include <clustertwin/runs/recorder.hpp>

#include <clustertwin/runs/frame_series.hpp>

#include <clustertwin/model/scenario_io.hpp>

#include <cmath>
#include <set>

namespace ct::runs {

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
        for (const auto& x : h.sensors) e.push_back({x.id, "sensor", x.rack.empty() ? h.id : x.rack, x.name});
    }
    for (const auto& f : s.power.feeds) e.push_back({f.id, "utility_feed", s.id, f.name});
    for (const auto& t : s.power.transformers) e.push_back({t.id, "transformer", t.feed, t.name});
    for (const auto& u : s.power.ups) e.push_back({u.id, "ups", u.feed, u.name});
    for (const auto& l : s.plant.loops) e.push_back({l.id, "water_loop", s.id, l.name});
    for (const auto& p : s.power.pdus) e.push_back({p.id, "pdu", p.ups, p.name});
    for (const auto& j : s.jobs) e.push_back({j.id, "job", s.id, j.name});
    return e;
}

RunRecorder::RunRecorder(TelemetryStore& store, const model::Scenario& s, const model::Catalog& c, const std::string& name, RunMeta meta,
                         const std::vector<model::Job>* placed_jobs)
    : store_(store), site_(s.id) {
    // The scenario's fingerprint goes with the run: the app shows a run only on the scenario it was made from.
    if (meta.scenario_hash.empty()) {
        meta.scenario_json = model::scenarioToJson(s);
        meta.scenario_hash = model::scenarioHash(s);
    }
    if (placed_jobs)
        for (const auto& j : *placed_jobs)
            if (!j.nodes.empty()) meta.job_nodes[j.id] = j.nodes;
    run_ = store_.createRun(name, "simulated", s.id, meta);
    meta_ = std::move(meta);
    store_.upsertEntities(scenarioEntities(s, c));
}

RunRecorder::~RunRecorder() = default;

void RunRecorder::put(const std::string& entity, std::string_view metric, std::string_view unit, double t, double v) {
    std::string key = entity;
    key += '\x1f';
    key += metric;
    auto it = ids_.find(key);
    if (it == ids_.end()) it = ids_.emplace(key, store_.series(run_, {entity, std::string(metric), std::string(unit), "sim"})).first;
    batch_.push_back({it->second, t, v});
}

namespace {
/// Every row of `table` that is recorded for each entry (frame_series.hpp).
template <class E, class Put>
void putRows(const std::vector<E>& entries, const std::vector<SeriesField<E>>& table, Put&& put) {
    for (const auto& e : entries)
        for (const auto& row : table)
            if (recorded(row, e, table)) put(e.id, row, row.get(e));
}
}  // namespace

void RunRecorder::record(const model::Frame& f) {
    const double t = f.time_s;
    auto put_row = [&](const std::string& id, const auto& row, double v) { put(id, row.metric, row.unit, t, v); };
    putRows(f.gpus, gpuSeries(), put_row);
    putRows(f.nodes, nodeSeries(), put_row);
    putRows(f.racks, rackSeries(), put_row);
    putRows(f.cooling_units, coolingUnitSeries(), put_row);
    putRows(f.cdus, cduSeries(), put_row);
    putRows(f.rack_pdus, rackPduSeries(), put_row);
    putRows(f.ups, upsSeries(), put_row);
    putRows(f.transformers, upsSeries(), put_row);
    putRows(f.loops, waterLoopSeries(), put_row);
    putRows(f.jobs, jobSeries(), put_row);
    for (const auto& j : f.jobs)  // not a series: the run's metadata keeps the last (the app's Jobs dock shows it)
        if (!j.collectives.empty()) {
            auto& kept = meta_.job_collectives[j.id];
            meta_dirty_ = meta_dirty_ || kept != j.collectives;
            kept = j.collectives;
        }
    putRows(f.sensors, sensorSeries(), put_row);
    // The 50 busiest links, and the switch-to-switch ones (leaf–spine and up, for the Fabric dock's matrix) up
    // to 2,000 of them, busiest first; GPU links are named by their host ("n0001/gpu0<->leaf0").
    std::size_t fabric = 0;
    for (std::size_t i = 0; i < f.links.size(); ++i) {
        const auto& l = f.links[i];
        const bool switches = l.id.find('/') == std::string::npos && l.id.find("nvsw") == std::string::npos;
        if (i < 50 || (switches && fabric < 2000))
            for (const auto& row : linkSeries()) put_row(l.id, row, row.get(l));
        fabric += switches ? 1 : 0;
        if (i >= 50 && fabric >= 2000) break;
    }
    for (const auto& row : siteSeries())
        if (recorded(row, f, siteSeries())) put_row(site_, row, row.get(f));
    if (batch_.size() > 200000) flush();
}

std::size_t RunRecorder::recordAlerted(const model::Frame& f) {
    std::set<std::string> named;
    for (const auto& al : f.alerts)
        if (!al.entity.empty()) named.insert(al.entity);
    if (named.empty()) return 0;
    const double t = f.time_s;
    std::size_t found = 0;
    auto put_named = [&](const auto& entries, const auto& table) {
        for (const auto& e : entries) {
            if (!named.count(e.id)) continue;
            ++found;
            for (const auto& row : table)
                if (recorded(row, e, table)) put(e.id, row.metric, row.unit, t, row.get(e));
        }
    };
    put_named(f.gpus, gpuSeries());
    put_named(f.nodes, nodeSeries());
    put_named(f.racks, rackSeries());
    put_named(f.cooling_units, coolingUnitSeries());
    put_named(f.cdus, cduSeries());
    put_named(f.rack_pdus, rackPduSeries());
    put_named(f.ups, upsSeries());
    put_named(f.transformers, upsSeries());
    put_named(f.loops, waterLoopSeries());
    put_named(f.jobs, jobSeries());
    put_named(f.sensors, sensorSeries());
    return found;
}

void RunRecorder::collectAlerts(const model::Frame& f) {
    auto opt = [](double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); };
    for (const auto& al : f.alerts) events_.push_back({al.time_s, al.kind, al.entity, opt(al.value), al.message, opt(al.threshold)});
}

void RunRecorder::flush() {
    store_.writeBatch(std::move(batch_));
    batch_.clear();
}

void RunRecorder::markInterrupted(double t_s, const std::string& by) {
    meta_.interrupted = true;
    meta_.interrupted_at_s = t_s;
    meta_.interrupted_by = by;
    addEvent({t_s, "interrupted", "", std::nullopt, "run " + (by == "cancelled" ? by : "interrupted (" + by + ")") + " before its end"});
}

void RunRecorder::checkpoint() {
    flush();
    if (meta_dirty_) store_.setRunMeta(run_, meta_);  // a reader of the run while it is computed sees them too
    meta_dirty_ = false;
    store_.writeEvents(run_, events_);
    events_.clear();
}

void RunRecorder::finish(double end_s) {
    flush();
    if (meta_.interrupted || !meta_.driven.empty() || meta_dirty_) store_.setRunMeta(run_, meta_);
    store_.writeEvents(run_, events_);
    events_.clear();
    store_.finishRun(run_, end_s);
}

}  // namespace ct::runs
