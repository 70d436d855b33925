#pragma once
// Records a simulation into the telemetry store, frame by frame: the same series whoever runs the engine
// (clustertwin-cli simulate, the app's Simulation > Run), so every run replays alike.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/store.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ct::runs {

/// The entities of a scenario as the store lists them (site, halls, rows, racks, PDUs, nodes, GPUs, units,
/// power chain), with their parents.
std::vector<EntityInfo> scenarioEntities(const model::Scenario& s, const model::Catalog& c);

class RunRecorder {
public:
    /// Creates a simulated run for `s` and lists its entities. `placed_jobs` (the engine's jobs, with the nodes
    /// of those that asked for a number of GPUs) go into the run's metadata as "job_nodes" {id: [node ids]}, so
    /// the app can show where a job ran that the scenario does not place. Throws StoreError.
    RunRecorder(TelemetryStore& store, const model::Scenario& s, const model::Catalog& c, const std::string& name, RunMeta meta,
                const std::vector<model::Job>* placed_jobs = nullptr);
    ~RunRecorder();
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    std::int64_t run() const { return run_; }
    /// Buffers the frame's values as frame_series.hpp lists them (per GPU, node, rack, unit, CDU, rack PDU, UPS,
    /// transformer, water loop, job, the 50 busiest links and up to 2,000 switch-to-switch links, site totals);
    /// writes in large batches.
    void record(const model::Frame& f);
    /// Keeps the frame's alerts and timeline events for the run's event list.
    void collectAlerts(const model::Frame& f);
    /// Records, between the regular samples, the series of the entities the frame's alerts name, at the frame's
    /// time: the replay at an alert's moment then shows the value that raised it (one time base for alerts and
    /// frames), not the sample before. Returns the entities recorded.
    std::size_t recordAlerted(const model::Frame& f);
    /// Adds one event of the run's own, written with the others by finish().
    void addEvent(StoredEvent e) { events_.push_back(std::move(e)); }
    /// The run stopped before its end at `t_s` (`by`: "cancelled", "SIGINT/SIGTERM"): finish() writes it into
    /// the run's metadata and its events, so every reader shows it as interrupted.
    void markInterrupted(double t_s, const std::string& by);
    /// The run's metadata, to add what is known only at its end (a driven run's counts): finish() writes it.
    RunMeta& meta() { return meta_; }
    /// Writes what is buffered and the alerts and events so far, so a reader of the database (the app showing a
    /// run while it is computed) sees the run up to now; the run stays without an end. Throws StoreError.
    void checkpoint();
    /// Writes what is buffered, the events, the metadata and the run's end. Throws StoreError.
    void finish(double end_s);

private:
    void put(const std::string& entity, std::string_view metric, std::string_view unit, double t, double v);
    void flush();
    TelemetryStore& store_;
    std::string site_;
    std::int64_t run_ = 0;
    std::map<std::string, std::int64_t> ids_;
    std::vector<Sample> batch_;
    std::vector<StoredEvent> events_;
    RunMeta meta_;
    bool meta_dirty_ = false;  ///< job_collectives changed since the metadata was last written
};

}  // namespace ct::runs
