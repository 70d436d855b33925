#pragma once
// A recorded run or a guided tour as a video (issue 19): the 3D view rendered offscreen frame by frame and
// encoded by Debian's ffmpeg (MP4: H.264; WebM: VP9), written atomically.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/report/tour.hpp>
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ct::report {

struct VideoOptions {
    int width = 1280, height = 720;  ///< rounded down to even numbers (the encoders' 4:2:0 needs them)
    int fps = 25;
    double seconds = 20;  ///< a replay's length (a tour's is the sum of its steps)
    std::string metric = "inlet_c";
    std::string view = "iso";
    std::string title;  ///< shown before the time in a replay's caption
};

struct VideoSummary {
    int frames = 0;
    double seconds = 0;
    int width = 0, height = 0;
};

/// Records run `run` of `store` (a replay: `seconds` of video spread over the run), or `tour` (its steps, with
/// times in that run when it has them; `store` may be null for a tour without times). `progress` is told the
/// fraction done and may return false to cancel (render::RenderError "cancelled", nothing left behind). Throws
/// render::RenderError: no ffmpeg, an unknown extension (.mp4, .webm), no display, or the encoder's failure.
VideoSummary writeVideo(const model::Scenario& s, const model::Catalog& c, std::vector<model::FabricLink> links,
                        const runs::TelemetryStore* store, std::int64_t run, const Tour* tour, const std::string& path,
                        const VideoOptions& opt, const std::function<bool(double)>& progress = {});

}  // namespace ct::report
