// clustertwin-cli and clustertwin-bench as Unix tools (issue 15): -h everywhere, "--", "-" for stdin and
// stdout, .gz input, --quiet, progress lines off a terminal, SIGINT keeping a marked partial run, times as
// seconds / durations / ISO 8601, RFC 4180 CSV, read-only commands that create nothing, one version, and
// rendering with no display (a private Xvfb, or exit 1 with the reason; never an abort).
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "image_checks.hpp"
#include "test_time.hpp"

#include <clustertwin/runs/store.hpp>

#include <fstream>

#include <signal.h>
#include "test_paths.hpp"

namespace {
struct Run {
    int code = -1;
    QByteArray out;
    QString err;
};

Run exec(const QString& program, const QStringList& args, const QByteArray& stdin_data = {},
         const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!p.waitForStarted()) return {};
    if (!stdin_data.isEmpty()) p.write(stdin_data);
    p.closeWriteChannel();
    if (!p.waitForFinished(testMs(180000))) {
        p.kill();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, p.readAllStandardOutput(),
            QString::fromUtf8(p.readAllStandardError())};
}
Run cli(const QStringList& args, const QByteArray& stdin_data = {}) { return exec(QString(CT_CLI_PATH), args, stdin_data); }
QString sample(const char* name) { return QString(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json"; }
QString dcgm() { return QString(CT_SHARED_TESTDATA_DIR) + "/dcgm_exporter"; }

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// RFC 4180 records (quoted fields with doubled quotes, CRLF between records).
QList<QStringList> parseCsv(const QString& text) {
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
            else if (c == '"') quoted = false;
            else field += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row << field, field.clear();
        } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
            row << field, field.clear(), rows << row, row.clear(), ++i;
        } else {
            field += c;
        }
    }
    if (!field.isEmpty() || !row.isEmpty()) row << field, rows << row;
    return rows;
}
}  // namespace

class TstCliUnix : public QObject {
    Q_OBJECT
private slots:
    void helpOnEveryCommandAndTheBench();
    void doubleDashEndsTheOptions();
    void dashIsStdinAndStdout();
    void gzipInputIsReadAndATruncatedOneNamed();
    void quietAndPlainProgressOffATerminal();
    void sigintKeepsAndMarksThePartialRun();
    void queryTimesAndRfc4180Csv();
    void readOnlyCommandsCreateNothing();
    void versionComesFromCMake();
    void renderWithoutADisplay();
};

