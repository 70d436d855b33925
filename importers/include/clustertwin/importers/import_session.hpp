#pragma once
// One import into the store, whoever asks for it (clustertwin-cli import, the app's File > Import telemetry,
// a Prometheus connection, clustertwin-bench import): files are parsed one ahead of the store on a second
// thread, every reading is accounted for (stored, already there, or a collision that is reported), every
// problem is kept with its file and line, and a run that received nothing is not left behind.
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/runs/store.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ct::importers {

class EntityMapper;
class AlertEvaluator;

struct ImportOptions {
    std::string run_name = "import";  ///< a run of this name (imported) is added to; else one is created
    std::string scenario_id;
    std::string host;          ///< host of files that do not name one
    std::string sacct_format;  ///< the --format list of headerless sacct text
    /// Offset from UTC of times that carry no zone (Slurm, nvidia-smi, dmon), in seconds (0: UTC).
    double tz_offset_s = 0;
    /// Unix time of t = 0 of traces that count from their start (the Alibaba GPU trace).
    double trace_start_s = 0;
    const EntityMapper* mapper = nullptr;  ///< map entities onto a scenario's
    /// With `mapper`: the id (and file) of the scenario it maps onto. When some entities were mapped, the
    /// run's metadata records "mapped_onto" (and "scenario_file"): its ids are that scenario's from then on,
    /// so the app shows it on that scenario only (and offers to open it).
    std::string mapped_onto, mapped_onto_file;
    std::size_t flush_every = 4'000'000;
    /// The alert rules evaluated on the run once the import is stored (alert_rules.hpp), with their state: a
    /// followed server's polls hand the same evaluator on, so each evaluates only what it added. Empty: the
    /// built-in rules over the whole run.
    std::shared_ptr<AlertEvaluator> alerts;
};

/// A content hash of a file (its bytes, compressed or not): 32 hex digits and the size.
std::string contentHash(const std::string& path);
/// The same for bytes in memory (a response fetched over HTTP).
std::string contentHashOf(std::string_view bytes);

struct ImportSummary {
    std::int64_t run = 0;
    bool run_removed = false;         ///< nothing could be read: the run made for it was removed
    std::size_t files = 0;            ///< files read (in whole or part)
    std::size_t skipped_files = 0;    ///< files in directories that are not telemetry
    std::size_t unchanged_files = 0;  ///< the same content was imported into this run before: not read again
    std::vector<std::string> failed;  ///< files that could not be read at all: "path: why"
    std::map<std::string, std::size_t> formats;
    std::size_t series = 0, links = 0;
    std::int64_t samples_read = 0;  ///< readings the parsers gave; = written.stored + duplicates + conflicts
    runs::WriteStats written;       ///< the store's counts plus repeats found within a source
    std::string collision_note;     ///< collisions across sources, with the first series named ("" when none)
    /// Warnings by kind: how many, and the first (located).
    std::map<std::string, std::pair<std::size_t, std::string>> warning_kinds;
    /// Per file with warnings: how many, and the first few (kFirstWarnings), so every broken file is named.
    struct FileWarnings {
        std::string file;
        std::size_t count = 0;
        std::vector<ImportWarning> first;
    };
    static constexpr std::size_t kFirstWarnings = 20;
    std::vector<FileWarnings> warnings;
    std::vector<ImportedEntity> entities;
    std::vector<SlurmJob> jobs;
    std::size_t matched = 0;
    std::set<std::string> unmatched;
    std::size_t alerts = 0;                ///< alerts the measurements raised (raiseAlerts)
    std::vector<std::string> alert_notes;  ///< limits that could not be had (AlertRunResult::notes)
    bool cancelled = false;
    /// Warnings that stand for readings or records lost (not the informational kinds: DCGM's "no data",
    /// an empty file).
    std::size_t failedRecords() const;
    /// 0: everything read; 3: some files or records failed; 2: nothing could be read.
    int exitCode() const;
};

/// The files of an import: files as named, directories walked recursively in name order (`true`: found by
/// walking, so what is not telemetry there is skipped rather than an error). Throws ImportError naming a path
/// that does not exist.
std::vector<std::pair<std::string, bool>> collectInputs(const std::vector<std::string>& paths);

/// The summary in words, as clustertwin-cli import prints it: what was read and where every reading went
/// (stored + already there + collisions = read), warnings by kind, every file with warnings (the first 20),
/// the mapping. `unit` names what was read ("file(s)", or "request(s)" for a Prometheus server).
std::string formatImportSummary(const ImportSummary& s, const std::string& unit = "file(s)");

class ImportSession {
public:
    /// Opens the run named in `opt` (or creates it). Throws ImportError when the store fails.
    ImportSession(runs::TelemetryStore& store, ImportOptions opt);
    ~ImportSession();
    ImportSession(const ImportSession&) = delete;
    ImportSession& operator=(const ImportSession&) = delete;

    /// Told (the file's index, files in all, how far into that file 0..1, its name) at each file and every
    /// 100 ms within one; false cancels (inside the file: what it read so far is not stored).
    using FileProgress = std::function<bool(std::size_t, std::size_t, double, const std::string&)>;
    /// Reads files: `walked` says a file was found in a directory (what is not telemetry there is skipped,
    /// not an error). `shown` rewrites a path for messages (a temporary copy of standard input → "<stdin>").
    void importFiles(const std::vector<std::pair<std::string, bool>>& files, const FileProgress& progress = {},
                     const std::function<std::string(const std::string&)>& shown = {});
    /// Readings from elsewhere (the Prometheus HTTP API), stored as one source named `source`. Takes what it
    /// keeps out of `r` (its entities and warnings); the caller frees the rest where it likes (a parse thread
    /// frees what it allocated fastest).
    void add(ParseResult& r, const std::string& source, const std::string& format, const std::string& hash = {});
    /// Writes what is buffered and closes the run (removing it when nothing could be read).
    ImportSummary finish();
    std::int64_t run() const;
    /// Stops the import after the record being read (any thread may call it).
    void cancel();

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

}  // namespace ct::importers
