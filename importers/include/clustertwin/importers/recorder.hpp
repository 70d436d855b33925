#pragma once
// Records a simulation into the telemetry store, frame by frame: the same series whoever runs the engine
// (clustertwin-cli simulate, the app's Simulation > Run), so every run replays alike.
#include <clustertwin/importers/store.hpp>
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include <map>
#include <string>
#include <vector>

namespace ct::importers {

/// The entities of a scenario as the store lists them (site, halls, rows, racks, PDUs, nodes, GPUs, units,
/// power chain), with their parents.
std::vector<EntityInfo> scenarioEntities(const model::Scenario& s, const model::Catalog& c);

class RunRecorder {
public:
    /// Creates a simulated run for `s` and lists its entities. `placed_jobs` (the engine's jobs, with the nodes
    /// of those that asked for a number of GPUs) go into the run's metadata as "job_nodes" {id: [node ids]}, so
    /// the app can show where a job ran that the scenario does not place. Throws ImportError.
    RunRecorder(TelemetryStore& store, const model::Scenario& s, const model::Catalog& c, const std::string& name,
                const std::string& meta_json, const std::vector<model::Job>* placed_jobs = nullptr);
    ~RunRecorder();
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    std::int64_t run() const { return run_; }
    /// Buffers the frame's values (per GPU, node, rack, unit, CDU, PDU, UPS, job, the 50 busiest links, up to
    /// 2,000 switch-to-switch links and site totals); writes in large batches.
    void record(const model::Frame& f);
    /// Keeps the frame's alerts and timeline events for the run's event list.
    void collectAlerts(const model::Frame& f);
    /// Adds one event of the run's own (e.g. "interrupted"), written with the others by finish().
    void addEvent(StoredEvent e) { events_.push_back(std::move(e)); }
    /// Writes what is buffered, the events and the run's end. Throws ImportError.
    void finish(double end_s);

private:
    void put(const std::string& entity, const char* metric, const char* unit, double t, double v);
    void flush();
    TelemetryStore& store_;
    std::string site_;
    std::int64_t run_ = 0;
    std::map<std::string, std::int64_t> ids_;
    std::vector<Sample> batch_;
    std::vector<StoredEvent> events_;
};

} // namespace ct::importers
