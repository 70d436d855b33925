#pragma once
// One simulation run, start to end, for every front end (contributing.md habit 15): `clustertwin-cli
// simulate`, the app's Simulation > Run and the tours' videos build a RunRequest, and the session builds the
// engine, steps it, records the run (samples, alerts, air fields, metadata), detects a steady state, honours a
// cancel and says how the run ended. A run stopped early is kept and marked interrupted the same way
// whoever stopped it (runs::RunMeta::interrupted, and an "interrupted" event).
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/run_meta.hpp>
#include <clustertwin/sim/engine.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ct::session {

struct RunRequest {
    model::Scenario scenario;
    model::Catalog catalog;
    sim::EngineOptions engine;
    std::vector<model::Event> extra_events;     ///< besides the scenario's own timeline
    double duration_s = 3600;                   ///< with `steady`: the most it runs
    bool steady = false;                        ///< stop once no rack inlet drifts (sim::SteadyDetector)
    double record_every_s = 10;                 ///< samples; at least one engine step
    double field_every_s = 60;                  ///< 3D air fields for replay; 0 = never
    std::uint64_t max_field_cells = 8'000'000;  ///< grids larger than this store no fields
    std::string db_path;                        ///< the run database (created or appended to)
    std::string run_name;                       ///< as listed ("simulate lab", "app lab", "tour")
    /// What the front end knows (source, scenario file and hash, run options); the session adds the engine's
    /// settings (air solver and summary, backend, step, cell, grid size, duration, steady).
    runs::RunMeta meta;
};

struct RunProgress {
    int percent = 0;
    double sim_time_s = 0, wall_s = 0;
};

struct RunCallbacks {
    /// Each time the whole percentage moves.
    std::function<void(const RunProgress&)> progress;
    /// Polled before every step: true stops the run there (kept, marked interrupted).
    std::function<bool()> cancelled;
    /// Why a cancelled run stopped, as its metadata and event say ("cancelled", "SIGINT/SIGTERM").
    std::string cancel_reason = "cancelled";
    /// A frame with its air field about every `live_every_s` of wall time (0: never), for a live view.
    std::function<void(const model::Frame&)> live_frame;
    double live_every_s = 0;
    /// About every `checkpoint_every_s` of wall time (0: never) what was recorded so far is written to the
    /// database (RunRecorder::checkpoint), then this is told the run: a reader can show the run while it goes.
    std::function<void(std::int64_t run)> checkpoint;
    double checkpoint_every_s = 0;
};

enum class RunEnd {
    Finished,   ///< ran its duration
    Steady,     ///< steady mode: steady before the duration ended
    NotSteady,  ///< steady mode: the duration ended first
    Cancelled,  ///< stopped early on request; what ran is kept, marked interrupted
};

struct RunOutcome {
    RunEnd end = RunEnd::Finished;
    std::int64_t run = 0;
    double sim_time_s = 0, wall_s = 0;
    double it_energy_j = 0, facility_energy_j = 0;
    /// GPU time in all, and what of it failures, lost power and throttling took (a throttled GPU's share of
    /// clocks lost), for each step.
    double gpu_seconds = 0, gpu_seconds_lost = 0;
    double peak_inlet_c = 0;  ///< the hottest airflow-weighted rack inlet of any step
    std::string peak_inlet_rack;
    /// The first alert of each kind and entity, in time order (the timeline's own events left out).
    std::vector<model::Alert> first_alerts;
    bool cooling_ok = true;  ///< no "cooling_short" alert
    // Steady mode (sim::SteadyDetector): the window, the averaging period, the last drift bound (K per window;
    // infinite before four windows), each rack's inlet averaged over the steady period (frame order).
    double flow_through_s = 0, averaging_s = 0, last_change_k = 0;
    std::vector<double> steady_inlets;
    model::Frame last;  ///< the last frame (without its air field)
    /// A driven run (EngineOptions::drive): how each input ran, as the run's metadata keeps it.
    std::vector<runs::RunMeta::Driven> driven;
};

class RunSession {
public:
    /// Builds the engine (throws sim::SimError when the scenario cannot be simulated, e.g. an air grid too
    /// large for memory) and opens the run database (throws runs::StoreError).
    explicit RunSession(RunRequest request);
    ~RunSession();
    RunSession(const RunSession&) = delete;
    RunSession& operator=(const RunSession&) = delete;

    /// The engine's counters; the air solver's summary is there once constructed.
    const sim::EngineStats& stats() const;
    /// Whether the run stores 3D air fields (not for grids over max_field_cells).
    bool storesFields() const;
    /// Runs to the end, to steady state or to a cancel. Call once. Throws runs::StoreError when the run
    /// cannot be written and sim::SimError from the engine.
    RunOutcome run(const RunCallbacks& cb = {});

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

}  // namespace ct::session
