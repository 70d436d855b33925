#pragma once
// clustertwin-cli path: the route the fabric gives traffic from one GPU to another.
#include "args.hpp"

namespace ct::cli {

extern const char* kPathHelp;
int cmdPath(const Args& a);

}  // namespace ct::cli
