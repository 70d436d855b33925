#pragma once
// Where the programs find their data, the same for the app and the bench: beside an installed or copied
// program (<exe>/../share/clustertwin/...), or the source tree's only for a program run from its build tree.
#include <string>

namespace ct::model {

/// The resources folder (catalog, sample scenarios, schema): $CT_RESOURCE_DIR, else
/// <exe>/../share/clustertwin/resources, else the source tree's for a program in its build tree. Empty when
/// none holds scenarios/demo.json.
std::string resourceDir();

/// The documentation: <exe>/../share/doc/clustertwin, else the source tree's docs/ for a program in its build
/// tree. Empty when neither holds simulation.md.
std::string documentationDir();

}  // namespace ct::model
