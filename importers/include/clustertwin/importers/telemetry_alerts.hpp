#pragma once
// Alerts on measured telemetry (issue 40): the rules the engine applies to a simulated run, applied to what a hall
// measured, with the limits of the real GPU model the telemetry names (catalogGpuFor). An imported or live run
// then lists its alerts in the app's Alerts dock, the CLI's query and the report, as a simulated one does.
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ct::importers {

/// Each GPU's measured temperature (temp_c) against its model's slowdown temperature ("gpu_hot", a warning) and
/// shutdown temperature ("gpu_shutdown", critical), from the catalog; a GPU the catalog does not know is held to
/// a data-centre GPU's generic 87 / 92 °C, and its message says so. An alert is raised at the sample that
/// crosses the limit and again only after the temperature fell 2 K below it. Alerts already stored for the run
/// (an earlier import of the same data) are not written twice. Returns the alerts written.
std::size_t raiseTelemetryAlerts(runs::TelemetryStore& store, std::int64_t run, const std::vector<ImportedEntity>& entities);

}  // namespace ct::importers
