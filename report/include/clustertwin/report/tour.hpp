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
#include <map>
#include <optional>
#include <string>
#include <vector>

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
};

struct Tour {
    std::string title, description;
    std::string scenario;              ///< resolved path of the scenario file
    std::optional<double> simulate_s;  ///< simulate this long first (the steps' times are in that run)
    std::vector<TourStep> steps;
    double seconds() const;  ///< all steps
};

/// Reads a tour; errors (render::RenderError) name the file and the JSON pointer. `scenario` is resolved against the
/// tour's folder first, then `scenarios_dir` (resources/scenarios).
Tour loadTour(const std::string& path, const std::string& scenarios_dir = {});

}  // namespace ct::report
