// clustertwin-cli sweep: many variants of one scenario, spread over MPI ranks when started by mpirun or srun
// (session/sweep.hpp, ranks/ranks.hpp), gathered into one run database with a summary table.
#include "sweep.hpp"
#include "io.hpp"
#include "scenario_commands.hpp"
#include "simulate.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/copy_run.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/session/sweep.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

namespace ct::cli {

const char* kSweepHelp =
    R"(Usage: clustertwin-cli sweep SCENARIO (--n-1 | --what-if FILE ... | --vary KEY=V1,V2,...) --duration T --out DB

Runs many variants of a scenario, each one run as simulate would run it, into one run database, and prints a
summary: each variant's hottest rack inlet, PUE, the GPU capacity it lost, its alerts. The first variant is the
scenario as it is (the baseline); each other run names it as its baseline, so the app's Compare tab shows any of
them against it. Started by mpirun or srun, the variants are spread over the ranks (variant i on rank i mod N),
each rank records its own into DB.rank<k>.sqlite beside DB, and rank 0 gathers them (over MPI: no shared file
system needed) into DB in the variants' order. docs/scale-out.md says how to run it on several machines.
  --n-1               every single failure of the site's infrastructure: each utility feed, transformer, UPS,
                      floor PDU, water loop, cooling unit and CDU failing alone at --fail-at for the rest of the run
  --fail-at T         when --n-1's failures happen (1min)
  --what-if FILE      one variant per events file (repeatable; as simulate --events)
  --vary KEY=V1,V2    a setting over values (repeatable: every combination), KEY a JSON pointer into the scenario
                      (/simulation/unit_airflow_margin) or a dotted path (halls.0.cooling_units.0.setpoint_c)
  --out DB            the run database (created or appended to)
  --json              the summary as one JSON object on stdout ("ranks": how many ran it)
  -q, --quiet         no progress
  and simulate's options for every run: --duration, --steady, --step, --air and its settings, --cell, --threads,
  --record-every, --field-every, --backend, --events, --jobs
Ctrl-C (or SIGTERM to mpirun) stops each rank after its current step: what ran is gathered, the run that was cut
short marked interrupted, and the command exits 130. Exit codes: 0 every variant ran, 1 runtime error (a rank that
could not record ends every rank, naming it), 2 usage error, invalid input or a variant whose settings the
scenario refuses (the others still run), 130 interrupted.
)";

