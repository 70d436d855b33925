// Real nccl-tests output (tests/data/nccl, SOURCES.md: CoreWeave's published runs) read with every row, and the
// twin set against it with compare-nccl (issue 41): CollNet (SHARP) on 64 H100, NVLS over a GB200 NVL72 rack; and
// Azure's published bus bandwidths of one server (A100, H200, a GB200 tray) against the twin's sweep; the ring across
// DGX A100 and DGX H100 servers, and the ring and NVLS inside one DGX H100, against what NCCL's engineers state.
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"

#include <clustertwin/importers/nccl_tests.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace {
QString ncclFile(const char* name) { return QString(CT_TEST_DATA_DIR) + "/nccl/" + name; }
QString sample(const char* name) { return QString(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json"; }

/// A published table (label,size_B,busbw_GBps): bus bandwidth by size.
std::map<double, double> publishedBusbw(const char* name) {
    std::ifstream in(ncclFile(name).toStdString());
    std::map<double, double> out;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string label, size, busbw;
        std::getline(f, label, ',');
        std::getline(f, size, ',');
        std::getline(f, busbw, ',');
        out[std::stod(size)] = std::stod(busbw);
    }
    return out;
}
}  // namespace

class TstNcclPublished : public QObject {
    Q_OBJECT
private slots:
    void realOutputImportsEveryRow();
    void collNetOnEightH100ServersAsMeasured();
    void nvl72RackRunsOnItsDomain();
    void oneServerAsPublished_data();
    void oneServerAsPublished();
    void asNcclEngineersStateIt_data();
    void asNcclEngineersStateIt();
};

void TstNcclPublished::realOutputImportsEveryRow() {
    struct Case {
        const char* file;
        std::size_t rows;
        int ranks;
        double last_busbw, avg;
    };
    const Case cases[] = {{"coreweave-h100x64-sharp.all_reduce_perf.txt", 5, 0, 386.56, 373.187},
                          {"coreweave-gb200-nvl72-1rack.all_reduce_perf.txt", 5, 72, 834.57, 745.53},
                          {"coreweave-gb200-nvl72-2racks.all_reduce_perf.txt", 6, 144, 810.41, 688.487},
                          {"coreweave-gb200-nvl72-20racks.all_reduce_perf.txt", 6, 1440, 405.74, 297.808}};
    for (const Case& c : cases) {
        std::ifstream in(ncclFile(c.file).toStdString());
        QVERIFY2(in, c.file);
        const auto run = ct::importers::parseNcclTests(in, c.file);
        QCOMPARE(run.op, std::string("allreduce"));
        QCOMPARE(run.rows.size(), c.rows);
        QCOMPARE(run.bad_lines, 0);
        // A pasted tail names only the last rank; the rank count is still all of them.
        QCOMPARE(run.ranks, c.ranks);
        QCOMPARE(run.rows.front().size_B, 536870912.0);
        QCOMPARE(run.rows.back().busbw_GBps, c.last_busbw);
        QCOMPARE(run.avg_busbw_GBps, c.avg);
        QVERIFY(run.rows.back().ip_busbw_GBps > 0);
    }
}

