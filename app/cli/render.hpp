#pragma once
// clustertwin-cli render: a scenario's hall to a PNG, offscreen, coloured from a recorded run or a simulation.
#include "args.hpp"

#include <string>
#include <vector>

namespace ct::cli {

/// render's help, its overlay options written from render::overlayTable().
std::string renderHelp();
/// render's overlay flags (--streamlines, --no-links, …) and options with a value (--slice H, --iso C).
std::vector<std::string> renderOverlayFlags();
std::vector<std::string> renderOverlayOptions();
/// Returns the exit code; throws UsageError / model::ModelError for bad input, render::RenderError when the
/// PNG cannot be written.
int cmdRender(const Args& a);

}  // namespace ct::cli