namespace {

using json = nlohmann::ordered_json;
namespace m = ct::model;

/// The variants the options ask for (throws UsageError; a what-if file's problems are printed, InvalidInput).
std::vector<session::SweepVariant> variantsFor(const Args& a, const session::RunRequest& base) {
    const int kinds = (a.flag("n-1") ? 1 : 0) + (a.has("what-if") ? 1 : 0) + (a.has("vary") ? 1 : 0);
    if (kinds != 1) throw UsageError("sweep needs one of --n-1, --what-if FILE or --vary KEY=V1,V2,...");
    if (a.flag("n-1")) {
        const double at = m::parseDurationS(a.get("fail-at", "1min"));
        if (!(at >= 0) || (base.duration_s > 0 && at >= base.duration_s))
            throw UsageError("--fail-at must be within the run (" + m::formatDuration(base.duration_s) + ")");
        auto v = session::nMinusOneVariants(base.scenario, at);
        if (v.size() < 2) throw UsageError("--n-1: the scenario has no feeds, UPS, PDUs, loops, cooling units or CDUs to fail");
        return v;
    }
    if (a.has("vary")) {
        try {
            return session::varyVariants(a.all("vary"));
        } catch (const session::InputError& e) {
            throw UsageError(e.what());
        }
    }
    std::vector<session::SweepVariant> out{{"baseline", {}, {}, {}}};
    bool ok = true;
    for (const auto& f : a.all("what-if")) {
        std::vector<m::Event> events;
        ok = loadEventsChecked(f, base.scenario, base.catalog, base.duration_s, events) && ok;
        out.push_back(session::whatIfVariant(f, std::move(events)));
    }
    if (!ok) throw InvalidInput();
    return out;
}

std::string partialPath(const std::string& out, int rank) { return out + ".rank" + std::to_string(rank) + ".sqlite"; }

/// Rank 0: every rank's runs copied into `out` in the variants' order; each variant names the baseline's run.
void gatherRuns(const std::string& out, int ranks, std::vector<session::SweepRow>& rows, const ranks::World& w) {
    std::vector<std::string> got(static_cast<std::size_t>(ranks));
    for (int k = 0; k < ranks; ++k) {
        got[static_cast<std::size_t>(k)] = k == 0 ? partialPath(out, 0) : out + ".rank" + std::to_string(k) + ".gathered.sqlite";
        w.sendFileToRoot(k, partialPath(out, k), got[static_cast<std::size_t>(k)]);
    }
    if (w.rank() != 0) return;
    runs::TelemetryStore to = runs::TelemetryStore::open(out);
    std::map<int, runs::TelemetryStore> from;
    for (auto& r : rows) {
        if (r.run == 0) continue;
        auto it = from.find(r.rank);
        if (it == from.end())
            it = from.emplace(r.rank,
                              runs::TelemetryStore::open(got[static_cast<std::size_t>(r.rank)], runs::TelemetryStore::Mode::Existing))
                     .first;
        r.run = runs::copyRun(it->second, r.run, to);
    }
    from.clear();
    for (int k = 1; k < ranks; ++k) runs::removeDatabaseFiles(got[static_cast<std::size_t>(k)]);
}

/// Each variant's run names the baseline's (the app's Compare tab pairs them).
void nameBaseline(const std::string& out, const std::vector<session::SweepRow>& rows) {
    if (rows.empty() || rows.front().run == 0) return;
    runs::TelemetryStore store = runs::TelemetryStore::open(out, runs::TelemetryStore::Mode::Existing);
    const std::string baseline = out + ", run " + std::to_string(rows.front().run);
    for (const auto& info : store.runs())
        for (std::size_t i = 1; i < rows.size(); ++i)
            if (rows[i].run == info.id) {
                runs::RunMeta meta = info.meta;
                meta.whatif_baseline = baseline;
                store.setRunMeta(info.id, meta);
            }
}

void printTable(const std::vector<session::SweepRow>& rows, int ranks, const std::string& out) {
    std::printf("sweep: %zu variants on %d rank(s) into %s\n", rows.size(), ranks, out.c_str());
    std::printf("%-4s %-44s %5s %-11s %9s %-12s %6s %9s %6s  %s\n", "#", "variant", "run", "end", "peak °C", "rack", "PUE", "GPU lost",
                "alerts", "first alert");
    for (const auto& r : rows) {
        if (r.end == "error") {
            std::printf("%-4zu %-44s %5s %-11s %s\n", r.index, r.variant.substr(0, 44).c_str(), "-", "error", r.error.c_str());
            continue;
        }
        std::printf("%-4zu %-44s %5lld %-11s %9.1f %-12s %6.3f %8.2f%% %6d  %s\n", r.index, r.variant.substr(0, 44).c_str(),
                    static_cast<long long>(r.run), r.end.c_str(), r.peak_inlet_c, r.peak_inlet_rack.substr(0, 12).c_str(), r.pue,
                    100 * r.gpu_lost_share, r.alerts, r.first_alert.c_str());
    }
}

json rowsJson(const std::vector<session::SweepRow>& rows) {
    json v = json::array();
    for (const auto& r : rows) {
        json x = json::parse(session::rowToJson(r));
        if (r.error.empty()) x.erase("error");
        v.push_back(std::move(x));
    }
    return v;
}

}  // namespace

