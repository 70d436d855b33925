// The HTML report of a run (report.hpp): totals, pictures, charts, checks, hottest racks and alerts.
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/report.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/run_checks.hpp>

#include "report_svg.hpp"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

namespace ct::report {

namespace {

using report::esc;

std::string num(double v, int decimals = 1) {
    if (!std::isfinite(v)) return "–";
    char b[48];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

std::string base64(const std::string& bytes) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                           static_cast<unsigned char>(bytes[i + 2]);
        out += k[v >> 18 & 63];
        out += k[v >> 12 & 63];
        out += k[v >> 6 & 63];
        out += k[v & 63];
    }
    if (i < bytes.size()) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += k[v >> 18 & 63];
        out += k[v >> 12 & 63];
        out += i + 1 < bytes.size() ? k[v >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

/// A check's line: state 0 pass, 1 warning, 2 failed.
struct Check {
    int state = 0;
    std::string what, detail;
};

const char* kStyle = R"(body{font:14px/1.45 "DejaVu Sans",Arial,sans-serif;color:#222;margin:24px auto;max-width:1160px;padding:0 16px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 8px;border-bottom:1px solid #ccc;padding-bottom:3px}
.sub{color:#555;margin-bottom:14px}.tiles{display:flex;flex-wrap:wrap;gap:10px}
.tile{border:1px solid #ccd;border-radius:6px;padding:8px 12px;min-width:150px;background:#f7f8fb}
.tile b{display:block;font-size:21px}.tile span{color:#555;font-size:12px}.tile.bad{background:#fdecea;border-color:#e0a8a0}
.tile.warn{background:#fff6e0;border-color:#e4c880}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#eef0f4}td.l,th.l{text-align:left}.ok{color:#1a7f37}.warn{color:#9a6700}.bad{color:#c62828}
.plan text.rl{font-size:9px;text-anchor:middle;fill:#000}.plan text.hall{font-size:12px;fill:#333}
svg text.tick{font-size:11px;fill:#333}svg text.axis{font-size:12px;fill:#333}img.view{max-width:100%;border:1px solid #ccc}
.note{color:#666;font-style:italic}footer{margin-top:26px;color:#777;font-size:12px}
@media print{body{margin:0}h2{break-after:avoid}})";

/// The report of one run, section by section, from the run's last frame and its series and events.
class RunReportWriter {
public:
    RunReportWriter(const model::Scenario& s, const model::Catalog& c, const runs::TelemetryStore& store, std::int64_t run,
                    const ReportOptions& opt)
        : s_(s), c_(c), opt_(opt), rp_(runs::RunReplay::load(store, run)), info_(rp_.info()), end_(rp_.frameAt(rp_.endS())) {
        gather();
    }

    ReportSummary write(const std::string& path) {
        picture();
        checks();
        header();
        atTheEnd();
        hall();
        overTime();
        checkTable();
        if (opt_.score) h_ << report::scoreSectionHtml(*opt_.score);
        hottestRacks();
        eventsAndAlerts();
        h_ << "<footer>ClusterTwin " << esc(opt_.version) << " · scenario " << esc(s_.id) << " · " << s_.halls.size() << " hall(s), "
           << sum_.racks << " racks</footer>\n</body></html>\n";
        try {
            model::writeFileAtomically(path, h_.str());
        } catch (const std::exception& e) {
            throw render::RenderError(std::string("cannot write the report ") + path + ": " + e.what());
        }
        return sum_;
    }

private:
    /// The scenario check, the racks by inlet, the alerts and applied events, and the entity of the site's series.
    void gather() {
        // A simulated run records its scenario's id and content hash (RunRecorder): a report of it on another
        // scenario, or on the scenario edited since, says so at the top.
        if (!info_.scenario_id.empty() && info_.scenario_id != s_.id)
            sum_.mismatch = "the run was recorded for scenario '" + info_.scenario_id + "', not '" + s_.id + "'";
        else if (!info_.meta.scenario_hash.empty() && info_.meta.scenario_hash != model::scenarioHash(s_))
            sum_.mismatch = "the run was recorded from another version of this scenario: values are matched by id";
        // The app's banner: results outside what the model represents, and a heat imbalance at steady state.
        findings_ = runs::checkRun(rp_);
        sum_.findings = findings_.size();
        // Racks at the end, hottest level first.
        for (const auto& r : end_.racks) {
            const double v = std::isfinite(r.inlet_max_c) ? r.inlet_max_c : r.inlet_mean_c;
            inlet_[r.id] = v;
            racks_.push_back(&r);
            if (v > 27) ++sum_.racks_over_27;
            if (v > 32) ++sum_.racks_over_32;
        }
        sum_.racks = racks_.size();
        std::sort(racks_.begin(), racks_.end(), [&](auto* a, auto* b) { return inlet_[a->id] > inlet_[b->id]; });
        // Alerts are every stored event but the timeline's own ("event": what the scenario or the user applied).
        for (const auto& e : rp_.events()) (e.kind == "event" ? applied_ : alerts_).push_back(e);
        sum_.alerts = alerts_.size();
        // The site's totals are recorded under the scenario's id; a run matched to another scenario keeps its own.
        site_ = s_.id;
        if (!rp_.series(site_, "pue"))
            for (const auto& e : rp_.entities())
                if (rp_.series(e, "pue") && rp_.series(e, "max_inlet_c")) site_ = e;
    }

    /// The 3D view at the end.
    void picture() {
        if (!opt_.picture) return;
        char tmpl[] = "/tmp/clustertwin-report-XXXXXX";
        const int fd = mkstemp(tmpl);
        if (fd < 0) return;
        close(fd);
        const std::string png = std::string(tmpl) + ".png";
        try {
            render::RenderOptions ro;
            ro.width = opt_.picture_width;
            ro.height = opt_.picture_height;
            ro.metric = "inlet_c";
            render::renderScenarioPng(s_, c_, png, ro, &end_);
            std::ifstream in(png, std::ios::binary);
            picture_.assign(std::istreambuf_iterator<char>(in), {});
            sum_.picture = !picture_.empty();
        } catch (const std::exception& e) {
            sum_.picture_note = e.what();
        }
        std::error_code ec;
        std::filesystem::remove(tmpl, ec);
        std::filesystem::remove(png, ec);
    }

    /// Checks on the end state and over the run.
    void checks() {
        const double into_air = end_.heat_in_w, out_of_air = end_.heat_removed_w + end_.rear_door_heat_w;
        bool outside = false;
        for (const auto& f : findings_) outside = outside || f.level == runs::RunFinding::Level::Error;
        if (std::isfinite(into_air) && into_air > 0 && std::isfinite(out_of_air)) {
            const double err = (out_of_air - into_air) / into_air;
            std::string detail = "racks put " + num(into_air / 1e3) + " kW into the air; cooling units and rear doors take " +
                                 num(out_of_air / 1e3) + " kW (" + num(100 * err, 2) + " %; steady state within 1 %)";
            // A balanced sum says nothing about a run that left what the model represents (see the top).
            if (outside) detail += "; but the run left what the model represents, so this balance does not make its answer right";
            checks_.push_back({outside ? 2 : (std::fabs(err) <= 0.01 ? 0 : (std::fabs(err) <= 0.05 ? 1 : 2)),
                               "Heat balance of the room air at the end", detail});
        }
        checks_.push_back({sum_.racks_over_32 > 0 ? 2 : (sum_.racks_over_27 > 0 ? 1 : 0), "Rack inlets within ASHRAE's envelope (A1)",
                           std::to_string(sum_.racks_over_27) + " of " + std::to_string(sum_.racks) +
                               " racks above the recommended 27 °C, " + std::to_string(sum_.racks_over_32) + " above the allowable 32 °C"});
        // The site's metrics at the end come back with the frame (runs/frame_series.hpp), RCI among them.
        if (std::isfinite(end_.rci_hi)) {
            const double hi = end_.rci_hi, lo = end_.rci_lo;
            checks_.push_back({hi >= 96 ? 0 : (hi >= 91 ? 1 : 2), "Rack Cooling Index (Herrlin)",
                               "RCI_HI " + num(hi, 0) + " %, RCI_LO " + num(lo, 0) + " % (≥ 96 % good, < 91 % poor)"});
        }
        int failed = 0, short_units = 0;
        for (const auto& u : end_.cooling_units) {
            failed += u.failed ? 1 : 0;
            short_units += u.over_capacity ? 1 : 0;
        }
        checks_.push_back({failed > 0 || short_units > 0 ? (short_units > 0 ? 2 : 1) : 0, "Cooling units",
                           std::to_string(end_.cooling_units.size()) + " units, " + std::to_string(failed) + " failed, " +
                               std::to_string(short_units) + " at capacity at the end"});
        checks_.push_back({alerts_.empty() ? 0 : 1, "Alerts during the run", std::to_string(alerts_.size()) + " raised"});
    }

    void header() {
        const std::string title = s_.name.empty() ? s_.id : s_.name;
        h_ << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ClusterTwin report: " << esc(title)
           << "</title>\n<style>" << kStyle << "</style></head><body>\n";
        h_ << "<h1>" << esc(title) << "</h1>\n<div class=\"sub\">Run " << info_.id
           << (info_.name.empty() ? "" : " “" + esc(info_.name) + "”") << ", " << esc(info_.kind) << ", "
           << esc(model::formatDuration(rp_.endS() - rp_.startS())) << " recorded"
           << (info_.created_at.empty() ? "" : ", " + esc(info_.created_at));
        if (!info_.meta.air_summary.empty()) h_ << "<br>Room air: " << esc(info_.meta.air_summary);
        if (!info_.meta.driven_by.empty()) {  // issue 44: a run driven by the hall's measurements
            h_ << "<br>Driven by the measurements of " << esc(info_.meta.driven_by);
            if (info_.meta.time_origin_unix) h_ << " from " << esc(model::formatIsoTime(*info_.meta.time_origin_unix));
            h_ << ":";
            for (const auto& d : info_.meta.driven) {
                const double steps = static_cast<double>(d.driven_steps + d.model_steps);
                h_ << " " << esc(d.input) << " (" << d.series << " series, "
                   << static_cast<int>(std::lround(steps > 0 ? 100.0 * static_cast<double>(d.driven_steps) / steps : 0.0))
                   << " % measured)";
            }
        }
        if (info_.meta.interrupted)
            h_ << "<br><b>Stopped early</b> ("
               << esc(info_.meta.interrupted_by.empty() ? std::string("interrupted") : info_.meta.interrupted_by) << ") at "
               << esc(model::formatDuration(info_.meta.interrupted_at_s.value_or(rp_.endS() - rp_.startS())))
               << (info_.meta.duration_s ? " of " + esc(model::formatDuration(*info_.meta.duration_s)) : std::string());
        if (!s_.description.empty()) h_ << "<br>" << esc(s_.description);
        h_ << "</div>\n";
        if (!info_.meta.whatif_baseline.empty()) {  // the app's what-if: what it changed and the run it compares with
            h_ << "<p><b>What-if</b>";
            std::string changes;
            for (const auto& c : info_.meta.whatif_changes) changes += (changes.empty() ? "" : "; ") + c;
            if (!changes.empty()) h_ << ": " << esc(changes);
            h_ << ". Baseline (the same scenario without " << (info_.meta.whatif_changes.size() == 1 ? "it" : "them")
               << "): " << esc(info_.meta.whatif_baseline) << ".</p>\n";
        }
        if (!sum_.mismatch.empty()) h_ << "<p class=\"warn\"><b>Note:</b> " << esc(sum_.mismatch) << ".</p>\n";
        // The findings first, as the app's banner shows them: a reader must not take such a run at face value.
        for (const auto& f : findings_) {
            const bool error = f.level == runs::RunFinding::Level::Error;
            h_ << "<p class=\"" << (error ? "bad" : "warn") << "\"><b>"
               << (error ? "Outside what the model represents" : "Check this result") << "</b> (at " << esc(model::formatDuration(f.t_s))
               << (f.entity.empty() ? std::string() : ", " + esc(f.entity)) << "): " << esc(f.text) << "</p>\n";
        }
    }

    void tile(const std::string& value, const std::string& label, int state = 0) {
        h_ << "<div class=\"tile"
           << (state == 2   ? " bad"
               : state == 1 ? " warn"
                            : "")
           << "\"><b>" << value << "</b><span>" << esc(label) << "</span></div>";
    }

    void atTheEnd() {
        h_ << "<h2>At the end of the run</h2><div class=\"tiles\">";
        tile(num(end_.it_power_w / 1e3, 0) + " kW", "IT power");
        tile(num(end_.facility_power_w / 1e3, 0) + " kW", "facility power");
        tile(num(end_.pue, 2), "PUE");
        tile(num(end_.max_inlet_c) + " °C",
             "hottest rack inlet" + (end_.max_inlet_rack.empty() ? std::string() : " (" + end_.max_inlet_rack + ")"),
             end_.max_inlet_c > 32   ? 2
             : end_.max_inlet_c > 27 ? 1
                                     : 0);
        tile(std::to_string(sum_.racks_over_27) + " / " + std::to_string(sum_.racks), "racks above 27 °C", sum_.racks_over_27 ? 1 : 0);
        tile(std::to_string(alerts_.size()), "alerts", alerts_.empty() ? 0 : 1);
        h_ << "</div>\n";
    }

    void hall() {
        h_ << "<h2>The hall</h2>\n";
        if (!picture_.empty())
            h_ << "<img class=\"view\" alt=\"3D view of the hall coloured by node inlet\" src=\"data:image/png;base64," << base64(picture_)
               << "\">\n";
        else if (!sum_.picture_note.empty()) h_ << "<p class=\"note\">No 3D picture: " << esc(sum_.picture_note) << "</p>\n";
        std::set<std::string> failed_units;
        for (const auto& u : end_.cooling_units)
            if (u.failed) failed_units.insert(u.id);
        h_ << report::floorPlanSvg(s_, c_, inlet_, failed_units, mi().lo, mi().hi, 1120, 520);
    }

    static const render::MetricInfo& mi() { return render::metricInfo("inlet_c"); }

    void overTime() {
        h_ << "<h2>Over time</h2>\n";
        std::vector<report::ChartLine> inl;
        if (const auto* p = rp_.series(site_, "max_inlet_c")) inl.push_back({"hottest rack inlet", "#c62828", *p});
        for (auto& l : inl)
            for (auto& pt : l.points) pt.first -= rp_.startS();
        std::vector<report::ChartMark> marks;
        for (const auto& e : applied_) marks.push_back({e.t_s - rp_.startS(), e.message.empty() ? e.target : e.message + " " + e.target});
        h_ << report::timeChartSvg("°C", inl, {{"27 °C recommended", "#9a6700", 27.0}, {"32 °C allowable", "#c62828", 32.0}}, marks, 1120,
                                   260);
        std::vector<report::ChartLine> pue;
        if (const auto* p = rp_.series(site_, "pue")) pue.push_back({"PUE", "#1565c0", *p});
        for (auto& l : pue)
            for (auto& pt : l.points) pt.first -= rp_.startS();
        h_ << report::timeChartSvg("PUE", pue, {}, marks, 1120, 200);
    }

    void checkTable() {
        h_ << "<h2>Checks</h2>\n<table><tr><th class=\"l\"></th><th class=\"l\">Check</th><th class=\"l\">Result</th></tr>\n";
        for (const auto& ch : checks_)
            h_ << "<tr><td class=\"l "
               << (ch.state == 0   ? "ok\">✔ pass"
                   : ch.state == 1 ? "warn\">⚠ warning"
                                   : "bad\">✘ failed")
               << "</td><td class=\"l\">" << esc(ch.what) << "</td><td class=\"l\">" << esc(ch.detail) << "</td></tr>\n";
        h_ << "</table>\n";
    }

    void hottestRacks() {
        const std::size_t shown = std::min<std::size_t>(racks_.size(), 15);
        h_ << "<h2>Hottest racks</h2>\n<table><tr><th class=\"l\">Rack</th><th>Inlet, hottest level (°C)</th><th>Inlet, mean "
              "(°C)</th><th>Exhaust (°C)</th>"
              "<th>Power (kW)</th><th>Capture Index</th></tr>\n";
        for (std::size_t i = 0; i < shown; ++i) {
            const model::RackFrame& r = *racks_[i];
            const double v = inlet_[r.id];
            h_ << "<tr><td class=\"l\">" << esc(r.id) << "</td><td style=\"background:" << report::colourOf(v, mi().lo, mi().hi) << "33\">"
               << num(v) << "</td><td>" << num(r.inlet_mean_c) << "</td><td>" << num(r.exhaust_c) << "</td><td>" << num(r.power_w / 1e3)
               << "</td><td>" << (std::isfinite(r.capture_index) ? num(100 * r.capture_index, 0) + " %" : "–") << "</td></tr>\n";
        }
        h_ << "</table>\n";
        if (racks_.size() > shown)
            h_ << "<p class=\"note\">" << racks_.size() - shown << " more racks, their hottest inlets " << num(inlet_[racks_[shown]->id])
               << " °C and below.</p>\n";
    }

    void eventsAndAlerts() {
        if (!applied_.empty()) {
            h_ << "<h2>Events applied</h2>\n<table><tr><th>Time</th><th class=\"l\">Event</th><th class=\"l\">Target</th></tr>\n";
            for (std::size_t i = 0; i < std::min<std::size_t>(applied_.size(), 25); ++i)
                h_ << "<tr><td>" << esc(model::formatDuration(applied_[i].t_s - rp_.startS())) << "</td><td class=\"l\">"
                   << esc(applied_[i].message) << "</td><td class=\"l\">" << esc(applied_[i].target) << "</td></tr>\n";
            h_ << "</table>\n";
            if (applied_.size() > 25) h_ << "<p class=\"note\">" << applied_.size() - 25 << " more.</p>\n";
        }
        h_ << "<h2>Alerts</h2>\n";
        if (alerts_.empty()) {
            h_ << "<p>None.</p>\n";
        } else {
            const std::size_t n = std::min<std::size_t>(alerts_.size(), 25);
            h_ << "<table><tr><th>Time</th><th class=\"l\">Kind</th><th class=\"l\">Where</th><th class=\"l\">What</th></tr>\n";
            for (std::size_t i = 0; i < n; ++i)
                h_ << "<tr><td>" << esc(model::formatDuration(alerts_[i].t_s - rp_.startS())) << "</td><td class=\"l\">"
                   << esc(alerts_[i].kind) << "</td><td class=\"l\">" << esc(alerts_[i].target) << "</td><td class=\"l\">"
                   << esc(alerts_[i].message) << "</td></tr>\n";
            h_ << "</table>\n";
            if (alerts_.size() > n)
                h_ << "<p class=\"note\">" << alerts_.size() - n
                   << " more in the run (clustertwin-cli query, or the app's Alerts dock).</p>\n";
        }
    }

    const model::Scenario& s_;
    const model::Catalog& c_;
    const ReportOptions& opt_;
    const runs::RunReplay rp_;
    const runs::RunInfo& info_;
    const model::Frame end_;
    ReportSummary sum_;
    std::map<std::string, double> inlet_;         ///< each rack's hottest inlet at the end
    std::vector<const model::RackFrame*> racks_;  ///< hottest first
    std::vector<runs::StoredEvent> alerts_, applied_;
    std::vector<runs::RunFinding> findings_;  ///< runs::checkRun: what the app's banner says
    std::string site_;                        ///< the entity the site's series are recorded under
    std::string picture_;                     ///< PNG bytes, empty without a picture
    std::vector<Check> checks_;
    std::ostringstream h_;
};

}  // namespace

ReportSummary writeRunReport(const model::Scenario& s, const model::Catalog& c, const runs::TelemetryStore& store, std::int64_t run,
                             const std::string& path, const ReportOptions& opt) {
    return RunReportWriter(s, c, store, run, opt).write(path);
}

}  // namespace ct::report
