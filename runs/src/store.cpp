#include <clustertwin/runs/store.hpp>

#include <cstdio>

#include "store_impl.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>

namespace ct::runs {

using detail::Stmt;

namespace {

// 2: events.threshold (the limit an alert crossed); a version 1 store gains the column when opened.
// 3: samples in compressed chunks (and sources); a version 2 store's samples are moved into chunks when opened.
// 4: events.severity (an alert rule's own severity; NULL: its kind's); a version 3 store gains the column.
constexpr int kSchemaVersion = 4;

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
CREATE TABLE IF NOT EXISTS chunks(
  series_id INTEGER NOT NULL, t0 REAL NOT NULL, t1 REAL NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY(series_id, t0)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sources(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  hash TEXT NOT NULL, name TEXT, samples INTEGER, imported_at TEXT,
  PRIMARY KEY(run_id, hash));
CREATE TABLE IF NOT EXISTS events(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, kind TEXT NOT NULL, target TEXT, value REAL, message TEXT, threshold REAL, severity TEXT);
CREATE INDEX IF NOT EXISTS events_by_time ON events(run_id, t);
CREATE TABLE IF NOT EXISTS air_fields(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, nx INTEGER NOT NULL, ny INTEGER NOT NULL, nz INTEGER NOT NULL, cell_m REAL NOT NULL,
  temp BLOB NOT NULL, velocity BLOB, seeds BLOB,
  PRIMARY KEY(run_id, t));
CREATE TABLE IF NOT EXISTS run_scenarios(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, scenario TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hall_air_fields(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, hall INTEGER NOT NULL,
  t REAL NOT NULL, nx INTEGER NOT NULL, ny INTEGER NOT NULL, nz INTEGER NOT NULL, cell_m REAL NOT NULL,
  temp BLOB NOT NULL, velocity BLOB, seeds BLOB,
  PRIMARY KEY(run_id, hall, t));
)sql";

std::string nowIso() {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace

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
    if (mode == Mode::Existing && !is_file) throw StoreError(path + ": no such run database");
    if (is_file && std::filesystem::file_size(path, ec) > 0) {
        // SQLite would take over a small file of anything (a typo'd --db notes.txt): refuse what is not SQLite.
        std::ifstream in(path, std::ios::binary);
        char head[16] = {};
        in.read(head, sizeof head);
        if (in.gcount() < 16 || std::string(head, 16) != std::string("SQLite format 3\0", 16))
            throw StoreError(path + ": not a ClusterTwin store (not an SQLite database); left untouched");
    }
    const int flags = SQLITE_OPEN_READWRITE | (mode == Mode::Create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK) {
        const std::string msg = impl->db ? sqlite3_errmsg(impl->db) : "out of memory";
        throw StoreError(path + ": cannot open the database: " + msg);
    }
    sqlite3_busy_timeout(impl->db, 5000);
    try {
        impl->exec(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-262144; PRAGMA "
            "temp_store=MEMORY;");
    } catch (const StoreError& e) {
        throw StoreError(path + ": not a ClusterTwin store (" + e.what() + ")");
    }
    if (mode == Mode::Existing) {
        // Only read what is there: a database without our meta table is not a store (and is left untouched).
        Stmt has(impl->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'", impl->path);
        if (!has.step()) throw StoreError(path + ": not a ClusterTwin store (no meta table)");
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
                throw StoreError(path + ": store schema version " + std::to_string(v) + " is newer than this program's (" +
                                 std::to_string(kSchemaVersion) + ")");
            if (v < kSchemaVersion) {
                // Versions 1–3: events without threshold (1) or severity (1–3). Add them (nullable: older rows have none).
                for (const char* col : {"threshold REAL", "severity TEXT"}) {
                    const std::string def = col, name = def.substr(0, def.find(' '));
                    bool has = false;
                    {
                        Stmt cols(impl->db, "PRAGMA table_info(events)", impl->path);
                        while (cols.step()) has = has || cols.text(1) == name;
                    }
                    if (!has) impl->exec(("ALTER TABLE events ADD COLUMN " + def).c_str());
                }
                // Versions 1 and 2: one row per sample. Into chunks, then the old table goes.
                if (v < 3) detail::moveRowSamplesIntoChunks(impl->db, impl->path);
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

void removeDatabaseFiles(const std::string& path) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

std::int64_t TelemetryStore::createRun(const std::string& name, const std::string& kind, const std::string& scenario_id,
                                       const RunMeta& meta) {
    Stmt s(d_->db, "INSERT INTO runs(name, kind, scenario_id, created_at, meta) VALUES(?1, ?2, ?3, ?4, ?5)", d_->path);
    s.bind(1, name).bind(2, kind).bind(3, scenario_id).bind(4, nowIso()).bind(5, meta.toJson());
    s.step();
    const std::int64_t run = sqlite3_last_insert_rowid(d_->db);
    if (!meta.scenario_json.empty()) {
        Stmt put(d_->db, "INSERT INTO run_scenarios(run_id, scenario) VALUES(?1, ?2)", d_->path);
        put.bind(1, run).bind(2, meta.scenario_json);
        put.step();
    }
    return run;
}

std::optional<std::string> TelemetryStore::runScenario(std::int64_t run) const {
    Stmt s(d_->db, "SELECT scenario FROM run_scenarios WHERE run_id = ?1", d_->path);
    s.bind(1, run);
    if (!s.step()) return std::nullopt;
    return s.text(0);
}

void TelemetryStore::finishRun(std::int64_t run, double end_s) {
    Stmt s(d_->db, "UPDATE runs SET end_s = ?1 WHERE id = ?2", d_->path);
    s.bind(1, end_s).bind(2, run);
    s.step();
}

void TelemetryStore::setRunMeta(std::int64_t run, const RunMeta& meta) {
    Stmt s(d_->db, "UPDATE runs SET meta = ?1 WHERE id = ?2", d_->path);
    s.bind(1, meta.toJson()).bind(2, run);
    s.step();
}

std::vector<RunInfo> TelemetryStore::runs() const {
    Stmt s(d_->db, "SELECT id, name, kind, scenario_id, created_at, end_s, meta FROM runs ORDER BY id", d_->path);
    std::vector<RunInfo> out;
    while (s.step()) {
        RunInfo r{s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), RunMeta::parse(s.text(6)), std::nullopt};
        if (!s.null(5)) r.end_s = s.real(5);
        out.push_back(std::move(r));
    }
    return out;
}

void TelemetryStore::upsertEntities(const std::vector<EntityInfo>& entities) {
    d_->transaction([&] {
        Stmt s(d_->db,
               "INSERT INTO entities(id, kind, parent, name) VALUES(?1, ?2, ?3, ?4) "
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

std::int64_t TelemetryStore::series(std::int64_t run, const SeriesKey& key) { return seriesMany(run, {key}).front(); }

std::vector<std::int64_t> TelemetryStore::seriesMany(std::int64_t run, const std::vector<SeriesKey>& keys) {
    std::vector<std::int64_t> ids(keys.size());
    std::vector<std::size_t> missing;
    std::string ck;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        ck.assign(keys[i].entity).append(1, '\x1f').append(keys[i].metric).append(1, '\x1f').append(keys[i].source);
        if (auto it = d_->series_cache.find({run, ck}); it != d_->series_cache.end()) ids[i] = it->second;
        else missing.push_back(i);
    }
    if (missing.empty()) return ids;
    d_->transaction([&] {
        Stmt ins(d_->db, "INSERT OR IGNORE INTO series(run_id, entity, metric, unit, source) VALUES(?1, ?2, ?3, ?4, ?5)", d_->path);
        Stmt get(d_->db, "SELECT id FROM series WHERE run_id = ?1 AND entity = ?2 AND metric = ?3 AND source = ?4", d_->path);
        for (std::size_t i : missing) {
            const SeriesKey& key = keys[i];
            ins.bind(1, run).bind(2, key.entity).bind(3, key.metric).bind(4, key.unit).bind(5, key.source);
            ins.step();
            ins.reset();
            get.bind(1, run).bind(2, key.entity).bind(3, key.metric).bind(4, key.source);
            if (!get.step()) throw StoreError(d_->path + ": series not found after insert");
            ids[i] = get.integer(0);
            get.reset();
        }
    });
    for (std::size_t i : missing)  // after the commit: a rolled-back id is never remembered
        d_->series_cache[{run, keys[i].entity + '\x1f' + keys[i].metric + '\x1f' + keys[i].source}] = ids[i];
    return ids;
}

void TelemetryStore::writeEvents(std::int64_t run, const std::vector<StoredEvent>& events) {
    if (events.empty()) return;
    d_->transaction([&] {
        // An event already stored (same run, time, kind and target) is not stored again: re-imports add nothing.
        Stmt s(d_->db,
               "INSERT INTO events(run_id, t, kind, target, value, message, threshold, severity) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 "
               "WHERE NOT EXISTS (SELECT 1 FROM events WHERE run_id = ?1 AND t = ?2 AND kind = ?3 AND target = ?4)",
               d_->path);
        for (const auto& e : events) {
            s.bind(1, run).bind(2, e.t_s).bind(3, e.kind).bind(4, e.target);
            if (e.value) s.bind(5, *e.value);
            else s.bindNull(5);
            s.bind(6, e.message);
            if (e.threshold) s.bind(7, *e.threshold);
            else s.bindNull(7);
            if (!e.severity.empty()) s.bind(8, e.severity);
            else s.bindNull(8);
            s.step();
            s.reset();
        }
    });
}

std::int64_t TelemetryStore::eventCount(std::int64_t run, const std::string& kind) const {
    Stmt s(d_->db,
           kind.empty() ? "SELECT count(*) FROM events WHERE run_id = ?1" : "SELECT count(*) FROM events WHERE run_id = ?1 AND kind = ?2",
           d_->path);
    s.bind(1, run);
    if (!kind.empty()) s.bind(2, kind);
    return s.step() ? s.integer(0) : 0;
}

std::vector<StoredEvent> TelemetryStore::events(std::int64_t run) const {
    Stmt s(d_->db, "SELECT t, kind, target, value, message, threshold, severity FROM events WHERE run_id = ?1 ORDER BY t, rowid", d_->path);
    s.bind(1, run);
    std::vector<StoredEvent> out;
    while (s.step()) {
        StoredEvent e{s.real(0), s.text(1), s.text(2), std::nullopt, s.text(4), std::nullopt};
        if (!s.null(3)) e.value = s.real(3);
        if (!s.null(5)) e.threshold = s.real(5);
        if (!s.null(6)) e.severity = s.text(6);
        out.push_back(std::move(e));
    }
    return out;
}

// The first hall's fields live in air_fields (as before multi-hall runs were recorded), the others' in
// hall_air_fields with their hall index.
void TelemetryStore::writeAirField(std::int64_t run, double t_s, const model::AirField& f) {
    const std::size_t n = static_cast<std::size_t>(f.nx) * f.ny * f.nz;
    if (n == 0 || f.temp_c.size() != n || (!f.velocity_ms.empty() && f.velocity_ms.size() != 3 * n))
        throw StoreError(d_->path + ": air field of hall " + std::to_string(f.hall) + " at t=" + std::to_string(t_s) +
                         " has inconsistent sizes");
    if (f.hall < 0) throw StoreError(d_->path + ": air field at t=" + std::to_string(t_s) + " names hall " + std::to_string(f.hall));
    if (f.hall == 0) {
        Stmt s(d_->db,
               "INSERT OR REPLACE INTO air_fields(run_id, t, nx, ny, nz, cell_m, temp, velocity, seeds) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, "
               "?8, ?9)",
               d_->path);
        s.bind(1, run).bind(2, t_s).bind(3, std::int64_t{f.nx}).bind(4, std::int64_t{f.ny}).bind(5, std::int64_t{f.nz}).bind(6, f.cell_m);
        s.bindFloats(7, f.temp_c).bindFloats(8, f.velocity_ms).bindFloats(9, f.supply_points_m);
        s.step();
        return;
    }
    Stmt s(d_->db,
           "INSERT OR REPLACE INTO hall_air_fields(run_id, hall, t, nx, ny, nz, cell_m, temp, velocity, seeds) VALUES(?1, ?2, ?3, ?4, ?5, "
           "?6, ?7, ?8, ?9, ?10)",
           d_->path);
    s.bind(1, run)
        .bind(2, std::int64_t{f.hall})
        .bind(3, t_s)
        .bind(4, std::int64_t{f.nx})
        .bind(5, std::int64_t{f.ny})
        .bind(6, std::int64_t{f.nz});
    s.bind(7, f.cell_m).bindFloats(8, f.temp_c).bindFloats(9, f.velocity_ms).bindFloats(10, f.supply_points_m);
    s.step();
}

void TelemetryStore::writeAirFields(std::int64_t run, const model::Frame& f) {
    const auto fields = model::airFields(f);
    if (fields.empty()) return;
    // A savepoint: all of the step's halls or none, inside a caller's transaction or not.
    d_->exec("SAVEPOINT air_fields");
    try {
        for (const model::AirField* a : fields) writeAirField(run, f.time_s, *a);
    } catch (...) {
        sqlite3_exec(d_->db, "ROLLBACK TO air_fields; RELEASE air_fields", nullptr, nullptr, nullptr);
        throw;
    }
    d_->exec("RELEASE air_fields");
}

std::vector<double> TelemetryStore::airFieldTimes(std::int64_t run, int hall) const {
    Stmt s(d_->db,
           hall == 0 ? "SELECT t FROM air_fields WHERE run_id = ?1 ORDER BY t"
                     : "SELECT t FROM hall_air_fields WHERE run_id = ?1 AND hall = ?2 ORDER BY t",
           d_->path);
    s.bind(1, run);
    if (hall != 0) s.bind(2, std::int64_t{hall});
    std::vector<double> out;
    while (s.step()) out.push_back(s.real(0));
    return out;
}

std::vector<int> TelemetryStore::airFieldHalls(std::int64_t run) const {
    std::vector<int> out;
    {
        Stmt s(d_->db, "SELECT 1 FROM air_fields WHERE run_id = ?1 LIMIT 1", d_->path);
        s.bind(1, run);
        if (s.step()) out.push_back(0);
    }
    Stmt s(d_->db, "SELECT DISTINCT hall FROM hall_air_fields WHERE run_id = ?1 ORDER BY hall", d_->path);
    s.bind(1, run);
    while (s.step()) out.push_back(static_cast<int>(s.integer(0)));
    return out;
}

void TelemetryStore::loadAirFields(std::int64_t run, double t_s, model::Frame& f) const {
    f.air.reset();
    f.other_halls_air.clear();
    for (int h : airFieldHalls(run)) {
        auto field = airFieldAt(run, t_s, h);
        if (!field) continue;
        if (h == 0) f.air = std::move(field);
        else f.other_halls_air.push_back(std::move(*field));
    }
}

std::optional<model::AirField> TelemetryStore::airFieldAt(std::int64_t run, double t_s, int hall) const {
    Stmt s(d_->db,
           hall == 0
               ? "SELECT nx, ny, nz, cell_m, temp, velocity, seeds FROM air_fields WHERE run_id = ?1 AND t <= ?2 ORDER BY t DESC LIMIT 1"
               : "SELECT nx, ny, nz, cell_m, temp, velocity, seeds FROM hall_air_fields WHERE run_id = ?1 AND t <= ?2 AND hall = ?3 "
                 "ORDER BY t DESC LIMIT 1",
           d_->path);
    s.bind(1, run).bind(2, t_s);
    if (hall != 0) s.bind(3, std::int64_t{hall});
    if (!s.step()) return std::nullopt;
    model::AirField f{static_cast<int>(s.integer(0)),
                      static_cast<int>(s.integer(1)),
                      static_cast<int>(s.integer(2)),
                      s.real(3),
                      s.floats(4),
                      s.floats(5),
                      s.floats(6),
                      hall};
    const std::size_t n = static_cast<std::size_t>(f.nx) * f.ny * f.nz;
    if (f.temp_c.size() != n || (!f.velocity_ms.empty() && f.velocity_ms.size() != 3 * n))
        throw StoreError(d_->path + ": the air field of run " + std::to_string(run) + ", hall " + std::to_string(hall) +
                         " near t=" + std::to_string(t_s) + " is damaged");
    return f;
}

}  // namespace ct::runs