int cmdSweep(const Args& a, const ranks::World& w) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    session::RunRequest base = simulateRequest(a);
    const bool quiet = a.flag("quiet");
    std::ostringstream discard;
    std::ostream& note = quiet || w.rank() != 0 ? static_cast<std::ostream&>(discard) : std::cerr;
    if (!loadSimulateInputs(a, file, base, note)) {
        if (w.rank() == 0) std::cerr << "sweep: invalid input; nothing was run\n";
        return 2;
    }
    const std::string scenario_text = m::readTextFile(file);
    const std::vector<session::SweepVariant> variants = variantsFor(a, base);
    const std::string out = base.db_path;
    base.meta.source = "clustertwin-cli sweep";
    base.db_path = w.size() > 1 ? partialPath(out, w.rank()) : out;
    if (w.size() > 1) runs::removeDatabaseFiles(base.db_path);  // a previous sweep's leftovers
    if (!quiet && w.rank() == 0)
        std::cerr << "sweep: " << variants.size() << " variants of " << base.scenario.id << " on " << w.size() << " rank(s)\n";
    catchInterrupt();
    session::RunCallbacks cb;
    cb.cancelled = [] { return interrupted(); };
    cb.cancel_reason = "SIGINT/SIGTERM";
    std::vector<session::SweepRow> mine;
    for (std::size_t i = static_cast<std::size_t>(w.rank()); i < variants.size() && !interrupted();
         i += static_cast<std::size_t>(w.size())) {
        session::SweepRow row;
        try {
            row = session::runVariant(base, scenario_text, variants[i], cb);
        } catch (const std::exception& e) {
            w.abort("sweep: rank " + std::to_string(w.rank()) + " (" + w.host() + "), variant " + std::to_string(i) + " '" +
                        variants[i].name + "': " + e.what() + "; the runs recorded so far are in " + base.db_path,
                    1);
        }
        row.index = i;
        row.rank = w.rank();
        if (!quiet)
            std::fprintf(stderr, "sweep: rank %d: variant %zu/%zu %s: %s\n", w.rank(), i + 1, variants.size(), variants[i].name.c_str(),
                         row.end == "error" ? ("not run: " + row.error).c_str()
                                            : (std::to_string(row.peak_inlet_c).substr(0, 5) + " °C peak inlet, " +
                                               m::formatDuration(row.wall_s) + " wall")
                                                  .c_str());
        mine.push_back(std::move(row));
    }
    // Rank 0 gathers the rows and the runs, in the variants' order.
    std::string lines;
    for (const auto& r : mine) lines += session::rowToJson(r) + "\n";
    std::vector<session::SweepRow> rows;
    for (const auto& text : w.gather(lines)) {
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);)
            if (!line.empty()) rows.push_back(session::rowFromJson(line));
    }
    std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.index < y.index; });
    try {
        if (w.size() > 1) {
            gatherRuns(out, w.size(), rows, w);
            w.barrier();  // rank 0 holds every run now
            runs::removeDatabaseFiles(base.db_path);
        }
        if (w.rank() == 0) nameBaseline(out, rows);
    } catch (const std::exception& e) {
        w.abort("sweep: rank " + std::to_string(w.rank()) + " (" + w.host() + "): gathering the runs into " + out + ": " + e.what(), 1);
    }
    const int stopped = w.maxOf(interrupted() ? 1 : 0);
    if (w.rank() != 0) return w.broadcast(0);
    bool failed = false;
    for (const auto& r : rows) failed = failed || r.end == "error";
    if (a.flag("json"))
        std::cout << json{{"ranks", w.size()}, {"database", out}, {"interrupted", stopped != 0}, {"variants", rowsJson(rows)}}.dump(2)
                  << "\n";
    else printTable(rows, w.size(), out);
    if (stopped) std::cerr << "sweep: interrupted: " << rows.size() << " of " << variants.size() << " variants ran (the last cut short)\n";
    return w.broadcast(stopped ? 130 : failed ? 2 : 0);
}

}  // namespace ct::cli
