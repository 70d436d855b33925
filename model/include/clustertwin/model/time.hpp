#pragma once
// Simulation time (contributing.md habit 10): seconds since the start of a run, as a type.
#include <compare>
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

} // namespace ct::model
