#pragma once
// Replaying a recorded run (simulated or imported) as frames: the 3D view, the inspector and the charts read
// a run through this, whatever wrote it. Values are "last known at or before t"; a value never seen is NaN.
#include <clustertwin/importers/store.hpp>
#include <clustertwin/model/frame.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ct::importers {

class RunReplay {
public:
    /// Loads every series and event of `run` into memory. Throws ImportError (unknown run, SQLite failure), or
    /// LoadCancelled when `progress` (told the fraction read) returns false.
    static RunReplay load(const TelemetryStore& store, std::int64_t run, const std::function<bool(double)>& progress = {});

    const RunInfo& info() const { return info_; }
    double startS() const { return t0_; }
    double endS() const { return t1_; }
    /// The frame at `t_s`: per-entity values filled from the series whose entity kind is known (GPU, node,
    /// rack, cooling unit, CDU, rack PDU, UPS, job, link, site totals). No air field (see TelemetryStore).
    model::Frame frameAt(double t_s) const;
    /// Events (alerts and timeline events) of the run, by time.
    const std::vector<StoredEvent>& events() const { return events_; }
    /// The metrics recorded for an entity, and one series' points ((t, value), ascending t; nullptr if none).
    std::vector<std::string> metricsOf(const std::string& entity) const;
    const std::vector<std::pair<double, double>>* series(const std::string& entity, const std::string& metric) const;
    std::string unitOf(const std::string& entity, const std::string& metric) const;
    std::size_t seriesCount() const { return series_.size(); }
    /// The entities that have at least one series in the run.
    std::vector<std::string> entities() const;

private:
    struct Series {
        std::string unit;
        std::vector<std::pair<double, double>> points;
    };
    RunInfo info_;
    double t0_ = 0, t1_ = 0;
    std::map<std::string, std::string> kind_;                          // entity -> kind
    std::map<std::pair<std::string, std::string>, Series> series_;     // (entity, metric)
    std::map<std::string, std::vector<std::string>> metrics_;          // entity -> metrics
    std::vector<StoredEvent> events_;
};

/// The last value at or before `t_s` (NaN when none).
double valueAt(const std::vector<std::pair<double, double>>& points, double t_s);

} // namespace ct::importers
