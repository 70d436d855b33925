#pragma once
// clustertwin-cli from-netbox / to-netbox: a scenario from a NetBox inventory, and NetBox-importable CSV back;
// import-fabric: the fabric as cabled, from an InfiniBand discovery.
#include "args.hpp"

namespace ct::cli {

extern const char* kFromNetboxHelp;
extern const char* kToNetboxHelp;
extern const char* kImportFabricHelp;
int cmdFromNetbox(const Args& a);
int cmdToNetbox(const Args& a);
/// import-fabric: the scenario's network replaced by the fabric an ibnetdiscover file describes.
int cmdImportFabric(const Args& a);

}  // namespace ct::cli
