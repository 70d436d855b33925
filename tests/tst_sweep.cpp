// clustertwin-cli sweep (issue 42): N-1, settings varied and what-ifs as one run each in one database, in one
// process and spread over MPI ranks (mpirun -np 2 and -np 3, a count that does not divide the variants) with
// the same answers; simulate with a campus's halls over ranks, recording what one process records; commands
// that do not spread refuse to run N times over.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"

#include <clustertwin/runs/store.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <signal.h>
#include "test_paths.hpp"

namespace {

QString sample(const char* name) { return QString(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json"; }

/// Every run's options: short quick-air runs on one thread (the same sums in every process).
QStringList runOptions(const QString& db) {
    return {"--air", "quick", "--duration", "5min", "--step", "10s", "--threads", "1", "--field-every", "0", "--out", db, "--json", "-q"};
}

/// What mpirun needs here: to run as root (CI runs as root).
QProcessEnvironment mpiEnvironment() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("OMPI_ALLOW_RUN_AS_ROOT", "1");
    env.insert("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    // Under the sanitizers (preset asan), no leak check in the ranks: what MPI_Init keeps for the process's life
    // is reported from modules Open MPI has unloaded by then ("<unknown module>", which no suppression can name).
    // The same code runs leak-checked in one process in the other tests; the rest of ASan stays on.
    if (env.contains("ASAN_OPTIONS")) env.insert("ASAN_OPTIONS", env.value("ASAN_OPTIONS") + ":detect_leaks=0");
    return env;
}

/// clustertwin-cli under mpirun with `ranks` processes (as root too, and more ranks than cores).
CliRun mpirun(int ranks, const QStringList& args) {
    const QString exe = QStandardPaths::findExecutable("mpirun");
    QProcess p;
    p.setProcessEnvironment(mpiEnvironment());
    p.start(exe, QStringList{"--oversubscribe", "-np", QString::number(ranks), QString(CT_CLI_PATH)} + args);
    if (!p.waitForFinished(testMs(300000))) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

QJsonArray runsOf(const QString& db) {
    const CliRun r = cli({"runs", "--db", db, "--json"});
    if (r.code != 0) qFatal("runs of %s failed: %s", qPrintable(db), qPrintable(r.err));
    const QJsonDocument d = QJsonDocument::fromJson(r.out.toUtf8());
    return d.isArray() ? d.array() : d.object()["runs"].toArray();
}

}  // namespace

class TstSweep : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void nMinusOneRunsEveryFailureIntoOneDatabase();
    void varyRunsEveryCombinationAndReportsABadSetting();
    void whatIfFilesAreVariants();
    void mpiRanksGiveTheAnswersOfOneProcess();
    void simulateSpreadsACampussHallsOverRanks();
    void simulateSplitsAHallsLatticeOverRanks();
    void simulateSharesAnOddHallOverRanks();
    void aRankThatDiesLeavesTheRunReadable();
    void otherCommandsRefuseToRunOnManyRanks();

private:
    QTemporaryDir tmp_;
    QJsonArray one_;  ///< the N-1 rows of one process
    QString one_db_;
};

void TstSweep::initTestCase() { QVERIFY(tmp_.isValid()); }

void TstSweep::nMinusOneRunsEveryFailureIntoOneDatabase() {
    one_db_ = tmp_.filePath("n1.sqlite");
    const CliRun r = cli(QStringList{"sweep", sample("lab-8node"), "--n-1", "--fail-at", "1min"} + runOptions(one_db_));
    QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
    const QJsonObject j = r.json();
    QCOMPARE(j["ranks"].toInt(), 1);
    one_ = j["variants"].toArray();
    // lab-8node: two utility feeds, two UPS, two floor PDUs, two CRAHs; and the baseline first.
    QCOMPARE(one_.size(), 9);
    QCOMPARE(one_[0].toObject()["variant"].toString(), QString("baseline"));
    const QJsonArray runs = runsOf(one_db_);
    QCOMPARE(runs.size(), 9);
    double base_peak = one_[0].toObject()["peak_inlet_c"].toDouble();
    bool crah_seen = false;
    for (int i = 0; i < one_.size(); ++i) {
        const QJsonObject v = one_[i].toObject();
        QCOMPARE(v["index"].toInt(), i);
        QCOMPARE(v["end"].toString(), QString("finished"));
        QVERIFY(v["pue"].toDouble() > 1.0 && v["pue"].toDouble() < 3.0);
        const QString name = v["variant"].toString();
        // Every feed, UPS and PDU has its twin: nothing lost; a CRAH lost leaves the other to carry the room.
        if (name.startsWith("util") || name.startsWith("ups") || name.startsWith("pdu"))
            QVERIFY2(v["gpu_lost_share"].toDouble() < 1e-9, qPrintable(name));
        if (name.startsWith("crah")) {
            crah_seen = true;
            QVERIFY2(v["peak_inlet_c"].toDouble() > base_peak + 0.1,
                     qPrintable(QString("%1: %2 vs %3").arg(name).arg(v["peak_inlet_c"].toDouble()).arg(base_peak)));
        }
    }
    QVERIFY(crah_seen);
    // The runs are named after their variants and name the baseline's run, which the app's Compare tab pairs.
    int named = 0;
    const auto store = ct::runs::TelemetryStore::open(one_db_.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    const std::string baseline = one_db_.toStdString() + ", run " + std::to_string(one_[0].toObject()["run"].toInt());
    for (const auto& run : store.runs()) {
        if (run.name.rfind("sweep lab-8node: ", 0) != 0) continue;
        ++named;
        const bool is_base = run.name == "sweep lab-8node: baseline";
        QCOMPARE(run.meta.whatif_baseline, is_base ? std::string() : baseline);
        QCOMPARE(run.meta.whatif_changes.empty(), is_base);
        QCOMPARE(run.meta.source, std::string("clustertwin-cli sweep"));
    }
    QCOMPARE(named, 9);
    QVERIFY(r.out.contains("\"database\""));
}

void TstSweep::varyRunsEveryCombinationAndReportsABadSetting() {
    const QString db = tmp_.filePath("vary.sqlite");
    CliRun r = cli(QStringList{"sweep", sample("lab-8node"), "--vary", "simulation.unit_airflow_margin=0.9,1.6"} + runOptions(db));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonArray v = r.json()["variants"].toArray();
    QCOMPARE(v.size(), 3);
    QCOMPARE(v[1].toObject()["variant"].toString(), QString("/simulation/unit_airflow_margin=0.9"));
    // Units that blow less than the racks draw let hot air back to the intakes.
    QVERIFY2(v[1].toObject()["peak_inlet_c"].toDouble() > v[2].toObject()["peak_inlet_c"].toDouble(), qPrintable(r.out));
    // Two keys: every combination; a key the scenario has no place for (a third CRAH) is that variant's error, the
    // rest run.
    r = cli(QStringList{"sweep", sample("lab-8node"), "--vary", "simulation.unit_airflow_margin=1.2,1.4", "--vary",
                        "halls.0.cooling_units.7.setpoint_c=20"} +
            runOptions(tmp_.filePath("vary2.sqlite")));
    QCOMPARE(r.code, 2);
    v = r.json()["variants"].toArray();
    QCOMPARE(v.size(), 3);  // the baseline and two combinations, each with the bad key
    QCOMPARE(v[0].toObject()["end"].toString(), QString("finished"));
    QCOMPARE(v[1].toObject()["end"].toString(), QString("error"));
    QVERIFY2(v[1].toObject()["error"].toString().contains("no /halls/0/cooling_units/7 (an array of 2)"), qPrintable(r.out));
    // Not a spec at all: a usage error.
    r = cli(QStringList{"sweep", sample("lab-8node"), "--vary", "simulation.unit_airflow_margin"} + runOptions(tmp_.filePath("x.sqlite")));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("KEY=V1,V2"), qPrintable(r.err));
    r = cli(QStringList{"sweep", sample("lab-8node")} + runOptions(tmp_.filePath("x.sqlite")));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--n-1"), qPrintable(r.err));
}

void TstSweep::whatIfFilesAreVariants() {
    const QString f1 = tmp_.filePath("both-crahs.json"), f2 = tmp_.filePath("bad.json");
    std::ofstream(f1.toStdString()) << R"([{"time_s": 60, "kind": "cooling_unit_fail", "target": "crah-01"},
                                          {"time_s": 60, "kind": "cooling_unit_fail", "target": "crah-02"}])";
    std::ofstream(f2.toStdString()) << R"([{"time_s": 60, "kind": "cooling_unit_fail", "target": "crah-99"}])";
    CliRun r = cli(QStringList{"sweep", sample("lab-8node"), "--what-if", f1} + runOptions(tmp_.filePath("wi.sqlite")));
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray v = r.json()["variants"].toArray();
    QCOMPARE(v.size(), 2);
    QCOMPARE(v[1].toObject()["variant"].toString(), QString("both-crahs.json"));
    QVERIFY(v[1].toObject()["peak_inlet_c"].toDouble() > v[0].toObject()["peak_inlet_c"].toDouble() + 1);
    QVERIFY(v[1].toObject()["alerts"].toInt() > v[0].toObject()["alerts"].toInt());
    // A file naming a unit the scenario does not have: its problem with file and pointer, nothing run.
    r = cli(QStringList{"sweep", sample("lab-8node"), "--what-if", f1, "--what-if", f2} + runOptions(tmp_.filePath("wi2.sqlite")));
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bad.json") && r.err.contains("crah-99"), qPrintable(r.err));
    QVERIFY(!QFile::exists(tmp_.filePath("wi2.sqlite")));
}

