// clustertwin-cli score: a simulated run against a hall's measurements (session/score_run.hpp).
#include "score.hpp"
#include "simulate_drive.hpp"

#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/runs/error.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/session/score_run.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace ct::cli {

const char* kScoreHelp = R"(Usage: clustertwin-cli score --run RUN.sqlite --measured MEASURED.sqlite [options]

How far a simulated run is from what the hall measured: every measured series (clustertwin-cli import) paired
with the run's series of the same entity and metric, on the run's clock (measured time minus the run's t = 0,
which a run driven by the measurements keeps: simulate --drive), simulated values interpolated at each measured
sample. Per series, per entity kind, per time window and overall: RMSE, MAE, bias (simulated − measured), the
largest error, and ASHRAE Guideline 14's CV(RMSE) and NMBE (% of the measured mean; n − 1 degrees of freedom;
NMBE's sign is measured − simulated). Inlet temperatures are also scored for a naive baseline, every inlet at
the cooling units' supply temperature (measured where it is, else simulated): skill = 1 − MAE/baseline MAE.
  --run DB            the simulated run's database;  --run-id N  its run (the latest simulated)
  --measured DB       the measurements;  --measured-run N  its imported run (the latest)
  --scenario FILE     names, hostnames and mapping rules to match measured entities by (default: the run's
                      scenario file when it is still there; without one, ids match)
  --map FILE          names that do not match by themselves, as for simulate --drive-map
  --metric M          only this metric of the twin (repeatable): inlet_c, return_c, power_w, ...
  --from T, --to T    only this part of the run (durations on its clock: 30m, 2h)
  --window T          the time windows' length (1h)
  --origin T          the measured time of the run's t = 0 (Unix seconds or ISO 8601), for a run that was
                      not driven
  --include-driven    also score the measured series that drove the run (they match by construction)
  --series N          print the N worst series (by MAE; 10; 0 = none)
  --json              everything as one JSON object on stdout
Exit codes: 0 scored, 1 runtime error, 2 usage error or input that does not pair.
)";

namespace {

using json = nlohmann::ordered_json;
namespace m = ct::model;

double durationArg(const Args& a, const char* opt) {
    try {
        return m::parseDurationS(a.get(opt));
    } catch (const m::ModelError& e) {
        throw UsageError(std::string("--") + opt + ": " + e.what());
    }
}

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json statsJson(const runs::ErrorStats& s) {
    return {{"n", s.n},
            {"rmse", num(s.rmse)},
            {"mae", num(s.mae)},
            {"bias", num(s.bias)},
            {"max", num(s.max_abs)},
            {"measured_mean", num(s.measured_mean)},
            {"cv_rmse_pct", num(s.cv_rmse_pct)},
            {"nmbe_pct", num(s.nmbe_pct)}};
}

json rowsJson(const std::vector<session::ScoreRow>& rows, const char* key) {
    json a = json::array();
    for (const auto& r : rows) {
        json x{{key, r.key}, {"metric", r.metric}, {"unit", r.unit}, {"twin", statsJson(r.twin)}};
        if (r.baseline) {
            x["baseline"] = statsJson(*r.baseline);
            x["skill"] = r.baseline->mae > 0 ? json(1 - r.twin.mae / r.baseline->mae) : json(nullptr);
        }
        a.push_back(std::move(x));
    }
    return a;
}

std::string fmt(double v, int decimals) {
    if (!std::isfinite(v)) return "—";
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", decimals, v);
    return b;
}

/// `text` padded to `width` columns (UTF-8 characters, not bytes: window names have an en dash).
std::string padded(const std::string& text, std::size_t width) {
    std::size_t cols = 0;
    for (unsigned char c : text) cols += (c & 0xC0) != 0x80 ? 1 : 0;
    return text + std::string(cols < width ? width - cols : 1, ' ');
}

void printRows(const char* title, const std::vector<session::ScoreRow>& rows) {
    if (rows.empty()) return;
    std::printf("\n%s\n%-22s %-14s %8s %8s %8s %8s %8s %9s %8s  %9s %6s\n", title, "", "metric", "n", "RMSE", "MAE", "bias", "max",
                "CV(RMSE)", "NMBE", "base MAE", "skill");
    for (const auto& r : rows) {
        const int d = r.unit == "W" ? 0 : 2;
        std::printf("%s%-14s %8zu %8s %8s %8s %8s %8s%% %7s%%", padded(r.key, 23).c_str(), r.metric.c_str(), r.twin.n,
                    fmt(r.twin.rmse, d).c_str(), fmt(r.twin.mae, d).c_str(), fmt(r.twin.bias, d).c_str(), fmt(r.twin.max_abs, d).c_str(),
                    fmt(r.twin.cv_rmse_pct, 1).c_str(), fmt(r.twin.nmbe_pct, 1).c_str());
        if (r.baseline)
            std::printf("  %9s %6s", fmt(r.baseline->mae, d).c_str(),
                        fmt(r.baseline->mae > 0 ? 1 - r.twin.mae / r.baseline->mae : std::nan(""), 2).c_str());
        std::printf("\n");
    }
}

/// The scenario the run was computed for, when its file is still there and unchanged; else none (ids match).
std::optional<m::Scenario> runScenario(const Args& a, const std::string& db, std::optional<std::int64_t> run) {
    std::string file = a.get("scenario", "");
    std::string hash;
    if (file.empty()) {
        const auto store = runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing);
        const auto info = session::pickRun(store, "simulated", run);
        file = info.meta.scenario_file;
        hash = info.meta.scenario_hash;
        if (file.empty() || file == "-" || !std::filesystem::exists(file)) return std::nullopt;
    }
    auto rep = m::loadAndValidate(file);
    if (m::hasErrors(rep.diagnostics)) {
        if (a.has("scenario")) throw UsageError("--scenario " + file + " is not a valid scenario (clustertwin-cli validate says why)");
        return std::nullopt;
    }
    if (!hash.empty() && m::scenarioHash(rep.scenario) != hash) return std::nullopt;  // edited since: ids only
    return rep.scenario;
}

}  // namespace

