#pragma once
// clustertwin-cli simulate: runs the engine over a scenario and records the run into the telemetry store.
#include "args.hpp"

#include <clustertwin/ranks/ranks.hpp>

#include <clustertwin/session/run_session.hpp>

#include <iosfwd>
#include <string>
#include <vector>

namespace ct::cli {

/// simulate's help, with the room-air solvers and their own options from sim::airSolvers().
std::string simulateHelp();
/// The options of the solvers' own settings ("lattice-stride", "quick-substep").
std::vector<std::string> simulateSolverOptions();
/// Returns the exit code; throws UsageError / model::ModelError for bad input.
/// Over MPI ranks (mpirun, srun) the halls are spread over them: rank 0 records and prints, the others step
/// their halls in lockstep (docs/scale-out.md).
int cmdSimulate(const Args& a, const ranks::World& w);
/// A run's request from simulate's options (duration, step, air and its settings, grid, recording); throws
/// UsageError. Also sweep's, for each of its variants.
session::RunRequest simulateRequest(const Args& a);
/// An events file (as --events takes it) checked against the scenario for a run of `duration_s`: every problem
/// printed with the file and its pointer; false when any is an error.
bool loadEventsChecked(const std::string& file, const model::Scenario& s, const model::Catalog& c, double duration_s,
                       std::vector<model::Event>& out);
/// The scenario FILE, --events, --jobs (and --drive) into the request, every problem printed with its file;
/// false when any is an error.
bool loadSimulateInputs(const Args& a, const std::string& file, session::RunRequest& r, std::ostream& note);

}  // namespace ct::cli
