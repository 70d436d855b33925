#pragma once
// clustertwin-cli simulate: runs the engine over a scenario and records the run into the telemetry store.
#include "args.hpp"

#include <string>
#include <vector>

namespace ct::cli {

/// simulate's help, with the room-air solvers and their own options from sim::airSolvers().
std::string simulateHelp();
/// The options of the solvers' own settings ("lattice-stride", "quick-substep").
std::vector<std::string> simulateSolverOptions();
/// Returns the exit code; throws UsageError / model::ModelError for bad input.
int cmdSimulate(const Args& a);

}  // namespace ct::cli
