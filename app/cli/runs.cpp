#include "runs.hpp"

#include <clustertwin/runs/run_overview.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace ct::cli {

using json = nlohmann::ordered_json;

const char* kRunsHelp = R"(Usage: clustertwin-cli runs --db DB [--run ID] [--json]

Lists the runs of a run database: each with its kind (simulated or imported), scenario, where its data came
from (the simulation, or the files an import read), its time range, whether it is complete (a simulation
that ran to its end, an import that finished; an interrupted simulation says so), how many events and jobs,
its entities by kind, and its metrics with their unit, sample count, entity count and time range.
  --run ID   only this run
  --json     the same as JSON: {"db", "runs": [{id, name, kind, scenario, created_at, complete, interrupted,
             source, sources: [{name, samples}], t0_s, t1_s, samples, events, jobs, entities: {kind: n},
             metrics: [{metric, unit, series, entities, samples, t0_s, t1_s}]}]}
Exit codes: 0 listed (also when there are no runs), 2 no such database or run.
)";

namespace {

json toJson(const runs::RunOverview& r) {
    json sources = json::array();
    for (const auto& s : r.sources) sources.push_back({{"name", s.name}, {"samples", s.samples}});
    json metrics = json::array();
    for (const auto& m : r.metrics)
        metrics.push_back({{"metric", m.metric},
                           {"unit", m.unit},
                           {"series", m.series},
                           {"entities", m.entities},
                           {"samples", m.samples},
                           {"t0_s", m.t0_s},
                           {"t1_s", m.t1_s}});
    return {{"id", r.info.id},
            {"name", r.info.name},
            {"kind", r.info.kind},
            {"scenario", r.info.scenario_id},
            {"created_at", r.info.created_at},
            {"complete", r.complete},
            {"interrupted", r.interrupted},
            {"source", r.source},
            {"sources", sources},
            {"t0_s", r.t0_s ? json(*r.t0_s) : json(nullptr)},
            {"t1_s", r.t1_s ? json(*r.t1_s) : json(nullptr)},
            {"samples", r.samples},
            {"events", r.events},
            {"jobs", r.jobs},
            {"entities", r.entity_kinds},
            {"metrics", metrics}};
}

void print(const runs::RunOverview& r) {
    std::cout << "run " << r.info.id << " \"" << r.info.name << "\" " << r.info.kind << ", "
              << (r.interrupted ? "interrupted"
                  : r.complete  ? "complete"
                                : "incomplete")
              << " (created " << r.info.created_at << ")\n";
    std::cout << "  scenario: " << (r.info.scenario_id.empty() ? "-" : r.info.scenario_id) << "; source: " << r.source << "\n";
    for (std::size_t i = 0; i < r.sources.size() && i < 5; ++i)
        std::cout << "    " << r.sources[i].name << " (" << r.sources[i].samples << " samples)\n";
    if (r.sources.size() > 5) std::cout << "    ... and " << r.sources.size() - 5 << " more file(s) (--json lists them)\n";
    if (r.t0_s) std::cout << "  time: " << runs::formatRunTime(r, *r.t0_s) << " to " << runs::formatRunTime(r, *r.t1_s) << "\n";
    else std::cout << "  time: no samples\n";
    std::cout << "  " << r.samples << " samples, " << r.events << " events" << (r.jobs ? ", " + std::to_string(r.jobs) + " jobs" : "")
              << "\n";
    std::cout << "  entities:";
    if (r.entity_kinds.empty()) std::cout << " none";
    bool first = true;
    for (const auto& [kind, n] : r.entity_kinds) {
        std::cout << (first ? " " : ", ") << n << " " << kind;
        first = false;
    }
    std::cout << "\n";
    if (r.metrics.empty()) return;
    std::size_t w = 6;
    for (const auto& m : r.metrics) w = std::max(w, m.metric.size());
    std::cout << "  metrics:\n";
    for (const auto& m : r.metrics) {
        char line[512];
        std::snprintf(line, sizeof line, "    %-*s %-8s %10lld samples on %6lld entities, ", static_cast<int>(w), m.metric.c_str(),
                      m.unit.empty() ? "-" : m.unit.c_str(), static_cast<long long>(m.samples), static_cast<long long>(m.entities));
        std::cout << line << runs::formatRunTime(r, m.t0_s) << " to " << runs::formatRunTime(r, m.t1_s) << "\n";
    }
}

}  // namespace

int cmdRuns(const Args& a) {
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("runs needs --db DB");
    if (!a.positional().empty()) throw UsageError("runs takes no positional arguments");
    if (std::error_code ec; !std::filesystem::is_regular_file(db, ec)) {
        std::cerr << "runs: " << db << " does not exist\n";
        return 2;
    }
    auto store = runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing);
    std::vector<runs::RunOverview> runs;
    if (a.has("run")) {
        const long id = a.getInt("run", 0);
        try {
            runs.push_back(runs::describeRun(store, id));
        } catch (const runs::StoreError& e) {
            std::cerr << "runs: " << e.what() << "\n";
            return 2;
        }
    } else {
        runs = runs::describeRuns(store);
    }
    if (a.flag("json")) {
        json arr = json::array();
        for (const auto& r : runs) arr.push_back(toJson(r));
        std::cout << json{{"db", db}, {"runs", arr}}.dump(2) << "\n";
        return 0;
    }
    std::cout << db << ": " << runs.size() << " run(s)\n";
    for (const auto& r : runs) print(r);
    return 0;
}

}  // namespace ct::cli
