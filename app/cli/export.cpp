#include "export.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/export_run.hpp>
#include <clustertwin/report/report.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/session/score_run.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

namespace ct::cli {

namespace m = ct::model;

const char* kExportHelp = R"(Usage: clustertwin-cli export SCENARIO --format vtk|gltf|html|video -o OUT [--run DB [--run-id N]] [--time T]
                             [--metric M] [--every T] [--no-picture] [--tour FILE] [--seconds T] [--fps N]
                             [--size WxH] [--view iso|top|aisle]

Writes files other tools open:
  --format vtk    OUT is a directory (made if missing) for ParaView: hall.vtp, the racks and cooling units of
                  every hall as boxes with their values at --time (default: the run's end; design values
                  without --run). With --run also a time series: run.pvd (open it in ParaView) over
                  hall_NNNN.vtp and, for every air field the run stored (simulate --field-every),
                  air_NNNN.vti with temperature_c, solid and velocity_ms per grid cell. The series' times are
                  the stored fields' times, or every --every (60s) when the run stored none.
  --format gltf   OUT.gltf: the first hall as the 3D view draws it, racks and nodes coloured by --metric (see
                  clustertwin-cli render), one self-contained glTF 2.0 file (Blender, three.js, any glTF viewer).
  --format html   OUT.html: a one-page report of the run (needs --run): totals at the end (power, PUE, hottest
                  inlet, racks over 27 and 32 °C), the 3D view (left out with --no-picture, or noted when it
                  cannot be drawn), a floor plan coloured by rack inlet, the hottest inlet and PUE over time,
                  the checks (heat balance, ASHRAE, RCI, cooling units), the hottest racks and the alerts. One
                  self-contained file: open it in any browser, print it, mail it. With --measured DB
                  (--measured-run N, --map FILE) also the run scored against the hall's measurements, as
                  clustertwin-cli score gives it (docs/calibration.md)
  --format video  OUT.mp4 (H.264) or OUT.webm (VP9), encoded by ffmpeg (package ffmpeg): a run's replay
                  (--run; --seconds of video over the whole run, 20s; the time in the caption), or a guided
                  tour (--tour resources/tours/NAME.json: its steps, captions and camera moves; a tour that
                  replays a run simulates it here first unless --run is given). --fps (25), --size (1280x720),
                  --metric (inlet_c), --view (iso). --video is short for --format video.
Values come from --run DB (--run-id picks a run, default the newest; --time T counted from its start).
Times: 90s, 15m, 1h. -q/--quiet: no summary on stderr.
Exit codes: 0 written, 1 runtime error (cannot write), 2 usage error or invalid input.
)";

namespace {

struct RunSource {
    std::optional<runs::TelemetryStore> store;
    std::optional<runs::RunReplay> replay;
    std::int64_t id = 0;
};

RunSource openRun(const Args& a) {
    RunSource r;
    if (!a.has("run")) return r;
    const std::string db = a.get("run");
    if (!std::filesystem::exists(db)) throw UsageError("--run: " + db + " does not exist");
    r.store.emplace(runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing));
    const auto runs = r.store->runs();
    if (runs.empty()) throw UsageError("--run: " + db + " holds no run");
    r.id = a.has("run-id") ? a.getInt("run-id", 0) : runs.back().id;
    r.replay.emplace(runs::RunReplay::load(*r.store, r.id));
    return r;
}

double durationArg(const Args& a, const char* name, const std::string& fallback) {
    try {
        return m::parseDurationS(a.get(name, fallback));
    } catch (const m::ModelError& e) {
        throw UsageError(std::string("--") + name + ": " + e.what());
    }
}

int exportVtk(const m::ValidationReport& rep, const RunSource& run, const Args& a, const std::string& dir) {
    std::optional<double> at;
    if (a.has("time")) at = durationArg(a, "time", "0s");
    const double every = durationArg(a, "every", "60s");
    if (!(every > 0)) throw UsageError("--every must be > 0");
    const report::RunVtkSummary sum =
        report::writeRunVtk(rep.scenario, rep.catalog, run.store ? &*run.store : nullptr, run.id, dir, at, every);
    if (!a.flag("quiet")) {
        std::cerr << dir << ": " << (run.replay ? sum.halls + sum.fields + 2 : 1) << " file(s) written";
        if (run.replay)
            std::cerr << " (run " << run.id << ": " << sum.halls << " hall snapshot(s), " << sum.fields
                      << " air field(s); open run.pvd in ParaView)";
        std::cerr << "\n";
    }
    return 0;
}

