#pragma once
// Replaying a recorded run (simulated or imported) as frames: the 3D view, the inspector and the charts read
// a run through this, whatever wrote it. Values are "last known at or before t"; a value never seen is NaN.
#include <clustertwin/model/frame.hpp>
#include <clustertwin/runs/store.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ct::runs {

class RunReplay {
public:
    /// Loads every series and event of `run` into memory. Throws StoreError (unknown run, SQLite failure), or
    /// StoreCancelled when `progress` (told the fraction read) returns false.
    static RunReplay load(const TelemetryStore& store, std::int64_t run, const std::function<bool(double)>& progress = {});

    /// What a simulated run being recorded added since this replay was loaded or last extended: the new points of
    /// every series (and new series), its events, entities and info read again. Equals a fresh load of the run
    /// as it is now, for a fraction of the reading (a run in progress is shown growing this way). Returns the
    /// points added. Throws StoreError for a run that is not simulated (imports merge sources: load them again).
    std::size_t extend(const TelemetryStore& store);

    const RunInfo& info() const { return info_; }
    double startS() const { return t0_; }
    double endS() const { return t1_; }
    /// Stored times (series(), events(), startS()/endS()) are as the store keeps them: from a simulated run's
    /// start, Unix seconds for imported telemetry.
    /// The frame at stored time `t_s`: every series of frame_series.hpp's table whose entity kind is known, last
    /// value at or before t_s. Its time_s, and its alerts' times, are from the run's start (t_s − startS()),
    /// as the engine's frames are: one time base for every frame. No air field (see TelemetryStore).
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
    /// An entity's kind ("rack", "gpu", ...), "" when the run does not say.
    std::string kindOf(const std::string& entity) const;

    /// Imported telemetry names hosts as the tools do ("cp-bm14r7", "cp-bm14r7/gpu0"); a scenario may give
    /// its nodes other ids with that host name (an `import --skeleton` scenario: node n0001, hostname
    /// cp-bm14r7). Renames every entity whose host (the part before the first '/') is a key of `host_to_node`
    /// to that node id, undoing any earlier mapping first, so that a run can be matched to another scenario.
    /// Returns how many entities now have another name. Simulated runs are never renamed.
    std::size_t mapHosts(const std::map<std::string, std::string>& host_to_node);
    /// The host names last given to mapHosts (empty before).
    const std::map<std::string, std::string>& hostMap() const { return host_map_; }

private:
    struct Series {
        std::string unit;
        std::vector<std::pair<double, double>> points;
    };
    RunInfo info_;
    double t0_ = 0, t1_ = 0;
    std::map<std::string, std::string> kind_;                       // entity -> kind
    std::map<std::pair<std::string, std::string>, Series> series_;  // (entity, metric)
    std::map<std::string, std::vector<std::string>> metrics_;       // entity -> metrics
    std::vector<StoredEvent> events_;
    std::map<std::string, std::string> raw_of_;    // mapped name -> name in the store
    std::map<std::string, std::string> host_map_;  // what mapHosts was last given
};

/// The last value at or before `t_s` (NaN when none).
double valueAt(const std::vector<std::pair<double, double>>& points, double t_s);

}  // namespace ct::runs
