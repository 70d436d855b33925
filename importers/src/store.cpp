#include <clustertwin/importers/store.hpp>

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>

namespace ct::importers {

namespace {

// 2: events.threshold (the limit an alert crossed); a version 1 store gains the column when opened.
constexpr int kSchemaVersion = 2;

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK(kind IN ('simulated', 'imported')),
  scenario_id TEXT,
  created_at TEXT NOT NULL,
  end_s REAL,
  meta TEXT);
CREATE TABLE IF NOT EXISTS entities(id TEXT PRIMARY KEY, kind TEXT NOT NULL, parent TEXT, name TEXT);
CREATE TABLE IF NOT EXISTS series(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  entity TEXT NOT NULL, metric TEXT NOT NULL, unit TEXT NOT NULL, source TEXT NOT NULL,
  UNIQUE(run_id, entity, metric, source));
CREATE INDEX IF NOT EXISTS series_by_metric ON series(run_id, metric);
CREATE TABLE IF NOT EXISTS samples(
  series_id INTEGER NOT NULL, t REAL NOT NULL, value REAL,
  PRIMARY KEY(series_id, t)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, kind TEXT NOT NULL, target TEXT, value REAL, message TEXT, threshold REAL);
CREATE INDEX IF NOT EXISTS events_by_time ON events(run_id, t);
CREATE TABLE IF NOT EXISTS air_fields(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, nx INTEGER NOT NULL, ny INTEGER NOT NULL, nz INTEGER NOT NULL, cell_m REAL NOT NULL,
  temp BLOB NOT NULL, velocity BLOB, seeds BLOB,
  PRIMARY KEY(run_id, t));
)sql";

/// A prepared statement, finalized on destruction.
class Stmt {
public:
    Stmt(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
        if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK) fail("prepare");
    }
    ~Stmt() { sqlite3_finalize(s_); }
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;
    Stmt& bind(int i, double v) { return check(sqlite3_bind_double(s_, i, v)); }
    Stmt& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(s_, i, v)); }
    Stmt& bind(int i, const std::string& v) { return check(sqlite3_bind_text(s_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT)); }
    Stmt& bindNull(int i) { return check(sqlite3_bind_null(s_, i)); }
    Stmt& bindFloats(int i, const std::vector<float>& v) {
        if (v.empty()) return bindNull(i);
        return check(sqlite3_bind_blob64(s_, i, v.data(), v.size() * sizeof(float), SQLITE_TRANSIENT));
    }
    std::vector<float> floats(int c) const {
        const auto* p = static_cast<const float*>(sqlite3_column_blob(s_, c));
        const auto n = static_cast<std::size_t>(sqlite3_column_bytes(s_, c)) / sizeof(float);
        return p ? std::vector<float>(p, p + n) : std::vector<float>();
    }
    /// Steps once: true while a row is available.
    bool step() {
        const int rc = sqlite3_step(s_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail("step");
        return false;
    }
    void reset() {
        sqlite3_reset(s_);
        sqlite3_clear_bindings(s_);
    }
    double real(int c) const { return sqlite3_column_double(s_, c); }
    std::int64_t integer(int c) const { return sqlite3_column_int64(s_, c); }
    bool null(int c) const { return sqlite3_column_type(s_, c) == SQLITE_NULL; }
    std::string text(int c) const {
        const auto* p = sqlite3_column_text(s_, c);
        return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
    }

private:
    Stmt& check(int rc) {
        if (rc != SQLITE_OK) fail("bind");
        return *this;
    }
    [[noreturn]] void fail(const char* what) const {
        throw ImportError(path_ + ": SQLite " + what + " failed: " + sqlite3_errmsg(db_));
    }
    sqlite3* db_;
    sqlite3_stmt* s_ = nullptr;
    const std::string& path_;
};

std::string nowIso() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

} // namespace

struct TelemetryStore::Impl {
    sqlite3* db = nullptr;
    std::string path;
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> series_cache;  // (run, entity\x1fmetric\x1fsource)

    ~Impl() {
        if (db) sqlite3_close_v2(db);
    }
    /// Runs fn inside BEGIN/COMMIT; rolls back and rethrows on failure.
    template <class F>
    void transaction(F&& fn) {
        exec("BEGIN");
        try {
            fn();
            exec("COMMIT");
        } catch (...) {
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    }
    void exec(const char* sql) {
        char* msg = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
            std::string m = msg ? msg : "unknown error";
            sqlite3_free(msg);
            throw ImportError(path + ": SQLite: " + m);
        }
    }
};

