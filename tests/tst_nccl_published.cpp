// Real nccl-tests output (tests/data/nccl, SOURCES.md: CoreWeave's published runs) read with every row, and the
// twin set against it with compare-nccl (issue 41): CollNet (SHARP) on 64 H100, NVLS over a GB200 NVL72 rack.
#include <QJsonArray>
#include <QTest>

#include "cli_run.hpp"

#include <clustertwin/importers/nccl_tests.hpp>

#include <cmath>
#include <fstream>

namespace {
QString ncclFile(const char* name) { return QString(CT_TEST_DATA_DIR) + "/nccl/" + name; }
QString sample(const char* name) { return QString(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json"; }
}  // namespace

class TstNcclPublished : public QObject {
    Q_OBJECT
private slots:
    void realOutputImportsEveryRow();
    void collNetOnEightH100ServersAsMeasured();
    void nvl72RackRunsOnItsDomain();
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

QTEST_GUILESS_MAIN(TstNcclPublished)
#include "tst_nccl_published.moc"
