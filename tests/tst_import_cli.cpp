// clustertwin-cli import loses nothing and names every failure (issue 17): on every file of the shared
// testdata the summary's stored count is what the database holds and every reading is accounted for; exit
// codes 0/3/2; a failed import leaves no run; re-imports are recognised by content, not file time; --tz and
// ISO offsets without a colon.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"
#include "test_time.hpp"

#include <clustertwin/runs/store.hpp>

#include <fstream>

#include <utime.h>
#include "test_paths.hpp"

namespace {

std::int64_t storedSamples(const QString& db) {
    auto st = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    return st.sampleCount();
}
}  // namespace

class TstImportCli : public QObject {
    Q_OBJECT
private slots:
    void everyTestdataFileIsAccountedFor_data();
    void everyTestdataFileIsAccountedFor();
    void exitCodesAndNoEmptyRun();
    void reimportIsRecognisedByContentNotFileTime();
    void zonesAreApplied();
    void runsListsWhatADatabaseHolds();
    void measuredGpusPastTheirLimitsRaiseAlerts();
    void alertRulesFromAFileHoldClearAndSetTheirSeverity();
};

void TstImportCli::everyTestdataFileIsAccountedFor_data() {
    QTest::addColumn<QString>("file");
    const QString dir = QString(CT_SHARED_TESTDATA_DIR);
    if (!QDir(dir).exists()) QSKIP("shared/testdata not found beside the checkout");
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    QStringList files;
    while (it.hasNext()) files << it.next();
    files.sort();
    for (const QString& f : files) {
        if (f.endsWith(".md") || f.contains("/source_docs/")) continue;
        QTest::newRow(qPrintable(QDir(dir).relativeFilePath(f))) << f;
    }
}

void TstImportCli::everyTestdataFileIsAccountedFor() {
    QFETCH(QString, file);
    QTemporaryDir tmp;
    const QString db = tmp.filePath("t.sqlite");
    const CliRun r = cli({"import", file, "--db", db, "--json", "-q"});
    if (r.code == 2) {  // not telemetry this importer reads (a service root, a schema): named, and no run left
        QVERIFY2((r.out + r.err).contains(QFileInfo(file).fileName()), qPrintable(file));  // named, with why
        if (QFile::exists(db)) {
            auto st = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
            QVERIFY(st.runs().empty());
        }
        return;
    }
    QVERIFY2(r.code == 0 || r.code == 3, qPrintable(r.err + r.out));
    const QJsonObject s = r.json();
    const qint64 read = s["samples_read"].toInteger(), stored = s["samples"].toInteger();
    QCOMPARE(read, stored + s["duplicates"].toInteger() + s["collisions"].toInteger());
    // A file read whole that holds nothing to store (a perfquery of idle counters) leaves no database behind.
    QCOMPARE(QFile::exists(db) ? storedSamples(db) : std::int64_t(0), stored);
    // 3 exactly when something was lost, and then a file is named.
    const bool lost = !s["failed"].toArray().isEmpty() || s["collisions"].toInteger() > 0 || !s["warnings"].toObject().isEmpty();
    if (r.code == 3)
        QVERIFY2(lost && (!s["files_with_warnings"].toArray().isEmpty() || !s["failed"].toArray().isEmpty()), qPrintable(r.out));
}

