#pragma once
// clustertwin-cli calibrate: a scenario's physical parameters fitted to a hall's measurements (issue 44).
#include "args.hpp"

#include <string>

namespace ct::cli {

/// calibrate's help, with the parameters it can fit (session::calibrationParameters()).
std::string calibrateHelp();
/// Returns the exit code; throws UsageError for bad options.
int cmdCalibrate(const Args& a);

}  // namespace ct::cli
