#pragma once
// A one-page HTML report of a recorded run (issue 19): what a planner forwards or prints. Self-contained (CSS
// inline, pictures embedded), readable in any browser and offline. No VTK or Qt types here.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/runs/score.hpp>
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ct::report {

/// The run scored against a hall's measurements (session::scoreRun; issue 44), for the report's section.
struct ReportScore {
    std::string measured;  ///< "measured.sqlite, run 1"
    std::string baseline;  ///< where the baseline's supply temperature came from
    std::size_t measured_series = 0, paired_series = 0, unpaired = 0, driven = 0;
    struct Row {
        std::string scope, metric, unit;
        runs::ErrorStats twin;
        std::optional<runs::ErrorStats> baseline;
    };
    std::vector<Row> overall, kinds, windows, worst;  ///< worst: the series with the largest MAE
};

struct ReportOptions {
    bool picture = true;  ///< the 3D view of the hall at the run's end (needs OpenGL: $DISPLAY or Xvfb)
    int picture_width = 1100, picture_height = 640;
    std::string version;               ///< the program's version, for the footer
    std::optional<ReportScore> score;  ///< a section "Against the hall's measurements" when given
};

/// What went into a report, for a summary line.
struct ReportSummary {
    std::size_t racks = 0, racks_over_27 = 0, racks_over_32 = 0, alerts = 0;
    bool picture = false;
    std::string picture_note;  ///< why there is no 3D picture ("" when there is one or none was asked for)
    std::string mismatch;      ///< the run was recorded from another scenario or version of it ("" when not); the report says so too
    std::size_t findings = 0;  ///< runs::checkRun's findings (outside what the model represents...), shown at the top
};

/// Writes the report of run `run` of `store` on scenario `s` to `path` (atomically): the scenario and the run,
/// the totals at the end (IT and facility power, PUE, hottest inlet, racks over ASHRAE's 27 and 32 °C), the
/// 3D view, a floor plan coloured by rack inlet, the hottest inlet and PUE over time with their limits, the
/// checks (heat balance, ASHRAE, RCI, cooling units), the hottest racks and the alerts. Throws
/// runs::StoreError (no such run) or render::RenderError (cannot write); a 3D picture that cannot be drawn is
/// noted in the report and the summary instead.
ReportSummary writeRunReport(const model::Scenario& s, const model::Catalog& c, const runs::TelemetryStore& store, std::int64_t run,
                             const std::string& path, const ReportOptions& opt = {});

}  // namespace ct::report
