#pragma once
// A run driven by a hall's measured telemetry (issue 44; `clustertwin-cli simulate --drive DB`, the app's Run
// dialog): the measured series of an imported run that stand for one of the engine's inputs (sim::driveInputs:
// a node's power_w, a unit's supply_c, ...) become sim::DriveSeries on the run's clock, whose t = 0 is a
// measured instant (the first driving sample, or the one asked for). What drives nothing is reported, never
// dropped silently.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/drive.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ct::session {

struct DriveRequest {
    std::string db_path;              ///< the measured database (clustertwin-cli import)
    std::optional<std::int64_t> run;  ///< its imported run; the latest when not given
    std::string map_path;             ///< optional map file (measured.hpp, MeasuredMapFile)
    std::optional<double> from_unix;  ///< the run's t = 0; the first driving sample when not given
    double max_gap_s = 0;             ///< bridge no gap longer than this (0: 3 × each series' median spacing)
};

struct DrivePlan {
    std::vector<sim::DriveSeries> series;  ///< engine time, stored units
    std::int64_t measured_run = 0;
    std::string measured_label;  ///< "FILE, run N", as the run's metadata keeps it
    double origin_unix = 0;      ///< the measured time of the run's t = 0
    double span_s = 0;           ///< from t = 0 to the last driving sample
    std::size_t measured_series = 0;
    /// Measured series whose entity is not in the scenario (entity ids, one each), and series that could drive
    /// but were left out, with why ("n0001 fan_rpm: server model x has no fan_max_rpm").
    std::vector<std::string> unmapped, notes;
};

/// Reads the measured run and plans what drives what. Throws InputError (a map file, a run that is not there,
/// nothing to drive) and runs::StoreError (the database).
DrivePlan planDrive(const DriveRequest& r, const model::Scenario& s, const model::Catalog& c);

}  // namespace ct::session
