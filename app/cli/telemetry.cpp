#include "telemetry.hpp"

#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/store.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

namespace ct::cli {

namespace im = ct::importers;
using json = nlohmann::ordered_json;

const char* kImportHelp = R"(Usage: clustertwin-cli import FILE|DIR... --db DB [--name NAME] [--json]

Imports telemetry into the store as one run. Formats are recognised by extension, then by content; a
directory's files are imported in name order (a series of scrapes becomes a time series, each scrape at its
file's modification time). Supported now: DCGM exporter / Prometheus text scrapes, the Prometheus HTTP API
JSON, nvidia-smi --query-gpu CSV, InfiniBand perfquery counters and the long CSV (time, entity, metric, value,
unit). Bad records are skipped with a warning (file:line); the rest is kept.
Importing into a run of the same --name again adds no duplicate samples.
)";

const char* kQueryHelp = R"(Usage: clustertwin-cli query --db DB --metric M [--entity E]... [--from T --to T] [--run N] [--format csv|json]

Prints the values of a metric (power_w, temp_c, utilization, ...) from a run (the latest by default).
)";

int cmdImport(const Args& a) {
    namespace fs = std::filesystem;
    if (a.positional().empty()) throw UsageError("import needs at least one file or directory");
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("import needs --db DB");
    std::vector<std::string> files;
    for (const auto& p : a.positional()) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> in_dir;
            for (const auto& e : fs::directory_iterator(p, ec))
                if (e.is_regular_file()) in_dir.push_back(e.path().string());
            std::sort(in_dir.begin(), in_dir.end());
            files.insert(files.end(), in_dir.begin(), in_dir.end());
        } else if (fs::exists(p, ec)) {
            files.push_back(p);
        } else {
            std::cerr << p << ": no such file or directory\n";
            return 2;
        }
    }
    auto store = im::TelemetryStore::open(db);
    // Importing into a run of the same name adds to it; samples already there are not stored twice.
    const std::string name = a.get("name", "import");
    std::int64_t run = 0;
    for (const auto& r : store.runs())
        if (r.kind == "imported" && r.name == name) run = r.id;
    if (run == 0) run = store.createRun(name, "imported", "");
    std::size_t samples = 0, imported_files = 0;
    std::map<std::string, std::pair<std::size_t, std::string>> warnings;  // kind → count, first location
    std::map<std::string, int> series;
    std::vector<std::string> failed;
    for (std::size_t k = 0; k < files.size(); ++k) {
        std::cerr << "\rimport: " << (k + 1) << "/" << files.size() << " " << files[k] << std::flush;
        im::ParseResult r;
        try {
            r = im::parseFile(files[k]);
        } catch (const im::ImportError& e) {
            std::cerr << "\n" << e.what() << "\n";
            failed.push_back(files[k]);
            continue;
        }
        ++imported_files;
        std::vector<im::EntityInfo> ents;
        for (const auto& e : r.entities) ents.push_back({e.id, e.kind, e.parent, e.name});
        store.upsertEntities(ents);
        std::vector<im::Sample> batch;
        batch.reserve(r.samples.size());
        for (const auto& s : r.samples) {
            const std::int64_t id = store.series(run, {s.entity, s.metric, s.unit, "import"});
            series[s.entity + "/" + s.metric] = 1;
            batch.push_back({id, s.t_s, s.value});
        }
        store.writeBatch(batch);
        samples += r.samples.size();
        for (const auto& w : r.warnings) {
            auto& [n, first] = warnings[w.kind];
            if (n++ == 0) first = w.location + ": " + w.message;
        }
    }
    std::cerr << "\n";
    store.finishRun(run, 0);
    if (a.flag("json")) {
        json w = json::object();
        for (const auto& [kind, v] : warnings) w[kind] = {{"count", v.first}, {"first", v.second}};
        std::cout << json{{"run", run}, {"files", imported_files}, {"failed", failed}, {"series", series.size()},
                          {"samples", samples}, {"warnings", w}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << "run " << run << ": " << imported_files << " file(s), " << series.size() << " series, " << samples
                  << " samples\n";
        for (const auto& [kind, v] : warnings) std::cout << "  " << v.first << " warning(s) " << kind << ", first: " << v.second << "\n";
    }
    return failed.empty() ? 0 : (imported_files ? 0 : 2);
}

int cmdQuery(const Args& a) {
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("query needs --db DB");
    if (!a.has("metric")) throw UsageError("query needs --metric");
    const std::string format = a.get("format", "csv");
    if (format != "csv" && format != "json") throw UsageError("--format must be csv or json");
    auto store = im::TelemetryStore::open(db);
    const auto runs = store.runs();
    if (runs.empty()) {
        std::cerr << db << ": no runs\n";
        return 2;
    }
    const std::int64_t run = a.has("run") ? a.getInt("run", 0) : runs.back().id;
    const double from = a.getDouble("from", -1e300), to = a.getDouble("to", 1e300);
    const auto vals = store.values(run, a.get("metric"), a.all("entity"), from, to);
    if (format == "json") {
        json out = json::array();
        for (const auto& v : vals) {
            json pts = json::array();
            for (const auto& [t, x] : v.points) pts.push_back({t, std::isfinite(x) ? json(x) : json(nullptr)});
            out.push_back({{"entity", v.key.entity}, {"metric", v.key.metric}, {"unit", v.key.unit}, {"points", pts}});
        }
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << "time,entity,metric,value,unit\n";
        for (const auto& v : vals)
            for (const auto& [t, x] : v.points) std::printf("%.3f,%s,%s,%.9g,%s\n", t, v.key.entity.c_str(), v.key.metric.c_str(), x, v.key.unit.c_str());
    }
    return 0;
}

} // namespace ct::cli
