#pragma once
// Simulation time (contributing.md habit 10): seconds since the start of a run, as a type.
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace ct::model {

/// A point on a simulation or replay clock, in seconds from the run's start.
struct SimTime {
    double seconds = 0;
    auto operator<=>(const SimTime&) const = default;
};

/// Parses "90", "90s", "500ms", "15m", "1h", "2d", "1h30m". Throws ModelError on anything else or a negative.
double parseDurationS(std::string_view text);

/// "1h 02m 03s" style, for messages.
std::string formatDuration(double seconds);

/// Unix seconds as UTC ISO 8601 to the second: "2026-11-21T13:12:00Z".
std::string formatIsoTime(double unix_s);

/// A UTC offset as telemetry writes it ("Z", "UTC", "+02:00", "-0530", "+05"), in seconds east of UTC; empty
/// when it is none of these.
std::optional<double> parseUtcOffset(std::string_view text);

/// "2026-11-21T13:12:00Z", "...+02:00", "...+0530", fractional seconds: Unix seconds. A time without a zone
/// is local time `zoneless_offset_s` east of UTC (0: UTC). False when not ISO 8601.
bool parseIsoTime(std::string_view s, double& out, double zoneless_offset_s = 0);

}  // namespace ct::model