int exportGltf(const m::ValidationReport& rep, const RunSource& run, const Args& a, const std::string& path) {
    std::vector<m::FabricLink> links;
    try {
        links = sim::net::fabricLinks(rep.scenario, rep.catalog);
    } catch (const sim::SimError& e) {
        std::cerr << "warning: links left out: " << e.what() << "\n";
    }
    std::optional<m::Frame> frame;
    if (run.replay) {
        const double t = run.replay->startS() + (a.has("time") ? durationArg(a, "time", "0s") : run.replay->endS() - run.replay->startS());
        frame = run.replay->frameAt(t);
    }
    std::string metric = a.get("metric", frame ? "inlet_c" : "nameplate_kw");
    try {
        if (render::metricInfo(metric).needs_frame && !frame) throw UsageError("--metric " + metric + " needs values: give --run DB");
    } catch (const render::RenderError& e) {
        throw UsageError(std::string("--metric: ") + e.what());
    }
    render::Scene scene(rep.scenario, rep.catalog, std::move(links));
    scene.setShowHint(false);
    scene.setMetric(metric);
    if (frame) scene.setFrame(*frame);
    scene.exportGltf(path);
    if (!a.flag("quiet")) std::cerr << path << ": written (glTF 2.0, " << scene.rackCount() << " racks, " << metric << ")\n";
    return 0;
}

}  // namespace

namespace {

/// The run scored against --measured (session::scoreRun), as the report's section shows it.
report::ReportScore scoreForReport(const Args& a, const m::Scenario& s, std::int64_t run) {
    session::ScoreRequest r;
    r.run_db = a.get("run");
    r.run = run;
    r.measured_db = a.get("measured");
    if (a.has("measured-run")) r.measured_run = a.getInt("measured-run", 0);
    r.map_path = a.get("map", "");
    r.scenario = &s;
    const session::ScoreReport rep = session::scoreRun(r);
    report::ReportScore out;
    out.measured = r.measured_db + ", run " + std::to_string(rep.measured_run);
    out.baseline = "the mean of " + rep.baseline_source;
    out.measured_series = rep.measured_series;
    out.paired_series = rep.paired_series;
    out.unpaired = rep.unpaired.size();
    out.driven = rep.driven.size();
    auto rows = [](const std::vector<session::ScoreRow>& in, std::size_t most) {
        std::vector<report::ReportScore::Row> v;
        for (const auto& x : in)
            if (v.size() < most) v.push_back({x.key, x.metric, x.unit, x.twin, x.baseline});
        return v;
    };
    out.overall = rows(rep.overall, 50);
    out.kinds = rows(rep.kinds, 50);
    out.windows = rows(rep.windows, 48);
    auto worst = rep.series;
    std::stable_sort(worst.begin(), worst.end(), [](const auto& x, const auto& y) { return x.twin.mae > y.twin.mae; });
    out.worst = rows(worst, 10);
    return out;
}

}  // namespace

int cmdExport(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    const std::string out = a.get("out");
    if (out.empty()) throw UsageError("export needs -o OUT");
    const std::string format = a.flag("video") ? std::string("video") : a.get("format");
    if (format != "vtk" && format != "gltf" && format != "html" && format != "video")
        throw UsageError("--format must be vtk, gltf, html or video");
    if (format == "html" && !a.has("run")) throw UsageError("--format html reports a run: give --run DB");
    if (out == "-") throw UsageError("export writes files: -o must name a path");
    m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (m::hasErrors(rep.diagnostics)) {
        std::cerr << file << ": " << m::countErrors(rep.diagnostics) << " error(s); fix them first (clustertwin-cli validate)\n";
        return 2;
    }
    if (format == "video") return exportVideo(rep, a, out);
    const RunSource run = openRun(a);
    if (format == "vtk") return exportVtk(rep, run, a, out);
    if (format == "html") {
        report::ReportOptions ro;
        ro.picture = !a.flag("no-picture");
        ro.version = CT_VERSION;
        if (a.has("measured")) {
            try {
                ro.score = scoreForReport(a, rep.scenario, run.id);
            } catch (const session::InputError& e) {
                std::cerr << "export: --measured: " << e.what() << "\n";
                return 2;
            }
        }
        const report::ReportSummary sum = report::writeRunReport(rep.scenario, rep.catalog, *run.store, run.id, out, ro);
        if (!sum.picture_note.empty()) std::cerr << "warning: no 3D picture in the report: " << sum.picture_note << "\n";
        if (!sum.mismatch.empty()) std::cerr << "warning: " << sum.mismatch << "\n";
        if (!a.flag("quiet"))
            std::cerr << out << ": written (run " << run.id << ", " << sum.racks << " racks, " << sum.racks_over_27 << " above 27 °C, "
                      << sum.alerts << " alert(s)" << (sum.picture ? ", with the 3D view" : "") << ")\n";
        return 0;
    }
    return exportGltf(rep, run, a, out);
}

}  // namespace ct::cli
