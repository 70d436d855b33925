#include "telemetry.hpp"

#include "io.hpp"

#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/prometheus_http.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/runs/series_csv.hpp>
#include <clustertwin/runs/store.hpp>

#include <chrono>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include <unistd.h>

#include "alerts.hpp"

namespace ct::cli {

namespace im = ct::importers;
using json = nlohmann::ordered_json;

const char* kImportHelp = R"(Usage: clustertwin-cli import FILE|DIR... --db DB [--name NAME] [--host HOST] [--scenario S]
                            [--skeleton OUT.json] [--sacct-format LIST] [--jobs-out JOBS.json] [--tz OFFSET]
                            [--trace-start TIME] [--rules RULES.json] [--json]
       clustertwin-cli import --prometheus URL (--query Q... | --dcgm) --from T [--to T] [--step S] --db DB ...
       clustertwin-cli import --formats [--json]

Imports telemetry into the store as one run. FILE may be "-" (standard input) and any file may be
gzip-compressed (recognised by its content; "x.prom.gz" is read as "x.prom"). Formats are recognised by their
content first, then by extension: DCGM exporter / Prometheus text scrapes, the Prometheus HTTP API JSON,
nvidia-smi (--query-gpu CSV, -q -x XML, dmon), DMTF Redfish resources (one file or a mockup directory), Slurm
(sacct text and --json, squeue, scontrol show job and node, sinfo), InfiniBand (perfquery, ibnetdiscover,
ibswinfo), ClusterCockpit job archives, the Alibaba GPU trace and the long CSV (time, entity, metric, value,
unit); `import --formats` lists every one with its id, what it holds and its extensions. Directories are walked recursively in name order; files in them that are not
telemetry are skipped and counted. A series of scrapes becomes a time series (each at its file's time).
Bad records are skipped with a warning (file:line or file#/json/pointer); the rest is kept, and every file
with warnings is named. Importing into a run of the same --name again adds to it: a file whose content was
imported into that run before is not read again, and readings already there are not stored twice. Readings
that land on a series and time that already hold another value are collisions: counted and reported.
The summary says how many readings were read and where each went (stored, already there, collisions).

Exit status: 0 everything was read; 3 some files or records could not be read (each named); 2 nothing
could be read (no run is left behind); 130 interrupted (Ctrl-C; what was read before is kept).

  --host HOST          host of files that do not name one (nvidia-smi XML, Redfish)
  --scenario S         map entities onto S (its telemetry_mapping rules, then hostnames, ids, GPU UUIDs,
                       chassis ids) and report what did not match
  --skeleton OUT.json  without --scenario: write a scenario built from the telemetry (hosts -> nodes)
  --sacct-format LIST  the sacct --format list of headerless sacct text
  --jobs-out FILE      with --scenario: write the jobs (Slurm, ClusterCockpit, a trace's pods) as a jobs file
                       for `simulate --jobs`; jobs that name no nodes (a trace's) are placed on the
                       scenario's GPUs in order of arrival and wait while none are free
  --tz OFFSET          the zone of times written without one (sacct, nvidia-smi, long CSV): +05:30, -0800,
                       UTC (the default)
  --trace-start TIME   the time at which a trace that counts from its start (the Alibaba GPU trace) began:
                       ISO 8601 or Unix seconds (default 1970-01-01T00:00:00Z)
  --prometheus URL     read from a live Prometheus (its HTTP API, /api/v1/query_range) instead of files
  --query Q            a PromQL query to read (repeatable)
  --dcgm               the DCGM exporter's default metrics (with or instead of --query)
  --from T, --to T     the range: ISO 8601, Unix seconds, "now", or a duration before --to (--from 6h);
                       --to defaults to now
  --step S             the resolution (15s by default); ranges of more than 10,000 steps are read in pieces
  --rules FILE         the alert rules evaluated on what was imported (default: the built-in ones, which
                       `clustertwin-cli alerts --default-rules` prints; docs/importers.md, "Alert rules")
  --flush-every N      samples held in memory before a sorted write (default 4000000; less uses less memory)
  --formats            list the formats this program recognises (with --json: as an array) and exit
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

/// The summary: what was read, and where every reading went (stored + already there + collisions = read).
void printImportSummary(const im::ImportSummary& s, const std::string& unit, bool as_json, const std::function<void(json&)>& extra) {
    const auto& w = s.written;
    const std::string& collision = s.collision_note;
    if (as_json) {
        json kinds = json::object();
        for (const auto& [kind, v] : s.warning_kinds) kinds[kind] = {{"count", v.first}, {"first", v.second}};
        json files = json::array();
        for (const auto& f : s.warnings) {
            json first = json::array();
            for (const auto& x : f.first) first.push_back({{"location", x.location}, {"kind", x.kind}, {"message", x.message}});
            files.push_back({{"file", f.file}, {"count", f.count}, {"first", first}});
        }
        json out = {{"run", s.run_removed ? json(nullptr) : json(s.run)},
                    {"files", s.files},
                    {"skipped_files", s.skipped_files},
                    {"unchanged_files", s.unchanged_files},
                    {"failed", s.failed},
                    {"formats", s.formats},
                    {"series", s.series},
                    {"samples_read", s.samples_read},
                    {"samples", w.stored},
                    {"duplicates", w.duplicates},
                    {"collisions", w.conflicts},
                    {"links", s.links},
                    {"jobs", s.jobs.size()},
                    {"alerts", s.alerts},
                    {"alert_notes", s.alert_notes},
                    {"warnings", kinds},
                    {"files_with_warnings", files},
                    {"exit_code", s.cancelled ? 130 : s.exitCode()}};
        if (!collision.empty()) out["collision"] = collision;
        if (!s.unmatched.empty() || s.matched)
            out["mapping"] = {{"matched", s.matched}, {"unmatched", std::vector<std::string>(s.unmatched.begin(), s.unmatched.end())}};
        extra(out);
        std::cout << out.dump(2) << "\n";
        return;
    }
    std::cout << im::formatImportSummary(s, unit);
}

/// A time of --from/--to: ISO 8601, Unix seconds, "now", or a duration before `before` ("6h").
double rangeTime(const Args& a, const char* opt, double before, double now) {
    const std::string v = a.get(opt);
    if (v == "now") return now;
    if (!v.empty() && (v.back() == 's' || v.back() == 'm' || v.back() == 'h' || v.back() == 'd') && v.find('-') == std::string::npos &&
        v.find(':') == std::string::npos) {
        const auto d = runs::parseTimeSpec(v, 0);
        if (d) return before - *d;
    }
    const auto t = runs::parseTimeSpec(v, 0);
    if (!t) throw UsageError(std::string("--") + opt + ": '" + v + "' is not ISO 8601, Unix seconds, now or a duration");
    return *t;
}

/// import --prometheus: the range read piece by piece into the session; returns what failed.
std::vector<std::string> importPrometheus(const Args& a, im::ImportSession& session, Progress& progress) {
    im::PrometheusRange r;
    r.url = a.get("prometheus");
    r.queries = a.all("query");
    if (a.flag("dcgm")) r.queries.insert(r.queries.end(), im::dcgmPresetQueries().begin(), im::dcgmPresetQueries().end());
    if (r.queries.empty()) throw UsageError("--prometheus needs --query Q or --dcgm");
    if (!a.has("from")) throw UsageError("--prometheus needs --from (a time, or how long before --to: 6h)");
    const double now =
        static_cast<double>(
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count()) /
        1000.0;
    r.to_s = a.has("to") ? rangeTime(a, "to", now, now) : now;
    r.from_s = rangeTime(a, "from", r.to_s, now);
    if (r.from_s > r.to_s) throw UsageError("--from is after --to");
    if (a.has("step")) {
        const auto s = runs::parseTimeSpec(a.get("step"), 0);
        if (!s || *s <= 0) throw UsageError("--step: '" + a.get("step") + "' is not a positive duration (15s, 1m)");
        r.step_s = *s;
    }
    return im::importPrometheusRange(session, r, [&](std::size_t done, std::size_t total, const std::string& query) {
        const int pct = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
        progress.update(pct, std::to_string(pct) + "% (" + std::to_string(done) + " of " + std::to_string(total) + " requests) " + query);
        return !interrupted();
    });
}

}  // namespace

namespace {
/// `import --formats`: the table of formats (formats.hpp), as text or JSON.
int listFormats(bool as_json) {
    json list = json::array();
    for (const im::FormatInfo* f : im::formats()) {
        if (as_json) {
            list.push_back(
                {{"id", f->id}, {"label", f->label}, {"kind", std::string(im::toString(f->kind))}, {"extensions", f->extensions}});
            continue;
        }
        std::string ext;
        for (const auto& e : f->extensions) ext += (ext.empty() ? " (" : ", ") + e;
        std::cout << f->id << std::string(f->id.size() < 22 ? 22 - f->id.size() : 1, ' ') << im::toString(f->kind) << "\t" << f->label
                  << (ext.empty() ? "" : ext + ")") << "\n";
    }
    if (as_json) std::cout << list.dump(2) << "\n";
    return 0;
}
}  // namespace

namespace {

/// The usage errors of import's options, before anything is read.
void checkImportArgs(const Args& a, bool live) {
    if (a.positional().empty() && !live) throw UsageError("import needs at least one file or directory (or --prometheus URL)");
    if (live && !a.positional().empty()) throw UsageError("--prometheus reads from the server: no files with it");
    if (!live && (a.has("query") || a.flag("dcgm") || a.has("from") || a.has("to") || a.has("step")))
        throw UsageError("--query, --dcgm, --from, --to and --step go with --prometheus URL");
    if (a.get("db").empty()) throw UsageError("import needs --db DB");
    if (a.has("jobs-out") && !a.has("scenario")) throw UsageError("--jobs-out needs --scenario (jobs run on its nodes)");
    if (a.has("skeleton") && a.has("scenario")) throw UsageError("--skeleton builds a scenario when there is none; drop --scenario");
}

/// --scenario: the scenario, its catalog and the mapper of telemetry names onto it; false after printing why not.
bool loadImportScenario(const Args& a, std::optional<model::Scenario>& scenario, model::Catalog& catalog,
                        std::optional<im::EntityMapper>& mapper) {
    if (!a.has("scenario")) return true;
    model::ValidationReport rep = model::loadAndValidate(a.get("scenario"));
    for (const auto& d : rep.diagnostics) std::cerr << a.get("scenario") << ": " << d.toString() << "\n";
    if (model::hasErrors(rep.diagnostics)) return false;
    scenario = std::move(rep.scenario);
    catalog = std::move(rep.catalog);
    try {
        mapper.emplace(*scenario);
    } catch (const im::ImportError& e) {
        std::cerr << a.get("scenario") << ": " << e.what() << "\n";
        return false;
    }
    return true;
}

im::ImportOptions importOptions(const Args& a, const std::optional<model::Scenario>& scenario, std::optional<im::EntityMapper>& mapper) {
    im::ImportOptions opt;
    if (a.has("tz")) {
        const auto off = im::parseUtcOffset(a.get("tz"));
        if (!off) throw UsageError("--tz: '" + a.get("tz") + "' is not an offset from UTC (+05:30, -0800, UTC)");
        opt.tz_offset_s = *off;
    }
    if (a.has("trace-start")) {
        const auto t = runs::parseTimeSpec(a.get("trace-start"), 0);
        if (!t) throw UsageError("--trace-start: '" + a.get("trace-start") + "' is not ISO 8601 or Unix seconds");
        opt.trace_start_s = *t;
    }
    const long flush_every = a.has("flush-every") ? a.getInt("flush-every", 4000000) : 4000000;
    if (flush_every < 1) throw UsageError("--flush-every must be >= 1");
    opt.flush_every = static_cast<std::size_t>(flush_every);
    opt.run_name = a.get("name", "import");  // importing into a run of the same name adds to it
    opt.scenario_id = scenario ? scenario->id : "";
    opt.host = a.get("host");
    opt.sacct_format = a.get("sacct-format");
    opt.mapper = mapper ? &*mapper : nullptr;
    if (a.has("rules")) opt.alerts = std::make_shared<im::AlertEvaluator>(*loadRulesOption(a.get("rules")));
    if (mapper) {
        opt.mapped_onto = scenario->id;
        std::error_code ec;
        opt.mapped_onto_file = std::filesystem::absolute(a.get("scenario"), ec).string();
    }
    return opt;
}

/// --jobs-out: the Slurm jobs placed on the scenario's nodes for a replay, as {"t0_unix_s", "jobs"} that
/// `simulate --jobs` reads (written atomically); those left out count as warnings. Returns how many.
std::size_t writeReplayJobs(const std::string& path, im::ImportSummary& sum, const im::EntityMapper& mapper,
                            const model::Scenario& scenario, const model::Catalog& catalog) {
    im::ReplayJobs rj = im::slurmToJobs(sum.jobs, mapper);
    im::placeTraceJobs(rj, scenario, catalog);
    for (const auto& w : rj.skipped) {
        auto& [n, first] = sum.warning_kinds[w.kind];
        if (n++ == 0) first = w.location + ": " + w.message;
    }
    model::Scenario holder;
    holder.jobs = rj.jobs;
    const nlohmann::ordered_json full = nlohmann::ordered_json::parse(model::scenarioToJson(holder));
    const nlohmann::ordered_json out = {{"t0_unix_s", rj.t0_s},
                                        {"jobs", full.contains("jobs") ? full["jobs"] : nlohmann::ordered_json::array()}};
    model::writeFileAtomically(path, out.dump(2) + "\n");
    return rj.jobs.size();
}

/// "-" is standard input, read once into a temporary file (detection and parsing both read it; messages name
/// it <stdin>): its path replaces "-" in args.
std::unique_ptr<InputPath> stdinAsFile(std::vector<std::string>& args) {
    std::unique_ptr<InputPath> stdin_copy;
    for (auto& p : args)
        if (p == "-") {
            if (stdin_copy) throw UsageError("standard input (-) can be read only once");
            stdin_copy = std::make_unique<InputPath>(p);
            p = stdin_copy->path();
        }
    return stdin_copy;
}

}  // namespace

int cmdImport(const Args& a) {
    if (a.flag("formats")) return listFormats(a.flag("json"));
    const bool live = a.has("prometheus");
    checkImportArgs(a, live);
    std::vector<std::string> args = a.positional();
    const std::unique_ptr<InputPath> stdin_copy = stdinAsFile(args);
    std::vector<std::pair<std::string, bool>> files;  // path, found by walking a directory
    if (!live) {
        try {
            files = im::collectInputs(args);
        } catch (const im::ImportError& e) {
            std::cerr << e.what() << "\n";
            return 2;
        }
    }
    auto shown = [&](std::string text) {  // the temporary file's name back to <stdin>
        if (!stdin_copy) return text;
        for (auto at = text.find(stdin_copy->path()); at != std::string::npos;
             at = text.find(stdin_copy->path(), at + stdin_copy->name().size()))
            text.replace(at, stdin_copy->path().size(), stdin_copy->name());
        return text;
    };
    std::optional<model::Scenario> scenario;
    std::optional<im::EntityMapper> mapper;
    model::Catalog catalog;
    if (!loadImportScenario(a, scenario, catalog, mapper)) return 2;
    const im::ImportOptions opt = importOptions(a, scenario, mapper);
    // A database this import creates and then fills with nothing (every file unreadable, a Prometheus that did
    // not answer) is removed once the store is closed: no empty file is left behind.
    struct RemoveIfEmpty {
        std::string path;
        bool remove = false;
        ~RemoveIfEmpty() {
            if (remove) runs::removeDatabaseFiles(path);
        }
    } created{a.get("db")};
    const bool existed = std::filesystem::exists(a.get("db"));
    auto store = runs::TelemetryStore::open(a.get("db"));
    im::ImportSession session(store, opt);
    catchInterrupt();
    Progress progress("import: ", a.flag("quiet"), 10);
    std::vector<std::string> live_failures;
    if (live) live_failures = importPrometheus(a, session, progress);
    else
        session.importFiles(
            files,
            [&](std::size_t k, std::size_t n, double within, const std::string& file) {
                if (k < n) {
                    const int pct = static_cast<int>(100.0 * (static_cast<double>(k) + within) / static_cast<double>(n));
                    progress.update(pct,
                                    std::to_string(pct) + "% (file " + std::to_string(k + 1) + " of " + std::to_string(n) + ") " + file);
                }
                return !interrupted();
            },
            shown);
    progress.finish();
    im::ImportSummary sum = session.finish();
    created.remove = !existed && sum.run_removed && store.runs().empty() && store.entities().empty();
    sum.failed.insert(sum.failed.end(), live_failures.begin(), live_failures.end());
    for (const auto& f : sum.failed) std::cerr << f << "\n";
    if (sum.cancelled) std::cerr << "import: interrupted; what was read before is kept\n";

    const std::size_t replay_jobs = a.has("jobs-out") ? writeReplayJobs(a.get("jobs-out"), sum, *mapper, *scenario, catalog) : 0;
    std::vector<std::string> skeleton_notes;
    if (a.has("skeleton")) {
        try {
            const model::Scenario sk = im::skeletonScenario(sum.entities, &skeleton_notes);
            model::writeFileAtomically(a.get("skeleton"), model::scenarioToJson(sk));
        } catch (const Error& e) {
            std::cerr << "skeleton: " << e.what() << "\n";
            return 2;
        }
    }
    printImportSummary(sum, live ? "request(s)" : "file(s)", a.flag("json"), [&](json& out) {
        if (a.has("jobs-out")) out["replay_jobs"] = replay_jobs;
        if (a.has("skeleton")) out["skeleton_notes"] = skeleton_notes;
    });
    if (!a.flag("json")) {
        if (a.has("jobs-out")) std::cout << "  " << replay_jobs << " job(s) written to " << a.get("jobs-out") << "\n";
        if (a.has("skeleton")) {
            std::cout << "  skeleton scenario written to " << a.get("skeleton") << "\n";
            for (const auto& n : skeleton_notes) std::cout << "  note: " << n << "\n";
        }
    }
    return sum.cancelled ? 130 : sum.exitCode();
}

int cmdQuery(const Args& a) {
    const std::string db = a.get("db");
    if (db.empty()) throw UsageError("query needs --db DB");
    if (!a.has("metric")) throw UsageError("query needs --metric");
    if (!a.positional().empty()) throw UsageError("query takes no positional arguments");
    const std::string format = a.get("format", "csv");
    if (format != "csv" && format != "json") throw UsageError("--format must be csv or json");
    if (std::error_code ec; !std::filesystem::is_regular_file(db, ec)) throw UsageError("--db: " + db + " does not exist");
    auto store = runs::TelemetryStore::open(db, runs::TelemetryStore::Mode::Existing);
    const auto runs = store.runs();
    if (runs.empty()) {
        std::cerr << db << ": no runs\n";
        return 2;
    }
    const std::int64_t run = a.has("run") ? a.getInt("run", 0) : runs.back().id;
    if (std::none_of(runs.begin(), runs.end(), [&](const runs::RunInfo& r) { return r.id == run; }))
        throw UsageError("--run: " + db + " has no run " + std::to_string(run));
    const auto span = store.timeSpan(run);
    const double start = span ? span->first : 0.0;
    auto time = [&](const char* opt, double fallback) {
        if (!a.has(opt)) return fallback;
        const auto t = runs::parseTimeSpec(a.get(opt), start);
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
        out.stream() << runs::kSeriesCsvHeader << "\r\n";
        for (const auto& v : vals)
            for (const auto& [t, x] : v.points) out.stream() << runs::seriesCsvRecord(t, v.key.entity, v.key.metric, x, v.key.unit);
    }
    out.commit();
    return 0;
}

}  // namespace ct::cli
