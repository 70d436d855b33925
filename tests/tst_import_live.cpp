// Issue 17, live Prometheus: a real Prometheus (Debian's package) started on 127.0.0.1 with a private data
// directory, loaded with the real DCGM exporter scrapes of ../shared/testdata (promtool tsdb
// create-blocks-from openmetrics), read back through `clustertwin-cli import --prometheus` and checked value by
// value against the files; a bad query, an unreachable server and a half-failed read are named, with the
// exit codes of a file import.
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/prometheus_http.hpp>
#include <clustertwin/runs/store.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"
#include "test_prometheus.hpp"

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include "test_paths.hpp"

using namespace ct::importers;
using namespace ct::runs;

namespace {
const QString kData = QString(CT_SHARED_TESTDATA_DIR);
const QStringList kScrapes = {"/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-kops__1x-nvidia-l4__drv580.105.08.metrics.prom",
                              "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom"};
constexpr int kTimes = 3;  // each scrape at t0, t0 + 60 s, t0 + 120 s
}  // namespace

class TstImportLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void dcgmPresetIsTheExportersDefaultList();
    void valuesComeBackAsInTheFiles();
    void longRangesAreReadInPieces();
    void failuresAreNamed();

private:
    QTemporaryDir dir_;
    TestPrometheus prom_;  // after dir_: stopped before its folder goes
    QString url_;
    double t0_ = 0;
};

void TstImportLive::initTestCase() {
    if (!QDir(kData).exists()) QSKIP("shared/testdata not found beside the checkout");
    if (!TestPrometheus::installed()) QSKIP("prometheus/promtool not installed (scripts/setup installs Debian's prometheus)");
    // The scrapes as OpenMetrics with timestamps two hours back (inside the retention, outside the head).
    t0_ = std::floor(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() / 60) * 60 - 7200;
    QFile om(dir_.filePath("scrapes.om"));
    QVERIFY(om.open(QIODevice::WriteOnly));
    for (int k = 0; k < kTimes; ++k)
        for (const QString& s : kScrapes) {
            QFile f(kData + s);
            QVERIFY(f.open(QIODevice::ReadOnly));
            for (const QByteArray& line : f.readAll().split('\n'))
                if (line.startsWith("DCGM_")) om.write(line.trimmed() + " " + QByteArray::number(t0_ + 60 * k, 'f', 0) + "\n");
        }
    om.write("# EOF\n");
    om.close();
    QProcess tool;
    tool.start(QStandardPaths::findExecutable("promtool"),
               {"tsdb", "create-blocks-from", "openmetrics", om.fileName(), dir_.filePath("tsdb")});
    QVERIFY(tool.waitForFinished(60000));
    QVERIFY2(tool.exitCode() == 0, tool.readAllStandardError().constData());
    const QString why = prom_.start(dir_.path(), "global:\n  scrape_interval: 1h\n", dir_.filePath("tsdb"));
    QVERIFY2(why.isEmpty(), qPrintable(why));
    url_ = prom_.url();
}

void TstImportLive::dcgmPresetIsTheExportersDefaultList() {
    QFile f(kData + "/dcgm_exporter/dcgm-exporter__etc__default-counters.csv");
    QVERIFY(f.open(QIODevice::ReadOnly));
    std::vector<std::string> listed;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("DCGM_") && !line.startsWith("DCGM_FI_DRIVER_VERSION"))
            listed.push_back(line.split(',').first().trimmed().toStdString());
    QCOMPARE(dcgmPresetQueries(), listed);
}

