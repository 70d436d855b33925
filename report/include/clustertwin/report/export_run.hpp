#pragma once
// A recorded run for ParaView (issue 19): the hall at a time plus the run's time series, written with the VTK XML
// writers of export.hpp. Used by clustertwin-cli export --format vtk and File > Export for other tools.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ct::report {

struct RunVtkSummary {
    std::size_t halls = 0;   ///< hall_NNNN.vtp snapshots
    std::size_t fields = 0;  ///< air fields written, every hall's counted (air_NNNN.vti, air_hallH_NNNN.vti)
};

/// Writes into `dir` (made if missing): hall.vtp with the values at `at_s` seconds from the run's start (its end
/// when not given; design values without a store), and for a run `run.pvd` over hall_NNNN.vtp and air_NNNN.vti
/// (the first hall; air_hallH_NNNN.vti for hall H ≥ 2, one .pvd part per hall, each grid at its hall's site
/// position) at every stored air field's time, or every `every_s` seconds when the run stored none. `progress` is told the
/// fraction written and may return false to stop (render::RenderError "cancelled"; what was written stays). Throws
/// render::RenderError (cannot write) or runs::StoreError (no such run).
RunVtkSummary writeRunVtk(const model::Scenario& s, const model::Catalog& c, const runs::TelemetryStore* store, std::int64_t run,
                          const std::string& dir, std::optional<double> at_s = std::nullopt, double every_s = 60,
                          const std::function<bool(double)>& progress = {});

}  // namespace ct::report
