#pragma once
// clustertwin-cli training: one training step of a job on the scenario's fabric, without the air model.
#include "args.hpp"

namespace ct::cli {

extern const char* kTrainingHelp;
int cmdTraining(const Args& a);

}  // namespace ct::cli
