// The store's compressed sample chunks (issue 17): the codec gives back every time and value bit for bit,
// damaged bytes are refused, writes merge into chunks and account for every sample (stored, duplicate,
// collision), queries read across chunk borders, and a version 2 store (one row per sample) is converted.
#include <clustertwin/runs/chunk_codec.hpp>
#include <clustertwin/runs/store.hpp>

#include <sqlite3.h>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

using namespace ct::runs;

class TstChunks : public QObject {
    Q_OBJECT
private slots:
    void codecRoundTripsBitForBit();
    void damagedChunksAreRefused();
    void writesAccountForEverySample();
    void appendsFillChunksAndQueriesCrossThem();
    void aVersion2StoreIsConverted();
    void deleteRunAndSources();
};

namespace {

using Points = std::vector<std::pair<double, double>>;

void roundTrip(const Points& p) {
    const std::string blob = chunk::encode(p.data(), p.size());
    Points back;
    chunk::decode(blob.data(), blob.size(), back);
    QCOMPARE(back.size(), p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
        QCOMPARE(std::bit_cast<std::uint64_t>(back[i].first), std::bit_cast<std::uint64_t>(p[i].first));
        if (std::isfinite(p[i].second)) QCOMPARE(std::bit_cast<std::uint64_t>(back[i].second), std::bit_cast<std::uint64_t>(p[i].second));
        else QVERIFY(std::isnan(back[i].second));  // non-finite is "missing"
    }
}

}  // namespace

void TstChunks::codecRoundTripsBitForBit() {
    std::mt19937_64 rng(42);
    // Regular scrapes (delta-of-delta 0), jitter of every bucket size, values that repeat, drift and jump.
    for (double jitter_ms : {0.0, 3.0, 5000.0, 60000.0, 400000.0, 5e6}) {
        Points p;
        double t = 1.7e9;
        std::uniform_real_distribution<double> j(-jitter_ms, jitter_ms), v(-1e6, 1e6);
        for (int i = 0; i < 240; ++i) {
            t += 10.0 + std::round(j(rng)) / 1000.0 + 10.0;  // whole milliseconds, ascending
            p.emplace_back(t, i % 7 == 0 ? v(rng) : 20.0 + (i % 5) * 0.5);
        }
        roundTrip(p);
    }
    // Times that are not whole milliseconds (a simulation's 0.1 s steps summed), and odd values.
    Points q;
    double t = 0;
    const double inf = std::numeric_limits<double>::infinity();
    const double odd[] = {0.0, -0.0, 1e-310, std::numeric_limits<double>::max(), std::nan(""), inf, -inf, 42.125};
    for (int i = 0; i < 100; ++i) {
        t += 0.1;
        q.emplace_back(t, odd[i % 8]);
    }
    roundTrip(q);
    roundTrip({{-5.5, 1.0}});  // one point, before 1970
    roundTrip({});
    // 360 regular scrapes of a slowly varying gauge take a few bits per point, not 16 bytes.
    Points g;
    for (int i = 0; i < 240; ++i) g.emplace_back(1.7e9 + 15.0 * i, 300.0 + (i % 3));
    const std::string blob = chunk::encode(g.data(), g.size());
    QVERIFY2(blob.size() < 240 * 2, qPrintable(QString::number(blob.size())));
}

void TstChunks::damagedChunksAreRefused() {
    Points p;
    for (int i = 0; i < 50; ++i) p.emplace_back(1000.0 + i, i * 1.5);
    const std::string blob = chunk::encode(p.data(), p.size());
    Points out;
    QVERIFY_THROWS_EXCEPTION(StoreError, chunk::decode(blob.data(), 1, out));
    QVERIFY_THROWS_EXCEPTION(StoreError, chunk::decode(blob.data(), blob.size() / 2, out));  // cut short
    std::string bad = blob;
    bad[0] = 7;  // unknown coding
    QVERIFY_THROWS_EXCEPTION(StoreError, chunk::decode(bad.data(), bad.size(), out));
    std::string huge = blob.substr(0, 1) + std::string("\xff\xff\xff\xff\x0f", 5) + blob.substr(2);  // 4 G points
    QVERIFY_THROWS_EXCEPTION(StoreError, chunk::decode(huge.data(), huge.size(), out));
    // Random bytes never crash (they decode to something or are refused).
    std::mt19937 rng(7);
    for (int k = 0; k < 2000; ++k) {
        std::string junk(static_cast<std::size_t>(rng() % 64), '\0');
        for (char& c : junk) c = static_cast<char>(rng());
        out.clear();
        try {
            chunk::decode(junk.data(), junk.size(), out);
        } catch (const StoreError&) {}
    }
}