void TstSweep::mpiRanksGiveTheAnswersOfOneProcess() {
    if (QStandardPaths::findExecutable("mpirun").isEmpty()) QSKIP("no mpirun (openmpi-bin)");
    QVERIFY(!one_.isEmpty());
    for (int ranks : {2, 3}) {
        const QString db = tmp_.filePath(QString("n1-np%1.sqlite").arg(ranks));
        const CliRun r = mpirun(ranks, QStringList{"sweep", sample("lab-8node"), "--n-1", "--fail-at", "1min"} + runOptions(db));
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        const QJsonObject j = r.json();
        QCOMPARE(j["ranks"].toInt(), ranks);
        const QJsonArray v = j["variants"].toArray();
        QCOMPARE(v.size(), one_.size());
        QSet<int> used;
        for (int i = 0; i < v.size(); ++i) {
            const QJsonObject a = v[i].toObject(), b = one_[i].toObject();
            QCOMPARE(a["variant"].toString(), b["variant"].toString());
            QCOMPARE(a["rank"].toInt(), i % ranks);
            used.insert(a["rank"].toInt());
            // The same engine on one thread: the same sums in the same order, so the same numbers to the bit.
            for (const char* k : {"peak_inlet_c", "pue", "gpu_lost_share"})
                QVERIFY2(a[k].toDouble() == b[k].toDouble(),
                         qPrintable(QString("%1 %2: %3 vs %4").arg(a["variant"].toString(), k).arg(a[k].toDouble()).arg(b[k].toDouble())));
            QCOMPARE(a["alerts"].toInt(), b["alerts"].toInt());
            QCOMPARE(a["first_alert"].toString(), b["first_alert"].toString());
        }
        QCOMPARE(used.size(), ranks);
        // One database in the variants' order, every run as complete as one process's, no rank's file left.
        const QJsonArray runs = runsOf(db), ref = runsOf(one_db_);
        QCOMPARE(runs.size(), ref.size());
        for (int i = 0; i < runs.size(); ++i) {
            QCOMPARE(runs[i].toObject()["name"].toString(), ref[i].toObject()["name"].toString());
            QCOMPARE(runs[i].toObject()["samples"].toInteger(), ref[i].toObject()["samples"].toInteger());
        }
        const QStringList left = QDir(tmp_.path()).entryList({QString("n1-np%1.sqlite.rank*").arg(ranks)});
        QVERIFY2(left.isEmpty(), qPrintable(left.join(", ")));
        const auto inlets = queryRows(db, "inlet_c"), want = queryRows(one_db_, "inlet_c");
        QCOMPARE(inlets.size(), want.size());
        for (std::size_t i = 0; i < inlets.size(); i += 97) QCOMPARE(inlets[i].value, want[i].value);
    }
}

