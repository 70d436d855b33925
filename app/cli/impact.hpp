#pragma once
// clustertwin-cli impact: what loses power, cooling or connectivity if one thing fails, without simulating.
#include "args.hpp"

namespace ct::cli {

extern const char* kImpactHelp;
/// Returns the exit code; throws UsageError for bad arguments.
int cmdImpact(const Args& a);

}  // namespace ct::cli