void TstImportCli::exitCodesAndNoEmptyRun() {
    QTemporaryDir tmp;
    const QString db = tmp.filePath("t.sqlite");
    // Nothing readable: 2, the file named, no run.
    QFile junk(tmp.filePath("junk.prom"));
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("this is not telemetry {{{\n");
    junk.close();
    CliRun r = cli({"import", tmp.filePath("missing.prom"), "--db", db});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("missing.prom"), qPrintable(r.err));
    // A truncated long CSV (a row cut in half) and a good file: 3, the bad one named with its line.
    {
        std::ofstream good(tmp.filePath("good.csv").toStdString());
        good << "time,entity,metric,value,unit\n1700000000,n1/gpu0,power_w,300,W\n1700000010,n1/gpu0,power_w,310,W\n";
        std::ofstream cut(tmp.filePath("cut.csv").toStdString());
        cut << "time,entity,metric,value,unit\n1700000000,n2/gpu0,power_w,300,W\n1700000010,n2/gpu0,pow";
    }
    r = cli({"import", tmp.filePath("good.csv"), tmp.filePath("cut.csv"), "--db", db, "--json"});
    QCOMPARE(r.code, 3);
    const QJsonArray named = r.json()["files_with_warnings"].toArray();
    QCOMPARE(named.size(), 1);
    QVERIFY2(named[0].toObject()["first"].toArray()[0].toObject()["location"].toString().endsWith("cut.csv:3"), qPrintable(r.out));
    QCOMPARE(r.json()["samples"].toInt(), 3);
    // Only junk: 2, and the database this import would have created is not left behind (issue 40: an empty
    // database stayed); into an existing database, no empty run is left for `query` to pick.
    const QString db2 = tmp.filePath("t2.sqlite");
    r = cli({"import", junk.fileName(), "--db", db2, "--json"});
    QCOMPARE(r.code, 2);
    QVERIFY(!QFile::exists(db2) && !QFile::exists(db2 + "-wal"));
    const std::int64_t runs_before = ct::runs::TelemetryStore::open(db.toStdString()).runs().size();
    r = cli({"import", junk.fileName(), "--db", db, "--name", "junk", "--json"});
    QCOMPARE(r.code, 2);
    QVERIFY(QFile::exists(db));
    QCOMPARE(static_cast<std::int64_t>(ct::runs::TelemetryStore::open(db.toStdString()).runs().size()), runs_before);
    QCOMPARE(cli({"query", "--db", db2, "--metric", "power_w"}).code, 2);
    // A Prometheus that does not answer: the same.
    const QString db3 = tmp.filePath("t3.sqlite");
    r = cli({"import", "--prometheus", "http://127.0.0.1:1", "--dcgm", "--from", "2026-01-01T00:00:00Z", "--to", "2026-01-01T00:05:00Z",
             "--db", db3});
    QCOMPARE(r.code, 2);
    QVERIFY2(!QFile::exists(db3), qPrintable(r.err));
}

