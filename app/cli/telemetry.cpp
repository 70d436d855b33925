#include "telemetry.hpp"

#include "io.hpp"

#include <clustertwin/importers/export.hpp>
#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/importers/store.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <unistd.h>

namespace ct::cli {

namespace im = ct::importers;
using json = nlohmann::ordered_json;

const char* kImportHelp = R"(Usage: clustertwin-cli import FILE|DIR... --db DB [--name NAME] [--host HOST] [--scenario S]
                            [--skeleton OUT.json] [--sacct-format LIST] [--jobs-out JOBS.json] [--json]

Imports telemetry into the store as one run. FILE may be "-" (standard input) and any file may be
gzip-compressed (recognised by its content; "x.prom.gz" is read as "x.prom"). Formats are recognised by extension, then by content:
DCGM exporter / Prometheus text scrapes, the Prometheus HTTP API JSON, nvidia-smi --query-gpu CSV and -q -x
XML, DMTF Redfish resources (one file or a mockup directory), Slurm sacct text (--parsable, --parsable2, any
delimiter) and --json, InfiniBand perfquery counters and ibnetdiscover topologies, and the long CSV (time,
entity, metric, value, unit). Directories are walked recursively in name order; files in them that are not
telemetry are skipped and counted. A series of scrapes becomes a time series (each at its file's time).
Bad records are skipped with a warning (file:line or file#/json/pointer); the rest is kept. Importing into
a run of the same --name again adds no duplicate samples or events.

  --host HOST          host of files that do not name one (nvidia-smi XML, Redfish)
  --scenario S         map entities onto S (its telemetry_mapping rules, then hostnames, ids, GPU UUIDs,
                       chassis ids) and report what did not match
  --skeleton OUT.json  without --scenario: write a scenario built from the telemetry (hosts -> nodes)
  --sacct-format LIST  the sacct --format list of headerless sacct text
  --jobs-out FILE      with --scenario: write the Slurm jobs as a jobs file for `simulate --jobs`
  --flush-every N      samples held in memory before a sorted write (default 4000000; less uses less memory)
  -q, --quiet          no progress on stderr
)";

const char* kQueryHelp = R"(Usage: clustertwin-cli query --db DB --metric M [--entity E]... [--from T --to T] [--run N] [--format csv|json]

Prints the values of a metric (power_w, temp_c, utilization, ...) from a run (the latest by default).
Reads only: a database that does not exist is an error, never created.
  --db DB          the run database (simulate --out, import --db)
  --metric M       the metric
  --entity E       only this entity (repeatable)
  --run N          the run id (the latest)
  --from T, --to T the time window: seconds as stored, a duration from the run's start (90s, 15m, 1h30m)
                   or ISO 8601 (2026-11-21T13:12:00Z, 2026-11-21T14:12:00+01:00)
  --format F       csv (RFC 4180, header time_s,entity,metric,value,unit, as the app exports) or json
  -o, --out FILE   write there instead of stdout ("-" is stdout)
)";

namespace {

/// Files named on the command line, with directories walked recursively in name order.
bool collectFiles(const std::vector<std::string>& args, std::vector<std::pair<std::string, bool>>& files) {
    namespace fs = std::filesystem;
    for (const auto& p : args) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> in_dir;
            for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file(ec)) in_dir.push_back(it->path().string());
            std::sort(in_dir.begin(), in_dir.end());
            for (auto& f : in_dir) files.emplace_back(std::move(f), true);
        } else if (fs::exists(p, ec)) {
            files.emplace_back(p, false);
        } else {
            std::cerr << p << ": no such file or directory\n";
            return false;
        }
    }
    return true;
}

} // namespace

