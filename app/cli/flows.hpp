#pragma once
// clustertwin-cli flows: point-to-point flows on a scenario's fabric. Also the pieces `collective` shares:
// loading a scenario's fabric with failed links, and writing every link's load.
#include "args.hpp"

#include <clustertwin/sim/collectives.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ct::cli {

extern const char* kFlowsHelp;
int cmdFlows(const Args& a);

/// The scenario's fabric with the --fail-link options applied; nullopt after printing the scenario's errors
/// (or why no fabric can be built) to stderr. Throws UsageError for an unknown --fail-link.
std::optional<sim::net::ScenarioFabric> loadFabric(const std::string& file, const Args& a, const char* command);

/// Every link direction's bytes and utilization over `time_s`, busiest first, to `path`: CSV, or JSON when the
/// name ends in .json ("-" = stdout as CSV). Throws std::runtime_error naming the path.
void writeLinkLoads(const std::string& path, const sim::net::Topology& t, const std::vector<double>& arc_bytes, double time_s);

}  // namespace ct::cli
