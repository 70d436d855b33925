#pragma once
// The commands about a scenario file itself: validate, info, generate and backends (their rows are in the
// command table of main.cpp).
#include "args.hpp"

namespace ct::cli {

/// Invalid input found by validation: already reported; main exits with 2.
struct InvalidInput {};

extern const char* const kValidateHelp;
extern const char* const kInfoHelp;
extern const char* const kGenerateHelp;
extern const char* const kBackendsHelp;

int cmdValidate(const Args& a);
int cmdInfo(const Args& a);
int cmdGenerate(const Args& a);
int cmdBackends(const Args& a);

}  // namespace ct::cli