void TstImportCli::reimportIsRecognisedByContentNotFileTime() {
    // A scrape without timestamps takes its file's time; touching the file must not duplicate it.
    const QString src = QString(CT_SHARED_TESTDATA_DIR) +
                        "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom";
    if (!QFile::exists(src)) QSKIP("shared/testdata not found beside the checkout");
    QTemporaryDir tmp;
    const QString copy = tmp.filePath("scrape.prom"), db = tmp.filePath("t.sqlite");
    QVERIFY(QFile::copy(src, copy));
    CliRun r = cli({"import", copy, "--db", db, "--json"});
    QCOMPARE(r.code, 0);
    const int first = r.json()["samples"].toInt();
    QVERIFY(first > 20);
    utimbuf later{1900000000, 1900000000};
    QCOMPARE(::utime(copy.toUtf8().constData(), &later), 0);
    r = cli({"import", copy, "--db", db, "--json"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.json()["unchanged_files"].toInt(), 1);
    QCOMPARE(storedSamples(db), std::int64_t(first));
    // Another run name reads it again.
    r = cli({"import", copy, "--db", db, "--name", "second", "--json"});
    QCOMPARE(r.json()["samples"].toInt(), first);
}

void TstImportCli::zonesAreApplied() {
    QTemporaryDir tmp;
    const QString csv = tmp.filePath("z.csv"), db = tmp.filePath("t.sqlite");
    {
        // 2023-11-14T22:13:20Z is 1700000000. +0530 (no colon) is 5 h 30 min east.
        std::ofstream out(csv.toStdString());
        out << "time,entity,metric,value,unit\n"
            << "2023-11-15T03:43:20+0530,a,power_w,1,W\n"
            << "2023-11-15T03:43:20+05:30,b,power_w,2,W\n"
            << "2023-11-14T14:13:20,c,power_w,3,W\n";
    }
    CliRun r = cli({"import", csv, "--db", db, "--tz", "-08:00", "--json"});
    QCOMPARE(r.code, 0);
    auto st = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    for (const auto& v : st.values(st.runs().back().id, "power_w", {}, 0, 2e9)) {
        QCOMPARE(v.points.size(), std::size_t(1));
        QCOMPARE(v.points[0].first, 1700000000.0);  // each written in its own zone; c in --tz's
    }
    QCOMPARE(cli({"import", csv, "--db", db, "--tz", "Mars/Olympus"}).code, 2);
}

void TstImportCli::runsListsWhatADatabaseHolds() {
    // Two imports into one database (dmon readings, then Slurm jobs) and a failed one that leaves no run:
    // `runs` lists both with their source files, time range, entities by kind and metrics (unit, samples).
    QTemporaryDir tmp;
    const QString db = tmp.filePath("t.sqlite");
    const QString own = QString(CT_TEST_DATA_DIR) + "/import/";
    QCOMPARE(cli({"import", own + "gpu-node-3.dmon-dt.txt", "--db", db, "--name", "dmon", "-q"}).code, 3);  // a bad value, a cut row
    QCOMPARE(cli({"import", own + "scontrol_show_job.txt", "--db", db, "--name", "jobs", "-q"}).code, 0);
    const QString junk = tmp.filePath("junk.bin");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x01\x02 not telemetry");
    f.close();
    QCOMPARE(cli({"import", junk, "--db", db, "--name", "junk", "-q"}).code, 2);
    const CliRun r = cli({"runs", "--db", db, "--json"});
    QCOMPARE(r.code, 0);
    const QJsonArray runs = r.json()["runs"].toArray();
    QCOMPARE(runs.size(), 2);  // the failed import left none
    const QJsonObject dmon = runs[0].toObject();
    QCOMPARE(dmon["name"].toString(), QString("dmon"));
    QCOMPARE(dmon["kind"].toString(), QString("imported"));
    QVERIFY(dmon["complete"].toBool());
    QCOMPARE(dmon["samples"].toInt(), 44);
    QCOMPARE(dmon["t0_s"].toDouble(), 1718100901.0);
    QCOMPARE(dmon["t1_s"].toDouble(), 1718100903.0);
    QCOMPARE(dmon["entities"].toObject()["gpu"].toInt(), 2);
    QVERIFY(dmon["sources"].toArray()[0].toObject()["name"].toString().endsWith("gpu-node-3.dmon-dt.txt"));
    bool power = false;
    for (const auto& m : dmon["metrics"].toArray()) {
        const QJsonObject o = m.toObject();
        if (o["metric"].toString() != "power_w") continue;
        power = true;
        QCOMPARE(o["unit"].toString(), QString("W"));
        QCOMPARE(o["samples"].toInt(), 4);
        QCOMPARE(o["entities"].toInt(), 2);
    }
    QVERIFY(power);
    const QJsonObject jobs = runs[1].toObject();
    QCOMPARE(jobs["jobs"].toInt(), 2);  // the pending job never started
    QVERIFY(jobs["t0_s"].isNull());
    const CliRun text = cli({"runs", "--db", db});
    QCOMPARE(text.code, 0);
    QVERIFY(text.out.contains("2 run(s)"));
    QVERIFY(text.out.contains("2024-06-11 10:15:01 UTC to 2024-06-11 10:15:03 UTC"));
    QVERIFY(text.out.contains(QRegularExpression("power_w +W +4 samples on +2 entities")));
    QCOMPARE(cli({"runs", "--db", db, "--run", "99"}).code, 2);
    QCOMPARE(cli({"runs", "--db", tmp.filePath("none.sqlite")}).code, 2);
    QVERIFY(!QFileInfo::exists(tmp.filePath("none.sqlite")));  // a read never creates a database
}

void TstImportCli::alertRulesFromAFileHoldClearAndSetTheirSeverity() {
    // Issue 40: a rules file users edit, as Prometheus' alerting rules: threshold, how long it holds, hysteresis,
    // severity; a limit from another series of the same GPU. One H100 scraped every 10 s.
    QTemporaryDir tmp;
    const QString prom = tmp.filePath("h100.prom"), db = tmp.filePath("h100.sqlite"), rules = tmp.filePath("rules.json");
    const double temp[] = {80, 88, 89, 86, 88, 90, 91, 84, 88, 89, 90, 81};
    const double power[] = {500, 690, 700, 700, 650, 700, 700, 600, 600, 600, 600, 600};
    {
        std::ofstream f(prom.toStdString());
        for (int k = 0; k < 12; ++k) {
            const long long t = 1700000000000LL + k * 10000LL;
            const char* lab = R"({gpu="0",modelName="NVIDIA H100 80GB HBM3",Hostname="h"} )";
            f << "DCGM_FI_DEV_GPU_TEMP" << lab << temp[k] << " " << t << "\n";
            f << "DCGM_FI_DEV_POWER_USAGE" << lab << power[k] << " " << t << "\n";
            f << "DCGM_FI_DEV_ENFORCED_POWER_LIMIT" << lab << (k < 6 ? 700 : 650) << " " << t << "\n";
        }
    }
    {
        std::ofstream f(rules.toStdString());
        f << R"json({"rules": [
  {"alert": "gpu_warm", "entity": "gpu", "metric": "temp_c", "above": 87, "for": "20s", "clear": 2, "severity": "critical"},
  {"alert": "gpu_cool", "entity": "gpu", "metric": "temp_c", "below": 82, "summary": "{entity} cool at {value} (under {limit})"},
  {"alert": "at_power_cap", "entity": "gpu", "metric": "power_w", "above": "metric:power_limit_w", "severity": "info"},
  {"alert": "node_warm", "entity": "node", "metric": "temp_c", "above": 0}
]})json";
    }
    CliRun r = cli({"import", prom, "--db", db, "--rules", rules, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    auto st = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    QStringList got;
    for (const auto& e : st.events(st.runs().at(0).id))
        got << QString("%1 %2 %3 %4 %5")
                   .arg(e.t_s - 1700000000)
                   .arg(QString::fromStdString(e.kind))
                   .arg(*e.value)
                   .arg(*e.threshold)
                   .arg(QString::fromStdString(e.severity));
    // By hand. gpu_warm: above 87 from 10 s (88, 89), 86 at 30 s breaks the wait; 88 at 40 s, 90, 91: held 20 s at
    // 60 s (91). Re-armed only below 85: 84 at 70 s; then 88 at 80 s, 89, 90: held 20 s at 100 s (90).
    // gpu_cool: below 82 at 0 s (80); inside at 10 s re-arms it; below again at 110 s (81). at_power_cap: 700 is not
    // above 700; the limit drops to 650 at 60 s while the GPU draws 700: fires there, once (600 afterwards re-arms
    // it, nothing above again). node_warm: no node series of temp_c, nothing.
    const QStringList want = {"0 gpu_cool 80 82 ", "60 gpu_warm 91 87 critical", "60 at_power_cap 700 650 info",
                              "100 gpu_warm 90 87 critical", "110 gpu_cool 81 82 "};
    QCOMPARE(got, want);
    QCOMPARE(r.json()["alerts"].toInt(), 5);
    const auto cool = st.events(st.runs().at(0).id).front();
    QCOMPARE(cool.message, std::string("h/gpu0 cool at 80.0 °C (under 82.0 °C)"));

    // `alerts` on the same run: nothing new with the same rules; the built-in rules add the H100's own limits.
    r = cli({"alerts", "--db", db, "--rules", rules, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(static_cast<int>(r.json()["raised"].toArray().size()), 0);
    QCOMPARE(r.json()["stored_before"].toInt(), 5);
    r = cli({"alerts", "--db", db, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.json()["rules"].toString(), QString("built-in"));
    QStringList builtin;
    for (const auto& v : r.json()["raised"].toArray())
        builtin << QString("%1 %2 %3")
                       .arg(v.toObject()["t_s"].toDouble() - 1700000000)
                       .arg(v.toObject()["alert"].toString())
                       .arg(v.toObject()["severity"].toString());
    // gpu_hot above 87 (the H100's slowdown) at 10 s, re-armed below 85 at 70 s, again at 80 s; nothing past 92.
    QCOMPARE(builtin, (QStringList{"10 gpu_hot warning", "80 gpu_hot warning"}));
    // The built-in rules as a file evaluate as the built-in rules do.
    r = cli({"alerts", "--default-rules"});
    QCOMPARE(r.code, 0);
    const QString copy = tmp.filePath("default.json");
    {
        QFile f(copy);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(r.out.toUtf8());
    }
    r = cli({"import", prom, "--db", tmp.filePath("again.sqlite"), "--rules", copy, "--json"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.json()["alerts"].toInt(), 2);

    // A bad rules file: invalid input naming the file and the JSON pointer; no database is made.
    {
        std::ofstream f(rules.toStdString());
        f << R"({"rules": [{"alert": "x", "metric": "temp_c", "above": 1, "for": "soon"}]})";
    }
    r = cli({"import", prom, "--db", tmp.filePath("never.sqlite"), "--rules", rules});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(rules + ": /rules/0/for"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(tmp.filePath("never.sqlite")));
    r = cli({"alerts", "--db", db, "--rules", rules});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("/rules/0/for"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TstImportCli)
void TstImportCli::measuredGpusPastTheirLimitsRaiseAlerts() {
    // Issue 40: an H100 measured at 91 °C, past its 87 °C slowdown, left the Alerts dock empty. DCGM scrapes of a
    // T4 (slowdown 93, shutdown 96 °C) and an H100 (87 / 92 °C) over four minutes: alerts at the crossings, with
    // each model's own limits; the T4 at 91 °C raises nothing.
    QTemporaryDir tmp;
    const QString prom = tmp.filePath("hot.prom"), db = tmp.filePath("hot.sqlite");
    {
        std::ofstream f(prom.toStdString());
        const double temps[][2] = {{80, 85}, {91, 91}, {95, 93}, {97, 84}, {90, 95}};  // T4, H100 per minute
        for (int m = 0; m < 5; ++m) {
            const long long t = 1700000000000LL + m * 60000LL;  // ms
            f << "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",modelName=\"Tesla T4\",Hostname=\"t4host\"} " << temps[m][0] << " " << t << "\n";
            f << "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"h100host\"} " << temps[m][1] << " " << t
              << "\n";
        }
    }
    CliRun r = cli({"import", prom, "--db", db, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.json()["alerts"].toInt(), 6);
    auto st = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    const auto events = st.events(st.runs().at(0).id);
    QStringList got;
    for (const auto& e : events)
        got << QString("%1 %2 %3 %4").arg(QString::fromStdString(e.kind), QString::fromStdString(e.target)).arg(*e.value).arg(*e.threshold);
    // T4: 95 > 93 at minute 2, 97 > 96 at minute 3. H100: 91 > 87 at minute 1, 93 > 92 at minute 2; it falls to 84
    // (2 K below both limits: re-armed) and at 95 in minute 4 crosses both again.
    QVERIFY2(got.contains("gpu_hot t4host/gpu0 95 93") && got.contains("gpu_shutdown t4host/gpu0 97 96"), qPrintable(got.join("; ")));
    QVERIFY2(got.contains("gpu_hot h100host/gpu0 91 87") && got.contains("gpu_shutdown h100host/gpu0 93 92"), qPrintable(got.join("; ")));
    QVERIFY2(got.contains("gpu_hot h100host/gpu0 95 87") && got.contains("gpu_shutdown h100host/gpu0 95 92"), qPrintable(got.join("; ")));
    QCOMPARE(got.size(), 6);
    // The same file again: nothing raised twice.
    r = cli({"import", prom, "--db", db, "--json"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.json()["unchanged_files"].toInt(), 1);
    QCOMPARE(r.json()["alerts"].toInt(), 0);
    QCOMPARE(st.runs().size(), std::size_t(1));
    QCOMPARE(st.eventCount(st.runs().at(0).id), static_cast<std::int64_t>(events.size()));
}

#include "tst_import_cli.moc"
