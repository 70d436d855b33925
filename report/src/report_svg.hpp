#pragma once
// SVG pieces of the HTML report (report.cpp): a floor plan coloured by a value per rack and a time chart with
// limit lines. Private to ct_report.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/report/report.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ct::report::report {

/// "#rrggbb" for v on a blue (lo) to red (hi) scale, as the 3D view colours; grey for NaN.
std::string colourOf(double v, double lo, double hi);
/// Text safe inside HTML and SVG.
std::string esc(const std::string& s);

/// Every hall's racks and cooling units from above, racks filled by `value` (°C) on [lo, hi] with a legend,
/// each with a tooltip (id and value), failed units in red; at most `width_px` × `max_height_px` for the plan,
/// keeping the site's aspect.
std::string floorPlanSvg(const model::Scenario& s, const model::Catalog& c, const std::map<std::string, double>& value,
                         const std::set<std::string>& failed_units, double lo, double hi, int width_px, int max_height_px);

/// The section "Against the hall's measurements": the score's tables (report_score.cpp).
std::string scoreSectionHtml(const ReportScore& sc);

struct ChartLine {
    std::string label, colour;
    std::vector<std::pair<double, double>> points;  ///< (seconds from the run's start, value)
};
struct ChartLimit {
    std::string label, colour;
    double value = 0;
};
/// An event on the time axis (a unit failing): a vertical line with a tooltip.
struct ChartMark {
    double time_s = 0;
    std::string label;
};
/// A line chart over time with dashed limit lines, event marks, axes with round ticks, a legend.
std::string timeChartSvg(const std::string& y_label, const std::vector<ChartLine>& lines, const std::vector<ChartLimit>& limits,
                         const std::vector<ChartMark>& marks, int width_px, int height_px);

}  // namespace ct::report::report
