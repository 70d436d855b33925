#pragma once
// clustertwin-cli collective: one collective operation on a scenario's fabric.
#include "args.hpp"

namespace ct::cli {

extern const char* kCollectiveHelp;
int cmdCollective(const Args& a);
/// "1GiB", "512MiB", "4MB", "1e9", "1048576" → bytes. Throws UsageError.
double parseBytes(const std::string& text, const std::string& option);

}  // namespace ct::cli
