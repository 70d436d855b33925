// The report's section on a run scored against the hall's measurements (issue 44; docs/calibration.md).
#include "report_svg.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace ct::report::report {

namespace {

std::string fixed(double v, int decimals) {
    if (!std::isfinite(v)) return "—";
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

void table(std::ostringstream& h, const char* title, const char* scope, const std::vector<ReportScore::Row>& rows) {
    if (rows.empty()) return;
    h << "<h3>" << title << "</h3>\n<table><tr><th class=\"l\">" << scope
      << "</th><th class=\"l\">Metric</th><th>n</th><th>RMSE</th><th>MAE</th><th>Bias</th><th>Max</th><th>CV(RMSE) %</th>"
         "<th>NMBE %</th><th>Baseline MAE</th><th>Skill</th></tr>\n";
    for (const auto& r : rows) {
        const int d = r.unit == "W" ? 0 : 2;
        const auto& t = r.twin;
        h << "<tr><td class=\"l\">" << esc(r.scope) << "</td><td class=\"l\">" << esc(r.metric) << " (" << esc(r.unit) << ")</td><td>"
          << t.n << "</td><td>" << fixed(t.rmse, d) << "</td><td>" << fixed(t.mae, d) << "</td><td>" << fixed(t.bias, d) << "</td><td>"
          << fixed(t.max_abs, d) << "</td><td>" << fixed(t.cv_rmse_pct, 1) << "</td><td>" << fixed(t.nmbe_pct, 1) << "</td>";
        if (r.baseline) {
            const double skill = r.baseline->mae > 0 ? 1 - t.mae / r.baseline->mae : std::nan("");
            h << "<td>" << fixed(r.baseline->mae, d) << "</td><td class=\"" << (skill > 0 ? "ok" : "bad") << "\">" << fixed(skill, 2)
              << "</td>";
        } else {
            h << "<td>—</td><td>—</td>";
        }
        h << "</tr>\n";
    }
    h << "</table>\n";
}

}  // namespace

std::string scoreSectionHtml(const ReportScore& sc) {
    std::ostringstream h;
    h << "<h2>Against the hall's measurements</h2>\n<p>Scored against " << esc(sc.measured) << ": " << sc.paired_series << " of "
      << sc.measured_series << " measured series paired (" << sc.unpaired << " with nothing simulated to pair, " << sc.driven
      << " drove the run). Error = simulated − measured; CV(RMSE) and NMBE as ASHRAE Guideline 14 defines them (NMBE &gt; 0: the "
         "twin reads low). The baseline puts every inlet at "
      << esc(sc.baseline) << "; skill = 1 − MAE / baseline MAE.</p>\n";
    table(h, "Overall", "Scope", sc.overall);
    table(h, "By entity kind", "Kind", sc.kinds);
    table(h, "By time window", "Window", sc.windows);
    table(h, "Worst series", "Entity", sc.worst);
    return h.str();
}

}  // namespace ct::report::report
