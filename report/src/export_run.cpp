#include <clustertwin/render/export.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/export_run.hpp>
#include <clustertwin/runs/replay.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>

namespace ct::report {

namespace fs = std::filesystem;

namespace {
std::string numbered(const char* stem, std::size_t i, const char* ext) {
    char b[64];
    std::snprintf(b, sizeof b, "%s_%04zu%s", stem, i, ext);
    return b;
}
}  // namespace

RunVtkSummary writeRunVtk(const model::Scenario& s, const model::Catalog& c, const runs::TelemetryStore* store, std::int64_t run,
                          const std::string& dir, std::optional<double> at_s, double every_s, const std::function<bool(double)>& progress) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir)) throw render::RenderError(dir + ": cannot make the folder" + (ec ? ": " + ec.message() : ""));
    const fs::path out(dir);
    RunVtkSummary sum;
    if (!store) {
        render::writeHallVtp(s, c, nullptr, (out / "hall.vtp").string());
        return sum;
    }
    if (!(every_s > 0)) throw render::RenderError("the series' interval must be > 0 s");
    const runs::RunReplay rp = runs::RunReplay::load(*store, run);
    const model::Frame at = rp.frameAt(rp.startS() + (at_s ? *at_s : rp.endS() - rp.startS()));
    render::writeHallVtp(s, c, &at, (out / "hall.vtp").string());
    // Every hall's fields are written at the same times; the first hall with fields gives them.
    const std::vector<int> air_halls = store->airFieldHalls(run);
    for (int h : air_halls)
        if (h >= static_cast<int>(s.halls.size()))
            throw render::RenderError("run " + std::to_string(run) + " has an air field of hall " + std::to_string(h + 1) +
                                      ", the scenario only " + std::to_string(s.halls.size()) + " hall(s): not the scenario of this run?");
    std::vector<double> times = air_halls.empty() ? std::vector<double>{} : store->airFieldTimes(run, air_halls.front());
    const bool with_air = !times.empty();
    if (!with_air) {
        for (double t = rp.startS(); t <= rp.endS() + 1e-9; t += every_s) times.push_back(t);
        if (times.empty() || times.back() < rp.endS() - 1e-9) times.push_back(rp.endS());
    }
    std::vector<render::PvdEntry> pvd;
    for (std::size_t i = 0; i < times.size(); ++i) {
        const double t = times[i];
        const model::Frame f = rp.frameAt(t + 1e-6);
        const std::string hall = numbered("hall", i, ".vtp");
        render::writeHallVtp(s, c, &f, (out / hall).string());
        pvd.push_back({t - rp.startS(), 0, hall});
        ++sum.halls;
        // One part per hall (ParaView opens the series as a multiblock): the first hall's files keep their
        // names, the others' carry the hall's number; each grid sits at its hall's place on the site.
        for (std::size_t k = 0; with_air && k < air_halls.size(); ++k) {
            const int h = air_halls[k];
            if (const auto field = store->airFieldAt(run, t + 1e-6, h)) {
                const std::string air =
                    h == 0 ? numbered("air", i, ".vti") : numbered(("air_hall" + std::to_string(h + 1)).c_str(), i, ".vti");
                render::writeAirFieldVti(*field, s.halls[static_cast<std::size_t>(h)].site_position_m, (out / air).string());
                pvd.push_back({t - rp.startS(), static_cast<int>(1 + k), air});
                ++sum.fields;
            }
        }
        if (progress && !progress(static_cast<double>(i + 1) / static_cast<double>(times.size()))) {
            render::writePvd(pvd, (out / "run.pvd").string());  // what was written so far opens as a shorter series
            throw render::RenderError("cancelled");
        }
    }
    render::writePvd(pvd, (out / "run.pvd").string());
    return sum;
}

}  // namespace ct::report
