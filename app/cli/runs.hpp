#pragma once
// clustertwin-cli runs: what a run database holds.
#include "args.hpp"

namespace ct::cli {

extern const char* kRunsHelp;
int cmdRuns(const Args& a);

}  // namespace ct::cli
