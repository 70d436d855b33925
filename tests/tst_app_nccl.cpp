// Issue 41 in the app: nccl-tests output charted against the twin's collective on the open scenario's fabric
// (Analysis > Compare with nccl-tests output…), the twin's sweep off the GUI thread.
#include "nccl_compare_dialog.hpp"
#include "scenario_document.hpp"

#include <clustertwin/model/error.hpp>

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QLineSeries>
#include <QProcess>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include "test_paths.hpp"
#include "test_time.hpp"

#include <cmath>

using ct::app::NcclCompareDialog;
using ct::app::ScenarioDocument;

class TstAppNccl : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        ct::model::Diagnostics problems;
        QString error;
        QVERIFY2(doc_.load(QString(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json", problems, error), qPrintable(error));
    }

    // The twin's own sweep, printed in nccl-tests' layout by clustertwin-cli, read back: every size charted and
    // tabled, the ratio 1 at each (within the text's rounding); the work ran off the GUI thread (the dialog was busy when load returned).
    void theTwinsOwnSweepComparesAtOne() {
        QProcess cli;
        cli.start(CT_CLI_PATH, {"collective", QString(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json", "--op", "allreduce", "--sweep",
                                "8:8G:4", "--ranks", "16"});
        QVERIFY(cli.waitForStarted());
        cli.closeWriteChannel();
        QVERIFY(cli.waitForFinished(testMs(60000)));
        QCOMPARE(cli.exitCode(), 0);
        const QString path = write("all_reduce_perf.txt", cli.readAllStandardOutput());
        NcclCompareDialog d(doc_);
        d.ranksBox()->setValue(16);
        QSignalSpy done(&d, &NcclCompareDialog::computed);
        QVERIFY(d.load(path));
        QVERIFY(d.busy());
        QVERIFY(done.wait(testMs(60000)));
        QVERIFY(!d.busy());
        QCOMPARE(d.table()->rowCount(), 16);  // 8 B to 8 GiB by 4
        // The ratio comes from the times, which the text keeps to 0.01 µs: 1 within that rounding at every size.
        for (int r = 0; r < d.table()->rowCount(); ++r)
            QVERIFY2(std::fabs(d.table()->item(r, 3)->text().toDouble() - 1.0) <= 0.001, qPrintable(d.table()->item(r, 3)->text()));
        QVERIFY2(d.summary().contains("from 256 MiB: 1.00 to 1.00"), qPrintable(d.summary()));
        const auto series = d.chartView()->chart()->series();
        QCOMPARE(series.size(), 3);  // measured out of place, in place, the twin
        for (auto* s : series) QCOMPARE(static_cast<QLineSeries*>(s)->count(), 16);
        // Bus bandwidth grows with size: the twin's last point is its largest.
        const auto twin = static_cast<QLineSeries*>(series.back())->points();
        QVERIFY(twin.back().y() > 10 * twin.front().y());
        if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) {
            d.resize(1000, 760);
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            d.grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/nccl-compare.png");
        }
    }

    // What nccl-tests printed on two nodes (the 2.11 layout, mpirun's tags, NCCL's log, a damaged row): the rank
    // count comes from the file, the damaged row is counted and named, the others compared.
    void aClustersOutputWithItsRanksAndABadRow() {
        const QString path = write("two_nodes_all_reduce_perf.txt",
                                   "[1,0]<stdout>:#  Rank  0 Group  0 Pid  41230 on    node1 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
                                   "[1,0]<stdout>:#  Rank  1 Group  0 Pid  41231 on    node2 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
                                   "node1:41230:41230 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                                   "[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     "
                                   "time   algbw   busbw #wrong\n"
                                   "[1,0]<stdout>:     1048576        262144     float     sum      -1    45.10   23.25   23.25      0    "
                                   "44.90   23.35   23.35      0\n"
                                   "[1,0]<stdout>:     2097152        524288     float     sum      -1    oops   23.25   23.25      0    "
                                   "44.90   23.35   23.35      0\n"
                                   "[1,0]<stdout>:   268435456      67108864     float     sum      -1   5618.2   47.78   47.78    N/A   "
                                   "5612.4   47.83   47.83    N/A\n");
        NcclCompareDialog d(doc_);
        QSignalSpy done(&d, &NcclCompareDialog::computed);
        QVERIFY(d.load(path));
        QVERIFY(done.wait(testMs(60000)));
        QCOMPARE(d.ranksBox()->value(), 2);
        QCOMPARE(d.table()->rowCount(), 2);
        QVERIFY2(d.summary().contains("1 line(s) that are not result rows skipped"), qPrintable(d.summary()));
        QVERIFY2(d.summary().contains("allreduce over 2 GPUs on 1 node(s)"), qPrintable(d.summary()));
        QCOMPARE(d.table()->item(1, 1)->text(), QString("47.78"));
        // Spread over two nodes, as the file's two hosts were: the twin runs again on the form's choice, and the
        // 256 MiB all-reduce now crosses the network, slower than inside one node's NVLink.
        const double inside = d.table()->item(1, 2)->text().toDouble();
        auto* placement = d.findChild<QComboBox*>("ncclPlacement");
        QVERIFY(placement);
        placement->setCurrentIndex(placement->findData("spread"));
        d.recompute();
        QVERIFY(done.wait(testMs(60000)));
        QVERIFY2(d.summary().contains("allreduce over 2 GPUs on 2 node(s), spread"), qPrintable(d.summary()));
        QVERIFY(d.table()->item(1, 2)->text().toDouble() < inside);
        QVERIFY2(!d.summary().contains("across GPUs"), qPrintable(d.summary()));  // H100 in the file and the scenario
        // The same run on A100s: compared, and the summary says the GPUs differ.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray a100 = f.readAll().replace("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB");
        QVERIFY(d.load(write("a100_all_reduce_perf.txt", a100)));
        QVERIFY(done.wait(testMs(60000)));
        QVERIFY2(d.summary().contains("the file ran on NVIDIA A100-SXM4-80GB, the scenario's servers have"), qPrintable(d.summary()));
    }

    // A published run that forced NCCL_ALGO=COLLNETCHAIN (SHARP) on 64 H100 (tests/data/nccl/SOURCES.md): the
    // algorithm box makes the twin run the same, on the sample's SHARP-capable leaves.
    void aSharpRunAgainstCollNet() {
        NcclCompareDialog d(doc_);
        d.ranksBox()->setValue(64);  // the excerpt has no "# Rank" lines
        auto* algo = d.findChild<QComboBox*>("ncclAlgorithm");
        QVERIFY(algo);
        algo->setCurrentIndex(algo->findData("collnet"));
        QSignalSpy done(&d, &NcclCompareDialog::computed);
        QVERIFY(d.load(QString(CT_TEST_DATA_DIR) + "/nccl/coreweave-h100x64-sharp.all_reduce_perf.txt"));
        QVERIFY(done.wait(testMs(60000)));
        QVERIFY2(d.summary().contains("allreduce over 64 GPUs on 8 node(s)") && d.summary().contains("forced to collnet"),
                 qPrintable(d.summary()));
        QCOMPARE(d.table()->rowCount(), 5);
        for (int r = 0; r < 5; ++r)
            QVERIFY2(d.table()->item(r, 4)->text().startsWith("collnet/Simple"), qPrintable(d.table()->item(r, 4)->text()));
        QVERIFY2(std::fabs(d.table()->item(4, 3)->text().toDouble() - 1) <= 0.10, qPrintable(d.table()->item(4, 3)->text()));  // 8 GiB
        if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) {
            d.resize(1000, 760);
            d.show();
            QVERIFY(QTest::qWaitForWindowExposed(&d));
            d.grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/nccl-compare-collnet.png");
        }
        // As NCCL's tuner picks (CollNet only when asked): the ring on eight servers.
        algo->setCurrentIndex(0);
        d.recompute();
        QVERIFY(done.wait(testMs(60000)));
        QVERIFY2(d.table()->item(4, 4)->text().startsWith("ring/"), qPrintable(d.table()->item(4, 4)->text()));
    }

    void whatCannotBeComparedSaysWhy() {
        NcclCompareDialog d(doc_);
        QVERIFY(!d.load(write("empty.txt", "# nThread 1 nGpus 1\n# Avg bus bandwidth : 0\n")));
        QVERIFY2(d.summary().startsWith("Cannot compare:"), qPrintable(d.summary()));
        QVERIFY(!d.load(dir_.filePath("missing.txt")));
        QVERIFY2(d.summary().contains("cannot be read"), qPrintable(d.summary()));
        QSignalSpy done(&d, &NcclCompareDialog::computed);
        const QString row =
            "        1048576        262144     float     none      -1    45.10   23.25   23.25      0    44.90   23.35   23.35      0\n";
        QVERIFY(d.load(write("sendrecv_perf.txt", "# sendrecv_perf\n" + row.toUtf8())));
        QVERIFY(done.wait(testMs(60000)));
        QVERIFY2(d.summary().contains("not one of the collectives the twin models"), qPrintable(d.summary()));
        QCOMPARE(d.table()->rowCount(), 0);
        QVERIFY(d.load(write("all_reduce_perf.txt", row.toUtf8())));
        d.ranksBox()->setValue(4096);  // the superpod has 32 nodes × 8 GPUs
        d.recompute();                 // asked while the first sweep may still run: it runs again after
        QTRY_VERIFY_WITH_TIMEOUT(!d.busy() && d.summary().contains("ranks asked for"), testMs(60000));
        QVERIFY2(d.summary().contains("4096 ranks asked for, but the fabric has 256 GPUs"), qPrintable(d.summary()));
    }

private:
    QString write(const QString& name, const QByteArray& text) {
        QFile f(dir_.filePath(name));
        if (!f.open(QIODevice::WriteOnly)) return {};
        f.write(text);
        return f.fileName();
    }

    QTemporaryDir dir_;
    ScenarioDocument doc_;
};

QTEST_MAIN(TstAppNccl)
#include "tst_app_nccl.moc"
