#pragma once
// clustertwin-cli score: a simulated run against a hall's measurements (issue 44).
#include "args.hpp"

namespace ct::cli {

extern const char* kScoreHelp;
/// Returns the exit code; throws UsageError for bad options.
int cmdScore(const Args& a);

}  // namespace ct::cli