int cmdImport(const Args& a) {
    if (a.positional().empty()) throw UsageError("import needs at least one file or directory");
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("import needs --db DB");
    if (a.has("jobs-out") && !a.has("scenario")) throw UsageError("--jobs-out needs --scenario (jobs run on its nodes)");
    if (a.has("skeleton") && a.has("scenario")) throw UsageError("--skeleton builds a scenario when there is none; drop --scenario");
    std::vector<std::pair<std::string, bool>> files;  // path, found by walking a directory
    // "-" is standard input, read once into a temporary file (detection and parsing both read it); messages
    // name it <stdin>.
    std::vector<std::string> args = a.positional();
    std::unique_ptr<InputPath> stdin_copy;
    for (auto& p : args)
        if (p == "-") {
            if (stdin_copy) throw UsageError("standard input (-) can be read only once");
            stdin_copy = std::make_unique<InputPath>(p);
            p = stdin_copy->path();
        }
    if (!collectFiles(args, files)) return 2;
    auto shown = [&](std::string text) {  // the temporary file's name back to <stdin>
        if (!stdin_copy) return text;
        for (auto at = text.find(stdin_copy->path()); at != std::string::npos;
             at = text.find(stdin_copy->path(), at + stdin_copy->name().size()))
            text.replace(at, stdin_copy->path().size(), stdin_copy->name());
        return text;
    };

    std::optional<model::Scenario> scenario;
    std::optional<im::EntityMapper> mapper;
    if (a.has("scenario")) {
        model::ValidationReport rep = model::loadAndValidate(a.get("scenario"));
        for (const auto& d : rep.diagnostics) std::cerr << a.get("scenario") << ": " << d.toString() << "\n";
        if (model::hasErrors(rep.diagnostics)) return 2;
        scenario = std::move(rep.scenario);
        try {
            mapper.emplace(*scenario);
        } catch (const im::ImportError& e) {
            std::cerr << a.get("scenario") << ": " << e.what() << "\n";
            return 2;
        }
    }

    auto store = im::TelemetryStore::open(db);
    // Importing into a run of the same name adds to it; samples already there are not stored twice.
    const std::string name = a.get("name", "import");
    std::int64_t run = 0;
    for (const auto& r : store.runs())
        if (r.kind == "imported" && r.name == name) run = r.id;
    if (run == 0) run = store.createRun(name, "imported", scenario ? scenario->id : "");
    std::size_t samples = 0, imported_files = 0, skipped_files = 0, links = 0;
    std::map<std::string, std::pair<std::size_t, std::string>> warnings;  // kind → count, first location
    std::set<std::pair<std::string, std::string>> series;  // (entity, metric), counted once across files
    std::map<std::string, std::size_t> format_count;
    std::vector<std::string> failed;
    std::set<std::string> unmatched;
    std::size_t matched = 0;
    std::vector<im::ImportedEntity> all_entities;
    std::vector<im::SlurmJob> slurm_jobs;
    auto note = [&](const std::vector<im::ImportWarning>& ws) {
        for (const auto& w : ws) {
            auto& [n, first] = warnings[w.kind];
            if (n++ == 0) first = shown(w.location + ": " + w.message);
        }
    };
    const bool tty = isatty(2) && !a.flag("quiet"), quiet = a.flag("quiet");
    const long flush_every = a.has("flush-every") ? a.getInt("flush-every", 4000000) : 4000000;
    if (flush_every < 1) throw UsageError("--flush-every must be >= 1");
    im::BufferedWriter writer(store, static_cast<std::size_t>(flush_every));
    for (std::size_t k = 0; k < files.size(); ++k) {
        const auto& [file, walked] = files[k];
        if (tty) std::cerr << "\rimport: " << (k + 1) << "/" << files.size() << " " << shown(file) << "\x1b[K" << std::flush;
        else if (!quiet && files.size() >= 20 && (k * 10 / files.size()) != ((k + 1) * 10 / files.size()))
            std::cerr << "import: " << (k + 1) << "/" << files.size() << " files\n";
        im::Detection det;
        try {
            det = im::detectFileFormat(file);
            if (det.format == im::Format::Unknown && a.has("sacct-format") && !walked) det.format = im::Format::SlurmSacct;
        } catch (const im::ImportError& e) {
            std::cerr << (tty ? "\n" : "") << shown(e.what()) << "\n";
            failed.push_back(shown(file));
            continue;
        }
        if (det.format == im::Format::Unknown && walked) {  // a mockup's $metadata, a README: not telemetry
            ++skipped_files;
            continue;
        }
        ++format_count[std::string(im::toString(det.format))];
        if (det.format == im::Format::SlurmSacct || det.format == im::Format::SlurmJson) {
            try {
                im::SlurmResult sr = im::parseSlurmFile(file, a.get("sacct-format"));
                note(sr.warnings);
                std::vector<im::StoredEvent> evs;
                for (const auto& j : sr.jobs) {
                    std::string nodes;
                    for (const auto& n : j.nodes) nodes += (nodes.empty() ? "" : ",") + n;
                    const std::string msg = j.name + " (" + j.state + ", " + std::to_string(j.gpus) + " GPUs) on " + (nodes.empty() ? "no nodes" : nodes);
                    if (j.start_s) evs.push_back({*j.start_s, "job_start", "slurm-" + j.id, std::nullopt, msg});
                    if (j.end_s && j.start_s) evs.push_back({*j.end_s, "job_stop", "slurm-" + j.id, std::nullopt, j.state});
                }
                store.writeEvents(run, evs);
                slurm_jobs.insert(slurm_jobs.end(), sr.jobs.begin(), sr.jobs.end());
                ++imported_files;
            } catch (const im::ImportError& e) {
                std::cerr << (tty ? "\n" : "") << shown(e.what()) << "\n";
                failed.push_back(shown(file));
            }
            continue;
        }
        im::ParseResult r;
        try {
            r = im::parseFile(file, {}, a.get("host"));
        } catch (const im::ImportError& e) {
            std::cerr << (tty ? "\n" : "") << shown(e.what()) << "\n";
            failed.push_back(shown(file));
            continue;
        }
        ++imported_files;
        if (mapper) {
            const im::MappingReport rep = mapper->apply(r);
            matched += rep.matched;
            unmatched.insert(rep.unmatched.begin(), rep.unmatched.end());
        }
        std::vector<im::EntityInfo> ents;
        for (const auto& e : r.entities) ents.push_back({e.id, e.kind, e.parent, e.name});
        for (const auto& l : r.links)
            ents.push_back({l.from + ":" + std::to_string(l.from_port) + "-" + l.to + ":" + std::to_string(l.to_port), "link", l.from,
                            l.speed + " to " + l.to});
        links += r.links.size();
        store.upsertEntities(ents);
        all_entities.insert(all_entities.end(), r.entities.begin(), r.entities.end());
        // Series of this file in one transaction; samples buffered across files and written sorted.
        std::vector<im::SeriesKey> keys;
        std::map<std::pair<std::string, std::string>, std::size_t> key_index;
        std::vector<std::size_t> sample_key(r.samples.size());
        for (std::size_t i = 0; i < r.samples.size(); ++i) {
            const auto& smp = r.samples[i];
            auto [it, fresh] = key_index.try_emplace({smp.entity, smp.metric}, keys.size());
            if (fresh) {
                keys.push_back({smp.entity, smp.metric, smp.unit, std::string(im::toString(det.format))});
                series.insert(it->first);
            }
            sample_key[i] = it->second;
        }
        const std::vector<std::int64_t> ids = store.seriesMany(run, keys);
        for (std::size_t i = 0; i < r.samples.size(); ++i) writer.add({ids[sample_key[i]], r.samples[i].t_s, r.samples[i].value});
        samples += r.samples.size();
        note(r.warnings);
    }
    if (tty) std::cerr << "\n";
    writer.flush();
    store.finishRun(run, 0);

    // Slurm jobs for the replay, and a skeleton scenario.
    std::size_t replay_jobs = 0;
    if (a.has("jobs-out")) {
        const im::ReplayJobs rj = im::slurmToJobs(slurm_jobs, *mapper);
        note(rj.skipped);
        model::Scenario holder;
        holder.jobs = rj.jobs;
        // The jobs file is {"jobs": [...]} as `simulate --jobs` reads it; written atomically.
        const std::string doc = model::scenarioToJson(holder);
        nlohmann::ordered_json full = nlohmann::ordered_json::parse(doc);
        nlohmann::ordered_json out = {{"t0_unix_s", rj.t0_s}, {"jobs", full.contains("jobs") ? full["jobs"] : nlohmann::ordered_json::array()}};
        model::writeFileAtomically(a.get("jobs-out"), out.dump(2) + "\n");
        replay_jobs = rj.jobs.size();
    }
    std::vector<std::string> skeleton_notes;
    if (a.has("skeleton")) {
        try {
            const model::Scenario sk = im::skeletonScenario(all_entities, &skeleton_notes);
            model::writeFileAtomically(a.get("skeleton"), model::scenarioToJson(sk));
        } catch (const Error& e) {
            std::cerr << "skeleton: " << e.what() << "\n";
            return 2;
        }
    }

    if (a.flag("json")) {
        json w = json::object();
        for (const auto& [kind, v] : warnings) w[kind] = {{"count", v.first}, {"first", v.second}};
        json out = {{"run", run},         {"files", imported_files}, {"skipped_files", skipped_files}, {"failed", failed},
                    {"formats", format_count}, {"series", series.size()}, {"samples", samples},       {"links", links},
                    {"jobs", slurm_jobs.size()}, {"warnings", w}};
        if (mapper) out["mapping"] = {{"matched", matched}, {"unmatched", std::vector<std::string>(unmatched.begin(), unmatched.end())}};
        if (a.has("jobs-out")) out["replay_jobs"] = replay_jobs;
        if (a.has("skeleton")) out["skeleton_notes"] = skeleton_notes;
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << "run " << run << ": " << imported_files << " file(s)";
        if (skipped_files) std::cout << " (" << skipped_files << " other file(s) skipped)";
        std::cout << ", " << series.size() << " series, " << samples << " samples";
        if (links) std::cout << ", " << links << " links";
        if (!slurm_jobs.empty()) std::cout << ", " << slurm_jobs.size() << " Slurm jobs";
        std::cout << "\n";
        for (const auto& [kind, v] : warnings) std::cout << "  " << v.first << " warning(s) " << kind << ", first: " << v.second << "\n";
        if (mapper) {
            std::cout << "  mapping: " << matched << " entities matched, " << unmatched.size() << " did not";
            std::size_t listed = 0;
            for (const auto& u : unmatched) {
                if (listed++ == 10) {
                    std::cout << " ...";
                    break;
                }
                std::cout << (listed == 1 ? ": " : ", ") << u;
            }
            std::cout << "\n";
        }
        if (a.has("jobs-out")) std::cout << "  " << replay_jobs << " job(s) written to " << a.get("jobs-out") << "\n";
        if (a.has("skeleton")) {
            std::cout << "  skeleton scenario written to " << a.get("skeleton") << "\n";
            for (const auto& n : skeleton_notes) std::cout << "  note: " << n << "\n";
        }
    }
    return failed.empty() ? 0 : (imported_files ? 0 : 2);
}

