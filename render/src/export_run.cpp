#include <clustertwin/importers/replay.hpp>
#include <clustertwin/render/export.hpp>
#include <clustertwin/render/export_run.hpp>
#include <clustertwin/render/scene.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace ct::render {

namespace fs = std::filesystem;

namespace {
std::string numbered(const char* stem, std::size_t i, const char* ext) {
    char b[64];
    std::snprintf(b, sizeof b, "%s_%04zu%s", stem, i, ext);
    return b;
}
} // namespace

RunVtkSummary writeRunVtk(const model::Scenario& s, const model::Catalog& c, const importers::TelemetryStore* store, std::int64_t run,
                          const std::string& dir, std::optional<double> at_s, double every_s, const std::function<bool(double)>& progress) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) throw RenderError(dir + ": cannot make the folder" + (ec ? ": " + ec.message() : ""));
    const fs::path out(dir);
    RunVtkSummary sum;
    if (!store) {
        writeHallVtp(s, c, nullptr, (out / "hall.vtp").string());
        return sum;
    }
    if (!(every_s > 0)) throw RenderError("the series' interval must be > 0 s");
    const importers::RunReplay rp = importers::RunReplay::load(*store, run);
    const model::Frame at = rp.frameAt(rp.startS() + (at_s ? *at_s : rp.endS() - rp.startS()));
    writeHallVtp(s, c, &at, (out / "hall.vtp").string());
    std::vector<double> times = store->airFieldTimes(run);
    const bool with_air = !times.empty();
    if (!with_air) {
        for (double t = rp.startS(); t <= rp.endS() + 1e-9; t += every_s) times.push_back(t);
        if (times.empty() || times.back() < rp.endS() - 1e-9) times.push_back(rp.endS());
    }
    std::vector<PvdEntry> pvd;
    const model::Vec2 origin = s.halls.empty() ? model::Vec2{} : s.halls.front().site_position_m;
    for (std::size_t i = 0; i < times.size(); ++i) {
        const double t = times[i];
        const model::Frame f = rp.frameAt(t + 1e-6);
        const std::string hall = numbered("hall", i, ".vtp");
        writeHallVtp(s, c, &f, (out / hall).string());
        pvd.push_back({t - rp.startS(), 0, hall});
        ++sum.halls;
        if (with_air)
            if (const auto field = store->airFieldAt(run, t + 1e-6)) {
                const std::string air = numbered("air", i, ".vti");
                writeAirFieldVti(*field, origin, (out / air).string());
                pvd.push_back({t - rp.startS(), 1, air});
                ++sum.fields;
            }
        if (progress && !progress(static_cast<double>(i + 1) / static_cast<double>(times.size()))) {
            writePvd(pvd, (out / "run.pvd").string());  // what was written so far opens as a shorter series
            throw RenderError("cancelled");
        }
    }
    writePvd(pvd, (out / "run.pvd").string());
    return sum;
}

} // namespace ct::render