void TstCliUnix::helpOnEveryCommandAndTheBench() {
    for (const char* cmd : {"validate", "info", "generate", "simulate", "collective", "import", "query", "impact", "render", "backends"}) {
        for (const char* h : {"-h", "--help"}) {
            const Run r = cli({cmd, h});
            QVERIFY2(r.code == 0, qPrintable(QString("%1 %2: %3").arg(cmd, h, r.err)));
            QVERIFY2(r.out.startsWith("Usage: clustertwin-cli " + QByteArray(cmd)), cmd);
        }
    }
    QCOMPARE(cli({"-h"}).code, 0);
    const QString bench = QString(CT_BENCH_PATH);
    Run r = exec(bench, {"-h"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("Usage: clustertwin-bench"));
    // An unknown option or benchmark is a usage error at once: nothing is run (a benchmark that ran would have
    // printed its figures; no wall-clock bar, which a busy machine could fail).
    for (const QStringList& args : {QStringList{"air", "--bogus"}, QStringList{"--minutes"}, QStringList{"frobnicate"}, QStringList{}}) {
        r = exec(bench, args);
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
    }
}

void TstCliUnix::doubleDashEndsTheOptions() {
    QCOMPARE(cli({"validate", "--", sample("lab-8node")}).code, 0);
    // After "--" a name that looks like an option is a file.
    const Run r = cli({"validate", "--", "--no-such-file.json"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--no-such-file.json: cannot open"), qPrintable(r.err));
    QVERIFY(!r.err.contains("unknown option"));
}

void TstCliUnix::dashIsStdinAndStdout() {
    Run gen = cli({"generate", "--rows", "1", "--racks-per-row", "2", "-o", "-"});
    QVERIFY2(gen.code == 0, qPrintable(gen.err));
    QVERIFY(QJsonDocument::fromJson(gen.out).isObject());
    QVERIFY(gen.err.contains("<stdout>: 2 racks"));
    const Run val = cli({"validate", "-"}, gen.out);
    QVERIFY2(val.code == 0, qPrintable(val.err));
    const Run info = cli({"info", "-", "--json"}, gen.out);
    QCOMPARE(QJsonDocument::fromJson(info.out).object()["racks"].toInt(), 2);
    QCOMPARE(cli({"validate", "-"}, "{\"format\": ").code, 2);  // a syntax error in stdin is named <stdin>

    if (!QDir(dcgm()).exists()) QSKIP("shared/testdata not found beside the checkout");
    QTemporaryDir tmp;
    const QString db = tmp.filePath("t.sqlite");
    const QString prom = dcgm() + "/" + QDir(dcgm()).entryList({"*.prom"}, QDir::Files).first();
    Run imp = cli({"import", "-", "--db", db, "--json"}, readAll(prom));
    QVERIFY2(imp.code == 0, qPrintable(imp.err));
    const QJsonObject o = QJsonDocument::fromJson(imp.out).object();
    QVERIFY(o["samples"].toInt() > 10);
    QCOMPARE(o["formats"].toObject().keys(), QStringList{"prometheus-text"});
    const Run q = cli({"query", "--db", db, "--metric", "temp_c", "-o", "-"});
    QCOMPARE(q.code, 0);
    QVERIFY(q.out.startsWith("time_s,entity,metric,value,unit\r\n"));
    QVERIFY(q.out.count("\r\n") > 1);
    QVERIFY(!QFile::exists("-"));
}

void TstCliUnix::gzipInputIsReadAndATruncatedOneNamed() {
    if (!QDir(dcgm()).exists()) QSKIP("shared/testdata not found beside the checkout");
    QTemporaryDir tmp;
    const QString prom = dcgm() + "/" + QDir(dcgm()).entryList({"*.prom"}, QDir::Files).first();
    const QString gz = tmp.filePath("scrape.prom.gz");
    QProcess gzip;
    gzip.setStandardOutputFile(gz);
    gzip.start("gzip", {"-c", prom});
    QVERIFY(gzip.waitForFinished() && gzip.exitCode() == 0);
    const Run plain = cli({"import", prom, "--db", tmp.filePath("a.sqlite"), "--json"});
    const Run packed = cli({"import", gz, "--db", tmp.filePath("b.sqlite"), "--json"});
    QVERIFY2(packed.code == 0, qPrintable(packed.err));
    const QJsonObject a = QJsonDocument::fromJson(plain.out).object(), b = QJsonDocument::fromJson(packed.out).object();
    QVERIFY(a["samples"].toInt() > 10);
    QCOMPARE(b["samples"].toInt(), a["samples"].toInt());
    QCOMPARE(b["series"].toInt(), a["series"].toInt());
    // Cut in the middle: an error naming the file, not a silent prefix.
    const QByteArray bytes = readAll(gz);
    QFile cut(tmp.filePath("cut.prom.gz"));
    QVERIFY(cut.open(QIODevice::WriteOnly));
    cut.write(bytes.left(bytes.size() / 2));
    cut.close();
    const Run bad = cli({"import", cut.fileName(), "--db", tmp.filePath("c.sqlite")});
    QCOMPARE(bad.code, 2);
    QVERIFY2(bad.err.contains("cut.prom.gz") && bad.err.contains("truncated"), qPrintable(bad.err));
}

void TstCliUnix::quietAndPlainProgressOffATerminal() {
    QTemporaryDir tmp;
    // stderr is a pipe here: progress as plain lines, no carriage returns.
    Run r = cli(
        {"simulate", sample("lab-8node"), "--duration", "2m", "--air", "quick", "--field-every", "0", "--out", tmp.filePath("a.sqlite")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(!r.err.contains('\r'));
    QVERIFY2(r.err.contains("simulate: 100% (2m"), qPrintable(r.err));
    QVERIFY(r.err.count("simulate: ") < 20);
    r = cli({"simulate", sample("lab-8node"), "--duration", "2m", "--air", "quick", "--field-every", "0", "-q", "--out",
             tmp.filePath("b.sqlite")});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    r = cli({"generate", "-q", "-o", tmp.filePath("g.json")});
    QCOMPARE(r.code, 0);
    QVERIFY(r.err.isEmpty());
}

void TstCliUnix::sigintKeepsAndMarksThePartialRun() {
    QTemporaryDir tmp;
    const QString db = tmp.filePath("run.sqlite");
    QProcess p;
    p.start(QString(CT_CLI_PATH),
            {"simulate", sample("lab-8node"), "--duration", "4h", "--air", "quick", "--field-every", "0", "--out", db});
    QVERIFY(p.waitForStarted());
    // Wait for the first progress line: the run is recording.
    QByteArray err;
    for (int i = 0; i < 200 && !err.contains("simulate: 0%"); ++i) {
        p.waitForReadyRead(100);
        err += p.readAllStandardError();
    }
    QVERIFY2(err.contains("simulate: 0%"), err.constData());
    QTest::qWait(1500);
    QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
    QVERIFY(p.waitForFinished(testMs(60000)));
    err += p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 130);
    QVERIFY2(err.contains("interrupted after") && err.contains("kept in"), err.constData());
    auto store = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    const auto runs = store.runs();
    QCOMPARE(runs.size(), std::size_t(1));
    const auto& meta = runs[0].meta;
    QVERIFY(meta.interrupted);
    QVERIFY(runs[0].end_s && *runs[0].end_s > 0 && *runs[0].end_s < 4 * 3600);
    QCOMPARE(meta.interrupted_at_s.value_or(-1), *runs[0].end_s);
    bool marked = false;
    for (const auto& e : store.events(runs[0].id)) marked = marked || e.kind == "interrupted";
    QVERIFY(marked);
    QVERIFY(store.sampleCount() > 0);
}

void TstCliUnix::queryTimesAndRfc4180Csv() {
    QTemporaryDir tmp;
    const QString csv = tmp.filePath("long.csv");
    {
        std::ofstream out(csv.toStdString());
        out << "time,entity,metric,value,unit\n";
        // 1700000000 is 2023-11-14T22:13:20Z. Entities with a comma and a quote.
        for (int i = 0; i <= 10; ++i) {
            out << 1700000000 + 60 * i << ",\"rack A, slot 1\",power_w," << 100 + i << ",W\n";
            out << 1700000000 + 60 * i << ",\"say \"\"hi\"\"\",power_w," << 200 + i << ",W\n";
        }
    }
    const QString db = tmp.filePath("t.sqlite");
    Run r = cli({"import", csv, "--db", db});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    auto rows = [&](const QStringList& extra) {
        const Run q = cli(QStringList{"query", "--db", db, "--metric", "power_w"} + extra);
        return q.code == 0 ? parseCsv(QString::fromUtf8(q.out)) : QList<QStringList>{};
    };
    QList<QStringList> all = rows({});
    QCOMPARE(all.size(), 1 + 22);
    QCOMPARE(all[0], (QStringList{"time_s", "entity", "metric", "value", "unit"}));
    QSet<QString> entities;
    for (int i = 1; i < all.size(); ++i) {
        QCOMPARE(all[i].size(), 5);
        entities.insert(all[i][1]);
    }
    QCOMPARE(entities, (QSet<QString>{"rack A, slot 1", "say \"hi\""}));
    // The same window three ways: a duration from the run's start, Unix seconds, ISO 8601 with an offset.
    const QStringList one = {"--entity", "rack A, slot 1"};
    const auto by_duration = rows(one + QStringList{"--from", "1m", "--to", "3m"});
    QCOMPARE(by_duration.size(), 1 + 3);
    QCOMPARE(by_duration[1][3], QString("101"));
    QCOMPARE(rows(one + QStringList{"--from", "1700000060", "--to", "1700000180"}), by_duration);
    QCOMPARE(rows(one + QStringList{"--from", "2023-11-14T23:14:20+01:00", "--to", "2023-11-14T22:16:20Z"}), by_duration);
    r = cli({"query", "--db", db, "--metric", "power_w", "--from", "yesterday"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--from"));
}

void TstCliUnix::readOnlyCommandsCreateNothing() {
    QTemporaryDir tmp;
    const QString missing = tmp.filePath("missing.sqlite");
    Run r = cli({"query", "--db", missing, "--metric", "power_w"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("does not exist"), qPrintable(r.err));
    r = cli({"render", sample("lab-8node"), "--run", missing, "-o", tmp.filePath("x.png")});
    QCOMPARE(r.code, 2);
    QCOMPARE(QDir(tmp.path()).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList{});
    // A file that is SQLite but not a store is refused and left as it was.
    const QString other = tmp.filePath("other.sqlite");
    {
        QProcess sh;
        sh.start("sh", {"-c", "printf 'x' > '" + other + "'"});
        sh.waitForFinished();
    }
    r = cli({"query", "--db", other, "--metric", "power_w"});
    QVERIFY(r.code != 0);
    QCOMPARE(readAll(other), QByteArray("x"));
    // Nor does a command that writes take it over (a mistyped --db notes.txt).
    r = cli({"simulate", sample("lab-8node"), "--duration", "10s", "--air", "quick", "--out", other});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("not an SQLite database"), qPrintable(r.err));
    QCOMPARE(readAll(other), QByteArray("x"));
}

void TstCliUnix::versionComesFromCMake() {
    const Run r = cli({"--version"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, QByteArray("clustertwin-cli " CT_PROJECT_VERSION "\n"));
}

void TstCliUnix::renderWithoutADisplay() {
    QTemporaryDir tmp;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    // A private Xvfb (scripts/setup installs xvfb): the picture is drawn.
    const QString png = tmp.filePath("headless.png");
    Run r = exec(QString(CT_CLI_PATH), {"render", sample("lab-8node"), "--size", "320x200", "-o", png}, {}, env);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage img(png);
    QCOMPARE(img.size(), QSize(320, 200));
    QVERIFY(sampledColours(img) > 10);
    // "-o -": the PNG on stdout.
    r = exec(QString(CT_CLI_PATH), {"render", sample("lab-8node"), "--size", "64x64", "-q", "-o", "-"}, {}, env);
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.startsWith("\x89PNG\r\n\x1a\n"));
    QVERIFY(r.err.isEmpty());
    // No display and no Xvfb to start: exit 1 with the reason, not an abort, from the CLI and the bench.
    env.insert("PATH", tmp.filePath("empty-bin"));
    r = exec(QString(CT_CLI_PATH), {"render", sample("lab-8node"), "-o", tmp.filePath("no.png")}, {}, env);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("Xvfb is not installed"), qPrintable(r.err));
    QVERIFY(!QFile::exists(tmp.filePath("no.png")));
    r = exec(QString(CT_BENCH_PATH), {"render"}, {}, env);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("Xvfb is not installed"), qPrintable(r.err));
    // A DISPLAY that cannot be opened is named.
    env.insert("DISPLAY", ":87");
    r = exec(QString(CT_CLI_PATH), {"render", sample("lab-8node"), "-o", tmp.filePath("no.png")}, {}, env);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("cannot open the X display :87"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TstCliUnix)
#include "tst_cli_unix.moc"