TelemetryStore::TelemetryStore(std::unique_ptr<Impl> impl) : d_(std::move(impl)) {}
TelemetryStore::TelemetryStore(TelemetryStore&&) noexcept = default;
TelemetryStore& TelemetryStore::operator=(TelemetryStore&&) noexcept = default;
TelemetryStore::~TelemetryStore() = default;

const std::string& TelemetryStore::path() const { return d_->path; }

TelemetryStore TelemetryStore::open(const std::string& path, Mode mode) {
    auto impl = std::make_unique<Impl>();
    impl->path = path;
    std::error_code ec;
    const bool is_file = std::filesystem::is_regular_file(path, ec);
    if (mode == Mode::Existing && !is_file) throw ImportError(path + ": no such run database");
    if (is_file && std::filesystem::file_size(path, ec) > 0) {
        // SQLite would take over a small file of anything (a typo'd --db notes.txt): refuse what is not SQLite.
        std::ifstream in(path, std::ios::binary);
        char head[16] = {};
        in.read(head, sizeof head);
        if (in.gcount() < 16 || std::string(head, 16) != std::string("SQLite format 3\0", 16))
            throw ImportError(path + ": not a ClusterTwin store (not an SQLite database); left untouched");
    }
    const int flags = SQLITE_OPEN_READWRITE | (mode == Mode::Create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK) {
        const std::string msg = impl->db ? sqlite3_errmsg(impl->db) : "out of memory";
        throw ImportError(path + ": cannot open the database: " + msg);
    }
    sqlite3_busy_timeout(impl->db, 5000);
    try {
        impl->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY;");
    } catch (const ImportError& e) {
        throw ImportError(path + ": not a ClusterTwin store (" + e.what() + ")");
    }
    if (mode == Mode::Existing) {
        // Only read what is there: a database without our meta table is not a store (and is left untouched).
        Stmt has(impl->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'", impl->path);
        if (!has.step()) throw ImportError(path + ": not a ClusterTwin store (no meta table)");
    }
    impl->transaction([&] {
        impl->exec(kSchema);
        int v = -1;
        {
            Stmt get(impl->db, "SELECT value FROM meta WHERE key = 'schema_version'", impl->path);
            if (get.step()) v = std::stoi(get.text(0));
        }  // finalized before the schema may change below
        if (v >= 0) {
            if (v > kSchemaVersion)
                throw ImportError(path + ": store schema version " + std::to_string(v) + " is newer than this program's (" +
                                  std::to_string(kSchemaVersion) + ")");
            if (v < 2) {
                // Version 1: events without threshold. Add it (nullable: older rows have none).
                bool has = false;
                Stmt cols(impl->db, "PRAGMA table_info(events)", impl->path);
                while (cols.step()) has = has || cols.text(1) == "threshold";
                if (!has) impl->exec("ALTER TABLE events ADD COLUMN threshold REAL");
                Stmt put(impl->db, "UPDATE meta SET value = ?1 WHERE key = 'schema_version'", impl->path);
                put.bind(1, std::to_string(kSchemaVersion));
                put.step();
            }
        } else {
            Stmt put(impl->db, "INSERT INTO meta(key, value) VALUES('schema_version', ?1), ('application', 'clustertwin')", impl->path);
            put.bind(1, std::to_string(kSchemaVersion));
            put.step();
        }
    });
    return TelemetryStore(std::move(impl));
}

std::int64_t TelemetryStore::createRun(const std::string& name, const std::string& kind, const std::string& scenario_id,
                                       const std::string& meta_json) {
    Stmt s(d_->db, "INSERT INTO runs(name, kind, scenario_id, created_at, meta) VALUES(?1, ?2, ?3, ?4, ?5)", d_->path);
    s.bind(1, name).bind(2, kind).bind(3, scenario_id).bind(4, nowIso()).bind(5, meta_json);
    s.step();
    return sqlite3_last_insert_rowid(d_->db);
}

void TelemetryStore::finishRun(std::int64_t run, double end_s) {
    Stmt s(d_->db, "UPDATE runs SET end_s = ?1 WHERE id = ?2", d_->path);
    s.bind(1, end_s).bind(2, run);
    s.step();
}

void TelemetryStore::setRunMeta(std::int64_t run, const std::string& meta_json) {
    Stmt s(d_->db, "UPDATE runs SET meta = ?1 WHERE id = ?2", d_->path);
    s.bind(1, meta_json).bind(2, run);
    s.step();
}

std::optional<std::pair<double, double>> TelemetryStore::timeSpan(std::int64_t run) const {
    // Per series through the samples' primary key, not a scan of every sample.
    Stmt s(d_->db,
           "SELECT MIN((SELECT MIN(t) FROM samples WHERE series_id = r.id)), MAX((SELECT MAX(t) FROM samples WHERE series_id = r.id)) "
           "FROM series r WHERE r.run_id = ?1",
           d_->path);
    s.bind(1, run);
    if (!s.step() || s.null(0)) return std::nullopt;
    return std::make_pair(s.real(0), s.real(1));
}

std::vector<RunInfo> TelemetryStore::runs() const {
    Stmt s(d_->db, "SELECT id, name, kind, scenario_id, created_at, end_s, meta FROM runs ORDER BY id", d_->path);
    std::vector<RunInfo> out;
    while (s.step()) {
        RunInfo r{s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(6), std::nullopt};
        if (!s.null(5)) r.end_s = s.real(5);
        out.push_back(std::move(r));
    }
    return out;
}

void TelemetryStore::upsertEntities(const std::vector<EntityInfo>& entities) {
    d_->transaction([&] {
        Stmt s(d_->db, "INSERT INTO entities(id, kind, parent, name) VALUES(?1, ?2, ?3, ?4) "
                       "ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, parent = excluded.parent, name = excluded.name",
               d_->path);
        for (const auto& e : entities) {
            s.bind(1, e.id).bind(2, e.kind).bind(3, e.parent).bind(4, e.name);
            s.step();
            s.reset();
        }
    });
}

std::vector<EntityInfo> TelemetryStore::entities() const {
    Stmt s(d_->db, "SELECT id, kind, parent, name FROM entities ORDER BY id", d_->path);
    std::vector<EntityInfo> out;
    while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.text(3)});
    return out;
}

