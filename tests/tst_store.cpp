// The telemetry store (issue 2 defines it, issue 4 fills it): batches, no duplicates, window queries, latest
// value, buckets, events, reopening, refusing files that are not a store.
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/run_checks.hpp>
#include <clustertwin/runs/store.hpp>

#include <QFile>

#include <sqlite3.h>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace ct::runs;

class TstStore : public QObject {
    Q_OBJECT
private slots:
    void writesAndQueriesSeries();
    void rewritingTheSameSamplesAddsNoDuplicates();
    void bucketsGiveMinMaxMean();
    void eventsAndRunsSurviveAReopen();
    void aFileThatIsNotAStoreIsRefused();
    void alertsKeepTheirValueAndThresholdAndAVersion1StoreIsUpgraded();
    void aHeatImbalanceAtSteadyStateIsAFinding();
};

void TstStore::writesAndQueriesSeries() {
    QTemporaryDir tmp;
    auto st = TelemetryStore::open(tmp.filePath("t.sqlite").toStdString());
    const auto run = st.createRun("test", "simulated", "lab");
    const auto a = st.series(run, {"n1/gpu0", "power_w", "W", "sim"});
    const auto b = st.series(run, {"n1/gpu1", "power_w", "W", "sim"});
    QCOMPARE(st.series(run, {"n1/gpu0", "power_w", "W", "sim"}), a);
    std::vector<Sample> s;
    for (int t = 0; t < 100; ++t) {
        s.push_back({a, double(t), 100.0 + t});
        s.push_back({b, double(t), 200.0 + t});
    }
    s.push_back({a, 100.0, std::nan("")});  // a gap is stored as missing
    st.writeBatch(s);
    const auto v = st.values(run, "power_w", {"n1/gpu1"}, 10, 19);
    QCOMPARE(v.size(), std::size_t(1));
    QCOMPARE(v[0].points.size(), std::size_t(10));
    QCOMPARE(v[0].points.front().second, 210.0);
    QCOMPARE(st.values(run, "power_w", {}, 0, 1000).size(), std::size_t(2));
    QCOMPARE(*st.latest(a, 42.5), 142.0);
    QVERIFY(!st.latest(a, -1).has_value());
    QVERIFY(!st.latest(a, 100).has_value());  // the latest is the gap
}

void TstStore::rewritingTheSameSamplesAddsNoDuplicates() {
    QTemporaryDir tmp;
    auto st = TelemetryStore::open(tmp.filePath("t.sqlite").toStdString());
    const auto run = st.createRun("test", "imported", "");
    const auto a = st.series(run, {"h1", "temp_c", "degC", "dcgm"});
    std::vector<Sample> s{{a, 1, 40}, {a, 2, 41}, {a, 3, 42}};
    st.writeBatch(s);
    st.writeBatch(s);
    QCOMPARE(st.sampleCount(), std::int64_t(3));
}

void TstStore::bucketsGiveMinMaxMean() {
    QTemporaryDir tmp;
    auto st = TelemetryStore::open(tmp.filePath("t.sqlite").toStdString());
    const auto run = st.createRun("test", "simulated", "");
    const auto a = st.series(run, {"x", "v", "1", "sim"});
    std::vector<Sample> s;
    for (int t = 0; t < 60; ++t) s.push_back({a, double(t), double(t % 10)});
    st.writeBatch(s);
    const auto b = st.buckets(a, 0, 60, 6);
    QCOMPARE(b.size(), std::size_t(6));
    for (const auto& x : b) {
        QCOMPARE(x.count, std::int64_t(10));
        QCOMPARE(x.min, 0.0);
        QCOMPARE(x.max, 9.0);
        QCOMPARE(x.mean, 4.5);
    }
    QVERIFY_THROWS_EXCEPTION(StoreError, st.buckets(a, 10, 0, 3));
}

void TstStore::eventsAndRunsSurviveAReopen() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("t.sqlite").toStdString();
    {
        auto st = TelemetryStore::open(path);
        const auto run = st.createRun("r", "simulated", "lab", RunMeta::parse(R"({"step_s": 1})"));
        st.writeEvents(run, {{600, "cooling_unit_fail", "crah-01", std::nullopt, "failed"}, {900, "setpoint_change", "crah-02", 22.0, ""}});
        RunMeta later = RunMeta::parse(R"({"step_s": 1})");
        later.job_collectives["llm"] = "TP all-reduce: nvls/Simple, 16 channels, 1.012 ms (8 groups of 8)\nDP all-reduce: ring/Simple";
        st.setRunMeta(run, later);
        st.finishRun(run, 3600);
        st.upsertEntities({{"lab", "site", "", "Lab"}, {"r1", "rack", "lab", "Rack 1"}});
    }
    auto st = TelemetryStore::open(path);
    const auto runs = st.runs();
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].kind, std::string("simulated"));
    QCOMPARE(*runs[0].end_s, 3600.0);
    const auto ev = st.events(runs[0].id);
    QCOMPARE(ev.size(), std::size_t(2));
    QCOMPARE(ev[1].kind, std::string("setpoint_change"));
    QCOMPARE(*ev[1].value, 22.0);
    QCOMPARE(st.entities().size(), std::size_t(2));
    // How a job's collectives ran comes back as it was written, beside the other keys.
    QCOMPARE(runs[0].meta.job_collectives.size(), std::size_t(1));
    QCOMPARE(runs[0].meta.job_collectives.at("llm"),
             std::string("TP all-reduce: nvls/Simple, 16 channels, 1.012 ms (8 groups of 8)\nDP all-reduce: ring/Simple"));
    QCOMPARE(*runs[0].meta.step_s, 1.0);
}

