// clustertwin-cli export --format video: a recorded run or a guided tour as MP4 or WebM (report/video.hpp).
#include "export.hpp"

#include <clustertwin/model/data_paths.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/tour.hpp>
#include <clustertwin/report/video.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/session/run_session.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

namespace ct::cli {

namespace m = ct::model;

namespace {

/// The tour's run, simulated here with the quick air model into a temporary store (fields every 30 s).
std::int64_t simulateForTour(const m::Scenario& s, const m::Catalog& c, const report::Tour& t, const std::string& db, bool quiet) {
    const double seconds = *t.simulate_s;
    const std::string& air = t.air;
    session::RunRequest r;
    r.extra_events = t.events;
    r.scenario = s;
    r.scenario.jobs.insert(r.scenario.jobs.end(), t.jobs.begin(), t.jobs.end());  // the tour's own, besides the scenario's
    r.catalog = c;
    r.engine.air = air;  // the air model the tour's captions were written for
    r.duration_s = seconds;
    r.record_every_s = 10;
    r.field_every_s = 30;
    r.db_path = db;
    r.run_name = "tour";
    r.meta.source = "clustertwin-cli export --tour";
    const session::RunOutcome o = session::RunSession(std::move(r)).run();
    if (!quiet) std::cerr << "simulated " << m::formatDuration(seconds) << " for the tour (" << air << " air)\n";
    return o.run;
}

}  // namespace

int exportVideo(const m::ValidationReport& rep, const Args& a, const std::string& out) {
    const std::string ext = std::filesystem::path(out).extension().string();
    if (ext != ".mp4" && ext != ".webm") throw UsageError("a video is written as .mp4 (H.264) or .webm (VP9), not '" + out + "'");
    report::VideoOptions vo;
    const std::string size = a.get("size", "1280x720");
    char tail = 0;
    if (std::sscanf(size.c_str(), "%dx%d%c", &vo.width, &vo.height, &tail) != 2 || vo.width < 16 || vo.height < 16 || vo.width > 3840 ||
        vo.height > 2160)
        throw UsageError("--size expects WxH within 16..3840 x 16..2160, got '" + size + "'");
    vo.fps = a.getInt("fps", 25);
    if (vo.fps < 1 || vo.fps > 120) throw UsageError("--fps must be within 1..120");
    try {
        vo.seconds = m::parseDurationS(a.get("seconds", "20s"));
    } catch (const m::ModelError& e) {
        throw UsageError(std::string("--seconds: ") + e.what());
    }
    vo.metric = a.get("metric", "inlet_c");
    vo.view = a.get("view", "iso");
    if (vo.view != "iso" && vo.view != "top" && vo.view != "aisle") throw UsageError("--view must be iso, top or aisle");
    try {
        render::metricInfo(vo.metric);
    } catch (const render::RenderError& e) {
        throw UsageError(std::string("--metric: ") + e.what());
    }
    const bool quiet = a.flag("quiet");
    std::optional<report::Tour> tour;
    if (a.has("tour")) tour = report::loadTour(a.get("tour"), m::resourceDir() + "/scenarios");
    std::optional<runs::TelemetryStore> store;
    std::int64_t run = 0;
    std::string tmp_db;
    if (a.has("run")) {
        const std::string db = a.get("run");
        if (!std::filesystem::exists(db)) throw UsageError("--run: " + db + " does not exist");
        store.emplace(runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing));
        const auto runs = store->runs();
        if (runs.empty()) throw UsageError("--run: " + db + " holds no run");
        run = a.has("run-id") ? a.getInt("run-id", 0) : runs.back().id;
    } else if (tour && tour->simulate_s) {
        tmp_db = (std::filesystem::temp_directory_path() / ("clustertwin-tour-" + std::to_string(::getpid()) + ".sqlite")).string();
        run = simulateForTour(rep.scenario, rep.catalog, *tour, tmp_db, quiet);
        store.emplace(runs::TelemetryStore::open(tmp_db, runs::TelemetryStore::Mode::Existing));
    } else if (!tour) {
        throw UsageError("--format video records a run (--run DB) or a tour (--tour FILE)");
    }
    if (tour && store)  // a caption the run does not bear out is said, as the app's tour player says it
        for (const auto& f : report::checkTour(*tour, runs::RunReplay::load(*store, run)))
            std::cerr << "warning: tour step " << f.step + 1 << " claims " << f.claim << ": not so in this run: " << f.found << "\n";
    std::vector<m::FabricLink> links;
    try {
        links = sim::net::fabricLinks(rep.scenario, rep.catalog);
    } catch (const sim::SimError&) {}
    vo.title = rep.scenario.name.empty() ? rep.scenario.id : rep.scenario.name;
    int last = -1;
    auto progress = [&](double f) {
        const int pct = static_cast<int>(f * 100);
        if (!quiet && pct / 10 != last / 10) std::cerr << "frames " << pct << " %\n";
        last = pct;
        return true;
    };
    report::VideoSummary sum;
    try {
        sum = report::writeVideo(rep.scenario, rep.catalog, std::move(links), store ? &*store : nullptr, run, tour ? &*tour : nullptr, out,
                                 vo, progress);
    } catch (...) {
        std::error_code ec;
        if (!tmp_db.empty()) std::filesystem::remove(tmp_db, ec);
        throw;
    }
    if (!tmp_db.empty()) {
        store.reset();
        std::error_code ec;
        std::filesystem::remove(tmp_db, ec);
        std::filesystem::remove(tmp_db + "-wal", ec);
        std::filesystem::remove(tmp_db + "-shm", ec);
    }
    if (!quiet)
        std::cerr << out << ": written (" << sum.frames << " frames, " << sum.width << "x" << sum.height << ", " << vo.fps << " fps, "
                  << m::formatDuration(sum.seconds) << (tour ? ", tour \"" + tour->title + "\"" : std::string()) << ")\n";
    return 0;
}

}  // namespace ct::cli