std::int64_t TelemetryStore::series(std::int64_t run, const SeriesKey& key) {
    const std::string ck = key.entity + '\x1f' + key.metric + '\x1f' + key.source;
    if (auto it = d_->series_cache.find({run, ck}); it != d_->series_cache.end()) return it->second;
    Stmt ins(d_->db, "INSERT OR IGNORE INTO series(run_id, entity, metric, unit, source) VALUES(?1, ?2, ?3, ?4, ?5)", d_->path);
    ins.bind(1, run).bind(2, key.entity).bind(3, key.metric).bind(4, key.unit).bind(5, key.source);
    ins.step();
    Stmt get(d_->db, "SELECT id FROM series WHERE run_id = ?1 AND entity = ?2 AND metric = ?3 AND source = ?4", d_->path);
    get.bind(1, run).bind(2, key.entity).bind(3, key.metric).bind(4, key.source);
    if (!get.step()) throw ImportError(d_->path + ": series not found after insert");
    const std::int64_t id = get.integer(0);
    d_->series_cache[{run, ck}] = id;
    return id;
}

std::vector<std::int64_t> TelemetryStore::seriesMany(std::int64_t run, const std::vector<SeriesKey>& keys) {
    std::vector<std::int64_t> ids(keys.size());
    d_->transaction([&] {
        for (std::size_t i = 0; i < keys.size(); ++i) ids[i] = series(run, keys[i]);
    });
    return ids;
}

BufferedWriter::~BufferedWriter() {
    try {
        flush();
    } catch (...) {  // a destructor must not throw; callers who care call flush() themselves
    }
}

void BufferedWriter::flush() {
    if (buf_.empty()) return;
    std::sort(buf_.begin(), buf_.end(), [](const Sample& a, const Sample& b) { return a.series != b.series ? a.series < b.series : a.t_s < b.t_s; });
    store_.writeBatch(buf_);
    buf_.clear();
}

void TelemetryStore::writeBatch(const std::vector<Sample>& samples) {
    if (samples.empty()) return;
    d_->transaction([&] {
        Stmt s(d_->db, "INSERT OR IGNORE INTO samples(series_id, t, value) VALUES(?1, ?2, ?3)", d_->path);
        for (const Sample& x : samples) {
            s.bind(1, x.series).bind(2, x.t_s);
            if (std::isfinite(x.value)) s.bind(3, x.value);
            else s.bindNull(3);  // NaN/Inf are stored as missing values
            s.step();
            s.reset();
        }
    });
}

