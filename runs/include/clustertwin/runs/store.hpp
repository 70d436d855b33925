#pragma once
// The telemetry store: one SQLite database (WAL) for simulated runs and imported telemetry, so both replay
// the same way. Schema (version 3):
//   runs(id, name, kind 'simulated'|'imported', scenario_id, created_at, end_s, meta)
//   entities(id, kind, parent, name)
//   series(id, run_id, entity, metric, unit, source)   UNIQUE(run_id, entity, metric, source)
//   chunks(series_id, t0, t1, n, data)                 PRIMARY KEY(series_id, t0), WITHOUT ROWID: up to 240
//                                                      points of a series, compressed (chunk_codec.hpp); the
//                                                      chunks of a series never overlap in time
//   events(run_id, t, kind, target, value, message, threshold)
//   air_fields(run_id, t, nx, ny, nz, cell_m, temp, velocity, seeds)   float32 blobs, see model::AirField
//   sources(run_id, hash, name, samples, imported_at)  what an import read, by content hash
// Time t is in seconds: from the run's start for simulated runs, Unix time for imported telemetry.
// Version 1 (no events.threshold) and 2 (one row per sample in samples(series_id, t, value)) are upgraded
// when opened.
#include <clustertwin/model/frame.hpp>
#include <clustertwin/runs/error.hpp>
#include <clustertwin/runs/run_meta.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ct::runs {

struct SeriesKey {
    std::string entity, metric, unit, source;
    bool operator==(const SeriesKey&) const = default;
};

struct Sample {
    std::int64_t series = 0;
    double t_s = 0;
    double value = 0;
};

struct RunInfo {
    std::int64_t id = 0;
    std::string name, kind, scenario_id, created_at;
    RunMeta meta;
    std::optional<double> end_s;
};

struct EntityInfo {
    std::string id, kind, parent, name;
};

struct StoredEvent {
    double t_s = 0;
    std::string kind, target;
    std::optional<double> value;
    std::string message;
    std::optional<double> threshold = std::nullopt;  ///< an alert's limit (schema version 2)
    std::string severity = {};                       ///< "info", "warning", "critical" when a rule set its own (version 4); "" = its kind's
};

/// What a write did with its samples: each is stored, already there with the same value (a re-import), or
/// dropped because the series already has a different value at that time (a collision, never silent: the
/// caller reports it).
struct WriteStats {
    std::int64_t stored = 0, duplicates = 0, conflicts = 0;
    /// The first collision: series, time, the value kept and the value dropped.
    std::int64_t conflict_series = 0;
    double conflict_t_s = 0, conflict_kept = 0, conflict_dropped = 0;
    WriteStats& operator+=(const WriteStats& o);
};

/// A file (or other source) an import has read into a run, by a hash of its content: importing the same
/// content into the run again is recognised, whatever the file's name or modification time.
struct SourceRecord {
    std::int64_t run = 0;
    std::string hash, name;
    std::int64_t samples = 0;
};

/// A series with its sample count and time range.
struct SeriesSummary {
    std::int64_t series = 0;
    SeriesKey key;
    std::int64_t count = 0;
    double t0_s = 0, t1_s = 0;
};

struct SeriesValues {
    std::int64_t series = 0;
    SeriesKey key;
    std::vector<std::pair<double, double>> points;  ///< (t_s, value), ascending t
};

struct Bucket {
    double t0_s = 0, t1_s = 0;
    double min = 0, max = 0, mean = 0;
    std::int64_t count = 0;
};

/// Removes a database file with its write-ahead log and shared-memory files (a store that is not open), so that an
/// import that read nothing into a database it created leaves no empty file behind. Missing files are no error.
void removeDatabaseFiles(const std::string& path);

/// Every method throws StoreError with SQLite's message and the database path on failure.
class TelemetryStore {
public:
    /// How open() treats a path with no database: create one (import, simulate) or refuse (query, render and
    /// the app's Open Run, which only read: they never leave a new file behind).
    enum class Mode { Create, Existing };
    /// Opens (or creates, with Mode::Create) the database and its schema. A file that is not a ClusterTwin store
    /// (or of a newer schema) is refused.
    static TelemetryStore open(const std::string& path, Mode mode = Mode::Create);
    TelemetryStore(TelemetryStore&&) noexcept;
    TelemetryStore& operator=(TelemetryStore&&) noexcept;
    ~TelemetryStore();

    /// A new run; meta.scenario_json, when given, is kept beside it (runScenario).
    std::int64_t createRun(const std::string& name, const std::string& kind, const std::string& scenario_id, const RunMeta& meta = {});
    /// The scenario a simulated run was computed for, as it was hashed (RunMeta::scenario_json); none for
    /// imported runs and runs recorded before it was kept.
    std::optional<std::string> runScenario(std::int64_t run) const;
    void finishRun(std::int64_t run, double end_s);
    /// Replaces a run's metadata (a JSON object as text), e.g. to mark a run that was interrupted.
    void setRunMeta(std::int64_t run, const RunMeta& meta);
    std::vector<RunInfo> runs() const;
    /// The first and last sample times of a run; empty when it has no samples.
    std::optional<std::pair<double, double>> timeSpan(std::int64_t run) const;

    void upsertEntities(const std::vector<EntityInfo>& entities);
    std::vector<EntityInfo> entities() const;

