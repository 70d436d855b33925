#pragma once
// clustertwin-cli reliability: a training job's interruptions, lost work and goodput over days of operation.
#include "args.hpp"

namespace ct::cli {

extern const char* kReliabilityHelp;
int cmdReliability(const Args& a);

}  // namespace ct::cli