void TelemetryStore::writeEvents(std::int64_t run, const std::vector<StoredEvent>& events) {
    if (events.empty()) return;
    d_->transaction([&] {
        // An event already stored (same run, time, kind and target) is not stored again: re-imports add nothing.
        Stmt s(d_->db,
               "INSERT INTO events(run_id, t, kind, target, value, message, threshold) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7 "
               "WHERE NOT EXISTS (SELECT 1 FROM events WHERE run_id = ?1 AND t = ?2 AND kind = ?3 AND target = ?4)",
               d_->path);
        for (const auto& e : events) {
            s.bind(1, run).bind(2, e.t_s).bind(3, e.kind).bind(4, e.target);
            if (e.value) s.bind(5, *e.value);
            else s.bindNull(5);
            s.bind(6, e.message);
            if (e.threshold) s.bind(7, *e.threshold);
            else s.bindNull(7);
            s.step();
            s.reset();
        }
    });
}

std::vector<SeriesValues> TelemetryStore::values(std::int64_t run, const std::string& metric,
                                                 const std::vector<std::string>& entities, double t0, double t1) const {
    Stmt ser(d_->db, "SELECT id, entity, metric, unit, source FROM series WHERE run_id = ?1 AND metric = ?2 ORDER BY entity, source",
             d_->path);
    ser.bind(1, run).bind(2, metric);
    std::vector<SeriesValues> out;
    while (ser.step()) {
        SeriesValues v;
        v.series = ser.integer(0);
        v.key = {ser.text(1), ser.text(2), ser.text(3), ser.text(4)};
        if (!entities.empty() && std::find(entities.begin(), entities.end(), v.key.entity) == entities.end()) continue;
        out.push_back(std::move(v));
    }
    Stmt pts(d_->db, "SELECT t, value FROM samples WHERE series_id = ?1 AND t >= ?2 AND t <= ?3 ORDER BY t", d_->path);
    for (auto& v : out) {
        pts.bind(1, v.series).bind(2, t0).bind(3, t1);
        while (pts.step()) v.points.emplace_back(pts.real(0), pts.null(1) ? std::nan("") : pts.real(1));
        pts.reset();
    }
    return out;
}

std::optional<double> TelemetryStore::latest(std::int64_t series, double t_s) const {
    Stmt s(d_->db, "SELECT value FROM samples WHERE series_id = ?1 AND t <= ?2 ORDER BY t DESC LIMIT 1", d_->path);
    s.bind(1, series).bind(2, t_s);
    if (s.step() && !s.null(0)) return s.real(0);
    return std::nullopt;
}

std::vector<Bucket> TelemetryStore::buckets(std::int64_t series, double t0, double t1, int n) const {
    if (n < 1 || !(t1 > t0)) throw ImportError("buckets: need n >= 1 and t1 > t0");
    std::vector<Bucket> out(static_cast<std::size_t>(n));
    const double w = (t1 - t0) / n;
    for (int i = 0; i < n; ++i) {
        out[i].t0_s = t0 + i * w;
        out[i].t1_s = t0 + (i + 1) * w;
    }
    Stmt s(d_->db,
           "SELECT MIN(CAST((t - ?2) / ?4 AS INTEGER), ?5 - 1) AS b, MIN(value), MAX(value), AVG(value), COUNT(value) "
           "FROM samples WHERE series_id = ?1 AND t >= ?2 AND t <= ?3 AND value IS NOT NULL GROUP BY b ORDER BY b",
           d_->path);
    s.bind(1, series).bind(2, t0).bind(3, t1).bind(4, w).bind(5, static_cast<std::int64_t>(n));
    while (s.step()) {
        const auto b = s.integer(0);
        if (b < 0 || b >= n) continue;
        out[b].min = s.real(1);
        out[b].max = s.real(2);
        out[b].mean = s.real(3);
        out[b].count = s.integer(4);
    }
    return out;
}

