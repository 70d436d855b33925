#pragma once
// What a run database holds, for a person choosing a run: each run's scenario, where its data came from, its
// time range, whether it is complete, its entities by kind and its metrics with their unit, sample count and
// time range. `clustertwin-cli runs` prints it; the app's File > Open Run shows it.
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ct::runs {

struct MetricOverview {
    std::string metric, unit;
    std::int64_t series = 0, entities = 0, samples = 0;
    double t0_s = 0, t1_s = 0;
};

struct RunOverview {
    RunInfo info;
    bool complete = false;             ///< finished: a simulation that ran to its end, an import that was not cut off
    bool interrupted = false;          ///< a simulation stopped before its end (its metadata says so)
    std::optional<double> t0_s, t1_s;  ///< first and last sample (empty: no samples)
    std::int64_t samples = 0;
    std::vector<SourceRecord> sources;  ///< imported files
    std::size_t events = 0, jobs = 0;
    std::map<std::string, std::int64_t> entity_kinds;  ///< kind → entities with series in the run
    std::vector<MetricOverview> metrics;               ///< by name
    /// "simulate <scenario>" or "import of N file(s) (formats)".
    std::string source;
};

RunOverview describeRun(const TelemetryStore& store, std::int64_t run);
std::vector<RunOverview> describeRuns(const TelemetryStore& store);

/// A time for people: "2026-11-24 14:32:43 UTC" for Unix times (imported runs), "+1h 02m" from the start for
/// simulated runs (their times count from 0).
std::string formatRunTime(const RunOverview& r, double t_s);

}  // namespace ct::runs
