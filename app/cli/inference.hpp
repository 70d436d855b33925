#pragma once
// clustertwin-cli inference: serving a model on a job's GPUs: throughput, TTFT and TPOT percentiles, pools.
#include "args.hpp"

namespace ct::cli {

extern const char* kInferenceHelp;
int cmdInference(const Args& a);

}  // namespace ct::cli