int cmdScore(const Args& a) {
    if (!a.positional().empty()) throw UsageError("score takes no positional arguments (--run DB --measured DB)");
    if (!a.has("run") || !a.has("measured")) throw UsageError("score needs --run RUN.sqlite and --measured MEASURED.sqlite");
    session::ScoreRequest r;
    r.run_db = a.get("run");
    r.measured_db = a.get("measured");
    if (a.has("run-id")) r.run = a.getInt("run-id", 0);
    if (a.has("measured-run")) r.measured_run = a.getInt("measured-run", 0);
    r.map_path = a.get("map", "");
    r.metrics = a.all("metric");
    if (a.has("from")) r.from_s = durationArg(a, "from");
    if (a.has("to")) r.to_s = durationArg(a, "to");
    if (a.has("window")) r.window_s = durationArg(a, "window");
    if (!(r.window_s > 0)) throw UsageError("--window must be > 0");
    if (a.has("origin")) r.origin_unix = instantArg(a, "origin");
    r.include_driven = a.flag("include-driven");
    const int worst = a.getInt("series", 10);
    session::ScoreReport rep;
    try {
        const auto scenario = runScenario(a, r.run_db, r.run);
        r.scenario = scenario ? &*scenario : nullptr;
        rep = session::scoreRun(r);
    } catch (const session::InputError& e) {
        std::cerr << "score: " << e.what() << "\n";
        return 2;
    } catch (const runs::StoreError& e) {
        std::cerr << "score: " << e.what() << "\n";
        return 1;
    }
    if (a.flag("json")) {
        json j{{"run", rep.run},
               {"measured_run", rep.measured_run},
               {"time_origin_unix", rep.origin_unix},
               {"measured_series", rep.measured_series},
               {"paired_series", rep.paired_series},
               {"unpaired", rep.unpaired},
               {"driven", rep.driven},
               {"baseline", rep.baseline_source},
               {"overall", rowsJson(rep.overall, "scope")},
               {"kinds", rowsJson(rep.kinds, "kind")},
               {"windows", rowsJson(rep.windows, "window")},
               {"series", rowsJson(rep.series, "entity")}};
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::printf("score: run %lld of %s against run %lld of %s (t = 0 at %s): %zu of %zu measured series paired",
                static_cast<long long>(rep.run), r.run_db.c_str(), static_cast<long long>(rep.measured_run), r.measured_db.c_str(),
                m::formatIsoTime(rep.origin_unix).c_str(), rep.paired_series, rep.measured_series);
    std::printf(" (%zu with nothing to pair, %zu drove the run)\nbaseline: every inlet at the mean of %s\n", rep.unpaired.size(),
                rep.driven.size(), rep.baseline_source.c_str());
    printRows("Overall", rep.overall);
    printRows("By entity kind", rep.kinds);
    printRows("By time window", rep.windows);
    auto series = rep.series;
    std::stable_sort(series.begin(), series.end(), [](const auto& x, const auto& y) { return x.twin.mae > y.twin.mae; });
    if (worst > 0 && static_cast<std::size_t>(worst) < series.size()) series.resize(static_cast<std::size_t>(worst));
    if (worst > 0) printRows("Worst series (by MAE)", series);
    return 0;
}

}  // namespace ct::cli
