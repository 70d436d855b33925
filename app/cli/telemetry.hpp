#pragma once
// clustertwin-cli import / query: telemetry files into the store, and series back out.
#include "args.hpp"

namespace ct::cli {

extern const char* kImportHelp;
extern const char* kQueryHelp;
int cmdImport(const Args& a);
int cmdQuery(const Args& a);

}  // namespace ct::cli
