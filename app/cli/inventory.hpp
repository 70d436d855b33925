#pragma once
// clustertwin-cli from-netbox / to-netbox: a scenario from a NetBox inventory, and NetBox-importable CSV back.
#include "args.hpp"

namespace ct::cli {

extern const char* kFromNetboxHelp;
extern const char* kToNetboxHelp;
int cmdFromNetbox(const Args& a);
int cmdToNetbox(const Args& a);

} // namespace ct::cli
