#pragma once
// Guided tours (issue 19): small JSON files next to the samples (resources/tours/) that move the camera, select
// and highlight things, colour by a metric, move or play the timeline and show a caption at each step. The app
// plays them (Help > Guided tours, presentation mode); clustertwin-cli export --format video records them.
//
// {"title": "...", "scenario": "demo.json" (relative to the tour's folder, or resources/scenarios),
//  "simulate": "20m" (optional: the run the steps replay; "quick" air), "description": "...",
//  "steps": [{"caption": "...", "seconds": 6, "camera": "iso|top|aisle", "focus": "n0001",
//             "select": "r01-01", "highlight": ["n0001", ...], "metric": "gpu_temp_c",
//             "time": "9m", "play_to": "14m", "streamlines": true, "slice": 1.0, "links": true}]}
// A step may set any overlay of render::overlayTable() by its id: true/false, or the number of one that has a
// number (the slice's height; negative: off).
//
// A tour's run may add events to the scenario's own: "events": [{"time_s": 300, "kind": "feed_fail",
// "target": "util-a"}] (the events file format, docs/scenario-format.md), and jobs: "jobs": a jobs file
// (clustertwin-cli simulate --jobs: beside the tour, else resources/jobs) or an array of jobs as in a
// scenario's "jobs".
//
// A tour that replays a run names the air model its captions were written for ("air": "quick" or "lbm";
// default quick), and a step states what its caption claims as "checks", verified against the run the tour
// plays over (checkTour): a caption that says "inlets are inside 18–27 °C" fails its test when they are not.
//   {"event": "cooling_unit_fail", "target": "crah-02", "at": "10m"}            the run has this event then
//   {"metric": "inlet_max_c", "of": "rack", "at": "9m", "max": 27, "share": 0.5}  at least half the racks <= 27
//   {"metric": "temp_c", "of": "gpu", "at": "16m", "stat": "max", "max": 87}    the hottest GPU below 87
//   {"metric": "inlet_max_c", "entities": ["r01-05"], "from": "10m", "to": "16m", "min": 1}  each rose >= 1 K
// "of" takes every entity of that kind with the metric, "entities" names them; "stat" is "each" (every entity,
// or at least "share" of them, within min..max), "max", "min" or "mean" (that statistic within min..max); with
// "from" and "to" the values compared are the changes between the two times. "at" defaults to the step's time.
#include <clustertwin/model/scenario.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ct::runs {
class RunReplay;
}

namespace ct::report {

struct TourStep {
    std::string caption;
    double seconds = 6;                  ///< how long the step shows (presentation and video)
    std::string camera;                  ///< preset, "" = keep
    std::string focus;                   ///< entity to frame, "" = none
    std::string select;                  ///< entity to select (outline), "" = none
    std::vector<std::string> highlight;  ///< entities to light up
    std::string metric;                  ///< colouring, "" = keep
    std::optional<double> time_s;        ///< run time at the step's start (needs a run)
    std::optional<double> play_to_s;     ///< the timeline plays to this time during the step
    /// Overlays the step sets, by id (render/overlays.hpp): 0 or 1 for a toggle; for an overlay with a number
    /// (the slice's height), the number, negative = off (render::applyOverlaySettings).
    std::map<std::string, double> overlays;
    std::vector<std::string> checks;  ///< what the caption claims, as JSON objects (above), verified by checkTour
};

struct Tour {
    std::string title, description;
    std::string scenario;              ///< resolved path of the scenario file
    std::optional<double> simulate_s;  ///< simulate this long first (the steps' times are in that run)
    std::string air = "quick";         ///< the air model of that run: the one the captions were written for
    std::vector<model::Event> events;  ///< what happens in that run besides the scenario's own events ("events")
    std::vector<model::Job> jobs;      ///< jobs that run besides the scenario's own ("jobs")
    std::vector<TourStep> steps;
    double seconds() const;  ///< all steps
};

/// Reads a tour; errors (render::RenderError) name the file and the JSON pointer. `scenario` is resolved against the
/// tour's folder first, then `scenarios_dir` (resources/scenarios); a jobs file against the tour's folder, then
/// `scenarios_dir`'s sibling "jobs" (resources/jobs).
Tour loadTour(const std::string& path, const std::string& scenarios_dir = {});

/// Where step `i` starts in the run: its "time", else where the step before it ended (its "play_to" or start);
/// nullopt before any step gave a time.
std::optional<double> stepStartS(const Tour& t, std::size_t i);

struct TourCheckFailure {
    std::size_t step = 0;
    std::string claim;  ///< the check as written
    std::string found;  ///< what the run shows instead
};

/// Every claim of every step that the run does not bear out (empty: the captions are true for this run).
std::vector<TourCheckFailure> checkTour(const Tour& t, const runs::RunReplay& run);

}  // namespace ct::report