void TstStore::alertsKeepTheirValueAndThresholdAndAVersion1StoreIsUpgraded() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("v1.sqlite").toStdString();
    {
        // A store as version 1 wrote it: events without a threshold column.
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        const char* v1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version', '1'), ('application', 'clustertwin');
CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, scenario_id TEXT, created_at TEXT NOT NULL,
                  end_s REAL, meta TEXT);
INSERT INTO runs VALUES(1, 'old', 'simulated', 'lab', '2026-01-01T00:00:00Z', 60, '{}');
CREATE TABLE events(run_id INTEGER NOT NULL, t REAL NOT NULL, kind TEXT NOT NULL, target TEXT, value REAL, message TEXT);
INSERT INTO events VALUES(1, 10, 'inlet_high', 'r1', NULL, 'rack r1 inlet above 27 °C');
)sql";
        QCOMPARE(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    auto st = TelemetryStore::open(path);
    auto ev = st.events(1);
    QCOMPARE(ev.size(), std::size_t(1));
    QVERIFY(!ev[0].threshold && !ev[0].value);  // an old alert has neither
    st.writeEvents(1, {{20, "link_high", "a<->b", 0.988, "link a<->b above 90 % utilization", 0.9}});
    ev = TelemetryStore::open(path).events(1);
    QCOMPARE(ev.size(), std::size_t(2));
    QCOMPARE(*ev[1].value, 0.988);
    QCOMPARE(*ev[1].threshold, 0.9);
    // Version 4: an alert rule's own severity is kept with its alert (the old store gained the column too).
    StoredEvent own{30, "gpu_warm", "g0", 37.0, "g0 warm", 36.0};
    own.severity = "critical";
    st.writeEvents(1, {own});
    ev = TelemetryStore::open(path, TelemetryStore::Mode::Existing).events(1);
    QCOMPARE(ev.size(), std::size_t(3));
    QVERIFY(ev[1].severity.empty());  // the kind's own
    QCOMPARE(ev[2].severity, std::string("critical"));
}

void TstStore::aHeatImbalanceAtSteadyStateIsAFinding() {
    // checkRun (issue 16): 20 simulated minutes of site totals, the inlet flat or rising.
    QTemporaryDir tmp;
    auto findings = [&](double removed_w, double inlet_rise_k) {
        const std::string path = tmp.filePath(QString("h%1-%2.sqlite").arg(removed_w).arg(inlet_rise_k)).toStdString();
        auto st = TelemetryStore::open(path);
        const auto run = st.createRun("r", "simulated", "lab");
        const auto in = st.series(run, {"site", "heat_in_w", "W", "sim"});
        const auto out = st.series(run, {"site", "heat_removed_w", "W", "sim"});
        const auto inlet = st.series(run, {"site", "max_inlet_c", "degC", "sim"});
        std::vector<Sample> s;
        for (int t = 0; t <= 1200; t += 10) {
            s.push_back({in, double(t), 100e3});
            s.push_back({out, double(t), removed_w});
            s.push_back({inlet, double(t), 25 + inlet_rise_k * t / 1200.0});
        }
        st.writeBatch(s);
        st.finishRun(run, 1200);
        return checkRun(RunReplay::load(st, run));
    };
    const auto gap = findings(80e3, 0);
    QCOMPARE(gap.size(), std::size_t(1));
    QVERIFY2(gap[0].text.find("80 kW of the 100 kW") != std::string::npos, gap[0].text.c_str());
    QVERIFY(gap[0].level == RunFinding::Level::Warning);
    QVERIFY(findings(97e3, 0).empty());                   // 3 % apart: within what a settled hall shows
    QVERIFY(findings(80e3, 5).empty());                   // still warming up: a transient, not an imbalance
    QCOMPARE(findings(120e3, 0).size(), std::size_t(1));  // more out than in is a finding too
}

void TstStore::aFileThatIsNotAStoreIsRefused() {
    QTemporaryDir tmp;
    QFile f(tmp.filePath("junk.sqlite"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a database, just text that is long enough to look like a header..........");
    f.close();
    try {
        TelemetryStore::open(f.fileName().toStdString());
        QFAIL("a text file was opened as a store");
    } catch (const StoreError& e) {
        QVERIFY(QString(e.what()).contains("junk.sqlite"));
    }
}

QTEST_GUILESS_MAIN(TstStore)
#include "tst_store.moc"