int cmdQuery(const Args& a) {
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("query needs --db DB");
    if (!a.has("metric")) throw UsageError("query needs --metric");
    if (!a.positional().empty()) throw UsageError("query takes no positional arguments");
    const std::string format = a.get("format", "csv");
    if (format != "csv" && format != "json") throw UsageError("--format must be csv or json");
    if (std::error_code ec; !std::filesystem::is_regular_file(db, ec)) throw UsageError("--db: " + db + " does not exist");
    auto store = im::TelemetryStore::open(db, im::TelemetryStore::Mode::Existing);
    const auto runs = store.runs();
    if (runs.empty()) {
        std::cerr << db << ": no runs\n";
        return 2;
    }
    const std::int64_t run = a.has("run") ? a.getInt("run", 0) : runs.back().id;
    if (std::none_of(runs.begin(), runs.end(), [&](const im::RunInfo& r) { return r.id == run; }))
        throw UsageError("--run: " + db + " has no run " + std::to_string(run));
    const auto span = store.timeSpan(run);
    const double start = span ? span->first : 0.0;
    auto time = [&](const char* opt, double fallback) {
        if (!a.has(opt)) return fallback;
        const auto t = im::parseTimeSpec(a.get(opt), start);
        if (!t) throw UsageError(std::string("--") + opt + ": '" + a.get(opt) + "' is not seconds, a duration (90s, 1h) or ISO 8601");
        return *t;
    };
    const double from = time("from", -1e300), to = time("to", 1e300);
    const auto vals = store.values(run, a.get("metric"), a.all("entity"), from, to);
    OutputFile out(a.get("out", "-"));
    if (format == "json") {
        json arr = json::array();
        for (const auto& v : vals) {
            json pts = json::array();
            for (const auto& [t, x] : v.points) pts.push_back({t, std::isfinite(x) ? json(x) : json(nullptr)});
            arr.push_back({{"entity", v.key.entity}, {"metric", v.key.metric}, {"unit", v.key.unit}, {"points", pts}});
        }
        out.stream() << arr.dump(2) << "\n";
    } else {
        out.stream() << im::kSeriesCsvHeader << "\r\n";
        for (const auto& v : vals)
            for (const auto& [t, x] : v.points) out.stream() << im::seriesCsvRecord(t, v.key.entity, v.key.metric, x, v.key.unit);
    }
    out.commit();
    return 0;
}

} // namespace ct::cli
