#include "render.hpp"

#include "io.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/render/overlays.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/engine.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace ct::cli {

namespace m = ct::model;

const char* kRenderHelpTemplate = R"(Usage: clustertwin-cli render SCENARIO -o PNG [--run DB [--run-id N]] [--time T]
                             [--metric M] [--view iso|top|aisle] [--size WxH] [overlays]

Renders the scenario's first hall offscreen: floor and tiles, racks with their nodes at their U positions,
cooling units, CDUs, fabric switches and links, labels and colour bars.

Where the colours come from:
  --run DB [--time T]   a recorded run (clustertwin-cli simulate or import) at T: the last values at or before
                        T, T counted from the run's start (default: its end). --run-id picks a run (default:
                        the newest).
  --time T              without --run: the scenario simulated here, its events included, up to T.
  neither               design values: nodes coloured by nameplate power.
Metrics (--metric): inlet_c (default with values), gpu_temp_c, power_kw, gpu_util, throttle, rack_power_kw,
rack_inlet_c, exhaust_c, capture_index (cold-aisle Capture Index, %), nameplate_kw (default without).
Overlays (* needs the air field: a simulation here, or a run stored with --field-every):
%OVERLAYS%-o - writes the PNG to stdout; SCENARIO may be - (stdin). -q/--quiet: no line on stderr once written.
Exit codes: 0 written, 1 runtime error (cannot write, no display to render with), 2 usage error or invalid input.
)";

std::string renderHelp() {
    std::string lines;
    const render::Overlays defaults;
    for (const render::OverlayInfo& info : render::overlayTable()) {
        std::string opt = (defaults.*info.flag ? "--no-" : "--") + info.id;
        if (info.value) opt += " " + info.value_name.substr(0, info.value_name.find(' '));
        opt.resize(std::max<std::size_t>(opt.size() + 2, 20), ' ');
        std::string what = (defaults.*info.flag ? "no " : "") + info.help;
        if (const auto open = info.value_name.find(" ("); info.value)  // ", at HEIGHT m"
            what += ", at " + info.value_name.substr(0, open) + " " + info.value_name.substr(open + 2, info.value_name.size() - open - 3);
        lines += "  " + opt + (info.needs_air ? "* " : "  ") + what + "\n";
    }
    std::string help = kRenderHelpTemplate;
    help.replace(help.find("%OVERLAYS%"), 10, lines);
    return help;
}

std::vector<std::string> renderOverlayFlags() {
    std::vector<std::string> out;
    const render::Overlays defaults;
    for (const render::OverlayInfo& info : render::overlayTable())
        if (defaults.*info.flag) out.push_back("no-" + info.id);
        else if (!info.value) out.push_back(info.id);
    return out;
}

std::vector<std::string> renderOverlayOptions() {
    std::vector<std::string> out;
    const render::Overlays defaults;
    for (const render::OverlayInfo& info : render::overlayTable())
        if (!(defaults.*info.flag) && info.value) out.push_back(info.id);
    return out;
}

namespace {

double timeArg(const Args& a, const std::string& fallback) {
    try {
        return m::parseDurationS(a.get("time", fallback));
    } catch (const m::ModelError& e) {
        throw UsageError(std::string("--time: ") + e.what());
    }
}

}  // namespace

