#pragma once
// clustertwin-cli sweep: many variants of one scenario, over MPI ranks when started by mpirun or srun.
#include "args.hpp"

#include <clustertwin/ranks/ranks.hpp>

namespace ct::cli {

extern const char* kSweepHelp;
/// Returns the exit code (the same on every rank); throws UsageError for bad options.
int cmdSweep(const Args& a, const ranks::World& w);

}  // namespace ct::cli
