#pragma once
// Small helpers shared by the parsers. Private.
#include <clustertwin/importers/parse.hpp>

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace ct::importers::detail {

/// True when `s` is valid UTF-8.
bool validUtf8(std::string_view s);
/// Parses a double; accepts NaN, +Inf, -Inf, Inf. False when not a complete number.
bool parseNumber(std::string_view s, double& out);
/// "2026-11-21T13:12:00Z", "...+02:00", fractional seconds: Unix seconds. False when not ISO 8601.
bool parseIsoTime(std::string_view s, double& out);
bool addPromSample(const std::string& metric, std::map<std::string, std::string>& labels, double t, double value,
                   const std::string& location, ParseResult& res, std::set<std::string>& seen);
inline std::string loc(const ParseOptions& o, std::size_t line) { return o.file_name + ":" + std::to_string(line); }

} // namespace ct::importers::detail
