#include <clustertwin/runs/replay.hpp>

#include <clustertwin/runs/frame_series.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace ct::runs {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Kinds for entities the store does not list (imported telemetry names GPUs "<host>/gpu<i>").
std::string guessKind(const std::string& id) {
    if (id.find("<->") != std::string::npos) return "link";
    const auto slash = id.rfind('/');
    if (slash != std::string::npos && id.compare(slash + 1, 3, "gpu") == 0) return "gpu";
    return {};
}
}  // namespace

double valueAt(const std::vector<std::pair<double, double>>& points, double t_s) {
    auto it = std::upper_bound(points.begin(), points.end(), t_s, [](double t, const auto& p) { return t < p.first; });
    if (it == points.begin()) return kNaN;
    return std::prev(it)->second;
}

RunReplay RunReplay::load(const TelemetryStore& store, std::int64_t run, const std::function<bool(double)>& progress) {
    RunReplay r;
    bool found = false;
    for (const auto& ri : store.runs())
        if (ri.id == run) {
            r.info_ = ri;
            found = true;
        }
    if (!found) throw StoreError(store.path() + ": there is no run " + std::to_string(run));
    if (auto json = store.runScenario(run)) r.info_.meta.scenario_json = std::move(*json);
    for (const auto& e : store.entities()) r.kind_[e.id] = e.kind;
    r.t0_ = std::numeric_limits<double>::infinity();
    r.t1_ = -std::numeric_limits<double>::infinity();
    for (auto& sv : store.allSeries(run, progress)) {
        if (!sv.points.empty()) {
            r.t0_ = std::min(r.t0_, sv.points.front().first);
            r.t1_ = std::max(r.t1_, sv.points.back().first);
        }
        auto& s = r.series_[{sv.key.entity, sv.key.metric}];
        if (s.points.empty()) {
            r.metrics_[sv.key.entity].push_back(sv.key.metric);
            s.unit = sv.key.unit;
            s.points = std::move(sv.points);
        } else {  // the same metric from two sources: merge by time
            s.points.insert(s.points.end(), sv.points.begin(), sv.points.end());
            std::stable_sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        }
        if (!r.kind_.count(sv.key.entity)) {
            // A job's figures name it by its id alone (runs recorded before jobs were entities).
            const std::string k = sv.key.metric == "step_time_s" || sv.key.metric == "mfu" ? "job" : guessKind(sv.key.entity);
            if (!k.empty()) r.kind_[sv.key.entity] = k;
        }
    }
    r.events_ = store.events(run);
    if (!std::isfinite(r.t0_)) r.t0_ = r.t1_ = 0;
    if (r.info_.end_s && *r.info_.end_s > r.t1_ && r.info_.kind == "simulated") r.t1_ = *r.info_.end_s;
    return r;
}

std::size_t RunReplay::extend(const TelemetryStore& store) {
    if (info_.kind != "simulated")
        throw StoreError(store.path() + ": only a simulated run is read as it grows; run " + std::to_string(info_.id) + " is " +
                         info_.kind);
    std::string scenario = std::move(info_.meta.scenario_json);
    bool found = false;
    for (const auto& ri : store.runs())
        if (ri.id == info_.id) {
            info_ = ri;
            found = true;
        }
    if (!found) throw StoreError(store.path() + ": there is no run " + std::to_string(info_.id));
    info_.meta.scenario_json = std::move(scenario);
    // The entities' kinds are those load() read: a run lists its entities when it starts (RunRecorder).
    // Every point after the earliest last point of any series is in the chunks reaching past it.
    double after = series_.empty() ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    for (const auto& [key, s] : series_)
        after = std::min(after, s.points.empty() ? -std::numeric_limits<double>::infinity() : s.points.back().first);
    std::size_t added = 0;
    bool any = !series_.empty();
    double t0 = any ? t0_ : std::numeric_limits<double>::infinity(), t1 = any ? t1_ : -std::numeric_limits<double>::infinity();
    for (auto& sv : store.seriesSince(info_.id, after)) {
        auto& s = series_[{sv.key.entity, sv.key.metric}];
        if (s.points.empty() && s.unit.empty()) {
            auto& m = metrics_[sv.key.entity];
            if (std::find(m.begin(), m.end(), sv.key.metric) == m.end()) m.push_back(sv.key.metric);
            s.unit = sv.key.unit;
        }
        const double last = s.points.empty() ? -std::numeric_limits<double>::infinity() : s.points.back().first;
        for (const auto& p : sv.points)
            if (p.first > last) {
                s.points.push_back(p);
                ++added;
            }
        if (!s.points.empty()) {
            t0 = std::min(t0, s.points.front().first);
            t1 = std::max(t1, s.points.back().first);
        }
        if (!kind_.count(sv.key.entity)) {
            const std::string k = sv.key.metric == "step_time_s" || sv.key.metric == "mfu" ? "job" : guessKind(sv.key.entity);
            if (!k.empty()) kind_[sv.key.entity] = k;
        }
    }
    t0_ = std::isfinite(t0) ? t0 : 0;
    t1_ = std::isfinite(t1) ? t1 : 0;
    events_ = store.events(info_.id);
    if (info_.end_s && *info_.end_s > t1_) t1_ = *info_.end_s;
    return added;
}

