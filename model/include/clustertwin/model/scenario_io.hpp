#pragma once
// Reading and writing scenario files (docs/scenario-format.md, resources/schema/scenario.schema.json).
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace ct::model {

/// Files larger than this are refused before reading (a scenario of 100k GPUs is ~20 MB).
inline constexpr std::uintmax_t kMaxScenarioFileBytes = 256ull * 1024 * 1024;

struct LoadResult {
    Scenario scenario;
    Diagnostics diagnostics;  ///< structural problems (wrong types, missing fields, unknown keys)
};

/// Parses scenario JSON text. Syntax errors throw ParseError with line and column; every structural problem
/// (wrong type, missing field, unknown key as a warning) is returned in diagnostics with its JSON pointer,
/// and reading goes on past it. `file` only names the source in messages.
LoadResult parseScenario(std::string_view json_text, const std::string& file = "<memory>");

/// Reads a file ("-": standard input, named <stdin> in messages) and parses it. Throws ModelError
/// (unreadable, empty, larger than kMaxScenarioFileBytes) or ParseError (syntax).
LoadResult loadScenarioFile(const std::string& path);

/// Canonical JSON text of a scenario (2-space indent, trailing newline). Loading it gives back an equal
/// Scenario; saving that gives the same bytes.
std::string scenarioToJson(const Scenario& s);

/// A fingerprint of the scenario's content (16 hex digits, FNV-1a 64 of scenarioToJson): equal scenarios give
/// the same text, any edit a different one. Runs record it so that a run is shown only on the scenario it
/// was computed for. Not a security hash.
std::string scenarioHash(const Scenario& s);

/// Writes atomically: a temporary file beside `path`, flushed, then renamed over it. Throws ModelError on
/// failure, leaving any existing file untouched.
void saveScenarioFile(const Scenario& s, const std::string& path);

struct EventsResult {
    std::vector<Event> events;
    Diagnostics diagnostics;     ///< JSON pointers into the events document
    std::string pointer_prefix;  ///< "" for a bare array, "/events" for {"events": [...]}
};

/// Parses an events document: either an array of events or {"events": [...]}. Throws ParseError on syntax.
EventsResult parseEvents(std::string_view json_text, const std::string& file = "<memory>");
/// Reads and parses an events file. Throws ModelError / ParseError like loadScenarioFile.
EventsResult loadEventsFile(const std::string& path);

struct JobsResult {
    std::vector<Job> jobs;
    Diagnostics diagnostics;
    std::string pointer_prefix;  ///< "" for a bare array, "/jobs" for {"jobs": [...]}
};
/// Parses a jobs document: an array of jobs or {"jobs": [...]}, each as in a scenario's `jobs`.
JobsResult parseJobs(std::string_view json_text, const std::string& file = "<memory>");
JobsResult loadJobsFile(const std::string& path);

/// Reads a whole file ("-": standard input) with the size limit above. Throws ModelError.
std::string readTextFile(const std::string& path, std::uintmax_t max_bytes = kMaxScenarioFileBytes);

/// Writes a file atomically (temporary + rename). Throws ModelError.
void writeFileAtomically(const std::string& path, std::string_view contents);

}  // namespace ct::model