void TstSweep::simulateSpreadsACampussHallsOverRanks() {
    if (QStandardPaths::findExecutable("mpirun").isEmpty()) QSKIP("no mpirun (openmpi-bin)");
    // The campus sample's three halls (of different sizes) on 2 ranks and on 3, one thread each: the same run to
    // the bit as one process records (the halls' sums taken in the same order wherever they are stepped).
    const QStringList opts{"--air",     "quick", "--duration",    "5min", "--step", "10s",
                           "--threads", "1",     "--field-every", "2min", "--json", "-q"};
    const QString one_db = tmp_.filePath("campus-1.sqlite");
    const CliRun one = cli(QStringList{"simulate", sample("campus-3-halls"), "--out", one_db} + opts);
    QVERIFY2(one.code == 0, qPrintable(one.err));
    const QJsonObject a = one.json();
    QCOMPARE(a["ranks"].toInt(), 1);
    const auto want = queryRows(one_db, "inlet_c"), want_power = queryRows(one_db, "power_w");
    for (int ranks : {2, 3}) {
        const QString db = tmp_.filePath(QString("campus-np%1.sqlite").arg(ranks));
        const CliRun r = mpirun(ranks, QStringList{"simulate", sample("campus-3-halls"), "--out", db} + opts);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        QCOMPARE(r.out.count("\"ranks\""), 1);  // rank 0 alone speaks
        const QJsonObject b = r.json();
        QCOMPARE(b["ranks"].toInt(), ranks);
        QVERIFY(b["exchanged_bytes_per_step"].toDouble() > 0);
        QSet<int> used;
        for (const auto& h : b["hall_ranks"].toArray()) used.insert(h.toInt());
        QCOMPARE(used.size(), std::min(ranks, 3));  // every rank steps a hall
        for (const QString& k : a.keys()) {
            if (k == "database" || k == "wall_s" || k == "flow_s" || k == "ranks" || k == "hall_ranks" || k == "exchanged_bytes_per_step" ||
                k == "air_s")
                continue;
            QVERIFY2(b[k] == a[k], qPrintable(QString("np %1: %2 differs").arg(ranks).arg(k)));
        }
        const auto inlets = queryRows(db, "inlet_c"), power = queryRows(db, "power_w");
        QCOMPARE(inlets.size(), want.size());
        QCOMPARE(power.size(), want_power.size());
        for (std::size_t i = 0; i < inlets.size(); ++i) QCOMPARE(inlets[i].value, want[i].value);
        for (std::size_t i = 0; i < power.size(); ++i) QCOMPARE(power[i].value, want_power[i].value);
        // Every hall's air field is in the database, as one process stores them.
        const auto store = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        const auto ref = ct::runs::TelemetryStore::open(one_db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        QCOMPARE(store.runs().size(), 1u);
        QVERIFY2(store.runs()[0].meta.run_options_json.find("\"ranks\":" + std::to_string(ranks)) != std::string::npos,
                 store.runs()[0].meta.run_options_json.c_str());
        QCOMPARE(store.airFieldHalls(store.runs()[0].id), ref.airFieldHalls(ref.runs()[0].id));
        QCOMPARE(store.airFieldHalls(store.runs()[0].id).size(), 3u);
        QCOMPARE(store.airFieldTimes(store.runs()[0].id, 2), ref.airFieldTimes(ref.runs()[0].id, 2));
    }
    // Steady mode: every rank sees the same inlets, so all stop at the same step, as one process does.
    const QStringList steady{"--air", "quick", "--steady", "--duration", "3h", "--threads", "1", "--json", "-q"};
    const CliRun s1 = cli(QStringList{"simulate", sample("campus-3-halls"), "--out", tmp_.filePath("steady-1.sqlite")} + steady);
    const CliRun s2 = mpirun(2, QStringList{"simulate", sample("campus-3-halls"), "--out", tmp_.filePath("steady-2.sqlite")} + steady);
    QVERIFY2(s1.code == 0 && s2.code == 0, qPrintable(s1.err + s2.err));
    QVERIFY(s1.json()["steady"].toObject()["reached"].toBool());
    QCOMPARE(s2.json()["steady"], s1.json()["steady"]);
    QVERIFY(!s1.json()["rack_inlets"].toArray().isEmpty());
    QCOMPARE(s2.json()["rack_inlets"], s1.json()["rack_inlets"]);
}

void TstSweep::simulateSplitsAHallsLatticeOverRanks() {
    if (QStandardPaths::findExecutable("mpirun").isEmpty()) QSKIP("no mpirun (openmpi-bin)");
    // One hall in lattice air on 2 and 3 ranks: its lattice in slabs along y (halo rows every lattice step), its
    // heat on every rank from the gathered flow. The same run to the bit as one process records.
    const QStringList opts{"--air", "lbm", "--duration", "2min", "--threads", "1", "--field-every", "1min", "--json", "-q"};
    const QString one_db = tmp_.filePath("pod-1.sqlite");
    const CliRun one = cli(QStringList{"simulate", sample("pod-12rack"), "--out", one_db} + opts);
    QVERIFY2(one.code == 0, qPrintable(one.err));
    const QJsonObject a = one.json();
    QVERIFY(a["lattice_steps"].toDouble() > 0);
    const auto want = queryRows(one_db, "inlet_c");
    QVERIFY(!want.empty());
    for (int ranks : {2, 3}) {
        const QString db = tmp_.filePath(QString("pod-np%1.sqlite").arg(ranks));
        const CliRun r = mpirun(ranks, QStringList{"simulate", sample("pod-12rack"), "--out", db} + opts);
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        const QJsonObject b = r.json();
        QCOMPARE(b["hall_slabs"].toArray(), QJsonArray{ranks});
        for (const QString& k : a.keys()) {
            if (k == "database" || k == "wall_s" || k == "flow_s" || k == "ranks" || k == "hall_slabs" || k == "exchanged_bytes_per_step" ||
                k == "air_s")
                continue;
            QVERIFY2(b[k] == a[k], qPrintable(QString("np %1: %2 differs").arg(ranks).arg(k)));
        }
        const auto inlets = queryRows(db, "inlet_c");
        QCOMPARE(inlets.size(), want.size());
        for (std::size_t i = 0; i < inlets.size(); ++i) QCOMPARE(inlets[i].value, want[i].value);
        const auto store = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        const auto ref = ct::runs::TelemetryStore::open(one_db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        const auto times = ref.airFieldTimes(ref.runs()[0].id, 0);
        QVERIFY(!times.empty());
        QCOMPARE(store.airFieldTimes(store.runs()[0].id, 0), times);
        const auto fa = store.airFieldAt(store.runs()[0].id, times.back()), fb = ref.airFieldAt(ref.runs()[0].id, times.back());
        QVERIFY(fa && fb);
        QCOMPARE(fa->temp_c.size(), fb->temp_c.size());  // NaN in solids: bits, not values
        QVERIFY(std::memcmp(fa->temp_c.data(), fb->temp_c.data(), fa->temp_c.size() * sizeof(float)) == 0);
        QVERIFY(fa->velocity_ms == fb->velocity_ms);
    }
}

void TstSweep::simulateSharesAnOddHallOverRanks() {
    if (QStandardPaths::findExecutable("mpirun").isEmpty()) QSKIP("no mpirun (openmpi-bin)");
    // The campus's three halls in lattice air on 2 ranks: a whole hall each and the third in two slabs, one on
    // each rank (its slabs meet after each rank's whole hall). The same run to the bit as one process records.
    const QStringList opts{"--air", "lbm", "--duration", "40s", "--threads", "1", "--json", "-q"};
    const QString one_db = tmp_.filePath("campus-lbm-1.sqlite"), two_db = tmp_.filePath("campus-lbm-2.sqlite");
    const CliRun one = cli(QStringList{"simulate", sample("campus-3-halls"), "--out", one_db} + opts);
    QVERIFY2(one.code == 0, qPrintable(one.err));
    const CliRun two = mpirun(2, QStringList{"simulate", sample("campus-3-halls"), "--out", two_db} + opts);
    QVERIFY2(two.code == 0, qPrintable(two.err + two.out));
    const QJsonObject a = one.json(), b = two.json();
    QVERIFY(a["lattice_steps"].toDouble() > 0);
    QCOMPARE(b["hall_slabs"].toArray(), (QJsonArray{1, 1, 2}));
    for (const QString& k : a.keys()) {
        if (k == "database" || k == "wall_s" || k == "flow_s" || k == "ranks" || k == "hall_slabs" || k == "hall_ranks" ||
            k == "exchanged_bytes_per_step" || k == "air_s")
            continue;
        QVERIFY2(b[k] == a[k], qPrintable(QString("%1 differs").arg(k)));
    }
    const auto want = queryRows(one_db, "inlet_c"), got = queryRows(two_db, "inlet_c");
    QVERIFY(!want.empty());
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) QCOMPARE(got[i].value, want[i].value);
}

namespace {
/// The processes whose parent is `parent` (from /proc), lowest pid first.
QList<qint64> childrenOf(qint64 parent) {
    QList<qint64> out;
    for (const QString& d : QDir("/proc").entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = d.toLongLong(&ok);
        if (!ok) continue;
        QFile f("/proc/" + d + "/stat");
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QString stat = QString::fromUtf8(f.readAll());
        const QStringList rest = stat.mid(stat.lastIndexOf(')') + 2).split(' ');  // state, ppid, ...
        if (rest.size() > 1 && rest[1].toLongLong() == parent) out.append(pid);
    }
    std::sort(out.begin(), out.end());
    return out;
}
}  // namespace

void TstSweep::aRankThatDiesLeavesTheRunReadable() {
    if (QStandardPaths::findExecutable("mpirun").isEmpty()) QSKIP("no mpirun (openmpi-bin)");
    // A long run of the campus on 2 ranks; once rank 0 has stored samples, the other rank is killed (as the
    // kernel's OOM killer or a failed node would). mpirun ends the job naming the rank, and the run recorded so
    // far is readable, listed as incomplete.
    const QString db = tmp_.filePath("dies.sqlite");
    QProcess p;
    p.setProcessEnvironment(mpiEnvironment());
    p.start(QStandardPaths::findExecutable("mpirun"),
            {"--oversubscribe", "-np", "2", QString(CT_CLI_PATH), "simulate", sample("campus-3-halls"), "--air", "quick", "--duration",
             "24h", "--threads", "1", "--field-every", "0", "--out", db, "-q"});
    QVERIFY(p.waitForStarted());
    auto samples = [&] {
        if (!QFile::exists(db)) return 0LL;
        const CliRun r = cli({"runs", "--db", db, "--json"});
        const QJsonDocument d = QJsonDocument::fromJson(r.out.toUtf8());
        const QJsonArray runs = d.isArray() ? d.array() : d.object()["runs"].toArray();
        return runs.isEmpty() ? 0LL : runs[0].toObject()["samples"].toInteger();
    };
    // Rank 0 writes its samples in batches (of 200,000); a 24-hour run is far from its end by then.
    QTRY_VERIFY_WITH_TIMEOUT(samples() > 0, testMs(240000));
    const QList<qint64> ranks = childrenOf(p.processId());
    QCOMPARE(ranks.size(), 2);
    // Open MPI starts rank 0 first; either way one rank dies and the other must not wait for it for ever.
    QVERIFY(::kill(static_cast<pid_t>(ranks.last()), SIGKILL) == 0);
    QVERIFY2(p.waitForFinished(testMs(120000)), "mpirun did not end the job after a rank died");
    QVERIFY(p.exitCode() != 0);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains("rank") && err.contains("signal 9"), qPrintable(err));
    const CliRun r = cli({"runs", "--db", db, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonDocument d = QJsonDocument::fromJson(r.out.toUtf8());
    const QJsonObject run = (d.isArray() ? d.array() : d.object()["runs"].toArray())[0].toObject();
    QVERIFY(!run["complete"].toBool());
    QVERIFY(run["samples"].toInteger() > 0);
    QVERIFY(run["t1_s"].toDouble() > 0 && run["t1_s"].toDouble() < 24 * 3600);
}

void TstSweep::otherCommandsRefuseToRunOnManyRanks() {
    if (QStandardPaths::findExecutable("mpirun").isEmpty()) QSKIP("no mpirun (openmpi-bin)");
    const CliRun r = mpirun(2, {"export", "--db", tmp_.filePath("no.sqlite"), "--run", "1", "--out", tmp_.filePath("no.csv")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("only simulate and sweep spread"), qPrintable(r.err));
    QCOMPARE(r.err.count("only simulate and sweep spread"), 1);  // said once, by rank 0
    QVERIFY(!QFile::exists(tmp_.filePath("no.csv")));
}

QTEST_MAIN(TstSweep)
#include "tst_sweep.moc"
