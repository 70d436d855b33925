#pragma once
// A run copied from one store into another (issue 42: the runs of a sweep's ranks gathered into one database):
// its metadata and scenario, entities, every series with all its samples, events, sources and 3D air fields.
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <string>

namespace ct::runs {

struct CopyStats {
    std::int64_t series = 0, samples = 0, events = 0, air_fields = 0;
};

/// Copies run `run` of `from` into `to` as a new run (named `name`, or as it was) and returns its id there.
/// Throws StoreError (a run that is not there, a write that fails).
std::int64_t copyRun(const TelemetryStore& from, std::int64_t run, TelemetryStore& to, const std::string& name = {},
                     CopyStats* stats = nullptr);

}  // namespace ct::runs