std::vector<StoredEvent> TelemetryStore::events(std::int64_t run) const {
    Stmt s(d_->db, "SELECT t, kind, target, value, message, threshold FROM events WHERE run_id = ?1 ORDER BY t, rowid", d_->path);
    s.bind(1, run);
    std::vector<StoredEvent> out;
    while (s.step()) {
        StoredEvent e{s.real(0), s.text(1), s.text(2), std::nullopt, s.text(4), std::nullopt};
        if (!s.null(3)) e.value = s.real(3);
        if (!s.null(5)) e.threshold = s.real(5);
        out.push_back(std::move(e));
    }
    return out;
}

std::int64_t TelemetryStore::sampleCount() const {
    Stmt s(d_->db, "SELECT COUNT(*) FROM samples", d_->path);
    s.step();
    return s.integer(0);
}

void TelemetryStore::writeAirField(std::int64_t run, double t_s, const model::AirField& f) {
    const std::size_t n = static_cast<std::size_t>(f.nx) * f.ny * f.nz;
    if (n == 0 || f.temp_c.size() != n || (!f.velocity_ms.empty() && f.velocity_ms.size() != 3 * n))
        throw ImportError(d_->path + ": air field at t=" + std::to_string(t_s) + " has inconsistent sizes");
    Stmt s(d_->db, "INSERT OR REPLACE INTO air_fields(run_id, t, nx, ny, nz, cell_m, temp, velocity, seeds) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
           d_->path);
    s.bind(1, run).bind(2, t_s).bind(3, std::int64_t{f.nx}).bind(4, std::int64_t{f.ny}).bind(5, std::int64_t{f.nz}).bind(6, f.cell_m);
    s.bindFloats(7, f.temp_c).bindFloats(8, f.velocity_ms).bindFloats(9, f.supply_points_m);
    s.step();
}

std::vector<double> TelemetryStore::airFieldTimes(std::int64_t run) const {
    Stmt s(d_->db, "SELECT t FROM air_fields WHERE run_id = ?1 ORDER BY t", d_->path);
    s.bind(1, run);
    std::vector<double> out;
    while (s.step()) out.push_back(s.real(0));
    return out;
}

std::optional<model::AirField> TelemetryStore::airFieldAt(std::int64_t run, double t_s) const {
    Stmt s(d_->db, "SELECT nx, ny, nz, cell_m, temp, velocity, seeds FROM air_fields WHERE run_id = ?1 AND t <= ?2 ORDER BY t DESC LIMIT 1",
           d_->path);
    s.bind(1, run).bind(2, t_s);
    if (!s.step()) return std::nullopt;
    model::AirField f{static_cast<int>(s.integer(0)), static_cast<int>(s.integer(1)), static_cast<int>(s.integer(2)), s.real(3),
                      s.floats(4), s.floats(5), s.floats(6)};
    const std::size_t n = static_cast<std::size_t>(f.nx) * f.ny * f.nz;
    if (f.temp_c.size() != n || (!f.velocity_ms.empty() && f.velocity_ms.size() != 3 * n))
        throw ImportError(d_->path + ": the air field of run " + std::to_string(run) + " near t=" + std::to_string(t_s) + " is damaged");
    return f;
}

std::vector<SeriesValues> TelemetryStore::allSeries(std::int64_t run, const std::function<bool(double)>& progress) const {
    Stmt ser(d_->db, "SELECT id, entity, metric, unit, source FROM series WHERE run_id = ?1 ORDER BY id", d_->path);
    ser.bind(1, run);
    std::vector<SeriesValues> out;
    std::map<std::int64_t, std::size_t> at;
    while (ser.step()) {
        at[ser.integer(0)] = out.size();
        out.push_back({ser.integer(0), {ser.text(1), ser.text(2), ser.text(3), ser.text(4)}, {}});
    }
    if (out.empty()) return out;
    Stmt pts(d_->db, "SELECT series_id, t, value FROM samples WHERE series_id >= ?1 AND series_id <= ?2 ORDER BY series_id, t", d_->path);
    pts.bind(1, out.front().series).bind(2, out.back().series);
    std::size_t rows = 0;
    while (pts.step()) {
        // Rows come by series: the series reached is a fair measure of the way done.
        auto it = at.find(pts.integer(0));
        if (progress && ++rows % 65536 == 0 && it != at.end() &&
            !progress(static_cast<double>(it->second + 1) / static_cast<double>(out.size())))
            throw LoadCancelled();
        if (it != at.end()) out[it->second].points.emplace_back(pts.real(1), pts.null(2) ? std::nan("") : pts.real(2));
    }
    return out;
}

} // namespace ct::importers
