// Issue 16, "the GUI thread never blocks": the event loop's longest stall while a simulation (the lattice-
// Boltzmann air, live frames four times a second) runs and a recorded run database is opened, both in the
// background. A 5 ms timer on the GUI thread measures the longest gap between its ticks.
#include "main_window.hpp"
#include "run_controller.hpp"

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>

#include "test_time.hpp"

using namespace ct::app;

class TstAppStall : public QObject {
    Q_OBJECT
private slots:
    void theEventLoopNeverStallsWhileASimulationAndALoadRun();
};

void TstAppStall::theEventLoopNeverStallsWhileASimulationAndALoadRun() {
    QTemporaryDir dir;
    qputenv("XDG_CONFIG_HOME", dir.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", dir.filePath("data").toUtf8());
    QApplication::setOrganizationName("ClusterTwinStallTests");
    // A recorded hour of the demo (quick air: 80 racks, 3,000 series) to open while the app simulates.
    const QString db = dir.filePath("hour.sqlite");
    QProcess p;
    p.start(CT_CLI_PATH, {"simulate", QStringLiteral(CT_RESOURCE_DIR) + "/scenarios/demo.json", "--duration", "1h", "--air", "quick",
                          "--step", "2s", "--out", db, "--quiet"});
    QVERIFY(p.waitForFinished(testMs(180000)));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

    // Two tries at most: the figure is the GUI thread's, and a neighbour on this 2-core machine (another build
    // or test) can add its own time to one measurement. Both figures are printed.
    qint64 best = -1;
    for (int attempt = 1; attempt <= 2 && !(best >= 0 && best <= testMs(100)); ++attempt) {
        MainWindow w;
        w.setRunsFolder(dir.filePath("runs"));
        QVERIFY(w.openScenario(MainWindow::demoScenarioPath()));
        w.findChild<QAction*>("actionAirLbm")->trigger();  // the heavy solver, as a planner runs it
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));

        // The probe: the longest time between two ticks of a 5 ms timer, minus the 5 ms.
        QElapsedTimer clock;
        clock.start();
        qint64 last = 0, worst = 0, ticks = 0;
        QTimer probe;
        probe.setInterval(5);
        connect(&probe, &QTimer::timeout, [&] {
            const qint64 now = clock.elapsed();
            worst = std::max(worst, now - last - 5);
            last = now;
            ++ticks;
        });
        QSignalSpy ended(&w, &MainWindow::simulationEnded);
        QVERIFY(w.runSimulation(3600, dir.filePath(QString("live%1.sqlite").arg(attempt))));
        last = clock.elapsed();
        probe.start();
        QTest::qWait(1500);            // the engine is built and live frames arrive
        w.openRun(db);                  // the load runs beside the simulation
        QTRY_VERIFY_WITH_TIMEOUT(w.run()->hasRun() && !w.run()->loading(), testMs(60000));
        w.run()->play();                // and the replay plays, while live frames keep coming
        QTest::qWait(3000);
        w.cancelSimulation();
        QVERIFY(ended.wait(testMs(60000)));
        probe.stop();
        const double seconds = clock.elapsed() / 1000.0;
        qInfo("GUI event loop, try %d: longest stall %lld ms over %.1f s (%lld ticks of 5 ms) while an LBM simulation ran and a 1 h "
              "run of the demo was loaded and played",
              attempt, worst, seconds, ticks);
        best = best < 0 ? worst : std::min(best, worst);
    }
    // 100 ms is the bar on a release build; sanitizer builds (CT_TEST_TIME_SCALE) run everything slower.
    QVERIFY2(best <= testMs(100), qPrintable(QString("longest stall %1 ms").arg(best)));
}

QTEST_MAIN(TstAppStall)
#include "tst_app_stall.moc"
