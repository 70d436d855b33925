#include <clustertwin/runs/run_overview.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>
#include <unordered_map>

namespace ct::runs {

namespace {

using KindOf = std::unordered_map<std::string, std::string>;

KindOf entityKinds(const TelemetryStore& store) {
    KindOf kind_of;
    for (const auto& e : store.entities()) kind_of.emplace(e.id, e.kind);
    return kind_of;
}

RunOverview describe(const TelemetryStore& store, const RunInfo& info, const KindOf& kind_of) {
    RunOverview o;
    o.info = info;
    const std::int64_t run = info.id;
    o.interrupted = o.info.meta.interrupted;
    o.complete = o.info.end_s.has_value() && !o.interrupted;
    std::map<std::string, MetricOverview> metrics;
    std::map<std::string, std::set<std::string>> metric_entities;
    std::set<std::string> entities, formats;
    for (const auto& s : store.seriesSummary(run)) {
        MetricOverview& m = metrics[s.key.metric];
        if (m.series == 0) {
            m.metric = s.key.metric;
            m.unit = s.key.unit;
            m.t0_s = s.t0_s;
            m.t1_s = s.t1_s;
        } else if (m.unit != s.key.unit && m.unit.find(s.key.unit) == std::string::npos) {
            m.unit += ", " + s.key.unit;  // one name, two units: shown, not hidden
        }
        ++m.series;
        m.samples += s.count;
        if (s.count > 0) {
            m.t0_s = std::min(m.t0_s, s.t0_s);
            m.t1_s = std::max(m.t1_s, s.t1_s);
            o.t0_s = std::min(o.t0_s.value_or(s.t0_s), s.t0_s);
            o.t1_s = std::max(o.t1_s.value_or(s.t1_s), s.t1_s);
        }
        o.samples += s.count;
        metric_entities[s.key.metric].insert(s.key.entity);
        entities.insert(s.key.entity);
        if (!s.key.source.empty() && o.info.kind == "imported") formats.insert(s.key.source);
    }
    for (auto& [name, m] : metrics) {
        m.entities = static_cast<std::int64_t>(metric_entities[name].size());
        o.metrics.push_back(std::move(m));
    }
    for (const auto& e : entities) {
        auto it = kind_of.find(e);
        ++o.entity_kinds[it == kind_of.end() || it->second.empty() ? "other" : it->second];
    }
    o.events = static_cast<std::size_t>(store.eventCount(run));
    o.jobs = static_cast<std::size_t>(store.eventCount(run, "job_start"));
    if (o.info.kind == "imported") {
        o.sources = store.sources(run);
        std::string list;
        for (const auto& f : formats) list += (list.empty() ? "" : ", ") + f;
        o.source = "import of " + std::to_string(o.sources.size()) + " file(s)" + (list.empty() ? "" : " (" + list + ")");
    } else {
        o.source = o.info.name;
    }
    return o;
}

}  // namespace

RunOverview describeRun(const TelemetryStore& store, std::int64_t run) {
    for (const auto& r : store.runs())
        if (r.id == run) return describe(store, r, entityKinds(store));
    throw StoreError(store.path() + ": no run " + std::to_string(run));
}

std::vector<RunOverview> describeRuns(const TelemetryStore& store) {
    const KindOf kind_of = entityKinds(store);  // once for all runs
    std::vector<RunOverview> out;
    for (const auto& r : store.runs()) out.push_back(describe(store, r, kind_of));
    return out;
}

std::string formatRunTime(const RunOverview& r, double t_s) {
    char buf[64];
    if (r.info.kind == "imported") {
        const std::time_t t = static_cast<std::time_t>(std::floor(t_s));
        std::tm tm{};
        gmtime_r(&t, &tm);
        std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
        return buf;
    }
    const long s = std::lround(t_s);
    std::snprintf(buf, sizeof buf, "+%ldh %02ldm %02lds", s / 3600, (s / 60) % 60, s % 60);
    return buf;
}

}  // namespace ct::runs