void TstNcclPublished::collNetOnEightH100ServersAsMeasured() {
    // 64 H100 of the SuperPOD sample (8 DGX H100, 8 × 400 Gb/s rails to QM9700 leaves, SHARP) against CoreWeave's
    // 8 HGX H100 with NCCL_ALGO=COLLNETCHAIN. The chain binds on NVLink: every GPU sends 1.75 buffers.
    const CliRun r = cli({"compare-nccl", ncclFile("coreweave-h100x64-sharp.all_reduce_perf.txt"), sample("superpod-h100-su"), "--ranks",
                          "64", "--algo", "collnet", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray rows = r.json()["rows"].toArray();
    QCOMPARE(rows.size(), 5);
    QString table;
    for (const auto& v : rows) {
        const QJsonObject o = v.toObject();
        QCOMPARE(o["algorithm"].toString(), QString("collnet"));
        table += QString("%1 B: measured %2, twin %3 GB/s (%4)\n")
                     .arg(o["size_B"].toDouble(), 0, 'f', 0)
                     .arg(o["measured_busbw_GBps"].toDouble())
                     .arg(o["simulated_busbw_GBps"].toDouble(), 0, 'f', 1)
                     .arg(o["ratio"].toDouble(), 0, 'f', 3);
        // Within 10 % from 2 GiB up; below that the measured run still pays more per call than NCCL's latency
        // model has (docs/network.md: 512 MiB and 1 GiB come out 14 % and 12 % high).
        if (o["size_B"].toDouble() >= 2147483648.0) QVERIFY2(std::fabs(o["ratio"].toDouble() - 1) <= 0.10, qPrintable(table));
    }
    qInfo("%s", qPrintable(table));
}

void TstNcclPublished::nvl72RackRunsOnItsDomain() {
    // The GB200 sample's rack is one 72-GPU NVLink domain: NVLS over all 72, on NCCL's 32 channels at most (it
    // used to ask for 72 and fail).
    const CliRun r =
        cli({"compare-nccl", ncclFile("coreweave-gb200-nvl72-1rack.all_reduce_perf.txt"), sample("gb200-nvl72-liquid"), "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(r.json()["ranks"].toInt(), 72);
    QCOMPARE(r.json()["channels"].toInt(), 32);
    const QJsonArray rows = r.json()["rows"].toArray();
    QCOMPARE(rows.size(), 5);
    for (const auto& v : rows) QCOMPARE(v.toObject()["algorithm"].toString(), QString("nvls"));
}

void TstNcclPublished::oneServerAsPublished_data() {
    QTest::addColumn<QString>("table");
    QTest::addColumn<QString>("scenario");  // empty: two DGX A100 generated here
    QTest::addColumn<QString>("ranks");
    QTest::addColumn<QString>("algorithm");
    QTest::addColumn<double>("checked_from");  // the smallest size held within 10 %
    // 256 MiB–8 GiB, the range. The ring on NVLink 3 at NCCL's 20 GB/s a link: 1.035–1.091 of measured.
    QTest::newRow("A100 ring") << "azure-nd-a100-v4.all_reduce_busbw.csv"
                               << ""
                               << "8"
                               << "ring" << 268435456.0;
    // The H200's NVLink and NVSwitch are the DGX H100's (900 GB/s a GPU); NCCL's model does not read HBM. NVLS:
    // 0.991–1.074.
    QTest::newRow("H200 NVLS") << "azure-nd-h200-v5.all_reduce_busbw.csv"
                               << "superpod-h100-su"
                               << "8"
                               << "nvls" << 268435456.0;
    // Four GPUs of a GB200 NVL72 rack, as one tray's VM: the twin's ring runs 6 % over the measured 8 GiB and 16 %
    // over 256 MiB (the run pays ~0.15 ms a call more than NCCL's latency model; docs/network.md), so from 2 GiB.
    QTest::newRow("GB200 tray ring") << "azure-nd-gb200-v6.all_reduce_busbw.csv"
                                     << "gb200-nvl72-liquid"
                                     << "4"
                                     << "ring" << 2147483648.0;
}

void TstNcclPublished::oneServerAsPublished() {
    QFETCH(QString, table);
    QFETCH(QString, scenario);
    QFETCH(QString, ranks);
    QFETCH(QString, algorithm);
    QFETCH(double, checked_from);
    QTemporaryDir tmp;
    QString path;
    if (scenario.isEmpty()) {
        path = tmp.filePath("dgx-a100.json");
        const CliRun g = cli({"generate", "--server", "dgx-a100", "--rows", "1", "--racks-per-row", "1", "--nodes-per-rack", "2",
                              "--topology", "rail-optimized", "-o", path});
        QVERIFY2(g.code == 0, qPrintable(g.err));
    } else {
        path = sample(qPrintable(scenario));
    }
    // The twin's sweep prints nccl-tests' layout, which the importer reads like a measured run.
    const CliRun r = cli({"collective", path, "--op", "allreduce", "--sweep", "256M:8G:2", "--ranks", ranks});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("# twin: " + algorithm + "/Simple"), qPrintable(r.out));
    std::istringstream in(r.out.toStdString());
    const auto twin = ct::importers::parseNcclTests(in, "sweep");
    QCOMPARE(twin.rows.size(), std::size_t(6));
    const auto measured = publishedBusbw(qPrintable(table));
    QCOMPARE(measured.size(), std::size_t(24));
    QString report;
    for (const auto& row : twin.rows) {
        const double m = measured.at(row.size_B);
        const double ratio = row.busbw_GBps / m;
        report +=
            QString("%1 B: measured %2, twin %3 GB/s (%4)\n").arg(row.size_B, 0, 'f', 0).arg(m).arg(row.busbw_GBps).arg(ratio, 0, 'f', 3);
        if (row.size_B >= checked_from) QVERIFY2(std::fabs(ratio - 1) <= 0.10, qPrintable(report));
    }
    qInfo("%s", qPrintable(report));
}

void TstNcclPublished::asNcclEngineersStateIt_data() {
    QTest::addColumn<QString>("system");
    QTest::addColumn<QString>("scenario");  // empty: four DGX A100 generated here
    QTest::addColumn<QStringList>("ranks");
    QTest::addColumn<QString>("algorithm");
    // One NIC a GPU on its rail: the ring's bus bandwidth is the NICs' (8 × 24 GB/s of HDR, 8 × 46–48 of NDR),
    // roughly flat with the number of servers (issue 41).
    QTest::newRow("DGX A100 x 2, x 4 ring") << "dgx-a100"
                                            << "" << QStringList{"16", "32"} << "ring";
    QTest::newRow("DGX H100 x 2, x 8 ring") << "dgx-h100"
                                            << "superpod-h100-su" << QStringList{"16", "64"} << "ring";
    // Inside one DGX H100: the ring at NVLink's line rate less the protocol's ~20 %, NVLS (the default) above it.
    QTest::newRow("DGX H100 ring") << "dgx-h100-one-server-ring"
                                   << "superpod-h100-su" << QStringList{"8"} << "ring";
    QTest::newRow("DGX H100 NVLS") << "dgx-h100-one-server-nvls"
                                   << "superpod-h100-su" << QStringList{"8"} << "nvls";
}

void TstNcclPublished::asNcclEngineersStateIt() {
    QFETCH(QString, system);
    QFETCH(QString, scenario);
    QFETCH(QStringList, ranks);
    QFETCH(QString, algorithm);
    // The stated range (SOURCES.md: nvidia-stated-busbw.csv).
    std::ifstream in(ncclFile("nvidia-stated-busbw.csv").toStdString());
    std::string line;
    double low = 0, high = 0;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string cell[5];
        for (auto& c : cell) std::getline(f, c, ',');
        if (cell[0] == system.toStdString()) {
            low = std::stod(cell[3]);
            high = std::stod(cell[4]);
        }
    }
    QVERIFY2(low > 0 && high >= low, qPrintable(system));
    QTemporaryDir tmp;
    QString path = scenario.isEmpty() ? tmp.filePath("dgx-a100.json") : sample(qPrintable(scenario));
    if (scenario.isEmpty()) {
        const CliRun g = cli({"generate", "--server", "dgx-a100", "--rows", "1", "--racks-per-row", "1", "--nodes-per-rack", "4",
                              "--topology", "rail-optimized", "-o", path});
        QVERIFY2(g.code == 0, qPrintable(g.err));
    }
    QString report;
    std::vector<double> at8g;
    for (const QString& n : ranks) {
        const CliRun r = cli({"collective", path, "--op", "allreduce", "--sweep", "2G:8G:2", "--ranks", n, "--algo", algorithm});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("# twin: " + algorithm + "/Simple"), qPrintable(r.out));
        std::istringstream out(r.out.toStdString());
        const auto twin = ct::importers::parseNcclTests(out, "sweep");
        QCOMPARE(twin.rows.size(), std::size_t(3));
        for (const auto& row : twin.rows) {
            report += QString("%1 ranks, %2 B: twin %3 GB/s, stated %4-%5\n")
                          .arg(n)
                          .arg(row.size_B, 0, 'f', 0)
                          .arg(row.busbw_GBps)
                          .arg(low)
                          .arg(high);
            QVERIFY2(row.busbw_GBps >= 0.9 * low && row.busbw_GBps <= 1.1 * high, qPrintable(report));
        }
        at8g.push_back(twin.rows.back().busbw_GBps);
    }
    // Flat with the servers: the most servers keep 95 % of two servers' bandwidth at 8 GiB.
    QVERIFY2(at8g.back() >= 0.95 * at8g.front(), qPrintable(report));
    qInfo("%s", qPrintable(report));
}

QTEST_GUILESS_MAIN(TstNcclPublished)
#include "tst_nccl_published.moc"