    /// The id of a series, created when new.
    std::int64_t series(std::int64_t run, const SeriesKey& key);
    /// Writes samples (any order) in one transaction, with the sources they came from; a sample already
    /// stored (same series and time) is left as it is, and counted as a duplicate or a conflict. Within the
    /// batch the first of several samples at one time wins.
    WriteStats writeBatch(std::vector<Sample> samples, const std::vector<SourceRecord>& sources = {});
    /// The source of this content already imported into the run, if any.
    std::optional<SourceRecord> source(std::int64_t run, const std::string& hash) const;
    /// What imports read into a run, in the order they were read.
    std::vector<SourceRecord> sources(std::int64_t run) const;
    /// Removes a run with its series, samples, events and air fields (an import that read nothing).
    void deleteRun(std::int64_t run);
    /// Every series of a run with its sample count and time range.
    std::vector<SeriesSummary> seriesSummary(std::int64_t run) const;
    /// The ids of many series, created where missing, in one transaction (the first scrape of 40k series).
    std::vector<std::int64_t> seriesMany(std::int64_t run, const std::vector<SeriesKey>& keys);
    void writeEvents(std::int64_t run, const std::vector<StoredEvent>& events);

    /// Values of `metric` in [t0, t1] for the given entities (all when empty), one SeriesValues per series.
    std::vector<SeriesValues> values(std::int64_t run, const std::string& metric, const std::vector<std::string>& entities, double t0_s,
                                     double t1_s) const;
    /// The last value at or before `t_s`.
    std::optional<double> latest(std::int64_t series, double t_s) const;
    /// `n` equal buckets over [t0, t1] with min/max/mean (empty buckets have count 0).
    std::vector<Bucket> buckets(std::int64_t series, double t0_s, double t1_s, int n) const;
    std::vector<StoredEvent> events(std::int64_t run) const;
    /// How many events a run has of `kind` (all kinds when empty), counted by the database.
    std::int64_t eventCount(std::int64_t run, const std::string& kind = {}) const;
    std::int64_t sampleCount() const;
    /// Bytes the database takes on disk (its pages; after a WAL checkpoint).
    std::int64_t diskBytes();
    /// Every series of a run with all its points (for replay, which scrubs back and forth). `progress`, when
    /// given, is told the fraction read now and then; returning false stops the read with StoreCancelled.
    std::vector<SeriesValues> allSeries(std::int64_t run, const std::function<bool(double)>& progress = {}) const;
    /// Every series of a run with the points of its chunks that reach past `after_s` (a chunk holds consecutive
    /// points of one series, so every point after `after_s` is among them, and some before it): what a run being
    /// recorded added since a reader last read it up to `after_s` (RunReplay::extend).
    std::vector<SeriesValues> seriesSince(std::int64_t run, double after_s) const;

    /// Snapshots of the 3D air field of simulated runs (telemetry has none): written at the run's field
    /// interval, one per hall (AirField::hall), read back as the hall's latest snapshot at or before `t_s`.
    void writeAirField(std::int64_t run, double t_s, const model::AirField& f);
    /// Every air field of the frame (airFields(f)) at its time, in one transaction.
    void writeAirFields(std::int64_t run, const model::Frame& f);
    std::optional<model::AirField> airFieldAt(std::int64_t run, double t_s, int hall = 0) const;
    std::vector<double> airFieldTimes(std::int64_t run, int hall = 0) const;
    /// The halls with air fields in this run, ascending.
    std::vector<int> airFieldHalls(std::int64_t run) const;
    /// Every hall's latest field at or before `t_s` into `f` (the first hall's as `air`, the others' in
    /// `other_halls_air`); clears both first.
    void loadAirFields(std::int64_t run, double t_s, model::Frame& f) const;

    const std::string& path() const;

private:
    struct Impl;
    explicit TelemetryStore(std::unique_ptr<Impl> impl);
    std::vector<SeriesValues> readSeries(std::int64_t run, double after_s, const std::function<bool(double)>& progress) const;
    std::unique_ptr<Impl> d_;
};

/// Collects samples and writes them sorted by (series, time) in large transactions: a scrape holds one sample
/// of each of many series, and writing scrapes one at a time touches one B-tree page per series each time.
/// Sorting many scrapes together writes each series' samples side by side. Flushes at `flush_at` samples
/// and on destruction; a process killed in between loses only the unflushed samples (re-importing adds them).
class BufferedWriter {
public:
    explicit BufferedWriter(TelemetryStore& store, std::size_t flush_at = 4'000'000) : store_(store), flush_at_(flush_at) {}
    ~BufferedWriter();
    BufferedWriter(const BufferedWriter&) = delete;
    BufferedWriter& operator=(const BufferedWriter&) = delete;
    void add(const Sample& s) {
        buf_.push_back(s);
        if (buf_.size() >= flush_at_) flush();
    }
    /// A source whose samples have all been add()ed: recorded with the flush that stores the last of them,
    /// so a killed import never marks a file read whose samples were lost.
    void addSource(SourceRecord s) { sources_.push_back(std::move(s)); }
    void flush();
    /// What the flushes so far did.
    const WriteStats& stats() const { return stats_; }

private:
    TelemetryStore& store_;
    std::size_t flush_at_;
    std::vector<Sample> buf_;
    std::vector<SourceRecord> sources_;
    WriteStats stats_;
};

}  // namespace ct::runs
