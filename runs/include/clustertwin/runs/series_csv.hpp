#pragma once
// What the CLI (query) and the app (File > Export) share when they hand series to other tools: one CSV
// vocabulary (RFC 4180) and one way to read a time a user types.
#include <optional>
#include <string>
#include <string_view>

namespace ct::runs {

/// The header of a series export, the same from `clustertwin-cli query --format csv` and the app.
inline constexpr const char* kSeriesCsvHeader = "time_s,entity,metric,value,unit";

/// One RFC 4180 field: quoted (with doubled quotes) when it holds a comma, a quote, CR or LF.
std::string csvField(std::string_view text);

/// One record of a series export, CRLF-terminated as RFC 4180 asks; NaN is an empty field.
std::string seriesCsvRecord(double t_s, std::string_view entity, std::string_view metric, double value, std::string_view unit);

/// A time as a user types it: seconds as stored ("1732400000", "90.5"), a duration from the run's start
/// ("90s", "15m", "1h30m"), or ISO 8601 with an optional offset ("2026-11-21T13:12:00Z", "…+02:00"), as Unix
/// seconds. Empty when it is none of these.
std::optional<double> parseTimeSpec(std::string_view text, double run_start_s);

}  // namespace ct::runs