void TstChunks::writesAccountForEverySample() {
    QTemporaryDir tmp;
    auto st = TelemetryStore::open(tmp.filePath("s.sqlite").toStdString());
    const auto run = st.createRun("r", "imported", "");
    const auto a = st.series(run, {"n1/gpu0", "power_w", "W", "t"});
    WriteStats w = st.writeBatch({{a, 10, 100}, {a, 20, 200}, {a, 20, 200}, {a, 30, 300}, {a, 30, 301}});
    QCOMPARE(w.stored, std::int64_t(3));
    QCOMPARE(w.duplicates, std::int64_t(1));  // the same reading twice in one batch
    QCOMPARE(w.conflicts, std::int64_t(1));   // two readings for one time: the first is kept
    QCOMPARE(w.conflict_t_s, 30.0);
    QCOMPARE(w.conflict_kept, 300.0);
    QCOMPARE(w.conflict_dropped, 301.0);
    // Against what is stored: again, another value, and new times between the old ones.
    w = st.writeBatch({{a, 10, 100}, {a, 20, 250}, {a, 15, 150}, {a, 40, 400}});
    QCOMPARE(w.stored, std::int64_t(2));
    QCOMPARE(w.duplicates, std::int64_t(1));
    QCOMPARE(w.conflicts, std::int64_t(1));
    QCOMPARE(st.sampleCount(), std::int64_t(5));
    const auto v = st.values(run, "power_w", {}, 0, 100);
    QCOMPARE(v.size(), std::size_t(1));
    const Points want = {{10, 100}, {15, 150}, {20, 200}, {30, 300}, {40, 400}};
    QCOMPARE(v[0].points, want);
    QVERIFY_THROWS_EXCEPTION(StoreError, st.writeBatch({{a, std::nan(""), 1}}));  // a time is required
}

void TstChunks::appendsFillChunksAndQueriesCrossThem() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("s.sqlite").toStdString();
    auto st = TelemetryStore::open(path);
    const auto run = st.createRun("r", "simulated", "");
    const auto a = st.series(run, {"site", "pue", "ratio", "sim"});
    // 1,000 one-second steps written 7 at a time (a recorder's frames), then one old sample in the middle.
    for (int i = 0; i < 1000; i += 7) {
        std::vector<Sample> b;
        for (int k = i; k < std::min(i + 7, 1000); ++k) b.push_back({a, static_cast<double>(k), 1.0 + k * 0.001});
        QCOMPARE(st.writeBatch(b).stored, static_cast<std::int64_t>(b.size()));
    }
    QCOMPARE(st.writeBatch({{a, 499.5, 9.0}}).stored, std::int64_t(1));
    QCOMPARE(st.sampleCount(), std::int64_t(1001));
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        sqlite3_stmt* s = nullptr;
        QCOMPARE(sqlite3_prepare_v2(db, "SELECT COUNT(*), MAX(n) FROM chunks", -1, &s, nullptr), SQLITE_OK);
        QCOMPARE(sqlite3_step(s), SQLITE_ROW);
        const int chunks = sqlite3_column_int(s, 0), largest = sqlite3_column_int(s, 1);
        sqlite3_finalize(s);
        sqlite3_close(db);
        QVERIFY2(chunks <= 6 && largest == int(chunk::kChunkSamples), qPrintable(QString("%1 chunks").arg(chunks)));  // not 143 small ones
    }
    const auto v = st.values(run, "pue", {"site"}, 230.0, 250.0);  // across a chunk border (240)
    QCOMPARE(v[0].points.size(), std::size_t(21));
    QCOMPARE(v[0].points.front().first, 230.0);
    QCOMPARE(v[0].points.back().first, 250.0);
    QCOMPARE(*st.latest(a, 499.7), 9.0);
    QCOMPARE(*st.latest(a, 1e9), 1.0 + 999 * 0.001);
    QVERIFY(!st.latest(a, -1));
    const auto b = st.buckets(a, 0, 1000, 4);
    QCOMPARE(b[0].count + b[1].count + b[2].count + b[3].count, std::int64_t(1001));
    QCOMPARE(b[1].max, 9.0);
    const auto span = st.timeSpan(run);
    QVERIFY(span && span->first == 0.0 && span->second == 999.0);
    const auto sum = st.seriesSummary(run);
    QCOMPARE(sum.size(), std::size_t(1));
    QCOMPARE(sum[0].count, std::int64_t(1001));
    QCOMPARE(st.allSeries(run)[0].points.size(), std::size_t(1001));
}