void TstImportLive::valuesComeBackAsInTheFiles() {
    const QString db = dir_.filePath("live.sqlite");
    const CliRun r = cli({"import", "--prometheus", url_, "--dcgm", "--from", QString::number(t0_, 'f', 0), "--to",
                          QString::number(t0_ + 120, 'f', 0), "--step", "60s", "--db", db, "--json", "-q"});
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    // Every reading of both files, at each of the three times, as the file parser reads the file itself.
    std::map<std::tuple<std::string, std::string, double>, double> expected;
    for (const QString& s : kScrapes) {
        const ParseResult p = parseFile((kData + s).toStdString());
        for (const auto& x : p.samples)
            for (int k = 0; k < kTimes; ++k) expected[{x.entity, x.metric, t0_ + 60 * k}] = x.value;
    }
    auto store = TelemetryStore::open(db.toStdString(), TelemetryStore::Mode::Existing);
    const auto run = store.runs().at(0).id;
    std::size_t got = 0;
    for (const auto& s : store.seriesSummary(run))
        for (const auto& v : store.values(run, s.key.metric, {s.key.entity}, -1e300, 1e300))
            for (const auto& [t, x] : v.points) {
                auto it = expected.find({v.key.entity, v.key.metric, t});
                QVERIFY2(it != expected.end(),
                         (v.key.entity + " " + v.key.metric + " at " + std::to_string(t) + ": not in the files").c_str());
                QCOMPARE(x, it->second);
                ++got;
            }
    QCOMPARE(got, expected.size());                                              // and nothing of the files is missing
    QVERIFY(expected.count({"i-030791dc5a37cd257/gpu0", "power_w", t0_ + 60}));  // the L4, by its Hostname label
    // Reading the same range again stores nothing twice.
    const CliRun again = cli({"import", "--prometheus", url_, "--dcgm", "--from", QString::number(t0_, 'f', 0), "--to",
                              QString::number(t0_ + 120, 'f', 0), "--step", "60s", "--db", db, "-q"});
    QCOMPARE(again.code, 0);
    QCOMPARE(store.sampleCount(), static_cast<std::int64_t>(got));
}

void TstImportLive::longRangesAreReadInPieces() {
    // 25,000 one-second steps: three requests per query (Prometheus answers at most 11,000 points a series).
    PrometheusRange r;
    r.url = url_.toStdString();
    r.queries = {"DCGM_FI_DEV_GPU_TEMP"};
    r.from_s = t0_;
    r.to_s = t0_ + 25000;
    r.step_s = 1;
    std::vector<std::pair<double, double>> pieces;
    std::size_t samples = 0;
    std::size_t told_total = 0;
    QVERIFY(fetchPrometheusRange(r, [&](const PrometheusPiece& p, std::size_t, std::size_t total) -> bool {
        pieces.push_back({p.from_s, p.to_s});
        told_total = total;
        samples += parsePrometheusPiece(r, p).samples.size();
        return true;
    }));
    QCOMPARE(told_total, std::size_t(3));
    QCOMPARE(pieces.size(), std::size_t(3));
    QCOMPARE(pieces[1].first, pieces[0].second + 1);  // no step read twice, none left out
    QCOMPARE(pieces.back().second, t0_ + 25000);
    // Each GPU's last sample (t0 + 120) stays current for Prometheus' 5-minute lookback: 421 steps per GPU.
    QCOMPARE(samples, std::size_t(2 * (120 + 300 + 1)));
}

void TstImportLive::failuresAreNamed() {
    const QString from = QString::number(t0_, 'f', 0), to = QString::number(t0_ + 120, 'f', 0);
    const QString db = dir_.filePath("fail.sqlite");
    CliRun r = cli({"import", "--prometheus", url_, "--query", "rate(DCGM_FI_DEV_GPU_TEMP[", "--from", from, "--to", to, "--db", db, "-q"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("refused the query") && r.err.contains("bad_data"), qPrintable(r.err));
    r = cli({"import", "--prometheus", "http://127.0.0.1:1", "--query", "up", "--from", from, "--to", to, "--db", db, "-q"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("cannot reach Prometheus at http://127.0.0.1:1"), qPrintable(r.err));
    // The first query read, the second refused: what was read is kept, the failure named, exit 3.
    r = cli({"import", "--prometheus", url_, "--query", "DCGM_FI_DEV_GPU_TEMP", "--query", "sum(", "--from", from, "--to", to, "--step",
             "60s", "--db", db, "-q"});
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("'sum('"), qPrintable(r.err));
    auto store = TelemetryStore::open(db.toStdString(), TelemetryStore::Mode::Existing);
    QCOMPARE(store.runs().size(), std::size_t(1));  // the two failed reads left no run
    QCOMPARE(store.sampleCount(), std::int64_t(2 * kTimes));
    QCOMPARE(cli({"import", "--prometheus", url_, "--from", from, "--db", db}).code, 2);  // no query: usage
}

QTEST_GUILESS_MAIN(TstImportLive)
#include "tst_import_live.moc"
