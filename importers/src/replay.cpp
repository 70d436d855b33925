#include <clustertwin/importers/replay.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ct::importers {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Kinds for entities the store does not list (imported telemetry names GPUs "<host>/gpu<i>").
std::string guessKind(const std::string& id) {
    if (id.find("<->") != std::string::npos) return "link";
    const auto slash = id.rfind('/');
    if (slash != std::string::npos && id.compare(slash + 1, 3, "gpu") == 0) return "gpu";
    return {};
}
} // namespace

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
    if (!found) throw ImportError(store.path() + ": there is no run " + std::to_string(run));
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

model::Frame RunReplay::frameAt(double t) const {
    model::Frame f;
    f.time_s = t;
    f.max_inlet_c = f.it_power_w = f.facility_power_w = f.pue = kNaN;
    std::map<std::string, std::size_t> gi, ni, ri, ui, ci, pi, upi, ji, li;
    auto slot = [](auto& vec, std::map<std::string, std::size_t>& idx, const std::string& id) -> auto& {
        auto [it, added] = idx.emplace(id, vec.size());
        if (added) {
            vec.emplace_back();
            vec.back().id = id;
        }
        return vec[it->second];
    };
    for (const auto& [key, s] : series_) {
        const auto& [entity, metric] = key;
        auto k = kind_.find(entity);
        if (k == kind_.end()) continue;
        const double v = valueAt(s.points, t);
        const std::string& kind = k->second;
        if (kind == "gpu") {
            auto& g = slot(f.gpus, gi, entity);
            if (metric == "power_w") g.power_w = v;
            else if (metric == "temp_c") g.temp_c = v;
            else if (metric == "utilization") g.utilization = v;
            else if (metric == "throttle") g.throttle = v;
        } else if (kind == "node") {
            auto& n = slot(f.nodes, ni, entity);
            if (metric == "power_w") n.power_ac_w = v;
            else if (metric == "inlet_c") n.inlet_c = v;
            else if (metric == "fan_speed") n.fan_speed = v;
        } else if (kind == "rack") {
            auto& r = slot(f.racks, ri, entity);
            if (metric == "power_w") r.power_w = v;
            else if (metric == "inlet_max_c") r.inlet_max_c = v;
            else if (metric == "inlet_mean_c") r.inlet_mean_c = v;
            else if (metric == "exhaust_c") r.exhaust_c = v;
            else if (metric == "capture_index") r.capture_index = v;
        } else if (kind == "cooling_unit") {
            auto& u = slot(f.cooling_units, ui, entity);
            if (metric == "return_c") u.return_c = v;
            else if (metric == "supply_c") u.supply_c = v;
            else if (metric == "load_w") u.load_w = v;
            else if (metric == "fan_power_w") u.fan_power_w = v;
        } else if (kind == "cdu") {
            auto& c = slot(f.cdus, ci, entity);
            if (metric == "supply_c") c.supply_c = v;
            else if (metric == "return_c") c.return_c = v;
            else if (metric == "load_w") c.load_w = v;
        } else if (kind == "rack_pdu") {
            auto& p = slot(f.rack_pdus, pi, entity);
            if (metric == "load_w") p.load_w = v;
            else if (metric == "breaker_utilization") p.breaker_utilization = v;
        } else if (kind == "ups") {
            auto& u = slot(f.ups, upi, entity);
            if (metric == "load_w") u.load_w = v;
            else if (metric == "loss_w") u.loss_w = v;
        } else if (kind == "job") {
            auto& j = slot(f.jobs, ji, entity);
            j.running = !std::isnan(v);
            if (metric == "step_time_s") j.step_time_s = v;
            else if (metric == "comm_share") j.comm_share = v;
            else if (metric == "mfu") j.mfu = v;
            else if (metric == "utilization") j.utilization = v;
            else if (metric == "bubble_share") j.bubble_share = v;
            else if (metric == "interruptions") j.interruptions = static_cast<int>(v);
            else if (metric == "tokens_per_s") j.tokens_per_s = v;
            else if (metric == "ttft_p99_s") j.ttft_p99_s = v;
            else if (metric == "tpot_p99_s") j.tpot_p99_s = v;
        } else if (kind == "link") {
            if (metric == "utilization" && !std::isnan(v)) {
                auto& l = slot(f.links, li, entity);
                l.utilization = v;
            }
        } else if (kind == "site") {
            if (metric == "it_power_w") f.it_power_w = v;
            else if (metric == "facility_power_w") f.facility_power_w = v;
            else if (metric == "cooling_power_w") f.cooling_power_w = v;
            else if (metric == "pue") f.pue = v;
            else if (metric == "heat_in_w") f.heat_in_w = v;
            else if (metric == "heat_removed_w") f.heat_removed_w = v;
            else if (metric == "max_inlet_c") f.max_inlet_c = v;
        }
    }
    // Entities with some metrics but not others: what was not recorded is unknown, not zero.
    for (auto& g : f.gpus) {
        if (!series(g.id, "power_w")) g.power_w = kNaN;
        if (!series(g.id, "temp_c")) g.temp_c = kNaN;
        if (!series(g.id, "utilization")) g.utilization = kNaN;
        if (!series(g.id, "throttle")) g.throttle = kNaN;
    }
    for (auto& n : f.nodes) {
        if (!series(n.id, "power_w")) n.power_ac_w = kNaN;
        if (!series(n.id, "inlet_c")) n.inlet_c = kNaN;
    }
    for (auto& r : f.racks) {
        if (!series(r.id, "power_w")) r.power_w = kNaN;
        if (!series(r.id, "inlet_max_c")) r.inlet_max_c = kNaN;
        if (!series(r.id, "exhaust_c")) r.exhaust_c = kNaN;
    }
    std::sort(f.links.begin(), f.links.end(), [](const auto& a, const auto& b) { return a.utilization > b.utilization; });
    for (const auto& e : events_)
        if (e.t_s <= t && e.kind != "event")
            f.alerts.push_back({e.t_s, e.kind, e.target, e.message, e.value.value_or(kNaN), e.threshold.value_or(kNaN)});
    // Timeline events ("cooling_unit_fail", "cdu_restore"...) set the failed flags up to t.
    auto failedAt = [&](const std::string& id, const std::string& what) {
        bool failed = false;
        for (const auto& e : events_) {
            if (e.t_s > t || e.kind != "event" || e.target != id) continue;
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

} // namespace ct::importers
