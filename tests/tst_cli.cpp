// clustertwin-cli exit codes and outputs: 0 ok, 1 runtime error, 2 usage or invalid input (issue 8).
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"
#include "image_checks.hpp"
#include "test_time.hpp"

#include <clustertwin/importers/nccl_tests.hpp>
#include <clustertwin/model/capacity.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/runs/store.hpp>

#include <cmath>
#include <fstream>
#include <sstream>

#include <signal.h>
#include <sqlite3.h>
#include "test_paths.hpp"

namespace {

QString sample(const char* name) { return QString(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json"; }
QString invalid(const char* name) { return QString(CT_TEST_DATA_DIR) + "/invalid/" + name + ".json"; }
}  // namespace

class TstCli : public QObject {
    Q_OBJECT
private slots:
    void helpAndUsage();
    void capacityAnswersAsThePlannerModelDoes();
    void aPathIsTracedFromOneGpuToAnother();
    void validateAcceptsEverySample_data();
    void validateAcceptsEverySample();
    void validateRejectsMalformedFilesNamingThePointer();
    void infoReportsTheSuperpod();
    void infoRefusesAnInvalidFile();
    void generateWritesAValidScenario();
    void generateRejectsBadParameters();
    void renderWritesAPicture();
    void backendsListsTheCpu();
    void simulateRecordsARunAndSummarises();
    void simulateQuickIsLabelledAndSteadyStops();
    void simulateRejectsBadEventsNamingThePointer();
    void simulateRefusesAGridTooFineForMemory();
    void simulateFinishesWhenCoolingFallsShortAndSaysSo();
    void collectiveReportsTimeBusBandwidthAndBusiestLinks();
    void collectiveRejectsBadArguments();
    void simulateRunsJobsFromAFileAndNamesTheirProblems();
    void importAndQueryDcgmScrapesWithoutDuplicates();
    void importKilledMidwayLeavesAConsistentDatabase();
    void ncclTestsOutputInAndOut();
    void collectiveSaysWhereItIsUnchecked();
};

void TstCli::helpAndUsage() {
    CliRun r = cli({"--help"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("validate") && r.out.contains("generate"));
    QCOMPARE(cli({"validate", "--help"}).code, 0);
    QCOMPARE(cli({"help", "info"}).code, 0);
    QCOMPARE(cli({}).code, 2);
    r = cli({"frobnicate"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("unknown command"));
    r = cli({"validate", "--bogus", sample("lab-8node")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("unknown option --bogus"));
    QCOMPARE(cli({"validate"}).code, 2);
    // One command table (issue 39): `help --commands` names every command the main help lists, each has its
    // help, and the man page and the completion read the same list.
    r = cli({"help", "--commands"});
    QCOMPARE(r.code, 0);
    const QStringList names = r.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(names.size() >= 19);
    const QString main_help = cli({"--help"}).out;
    for (const QString& n : names) {
        QVERIFY2(main_help.contains("\n  " + n), qPrintable(n));
        const CliRun h = cli({"help", n});
        QVERIFY2(h.code == 0 && h.out.startsWith("Usage: clustertwin-cli " + n), qPrintable(n));
    }
    // The air solvers come from their table: simulate's help names each with its own options.
    r = cli({"help", "--air-solvers"});
    QCOMPARE(r.out.split('\n', Qt::SkipEmptyParts), (QStringList{"lbm", "quick"}));
    const QString sim_help = cli({"help", "simulate"}).out;
    QVERIFY(sim_help.contains("lbm (") && sim_help.contains("quick (") && sim_help.contains("--lattice-stride N") &&
            sim_help.contains("--quick-substep T"));
    // The formats come from theirs (importers/formats.hpp).
    r = cli({"import", "--formats", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonArray formats = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QVERIFY(formats.size() >= 18);
    bool dcgm = false;
    for (const auto& f : formats)
        dcgm = dcgm || (f.toObject()["id"].toString() == "prometheus-text" && f.toObject()["kind"].toString() == "samples");
    QVERIFY(dcgm);
}

void TstCli::validateAcceptsEverySample_data() {
    QTest::addColumn<QString>("path");
    for (const char* n : {"lab-8node", "superpod-h100-su", "gb200-nvl72-liquid", "demo", "pod-12rack"}) QTest::newRow(n) << sample(n);
}

void TstCli::validateAcceptsEverySample() {
    QFETCH(QString, path);
    const CliRun r = cli({"validate", path});
    QVERIFY2(r.code == 0, qPrintable(r.err));
}

void TstCli::validateRejectsMalformedFilesNamingThePointer() {
    CliRun r = cli({"validate", invalid("overlap")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("/halls/0/rows/0/racks/1/position_m: overlaps rack r01-01"));
    r = cli({"validate", "--json", invalid("several_problems")});
    QCOMPARE(r.code, 2);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["valid"].toBool(true), false);
    QCOMPARE(o["errors"].toArray().size(), 2);  // every problem, not just the first
    r = cli({"validate", invalid("syntax_error")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("syntax_error.json:5:"));
    QCOMPARE(cli({"validate", invalid("empty")}).code, 2);
    QCOMPARE(cli({"validate", "/nonexistent/file.json"}).code, 2);
    QCOMPARE(cli({"validate", invalid("unknown_keys")}).code, 0);  // warnings only
    // -o writes a valid scenario as the app saves it (a hand-written one, its keys in any order, becomes the
    // canonical form), and nothing for an invalid one.
    QTemporaryDir tmp;
    const QString hand = tmp.filePath("hand.json"), out = tmp.filePath("out.json");
    QFile in(sample("lab-8node"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QFile h(hand);
    QVERIFY(h.open(QIODevice::WriteOnly));
    h.write(QJsonDocument::fromJson(in.readAll()).toJson(QJsonDocument::Compact));  // Qt sorts the keys
    h.close();
    QCOMPARE(cli({"validate", hand, "-o", out}).code, 0);
    QFile o2(out);
    QVERIFY(o2.open(QIODevice::ReadOnly));
    in.seek(0);
    QCOMPARE(o2.readAll(), in.readAll());
    QCOMPARE(cli({"validate", invalid("overlap"), "-o", tmp.filePath("bad.json")}).code, 2);
    QVERIFY(!QFile::exists(tmp.filePath("bad.json")));
}

void TstCli::infoReportsTheSuperpod() {
    const CliRun r = cli({"info", "--json", sample("superpod-h100-su")});
    QCOMPARE(r.code, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["gpus"].toInt(), 256);
    QCOMPARE(o["nodes"].toInt(), 32);
    QVERIFY(qAbs(o["nameplate_it_power_w"].toDouble() - 32 * 10200.0) < 1.0);
    QVERIFY(o["cooling_survives_single_failure"].toBool());
    QVERIFY(o["air_cooling_capacity_w"].toDouble() > 0);
    const CliRun text = cli({"info", sample("lab-8node")});
    QCOMPARE(text.code, 0);
    QVERIFY(text.out.contains("GPUs 64"));
}

void TstCli::infoRefusesAnInvalidFile() {
    const CliRun r = cli({"info", invalid("duplicate_id")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("duplicate id"));
}

void TstCli::generateWritesAValidScenario() {
    QTemporaryDir tmp;
    const QString out = tmp.filePath("gen.json");
    CliRun r = cli({"generate", "--rows", "3", "--racks-per-row", "5", "--server", "hgx-b200", "--nodes-per-rack", "3", "--jobs", "2",
                    "--event", "10m,cooling_unit_fail,crah-01", "-o", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = cli({"info", "--json", out});
    QCOMPARE(r.code, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["racks"].toInt(), 15);
    QCOMPARE(o["gpus"].toInt(), 15 * 3 * 8);
}

void TstCli::generateRejectsBadParameters() {
    QTemporaryDir tmp;
    CliRun r = cli({"generate", "--rows", "zero", "-o", tmp.filePath("x.json")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--rows"));
    r = cli({"generate", "--server", "dgx-h900", "-o", tmp.filePath("x.json")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("server_model"));
    r = cli({"generate", "--event", "10m,cooling_unit_fail,crah-77", "-o", tmp.filePath("x.json")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("/events/0/target"));
    QVERIFY(!QFile::exists(tmp.filePath("x.json")));
    QCOMPARE(cli({"generate"}).code, 2);  // no -o
}

void TstCli::renderWritesAPicture() {
    // On the display the suite is given (Xvfb in CI); tst_cli_unix renders with DISPLAY unset.
    QTemporaryDir tmp;
    const QString png = tmp.filePath("lab.png");
    const CliRun r = cli({"render", sample("lab-8node"), "--size", "320x200", "-o", png});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage img(png);
    QCOMPARE(img.size(), QSize(320, 200));
    QVERIFY(sampledColours(img) > 10);  // not blank: the floor and racks differ from the background
    QCOMPARE(cli({"render", sample("lab-8node"), "--size", "huge", "-o", png}).code, 2);
}

void TstCli::backendsListsTheCpu() {
    const CliRun r = cli({"backends"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.out.contains("cpu: available"));
}

void TstCli::simulateRecordsARunAndSummarises() {
    QTemporaryDir tmp;
    const QString db = tmp.filePath("run.sqlite");
    const CliRun r =
        cli({"simulate", sample("lab-8node"), "--duration", "2m", "--step", "2s", "--record-every", "20s", "--out", db, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.err.contains("simulate: 100%"));  // progress on stderr
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    for (const char* k :
         {"it_power_w", "facility_power_w", "pue", "max_inlet_c", "max_inlet_rack", "heat_in_w", "heat_removed_w", "alerts"})
        QVERIFY2(o.contains(k), k);
    QVERIFY(o["pue"].toDouble() > 1.0);
    QVERIFY(o["facility_power_w"].toDouble() > o["it_power_w"].toDouble());
    QCOMPARE(o["max_inlet_rack"].toString().left(3), QString("r01"));
    // The default air solver is the lattice, and the summary says how it was set up.
    QCOMPARE(o["air"].toString(), QString("lbm"));
    QVERIFY(!o["air_approximate"].toBool(true));
    QVERIFY2(r.err.contains("room air: lattice Boltzmann") && r.err.contains("Mach 0.15"), qPrintable(r.err));
    // Its fastest air's lattice Mach number (the tiles' merged jets, below 0.15) is given, and not remarked on.
    QVERIFY(o["max_lattice_mach"].toDouble() > 0.05 && o["max_lattice_mach"].toDouble() < 0.3);
    QVERIFY(!r.err.contains("ran at lattice Mach"));
    // campus-3-halls' contained aisles carry air faster than its ports make: the run says at what Mach number.
    const CliRun c = cli({"simulate", sample("campus-3-halls"), "--duration", "3s", "--out", tmp.filePath("c.sqlite"), "--json"});
    QVERIFY2(c.code == 0 && c.err.contains("ran at lattice Mach 0.3"), qPrintable(c.err));
    QCOMPARE(QJsonDocument::fromJson(c.out.toUtf8()).object()["lattice_restarts"].toInt(), 0);
    auto store = ct::runs::TelemetryStore::open(db.toStdString());
    const auto runs = store.runs();
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].kind, std::string("simulated"));
    QCOMPARE(*runs[0].end_s, 120.0);
    const auto it = store.values(runs[0].id, "it_power_w", {"lab-8node"}, 0, 1e9);
    QCOMPARE(it.size(), std::size_t(1));
    QCOMPARE(it[0].points.size(), std::size_t(7));  // t = 0, 20, ..., 120
    QVERIFY(std::fabs(it[0].points.back().second - o["it_power_w"].toDouble()) < 1e-6);
    QCOMPARE(store.values(runs[0].id, "temp_c", {}, 0, 1e9).size(), std::size_t(64));  // every GPU
}

void TstCli::simulateQuickIsLabelledAndSteadyStops() {
    QTemporaryDir tmp;
    CliRun r = cli({"simulate", sample("lab-8node"), "--duration", "1m", "--air", "potential", "--out", tmp.filePath("x.sqlite")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--air"), qPrintable(r.err));
    r = cli({"simulate", sample("lab-8node"), "--steady", "--duration", "2h", "--step", "5s", "--air", "quick", "--out",
             tmp.filePath("s.sqlite"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("approximate") && r.err.contains("steady after"), qPrintable(r.err));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY(o["air_approximate"].toBool());
    const QJsonObject st = o["steady"].toObject();
    QVERIFY(st["reached"].toBool());
    QVERIFY(st["time_s"].toDouble() < 7200);
    QVERIFY(st["time_s"].toDouble() >= 2 * st["flow_through_s"].toDouble());
    QVERIFY(st["last_change_k"].toDouble() < 0.05);
    // The answer is each rack's inlet averaged over the steady windows (at least four, after the transient).
    QVERIFY(st["averaging_s"].toDouble() >= 4 * st["flow_through_s"].toDouble() - 1e-6);
    QVERIFY(st["averaging_s"].toDouble() <= st["time_s"].toDouble());
    QVERIFY(r.err.contains("mean over the steady period"));
    const QJsonArray racks = o["rack_inlets"].toArray();
    QCOMPARE(racks.size(), 2);
    for (const auto& x : racks) {
        const double steady_c = x.toObject()["inlet_steady_c"].toDouble(-1);
        QVERIFY2(steady_c > 15 && steady_c < 45, qPrintable(QString::number(steady_c)));
        QVERIFY(std::fabs(steady_c - x.toObject()["inlet_mean_c"].toDouble()) < 1.0);  // quick mode hardly flickers
    }
}

void TstCli::simulateRejectsBadEventsNamingThePointer() {
    QTemporaryDir tmp;
    QFile f(tmp.filePath("events.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"events": [{"time_s": 30, "kind": "cooling_unit_fail", "target": "crah-42"},
                          {"time_s": 7200, "kind": "cooling_unit_restore", "target": "crah-01"}]})");
    f.close();
    const CliRun r =
        cli({"simulate", sample("lab-8node"), "--duration", "10m", "--events", f.fileName(), "--out", tmp.filePath("x.sqlite")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("/events/0/target: 'crah-42' is not a cooling unit"), qPrintable(r.err));
    QVERIFY(r.err.contains("/events/1/time_s: at 7200 s, after the end of the run (600 s)"));
    QVERIFY(!QFile::exists(tmp.filePath("x.sqlite")));
    // The scenario's own events past a shorter run: one line says how many and from where, not one each
    // (issue 44: 43,386 lines for a minute of a scenario with per-minute events).
    QFile in(sample("lab-8node"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject sc = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray events;
    for (int i = 0; i < 500; ++i)
        events.append(QJsonObject{{"time_s", 60.0 * i}, {"kind", "setpoint_change"}, {"target", "crah-01"}, {"value", 18.0}});
    sc["events"] = events;
    QFile out(tmp.filePath("timeline.json"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(sc).toJson());
    out.close();
    const CliRun t = cli({"simulate", out.fileName(), "--duration", "2m", "--air", "quick", "-q", "--out", tmp.filePath("y.sqlite")});
    QCOMPARE(t.code, 0);
    QCOMPARE(t.err.count("will not happen"), 1);
    QVERIFY2(t.err.contains("497 of 500 event(s) come after the end of this run (2m 00s; the first /events/3 at 3m 00s)"),
             qPrintable(t.err));
}

void TstCli::simulateRefusesAGridTooFineForMemory() {
    QTemporaryDir tmp;
    const CliRun r =
        cli({"simulate", sample("demo"), "--duration", "1m", "--cell", "0.1", "--max-grid-memory", "8", "--out", tmp.filePath("x.sqlite")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("needs") && r.err.contains("GiB") && r.err.contains("--cell"), qPrintable(r.err));
}

void TstCli::simulateFinishesWhenCoolingFallsShortAndSaysSo() {
    QTemporaryDir tmp;
    QFile in(sample("lab-8node"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject s = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray nodes;
    for (int i = 1; i <= 8; ++i) nodes.append(QString("n%1").arg(i, 4, 10, QChar('0')));
    s["jobs"] = QJsonArray{QJsonObject{{"id", "j1"}, {"kind", "training"}, {"nodes", nodes}, {"utilization", 1.0}}};
    s["catalog"] = QJsonObject{{"cooling_units", QJsonArray{QJsonObject{{"id", "crah-cw-120kw"}, {"capacity_w", 15000}}}}};
    QFile out(tmp.filePath("weak.json"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(s).toJson());
    out.close();
    const CliRun r = cli(
        {"simulate", out.fileName(), "--duration", "5m", "--step", "5s", "--air", "quick", "--out", tmp.filePath("x.sqlite"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(r.err.contains("cooling could not carry the load"));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["cooling_ok"].toBool(true), false);
    bool short_alert = false;
    for (const auto& a : o["alerts"].toArray()) short_alert = short_alert || a.toObject()["kind"].toString() == "cooling_short";
    QVERIFY(short_alert);
}

void TstCli::collectiveReportsTimeBusBandwidthAndBusiestLinks() {
    CliRun r = cli({"collective", sample("superpod-h100-su"), "--op", "hierarchical-allreduce", "--bytes", "1GiB", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["ranks"].toInt(), 256);
    QVERIFY(o["time_s"].toDouble() > 0);
    QVERIFY(o["busbw_GBps"].toDouble() > 50);  // NVLink inside the node lifts it above one NIC
    QVERIFY(!o["busiest_links"].toArray().isEmpty());
    // One GPU per node on its own rail: the ring never leaves the leaf and runs at the NIC's 50 GB/s.
    r = cli({"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "1GiB", "--ranks", "32", "--placement", "spread",
             "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    // NCCL's tuner runs it as a ring at Simple; besides its latency (62 hops of 14 µs over the network) it moves
    // 2·31/32 of the buffer through every NIC at 50 GB/s.
    QCOMPARE(o["algorithm"].toString(), QString("ring"));
    QCOMPARE(o["protocol"].toString(), QString("Simple"));
    QVERIFY(o["tuned"].toBool());
    const double bw_s = o["time_s"].toDouble() - o["latency_s"].toDouble();
    QVERIFY(std::fabs(o["latency_s"].toDouble() - (8.4e-6 + 62 * 14e-6)) < 1e-9);
    QVERIFY(std::fabs(2.0 * 31 / 32 * std::pow(2.0, 30) / bw_s / 1e9 - 50.0) < 0.5);
    QVERIFY(o["busbw_GBps"].toDouble() < 50 && o["busbw_GBps"].toDouble() > 48);
}

void TstCli::collectiveRejectsBadArguments() {
    QCOMPARE(cli({"collective", sample("superpod-h100-su"), "--op", "gather", "--bytes", "1GiB"}).code, 2);
    CliRun r = cli({"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "-5MB"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--bytes"));
    r = cli({"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "1GiB", "--ranks", "999"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("--ranks must be within 1..256"));
    r = cli({"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "1GiB", "--fail-link", "nowhere<->leaf0"});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains("no link"));
    r = cli({"collective", sample("superpod-h100-su"), "--op", "allgather", "--bytes", "1GiB", "--algo", "tree"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("tree runs all-reduce only"), qPrintable(r.err));
    r = cli({"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "1GiB", "--proto", "ll64"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("ll, ll128, simple"), qPrintable(r.err));
    r = cli({"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "1GiB", "--model", "simgrid"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("nccl or fabric"), qPrintable(r.err));
}

void TstCli::simulateRunsJobsFromAFileAndNamesTheirProblems() {
    QTemporaryDir tmp;
    QFile f(tmp.filePath("jobs.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"([{"id": "llm", "kind": "training", "gpus": 64,
                 "training": {"model_params": 7e9, "tokens_per_step": 524288, "tensor_parallel": 8}}])");
    f.close();
    CliRun r = cli({"simulate", sample("superpod-h100-su"), "--duration", "30s", "--step", "5s", "--air", "quick", "--jobs", f.fileName(),
                    "--out", tmp.filePath("run.sqlite"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonObject job = o["jobs"].toArray().at(0).toObject();
    QCOMPARE(job["id"].toString(), QString("llm"));
    QVERIFY(job["step_time_s"].toDouble() > 0);
    QVERIFY(job["mfu"].toDouble() > 0 && job["mfu"].toDouble() < 0.763);  // no shape: at most the H100's sustained matmul share
    // How its compute was timed, and that the model had no shape to go on.
    QVERIFY2(job["compute"].toObject()["compute_from"].toString().startsWith("the kernels' rooflines with the NVIDIA H100"),
             qPrintable(job["compute"].toObject()["compute_from"].toString()));
    QVERIFY(job["compute"].toObject()["warnings"].toArray().at(0).toString().startsWith("no model shape"));
    QVERIFY2(r.err.contains("simulate: warning: job llm: no model shape"), qPrintable(r.err));
    auto store = ct::runs::TelemetryStore::open(tmp.filePath("run.sqlite").toStdString());
    QCOMPARE(store.values(store.runs()[0].id, "step_time_s", {"llm"}, 0, 1e9).size(), std::size_t(1));
    // The run is of the unedited file, its jobs its own (issue 40: with them in its fingerprint the app said the
    // run "was computed for a different version of the scenario").
    const ct::runs::RunMeta meta = store.runs()[0].meta;
    QCOMPARE(meta.scenario_hash, ct::model::scenarioHash(ct::model::loadAndValidate(sample("superpod-h100-su").toStdString()).scenario));
    QVERIFY2(meta.run_options_json.find("\"extra_jobs\":1") != std::string::npos, meta.run_options_json.c_str());
    // A bad job is named by its place in the jobs file.
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(R"({"jobs": [{"id": "x", "nodes": ["n9999"]}, {"id": "y", "gpus": 100000}]})");
    f.close();
    r = cli({"simulate", sample("superpod-h100-su"), "--duration", "30s", "--jobs", f.fileName(), "--out", tmp.filePath("x.sqlite")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("/jobs/0/nodes/0: unknown node 'n9999'"), qPrintable(r.err));
    QVERIFY(r.err.contains("/jobs/1/gpus: asks for 100000 GPUs; the scenario has 256"));
}

void TstCli::importAndQueryDcgmScrapesWithoutDuplicates() {
    const QString dir = QString(CT_SHARED_TESTDATA_DIR) + "/dcgm_exporter";
    if (!QDir(dir).exists()) QSKIP("shared/testdata not found beside the checkout");
    QTemporaryDir tmp;
    const QString db = tmp.filePath("t.sqlite");
    QStringList files;
    for (const QString& f : QDir(dir).entryList({"*.prom"}, QDir::Files)) files << QDir(dir).filePath(f);
    CliRun r = cli(QStringList{"import"} + files + QStringList{"--db", db, "--json"});
    // The kops capture starts with the line "Received metrics:" (the test tool's, not Prometheus'): a record
    // that cannot be read, so exit status 3 with the file and line named.
    QVERIFY2(r.code == 3, qPrintable(r.err));
    QJsonObject sum = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY2(sum["warnings"].toObject()["bad_value"].toObject()["first"].toString().contains(
                 "kops__1x-nvidia-l4__drv580.105.08.metrics.prom:1:"),
             qPrintable(r.out));
    const int samples = sum["samples"].toInt();
    QVERIFY(samples > 40);
    QCOMPARE(sum["samples_read"].toInt(), samples);                              // every reading stored: no collisions
    r = cli(QStringList{"import"} + files + QStringList{"--db", db, "--json"});  // again, same run name
    QCOMPARE(r.code, 0);  // nothing read again: the same content is already in the run
    sum = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(sum["unchanged_files"].toInt(), files.size());
    QCOMPARE(sum["samples"].toInt(), 0);
    auto store = ct::runs::TelemetryStore::open(db.toStdString());
    QCOMPARE(store.runs().size(), std::size_t(1));
    QCOMPARE(store.sampleCount(), std::int64_t(samples));
    r = cli({"query", "--db", db, "--metric", "temp_c", "--entity", "gpu1-wl8sg/gpu0"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(",gpu1-wl8sg/gpu0,temp_c,32,degC"), qPrintable(r.out));
    QCOMPARE(cli({"import", "/nonexistent.prom", "--db", db}).code, 2);
}

void TstCli::importKilledMidwayLeavesAConsistentDatabase() {
    QTemporaryDir tmp;
    // 40 long-CSV files of 20,000 samples, written 20,000 at a time: many transactions to be killed in.
    const int files = 40, per_file = 20000;
    for (int f = 0; f < files; ++f) {
        std::ofstream out(tmp.filePath(QString("part%1.csv").arg(f, 2, 10, QChar('0'))).toStdString());
        out << "time,entity,metric,value,unit\n";
        for (int i = 0; i < per_file; ++i)
            out << static_cast<long long>(1.7e9) + f * per_file + i << ",n" << (i % 50) << "/gpu0,power_w," << (i % 700) << ",W\n";
    }
    const QString db = tmp.filePath("t.sqlite");
    QProcess p;
    p.start(QString(CT_CLI_PATH), {"import", tmp.path(), "--db", db, "--flush-every", "20000"});
    QVERIFY(p.waitForStarted());
    // Kill it once some samples are committed and it is still running.
    auto count = [&]() -> long long {
        sqlite3* h = nullptr;
        long long n = -1;
        if (sqlite3_open_v2(db.toUtf8().constData(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
            sqlite3_stmt* st = nullptr;
            if (sqlite3_prepare_v2(h, "SELECT COALESCE(SUM(n), 0) FROM chunks", -1, &st, nullptr) == SQLITE_OK &&
                sqlite3_step(st) == SQLITE_ROW)
                n = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
        }
        sqlite3_close(h);
        return n;
    };
    for (int i = 0; i < 4000 && p.state() == QProcess::Running; ++i) {
        if (count() > 0) break;
        QTest::qWait(2);
    }
    QVERIFY2(p.state() == QProcess::Running, "the import finished before it could be killed; make it bigger");
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished());
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);
    const long long after_kill = count();
    QVERIFY(after_kill > 0 && after_kill < static_cast<long long>(files) * per_file);
    // The database is consistent, and a second import completes without duplicates; a third adds nothing.
    {
        sqlite3* h = nullptr;
        QCOMPARE(sqlite3_open(db.toUtf8().constData(), &h), SQLITE_OK);
        sqlite3_stmt* st = nullptr;
        QCOMPARE(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK);
        QCOMPARE(sqlite3_step(st), SQLITE_ROW);
        QCOMPARE(QString(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))), QString("ok"));
        sqlite3_finalize(st);
        sqlite3_close(h);
    }
    QCOMPARE(cli({"import", tmp.path(), "--db", db}).code, 0);
    QCOMPARE(count(), static_cast<long long>(files) * per_file);
    QCOMPARE(cli({"import", tmp.path(), "--db", db}).code, 0);
    QCOMPARE(count(), static_cast<long long>(files) * per_file);
}

// Issue 41: nccl-tests' output read (the layout since 2.11 with mpirun's tags and NCCL's log, the one before),
// the twin's sweep printed in that layout, and compare-nccl setting one against the other.
void TstCli::collectiveSaysWhereItIsUnchecked() {
    // Hopper GPUs: NCCL's ceilings apply, nothing to warn about. The same servers with GPUs NCCL has no tuning row
    // for (a scenario's catalog override): the figures run without ceilings, and stderr says so.
    // (The ring both times: on Hopper the tuner takes NVLS-tree, which Ada GPUs cannot run.)
    CliRun r = cli(
        {"collective", sample("superpod-h100-su"), "--op", "allreduce", "--bytes", "1GiB", "--ranks", "16", "--algo", "ring", "--json"});
    QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
    const double capped = r.json()["busbw_GBps"].toDouble();
    QFile in(sample("superpod-h100-su"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
    doc["catalog"] = QJsonObject{{"gpus", QJsonArray{QJsonObject{{"id", "h100-sxm5-80gb"}, {"architecture", "ada"}}}}};
    QTemporaryDir tmp;
    QFile out(tmp.filePath("ada.json"));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QJsonDocument(doc).toJson());
    out.close();
    r = cli({"collective", out.fileName(), "--op", "allreduce", "--bytes", "1GiB", "--ranks", "16", "--algo", "ring", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("warning: NCCL has no tuning row for ada GPUs"), qPrintable(r.err));
    QVERIFY(r.json()["busbw_GBps"].toDouble() >= capped);
}

void TstCli::ncclTestsOutputInAndOut() {
    using ct::importers::parseNcclTests;
    std::istringstream text(
        "[1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
        "validation: 1\n"
        "[1,0]<stdout>:#\n"
        "[1,0]<stdout>:# Using devices\n"
        "[1,0]<stdout>:#  Rank  0 Group  0 Pid  41230 on    node1 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
        "[1,0]<stdout>:#  Rank  1 Group  0 Pid  41231 on    node2 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
        "node1:41230:41230 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
        "[1,0]<stdout>:#                                                              out-of-place                       in-place\n"
        "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
        "#wrong\n"
        "[1,0]<stdout>:#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
        "[1,0]<stdout>:           8             2     float     sum      -1    19.83    0.00    0.00      0    19.66    0.00    0.00      "
        "0\n"
        "[1,0]<stdout>:     1048576        262144     float     sum      -1    45.10   23.25   23.25      0    44.90   23.35   23.35      "
        "0\n"
        "[1,0]<stdout>:     2097152        524288     float     sum      -1    oops   23.25   23.25      0    44.90   23.35   23.35      "
        "0\n"
        "[1,0]<stdout>:   134217728      33554432     float     sum      -1   2809.1   47.78   47.78    N/A   2806.2   47.83   47.83    "
        "N/A\n"
        "[1,0]<stdout>:# Out of bounds values : 0 OK\n"
        "[1,0]<stdout>:# Avg bus bandwidth    : 23.4567 \n");
    const auto run = parseNcclTests(text, "all_reduce_perf.log");
    QCOMPARE(run.op, std::string("allreduce"));  // from the file name: the text does not name its program
    QCOMPARE(run.ranks, 2);
    QCOMPARE(run.devices.front(), std::string("NVIDIA H100 80GB HBM3"));
    QCOMPARE(run.rows.size(), std::size_t(3));
    QCOMPARE(run.rows[1].size_B, 1048576.0);
    QCOMPARE(run.rows[1].count, 262144LL);
    QCOMPARE(run.rows[1].root, -1);
    QCOMPARE(run.rows[1].time_us, 45.10);
    QCOMPARE(run.rows[1].busbw_GBps, 23.25);
    QCOMPARE(run.rows[1].ip_time_us, 44.90);
    QCOMPARE(run.rows[2].wrong, std::string("N/A"));
    QCOMPARE(run.rows[2].line, 13);
    QCOMPARE(run.bad_lines, 1);
    QVERIFY2(QString::fromStdString(run.problems.front()).startsWith("all_reduce_perf.log:12: "), run.problems.front().c_str());
    QCOMPARE(run.avg_busbw_GBps, 23.4567);
    // Before 2.11: no root column; the program named on the command line the log starts with.
    std::istringstream old(
        "$ mpirun -np 2 ./build/all_gather_perf -b 8M -e 8M -g 1\n"
        "#   Rank  0 Pid   1320 on ip-172-31-20-228 device  0 [0x00] Tesla V100-SXM2-16GB\n"
        "     8388608        1048576     float    none    612.3   13.70   6.85      0   600.1   13.98   6.99      0\n");
    const auto o = parseNcclTests(old, "x.txt");
    QCOMPARE(o.op, std::string("allgather"));
    QCOMPARE(o.rows.size(), std::size_t(1));
    QCOMPARE(o.rows[0].root, -1);
    QCOMPARE(o.rows[0].busbw_GBps, 6.85);
    std::istringstream none("# nothing measured\nNCCL INFO only\n");
    QVERIFY_THROWS_EXCEPTION(ct::model::ParseError, parseNcclTests(none, "empty.txt"));
    QCOMPARE(ct::importers::ncclTestsOp("reduce_scatter_perf"), std::string("reducescatter"));
    QCOMPARE(ct::importers::ncclTestsOp("sendrecv_perf"), std::string("sendrecv"));

    // The twin's sweep in nccl-tests' layout, read back by compare-nccl against the same fabric: ratio 1.
    QTemporaryDir tmp;
    const QString pod = sample("superpod-h100-su");
    CliRun r = cli({"collective", pod, "--op", "allreduce", "--sweep", "1M:64M:4", "--ranks", "16"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("#wrong") && r.out.contains("# Avg bus bandwidth"), qPrintable(r.out));
    const QString table = tmp.filePath("twin.txt");
    QFile f(table);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(r.out.toUtf8());
    f.close();
    r = cli({"compare-nccl", table, pod, "--ranks", "16"});
    QCOMPARE(r.code, 2);  // nothing names the program
    QVERIFY2(r.err.contains("--op"), qPrintable(r.err));
    r = cli({"compare-nccl", table, pod, "--op", "allreduce", "--ranks", "16", "--json"});
    QCOMPARE(r.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["channels"].toInt(), 8);
    const QJsonArray rows = j["rows"].toArray();
    QCOMPARE(rows.size(), 4);  // 1, 4, 16, 64 MiB
    for (const auto& row : rows)
        QVERIFY2(std::fabs(row.toObject()["ratio"].toDouble() - 1) < 2e-3, qPrintable(QString::number(row.toObject()["ratio"].toDouble())));
    QCOMPARE(cli({"compare-nccl", tmp.filePath("missing.txt"), pod}).code, 2);
    // The same sweep as JSON: a row per size with what ran, the same figures as the table and as one size alone.
    r = cli({"collective", pod, "--op", "allreduce", "--sweep", "1M:64M:4", "--ranks", "16", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray swept = r.json()["rows"].toArray();
    QCOMPARE(swept.size(), 4);
    QCOMPARE(r.json()["ranks"].toInt(), 16);
    const CliRun one = cli({"collective", pod, "--op", "allreduce", "--bytes", "16MiB", "--ranks", "16", "--json"});
    QCOMPARE(one.code, 0);
    const QJsonObject at16 = swept[2].toObject();
    QCOMPARE(at16["size_B"].toDouble(), 16777216.0);
    QCOMPARE(at16["algorithm"].toString(), one.json()["algorithm"].toString());
    QCOMPARE(at16["protocol"].toString(), one.json()["protocol"].toString());
    QCOMPARE(at16["channels"].toInt(), one.json()["channels"].toInt());
    QVERIFY(std::fabs(at16["time_s"].toDouble() / one.json()["time_s"].toDouble() - 1) < 1e-12);
    // A sweep has no one set of link loads to write: refused, not ignored.
    r = cli({"collective", pod, "--op", "allreduce", "--sweep", "1M:4M:2", "--links", tmp.filePath("links.csv")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--links") && r.err.contains("--bytes"), qPrintable(r.err));
    // reduce_perf: the twin's reduce to rank 0, printed with root 0 and read back from a file named for it.
    r = cli({"collective", pod, "--op", "reduce", "--sweep", "1M:16M:4", "--ranks", "16"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QRegularExpression(R"(\s1048576\s+262144\s+float\s+sum\s+0\s)")), qPrintable(r.out));
    const QString reduce = tmp.filePath("reduce_perf.txt");
    QFile rf(reduce);
    QVERIFY(rf.open(QIODevice::WriteOnly));
    rf.write(r.out.toUtf8());
    rf.close();
    r = cli({"compare-nccl", reduce, pod, "--ranks", "16", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray reduced = QJsonDocument::fromJson(r.out.toUtf8()).object()["rows"].toArray();
    QCOMPARE(reduced.size(), 3);
    for (const auto& row : reduced)
        QVERIFY2(std::fabs(row.toObject()["ratio"].toDouble() - 1) < 2e-3, qPrintable(QString::number(row.toObject()["ratio"].toDouble())));
}

void TstCli::capacityAnswersAsThePlannerModelDoes() {
    // clustertwin-cli capacity (issue 40): the headroom and the placement query from the command line, as
    // model::capacityHeadroom and placeRacks give them (tst_edit works those by hand).
    const QString demo = QString(CT_RESOURCE_DIR) + "/scenarios/demo.json";
    const auto l = ct::model::loadAndValidate(demo.toStdString());
    double hall_left = 0;
    for (const auto& h : ct::model::capacityHeadroom(l.scenario, l.catalog))
        if (h.kind == "hall") hall_left = h.left();
    CliRun r = cli({"capacity", demo, "--kind", "hall", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray halls = r.json()["headroom"].toArray();
    QCOMPARE(halls.size(), 1);
    QCOMPARE(halls[0].toObject()["left"].toDouble(), hall_left);
    QVERIFY(halls[0].toObject()["basis"].toString().contains("largest unit out"));
    r = cli({"capacity", demo, "--place", "1", "--rack-model", "rack-48u-600x1200", "--server", "dgx-h100", "--servers", "1", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.json()["fits"].toArray().size(), 5);
    QCOMPARE(r.json()["fits"].toArray()[0].toObject()["tightest"].toString(), QString("floor PDU pdu-row01-a"));
    r = cli({"capacity", demo, "--place", "2", "--rack-model", "rack-48u-600x1200", "--server", "dgx-h100", "--servers", "4"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("fit nowhere") && r.out.contains("could not carry them"), qPrintable(r.out));
    QCOMPARE(cli({"capacity", demo, "--kind", "shelf"}).code, 2);
    QCOMPARE(cli({"capacity", demo, "--place", "0", "--rack-model", "rack-48u-600x1200"}).code, 2);
    QCOMPARE(cli({"capacity", demo, "--place", "1", "--rack-model", "no-such-rack"}).code, 2);
}

void TstCli::aPathIsTracedFromOneGpuToAnother() {
    // clustertwin-cli path (issue 40: the network you can point at): the route the fabric's routing gives
    // traffic between two GPUs. Inside a server over its NVSwitch; between servers out through each GPU's NIC
    // and up the fat tree; every cable named as the 3D view and runs name it, its ends the hops either side.
    const QString lab = QString(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json";
    CliRun r = cli({"path", lab, "--from", "n0001/gpu0", "--to", "n0001/gpu3", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.json()["hops"].toArray().first().toString(), QString("n0001/gpu0"));
    QCOMPARE(r.json()["hops"].toArray().last().toString(), QString("n0001/gpu3"));
    QCOMPARE(r.json()["cables"].toArray().size(), 2);  // up to the NVSwitch and down
    QVERIFY(r.json()["hops"].toArray()[1].toString().contains("nvswitch"));
    r = cli({"path", lab, "--from", "n0001/gpu0", "--to", "n0008/gpu5", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray hops = r.json()["hops"].toArray(), cables = r.json()["cables"].toArray();
    QCOMPARE(cables.size(), hops.size() - 1);
    QVERIFY(hops.size() >= 3);
    for (int i = 0; i < cables.size(); ++i) {  // each cable joins the hops either side of it
        const QString c = cables[i].toString().section('#', 0, 0);
        QVERIFY2(c == hops[i].toString() + "<->" + hops[i + 1].toString() || c == hops[i + 1].toString() + "<->" + hops[i].toString(),
                 qPrintable(c));
    }
    QCOMPARE(r.json()["bottleneck_gbps"].toDouble(), 400.0);  // the ConnectX-7 ports of the DGX H100
    QVERIFY(r.json()["latency_s"].toDouble() > 0);
    // The same pair always takes the same path (D-mod-k), and its text form lists the cables.
    const CliRun text = cli({"path", lab, "--from", "n0001/gpu0", "--to", "n0008/gpu5"});
    QCOMPARE(text.code, 0);
    QVERIFY2(text.out.contains("dmodk routing") && text.out.contains(cables[0].toString()), qPrintable(text.out));
    QCOMPARE(cli({"path", lab, "--from", "n0001/gpu0", "--to", "n9999/gpu0"}).code, 2);
    QCOMPARE(cli({"path", lab, "--from", "n0001/gpu0", "--to", "n0001/gpu0"}).code, 2);
    QCOMPARE(cli({"path", lab, "--from", "n0001/gpu0"}).code, 2);
}

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