namespace {

/// --size, --view, --metric and the overlay options.
render::RenderOptions renderOptions(const Args& a) {
    render::RenderOptions opt;
    const std::string size = a.get("size", "1280x800");
    char tail = 0;
    if (std::sscanf(size.c_str(), "%dx%d%c", &opt.width, &opt.height, &tail) != 2 || opt.width < 16 || opt.height < 16 ||
        opt.width > 8192 || opt.height > 8192)
        throw UsageError("--size expects WxH within 16..8192, got '" + size + "'");
    opt.view = a.get("view", "iso");
    if (opt.view != "iso" && opt.view != "top" && opt.view != "aisle") throw UsageError("--view must be iso, top or aisle");
    opt.metric = a.get("metric", "");
    if (!opt.metric.empty()) {
        try {
            render::metricInfo(opt.metric);
        } catch (const render::RenderError& e) {
            throw UsageError(std::string("--metric: ") + e.what());
        }
        // Differences from another run or from measurements: the app computes them (a what-if's baseline, the
        // Twin dock's score); coloured from one run's frame they would show its plain inlets under their name.
        if (opt.metric == "inlet_delta_c" || opt.metric == "inlet_residual_c")
            throw UsageError("--metric " + opt.metric +
                             " is a difference the app colours (against a baseline run or measurements); "
                             "render inlet_c here");
    }
    // The overlays from their table: --ID (and --ID VALUE for one with a number), --no-ID for one on by default.
    for (const render::OverlayInfo& info : render::overlayTable()) {
        if (opt.overlays.*info.flag) {
            opt.overlays.*info.flag = !a.flag("no-" + info.id);
        } else if (info.value) {
            if (a.has(info.id)) {
                opt.overlays.*info.flag = true;
                opt.overlays.*info.value = a.getDouble(info.id, opt.overlays.*info.value);
            }
        } else {
            opt.overlays.*info.flag = a.flag(info.id);
        }
    }
    return opt;
}

/// The frame at --time of run --run (with its air fields when an overlay needs them); nullopt after saying why.
std::optional<m::Frame> runFrame(const Args& a, bool wants_air, std::string& source) {
    const std::string db = a.get("run");
    if (!std::filesystem::exists(db)) throw UsageError("--run: " + db + " does not exist");
    auto store = runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing);
    const auto runs = store.runs();
    if (runs.empty()) throw UsageError("--run: " + db + " holds no run");
    const std::int64_t id = a.has("run-id") ? a.getInt("run-id", 0) : runs.back().id;
    const runs::RunReplay replay = runs::RunReplay::load(store, id);
    const double t = replay.startS() + (a.has("time") ? timeArg(a, "0s") : replay.endS() - replay.startS());
    std::optional<m::Frame> frame = replay.frameAt(t);
    if (wants_air) {
        store.loadAirFields(id, t + 1e-6, *frame);  // every hall's
        if (!frame->air) {
            std::cerr << "clustertwin-cli render: run " << id << " in " << db
                      << " has no stored air field at or before that time (simulate with --field-every)\n";
            return std::nullopt;
        }
    }
    source = "run " + std::to_string(id) + " at " + m::formatDuration(t - replay.startS());
    return frame;
}

/// The scenario simulated to --time; nullopt after saying why.
std::optional<m::Frame> simulatedFrame(const Args& a, const m::Scenario& s, const m::Catalog& c, std::string& source) {
    const double t = timeArg(a, "0s");
    if (!(t > 0)) throw UsageError("--time must be > 0 to simulate");
    sim::EngineOptions eo;
    std::unique_ptr<sim::Engine> engine;
    try {
        engine = std::make_unique<sim::Engine>(s, c, eo);
    } catch (const sim::SimError& e) {
        std::cerr << "clustertwin-cli render: " << e.what() << "\n";
        return std::nullopt;
    }
    const auto steps = static_cast<std::int64_t>(std::ceil(t / eo.step_s - 1e-9));
    for (std::int64_t k = 1; k < steps; ++k) engine->step();
    m::Frame frame = engine->step(true);
    source = "simulated to " + m::formatDuration(engine->timeS());
    return frame;
}

}  // namespace

int cmdRender(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    const std::string out = a.get("out");
    if (out.empty()) throw UsageError("render needs -o PNG");
    render::RenderOptions opt = renderOptions(a);
    const bool wants_air = render::needsAir(opt.overlays);

    m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (m::hasErrors(rep.diagnostics)) {
        std::cerr << file << ": " << m::countErrors(rep.diagnostics) << " error(s); fix them first (clustertwin-cli validate)\n";
        return 2;
    }
    std::vector<m::FabricLink> links;
    try {
        links = sim::net::fabricLinks(rep.scenario, rep.catalog);
    } catch (const sim::SimError& e) {
        std::cerr << file << ": warning: links not drawn: " << e.what() << "\n";
    }

    std::optional<m::Frame> frame;
    std::string source = "design values";
    if (a.has("run")) {
        frame = runFrame(a, wants_air, source);
        if (!frame) return 2;
    } else if (a.has("time")) {
        frame = simulatedFrame(a, rep.scenario, rep.catalog, source);
        if (!frame) return 2;
    } else if (wants_air) {
        throw UsageError("air overlays need values: give --time T (simulated here) or --run DB");
    }
    if (opt.metric.empty()) opt.metric = frame ? "inlet_c" : "nameplate_kw";
    if (render::metricInfo(opt.metric).needs_frame && !frame)
        throw UsageError("--metric " + opt.metric + " needs values: give --time T or --run DB");
    if (out == "-") {
        // A PNG on stdout: rendered to a temporary file (VTK's writer wants a path), then copied.
        const TempFile tmp("render", ".png");
        render::renderScenarioPng(rep.scenario, rep.catalog, tmp.path(), opt, frame ? &*frame : nullptr, std::move(links));
        copyToStdout(tmp.path());
    } else {
        render::renderScenarioPng(rep.scenario, rep.catalog, out, opt, frame ? &*frame : nullptr, std::move(links));
    }
    if (!a.flag("quiet"))
        std::cerr << (out == "-" ? std::string("<stdout>") : out) << ": written (" << opt.width << "x" << opt.height << ", " << opt.view
                  << ", " << opt.metric << ", " << source << ")\n";
    return 0;
}

}  // namespace ct::cli
