#pragma once
// clustertwin-cli simulate: runs the engine over a scenario and records the run into the telemetry store.
#include "args.hpp"

namespace ct::cli {

extern const char* kSimulateHelp;
/// Returns the exit code; throws UsageError / model::ModelError for bad input.
int cmdSimulate(const Args& a);

} // namespace ct::cli