void TstChunks::aVersion2StoreIsConverted() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("v2.sqlite").toStdString();
    {
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        const char* v2 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version', '2'), ('application', 'clustertwin');
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, scenario_id TEXT, created_at TEXT NOT NULL,
                  end_s REAL, meta TEXT);
INSERT INTO runs VALUES(1, 'old', 'simulated', 'lab', '2026-01-01T00:00:00Z', 60, '{}');
CREATE TABLE series(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, entity TEXT NOT NULL, metric TEXT NOT NULL,
                    unit TEXT NOT NULL, source TEXT NOT NULL, UNIQUE(run_id, entity, metric, source));
INSERT INTO series VALUES(1, 1, 'n1/gpu0', 'temp_c', 'degC', 'sim'), (2, 1, 'n1/gpu1', 'temp_c', 'degC', 'sim');
CREATE TABLE samples(series_id INTEGER NOT NULL, t REAL NOT NULL, value REAL, PRIMARY KEY(series_id, t)) WITHOUT ROWID;
INSERT INTO samples VALUES(1, 0, 30), (1, 1, 31), (1, 2, NULL), (2, 0, 40);
CREATE TABLE events(run_id INTEGER NOT NULL, t REAL NOT NULL, kind TEXT NOT NULL, target TEXT, value REAL, message TEXT,
                    threshold REAL);
)sql";
        QCOMPARE(sqlite3_exec(db, v2, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    auto st = TelemetryStore::open(path, TelemetryStore::Mode::Existing);
    QCOMPARE(st.sampleCount(), std::int64_t(4));
    const auto v = st.values(1, "temp_c", {"n1/gpu0"}, 0, 10);
    QCOMPARE(v[0].points.size(), std::size_t(3));
    QCOMPARE(v[0].points[1].second, 31.0);
    QVERIFY(std::isnan(v[0].points[2].second));  // a missing value stays missing
    QCOMPARE(*st.latest(2, 5), 40.0);
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'samples'", -1, &s, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_step(s), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(s, 0), 0);  // the row table is gone
    sqlite3_finalize(s);
    sqlite3_close(db);
}

void TstChunks::deleteRunAndSources() {
    QTemporaryDir tmp;
    auto st = TelemetryStore::open(tmp.filePath("s.sqlite").toStdString());
    const auto keep = st.createRun("keep", "imported", ""), drop = st.createRun("drop", "imported", "");
    const auto a = st.series(keep, {"x", "power_w", "W", "t"}), b = st.series(drop, {"x", "power_w", "W", "t"});
    st.writeBatch({{a, 1, 1}, {b, 1, 2}, {b, 2, 3}}, {{drop, "abc-10", "f.prom", 2}});
    QVERIFY(st.source(drop, "abc-10"));
    QCOMPARE(st.source(drop, "abc-10")->samples, std::int64_t(2));
    QVERIFY(!st.source(keep, "abc-10"));
    st.deleteRun(drop);
    QCOMPARE(st.runs().size(), std::size_t(1));
    QCOMPARE(st.sampleCount(), std::int64_t(1));
    QVERIFY(!st.source(drop, "abc-10"));
    // A series made after the delete exists in the database (not a remembered id of the deleted run's).
    const auto again = st.createRun("drop", "imported", "");
    const auto c = st.series(again, {"x", "power_w", "W", "t"});
    QCOMPARE(st.writeBatch({{c, 5, 7}}).stored, std::int64_t(1));
    QCOMPARE(st.values(again, "power_w", {"x"}, 0, 10).at(0).points.size(), std::size_t(1));
}

QTEST_GUILESS_MAIN(TstChunks)
#include "tst_chunks.moc"