std::size_t RunReplay::mapHosts(const std::map<std::string, std::string>& host_to_node) {
    if (info_.kind == "simulated") return 0;
    auto raw = [&](const std::string& name) {
        auto it = raw_of_.find(name);
        return it == raw_of_.end() ? name : it->second;
    };
    auto mapped = [&](const std::string& r) {
        const auto slash = r.find('/');
        auto it = host_to_node.find(r.substr(0, slash));
        if (it == host_to_node.end() || it->second.empty()) return r;
        return slash == std::string::npos ? it->second : it->second + r.substr(slash);
    };
    std::map<std::string, std::string> raw_of;
    auto rename = [&](const std::string& current) {
        const std::string r = raw(current);
        std::string m = mapped(r);
        if (m != r) raw_of[m] = r;
        return m;
    };
    std::map<std::pair<std::string, std::string>, Series> series;
    std::map<std::string, std::vector<std::string>> metrics;
    for (auto& [key, s] : series_) {
        const std::string e = rename(key.first);
        auto& to = series[{e, key.second}];
        if (to.points.empty()) {
            metrics[e].push_back(key.second);
            to.unit = s.unit;
            to.points = std::move(s.points);
        } else {  // a host and the node it maps to both had this metric: merge by time
            to.points.insert(to.points.end(), s.points.begin(), s.points.end());
            std::stable_sort(to.points.begin(), to.points.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        }
    }
    std::map<std::string, std::string> kinds;
    for (const auto& [e, k] : kind_) kinds.emplace(rename(e), k);
    for (auto& e : events_) e.target = rename(e.target);
    series_ = std::move(series);
    metrics_ = std::move(metrics);
    kind_ = std::move(kinds);
    raw_of_ = std::move(raw_of);
    host_map_ = host_to_node;
    std::size_t renamed = 0;
    for (const auto& [m, r] : raw_of_)
        if (metrics_.count(m)) ++renamed;
    return renamed;
}

std::vector<std::string> RunReplay::entities() const {
    std::vector<std::string> out;
    out.reserve(metrics_.size());
    for (const auto& [entity, metrics] : metrics_) out.push_back(entity);
    return out;
}

std::string RunReplay::kindOf(const std::string& entity) const {
    const auto it = kind_.find(entity);
    return it == kind_.end() ? std::string() : it->second;
}

std::vector<std::string> RunReplay::metricsOf(const std::string& entity) const {
    auto it = metrics_.find(entity);
    return it == metrics_.end() ? std::vector<std::string>{} : it->second;
}

const std::vector<std::pair<double, double>>* RunReplay::series(const std::string& entity, const std::string& metric) const {
    auto it = series_.find({entity, metric});
    return it == series_.end() ? nullptr : &it->second.points;
}

std::string RunReplay::unitOf(const std::string& entity, const std::string& metric) const {
    auto it = series_.find({entity, metric});
    return it == series_.end() ? std::string() : it->second.unit;
}

namespace {
/// Builds one kind's entries of a replayed frame from its series by the table (frame_series.hpp); rows whose
/// series the run lacks read as their RecordWhen says (unknown, or 0 where only positive values are written).
template <class E>
class KindFill {
public:
    KindFill(std::vector<E>& out, const std::vector<SeriesField<E>>& table) : out_(out), table_(table) {}
    /// The entry of `id` (created on first use); false when `metric` is not one of this kind's rows.
    bool set(const std::string& id, const std::string& metric, double v) {
        for (std::size_t r = 0; r < table_.size(); ++r)
            if (table_[r].metric == metric) {
                auto [it, added] = idx_.emplace(id, out_.size());
                if (added) {
                    out_.emplace_back();
                    out_.back().id = id;
                    seen_.push_back(0);
                }
                table_[r].set(out_[it->second], v);
                seen_[it->second] |= 1u << r;
                return true;
            }
        return false;
    }
    void finish() {
        for (std::size_t i = 0; i < out_.size(); ++i)
            for (std::size_t r = 0; r < table_.size(); ++r)
                if (!(seen_[i] & (1u << r))) table_[r].set(out_[i], zeroWhenAbsent(table_[r].when) ? 0.0 : kNaN);
    }

private:
    std::vector<E>& out_;
    const std::vector<SeriesField<E>>& table_;
    std::map<std::string, std::size_t> idx_;
    std::vector<std::uint32_t> seen_;
};
}  // namespace

model::Frame RunReplay::frameAt(double t) const {
    model::Frame f;
    f.time_s = t - t0_;  // one time base: a frame's time is from its run's start, as the engine's are
    // A sample or event stored at t counts as known at t, whatever rounding the caller's arithmetic left in t.
    const double at = t + 1e-6;
    for (const auto& row : siteSeries()) row.set(f, zeroWhenAbsent(row.when) ? 0.0 : kNaN);
    KindFill<model::GpuFrame> gpus(f.gpus, gpuSeries());
    KindFill<model::NodeFrame> nodes(f.nodes, nodeSeries());
    KindFill<model::RackFrame> racks(f.racks, rackSeries());
    KindFill<model::CoolingUnitFrame> units(f.cooling_units, coolingUnitSeries());
    KindFill<model::CduFrame> cdus(f.cdus, cduSeries());
    KindFill<model::RackPduFrame> rack_pdus(f.rack_pdus, rackPduSeries());
    KindFill<model::PowerNodeFrame> ups(f.ups, upsSeries()), transformers(f.transformers, upsSeries());
    KindFill<model::WaterLoopFrame> loops(f.loops, waterLoopSeries());
    KindFill<model::JobFrame> jobs(f.jobs, jobSeries());
    KindFill<model::LinkFrame> links(f.links, linkSeries());
    KindFill<model::SensorFrame> sensors(f.sensors, sensorSeries());
    std::map<std::string, std::size_t> job_at;
    for (const auto& [key, s] : series_) {
        const auto& [entity, metric] = key;
        auto k = kind_.find(entity);
        if (k == kind_.end()) continue;
        const double v = valueAt(s.points, at);
        const std::string& kind = k->second;
        if (kind == "gpu") gpus.set(entity, metric, v);
        else if (kind == "node") nodes.set(entity, metric, v);
        else if (kind == "rack") racks.set(entity, metric, v);
        else if (kind == "cooling_unit") units.set(entity, metric, v);
        else if (kind == "cdu") cdus.set(entity, metric, v);
        else if (kind == "rack_pdu") rack_pdus.set(entity, metric, v);
        else if (kind == "ups") ups.set(entity, metric, v);
        else if (kind == "transformer") transformers.set(entity, metric, v);
        else if (kind == "water_loop") loops.set(entity, metric, v);
        else if (kind == "sensor") sensors.set(entity, metric, v);
        else if (kind == "job") {
            // A job runs where any of its figures is known at t (before its first record, or on an imported
            // run's job with none, it is not running).
            if (jobs.set(entity, metric, v) && !std::isnan(v)) job_at[entity] = 1;
        } else if (kind == "link") {
            if (!std::isnan(v)) links.set(entity, metric, v);
        } else if (kind == "site") {
            for (const auto& row : siteSeries())
                if (row.metric == metric) row.set(f, v);
        }
    }
    gpus.finish();
    nodes.finish();
    racks.finish();
    units.finish();
    cdus.finish();
    rack_pdus.finish();
    ups.finish();
    transformers.finish();
    loops.finish();
    jobs.finish();
    sensors.finish();
    links.finish();
    for (auto& j : f.jobs) j.running = job_at.count(j.id) > 0;
    std::sort(f.links.begin(), f.links.end(), [](const auto& a, const auto& b) { return a.utilization > b.utilization; });
    for (const auto& e : events_)
        if (e.t_s <= at && e.kind != "event")
            f.alerts.push_back({e.t_s - t0_, e.kind, e.target, e.message, e.value.value_or(kNaN), e.threshold.value_or(kNaN)});
    // Timeline events ("cooling_unit_fail", "cdu_restore"...) set the failed flags up to t.
    auto failedAt = [&](const std::string& id, const std::string& what) {
        bool failed = false;
        for (const auto& e : events_) {
            if (e.t_s > at || e.kind != "event" || e.target != id) continue;
            if (e.message.rfind(what + "_fail", 0) == 0) failed = true;
            if (e.message.rfind(what + "_restore", 0) == 0) failed = false;
        }
        return failed;
    };
    for (auto& u : f.cooling_units) u.failed = failedAt(u.id, "cooling_unit");
    for (auto& c : f.cdus) c.failed = failedAt(c.id, "cdu");
    for (auto& n : f.nodes) n.failed = failedAt(n.id, "node");
    return f;
}

}  // namespace ct::runs
