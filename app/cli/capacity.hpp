#pragma once
// clustertwin-cli capacity: headroom per rack, row, floor PDU, UPS, feed and hall; where N racks could go.
#include "args.hpp"

namespace ct::cli {

extern const char* kCapacityHelp;
int cmdCapacity(const Args& a);

}  // namespace ct::cli
