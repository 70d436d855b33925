#pragma once
// clustertwin-cli render: a scenario's hall to a PNG, offscreen, coloured from a recorded run or a simulation.
#include "args.hpp"

namespace ct::cli {

extern const char* kRenderHelp;
/// Returns the exit code; throws UsageError / model::ModelError for bad input, render::RenderError when the
/// PNG cannot be written.
int cmdRender(const Args& a);

}  // namespace ct::cli
