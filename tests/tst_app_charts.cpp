// Issue 19, a what-if compared and charted: the Compare tab (baseline and what-if side by side with linked
// cameras and time, per-rack differences, summary), and charts operators expect: several series and entities on
// one chart (pinned, dragged from the tree), hover read-out, zoom and pan in time, limit lines, event marks, the
// baseline in compare mode, PNG and CSV export, and 10⁵ points per series drawn decimated with their peaks.
#include "compare_view.hpp"
#include "main_window.hpp"
#include "run_controller.hpp"
#include "run_panels.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "view3d.hpp"
#include "whatif_dialog.hpp"

#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/render/scene.hpp>

#include <clustertwin/runs/store.hpp>

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidgetItem>
#include <QUndoStack>
#include <QValueAxis>
#include <QWheelEvent>

#include <cmath>

#include "app_test_window.hpp"
#include "image_checks.hpp"
#include "test_paths.hpp"
#include "test_time.hpp"

using namespace ct::app;

class TstAppCharts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        w_ = openTestWindow(dir_, "ClusterTwinChartTests", QSize(1400, 900));
        QVERIFY(w_);
        QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
        w_->findChild<QAction*>("actionAirQuick")->trigger();
        // A what-if: crah-01 fails; the baseline runs beside it and the comparison is shown.
        QSignalSpy ready(w_.get(), &MainWindow::whatIfReady);
        QVERIFY(w_->runWhatIf({"cooling_unit", "crah-01"}, 300, dir_.filePath("whatif")));
        QVERIFY(ready.wait(testMs(240000)));
        QVERIFY(w_->comparing());
    }

    void theWhatIfDialogBuildsFailuresRestoresAndListsTheScenariosEvents() {
        const auto& sc = w_->document().scenario();
        WhatIfDialog d(sc, {{"cooling_unit", "crah-02"}, {"rack", "r01-01"}});
        QCOMPARE(d.table()->rowCount(), 1);  // a rack cannot fail in a what-if; the unit can
        QVERIFY(!sc.power.feeds.empty());
        d.addFailure({"utility_feed", QString::fromStdString(sc.power.feeds.front().id)}, "5min", "10min");
        d.durationEdit()->setText("45min");
        const auto ev = d.events();
        QCOMPARE(ev.size(), std::size_t(3));
        QCOMPARE(ev[0].kind, std::string("cooling_unit_fail"));
        QCOMPARE(ev[0].time_s, 60.0);
        QCOMPARE(ev[1].kind, std::string("feed_fail"));
        QCOMPARE(ev[1].time_s, 300.0);
        QCOMPARE(ev[2].kind, std::string("feed_restore"));
        QCOMPARE(ev[2].time_s, 900.0);
        QCOMPARE(d.durationS(), 2700.0);
        if (!sc.events.empty())
            QVERIFY2(d.scenarioEvents()->text().contains(QString::fromStdString(sc.events.front().target)),
                     qPrintable(d.scenarioEvents()->text()));
        d.table()->item(1, 1)->setText("soon");
        QVERIFY_THROWS_EXCEPTION(std::exception, d.events());
    }

    void theCompareTabShowsBothRunsSideBySide() {
        CompareView* cv = w_->compareView();
        QTabWidget* tabs = w_->centralTabs();
        QVERIFY(tabs->isTabEnabled(tabs->indexOf(cv)));
        QVERIFY(cv->hasBaseline());
        tabs->setCurrentWidget(cv);
        QTRY_VERIFY(cv->isVisible());
        // The summary: the largest rise, racks over 27 °C, the first crossing, and what the what-if adds.
        const CompareSummary& s = cv->summary();
        QVERIFY(s.racks > 0);
        QVERIFY2(s.largest_rise_k > 0.5 && !s.largest_rack.empty(), qPrintable(cv->summaryLabel()->text()));
        const QString text = cv->summaryLabel()->text();
        QVERIFY2(text.contains("Largest rise") && text.contains("crah-01") && text.contains("cooling_unit_fail"), qPrintable(text));
        // The table at the end of the run: one row per rack, largest change first.
        w_->run()->setTime(w_->run()->duration());
        QTRY_COMPARE(cv->table()->rowCount(), static_cast<int>(s.racks));
        const double first = cv->table()->item(0, 3)->text().toDouble(),
                     last = cv->table()->item(cv->table()->rowCount() - 1, 3)->text().toDouble();
        QVERIFY(first >= last);
        QVERIFY(first > 0.5);
        // Linked cameras: turning one view turns the other.
        if (View3D::available()) {
            View3D* a = cv->baselineView();
            View3D* b = cv->whatIfView();
            QTRY_VERIFY(a->scene() && b->scene());
            a->scene()->setCamera("top");
            a->fit();
            const auto ca = a->scene()->cameraState(), cb = b->scene()->cameraState();
            QCOMPARE(ca.size(), cb.size());
            for (std::size_t i = 0; i < ca.size(); ++i) QVERIFY(std::abs(ca[i] - cb[i]) < 1e-9);
            // The split view against reviewed pictures: both halls at the run's end from the side where the
            // nodes' faces show, the what-if's failed unit in red and its racks warmer.
            a->scene()->setCamera("iso");
            a->fit();
            a->renderNow();
            b->renderNow();
            const QString pa = dir_.filePath("compare_baseline_view.png"), pb = dir_.filePath("compare_whatif_view.png");
            QVERIFY(a->saveScreenshot(pa));
            QVERIFY(b->saveScreenshot(pb));
            QVERIFY(QImage(pa) != QImage(pb));
            compareWithBaseline(pa, "compare_baseline_view");
            compareWithBaseline(pb, "compare_whatif_view");
            const QString keep = qEnvironmentVariable("CT_KEEP_COMPARE_PNG");
            if (!keep.isEmpty()) {
                QVERIFY(a->saveScreenshot(keep + ".baseline.png"));
                QVERIFY(b->saveScreenshot(keep + ".whatif.png"));
                windowShot(*w_).save(keep);
            }
        }
        tabs->setCurrentIndex(0);
    }

    void aSteadyRackPowerShowsItsAxisLabelsInFull() {
        // A rack's power holds within a kilowatt over the run: labels such as "38.8" showed as "…" on the value
        // axis. Looked at: charts-rack-power.png.
        ChartsPanel* c = w_->charts();
        w_->select({"rack", "r01-01"});
        c->metricBox()->setCurrentIndex(c->metricBox()->findData("power_w"));
        QCOMPARE(c->currentMetric(), QString("power_w"));
        QVERIFY(c->series()->count() > 0);
        auto* chart = c->findChild<QChartView*>()->chart();
        for (QAbstractAxis* a : chart->axes()) {
            QVERIFY(!a->truncateLabels());
            if (auto* v = qobject_cast<QValueAxis*>(a))
                qInfo("axis %s: %g..%g every %g, %s", qPrintable(v->titleText()), v->min(), v->max(), v->tickInterval(),
                      qPrintable(v->labelFormat()));
        }
        if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) {
            QTest::qWait(500);  // the chart lays its axes out on its next update
            c->grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/charts-rack-power.png");
        }
    }

    void oneChartHoldsSeveralSeriesWithLimitsEventsAndTheBaseline() {
        ChartsPanel* c = w_->charts();
        w_->select({"rack", "r01-01"});
        c->metricBox()->setCurrentIndex(c->metricBox()->findData("inlet_max_c"));
        QCOMPARE(c->currentMetric(), QString("inlet_max_c"));
        QVERIFY(c->series()->count() > 0);
        // Inlets are read against ASHRAE's 27 °C (and 32 °C when the data come near it).
        QVERIFY(!c->limits().empty() && c->limits().front() == 27.0);
        // The what-if's failure is marked, and the baseline's curve is drawn beside the what-if's.
        QVERIFY(c->eventMarkCount() >= 1);
        QCOMPARE(c->baselineCurveCount(), 1);
        const QString read = c->readoutAt(250);
        QVERIFY2(read.contains("r01-01") && read.contains("baseline") && read.contains("°C"), qPrintable(read));
        QVERIFY2(c->readoutAt(0.5 * 300).contains("at 2m 30s"), qPrintable(c->readoutAt(150)));

        // Pinned: it stays when the selection moves; another rack's inlet joins it on the same axis.
        QVERIFY(c->pinCurrent());
        w_->select({"rack", "r02-01"});
        QCOMPARE(c->seriesNames().size(), 2);
        QVERIFY2(c->seriesNames().join("|").contains("r01-01") && c->seriesNames().join("|").contains("r02-01"),
                 qPrintable(c->seriesNames().join("|")));
        // A unit's load (watts) goes on the right-hand axis; a third unit is refused with a reason.
        QString why;
        QVERIFY2(c->addSeries("crah-02", "load_w", &why), qPrintable(why));
        QCOMPARE(c->seriesNames().size(), 3);
        QVERIFY(!c->addSeries("r01-01", "no_such_metric", &why));
        QVERIFY2(why.contains("no_such_metric"), qPrintable(why));
        QVERIFY(!c->addSeries("r01-01", "capture_index", &why));  // a ratio: a third unit
        QVERIFY2(why.contains("two units"), qPrintable(why));
        QCOMPARE(c->seriesNames().size(), 3);

        // Dragged from the tree: the entity's series joins the chart.
        auto* tree = w_->tree();
        QTreeWidgetItem* item = tree->itemFor({"rack", "r03-01"});
        QVERIFY(item);
        std::unique_ptr<QMimeData> mime(tree->model()->mimeData({tree->indexFromItem(item)}));
        QVERIFY(mime && mime->hasFormat(ScenarioTree::kEntityMime));
        QDragEnterEvent enter(QPoint(20, 20), Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(c, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(20, 20), Qt::CopyAction, mime.get(), Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(c, &drop);
        QVERIFY2(c->seriesNames().join("|").contains("r03-01"), qPrintable(c->seriesNames().join("|")));

        // A five-minute run is charted in seconds (minutes from ten minutes on, hours past two).
        QCOMPARE(c->findChild<QChartView*>()->chart()->axes(Qt::Horizontal).front()->titleText(), QString("time (s)"));
        // Zoom into a minute, pan, the wheel, and back to the whole run.
        c->zoomTime(60, 120);
        auto [t0, t1] = c->timeRange();
        QVERIFY(std::abs(t0 - 60) < 1e-6 && std::abs(t1 - 120) < 1e-6);
        auto* view = c->findChild<QChartView*>();
        const QPoint mid = view->chart()->plotArea().center().toPoint();
        QWheelEvent wheel(mid, view->viewport()->mapToGlobal(mid), {}, {0, -120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view->viewport(), &wheel);
        auto [w0, w1] = c->timeRange();
        QVERIFY(w1 - w0 > 60.5);  // zoomed out around the cursor
        c->resetZoom();
        auto [r0, r1] = c->timeRange();
        QVERIFY(r0 <= 0 && r1 >= 299);

        // Export: the picture and every series' recorded points.
        QString error;
        QVERIFY2(c->savePng(dir_.filePath("chart.png"), &error), qPrintable(error));
        QImage img(dir_.filePath("chart.png"));
        QVERIFY(!img.isNull() && img.width() > 200);
        if (!qEnvironmentVariable("CT_KEEP_CHART_PNG").isEmpty()) img.save(qEnvironmentVariable("CT_KEEP_CHART_PNG"));
        QVERIFY2(c->saveCsv(dir_.filePath("chart.csv"), &error), qPrintable(error));
        QFile csv(dir_.filePath("chart.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(csv.readAll());
        QVERIFY(text.startsWith("time_s,entity,metric,value,unit"));
        QVERIFY(text.contains(",r01-01,inlet_max_c,") && text.contains(",crah-02,load_w,") && text.contains(",r03-01,"));
        c->clearPinned();
        QCOMPARE(c->seriesNames().size(), 1);
    }

    void aHundredThousandPointsAreDrawnDecimatedWithTheirPeaks() {
        // Telemetry of one rack, a point a second for 28 hours with one spike, as an import would store it.
        const QString db = dir_.filePath("long.sqlite");
        {
            auto store = ct::runs::TelemetryStore::open(db.toStdString());
            const auto run = store.createRun("long", "imported", "demo");
            store.upsertEntities({{"r01-01", "rack", "", "r01-01"}});
            const auto sid = store.series(run, {"r01-01", "power_w", "W", "test"});
            std::vector<ct::runs::Sample> s;
            for (int i = 0; i < 100000; ++i) s.push_back({sid, 1.7e9 + i, 30000 + 2000 * std::sin(i / 500.0) + (i == 61234 ? 25000 : 0)});
            store.writeBatch(std::move(s));
            store.finishRun(run, 1.7e9 + 99999);
        }
        w_->setCompareWithBaseline(false);
        w_->openRun(db);
        QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == db && !w_->run()->loading(), testMs(60000));
        w_->select({"rack", "r01-01"});
        ChartsPanel* c = w_->charts();
        c->metricBox()->setCurrentIndex(c->metricBox()->findData("power_w"));
        QCOMPARE(c->currentMetric(), QString("power_w"));
        const int drawn = c->drawnPoints(0);
        QVERIFY2(drawn > 50 && drawn < 5000, qPrintable(QString::number(drawn)));
        double peak = 0;
        for (const QPointF& p : c->series()->points()) peak = std::max(peak, p.y());
        const double spike = (30000 + 2000 * std::sin(61234 / 500.0) + 25000) / 1e3;  // kW on the axis
        QVERIFY2(std::abs(peak - spike) < 1e-6, qPrintable(QString("%1 drawn, %2 recorded").arg(peak).arg(spike)));
        // Zoomed into ten minutes: every point there.
        c->zoomTime(61234 - 300, 61234 + 300);
        QVERIFY(c->drawnPoints(0) >= 600 && c->drawnPoints(0) <= 610);
    }

    void aSweepVariantOpensBesideItsBaselineAndAnyTwoRunsCompare() {
        // clustertwin-cli sweep (issue 42): the demo as it is and with both CRAHs of its first row failing, one
        // database. Opening the variant's run shows it beside the baseline its metadata names (issues 40, 42).
        const QString events = dir_.filePath("two-crahs.json"), db = dir_.filePath("sweep.sqlite");
        {
            QFile f(events);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"([{"time_s": 30, "kind": "cooling_unit_fail", "target": "crah-01"},
                        {"time_s": 30, "kind": "cooling_unit_fail", "target": "crah-03"}])");
        }
        QProcess p;
        p.start(CT_CLI_PATH, {"sweep", MainWindow::demoScenarioPath(), "--what-if", events, "--air", "quick", "--duration", "3min",
                              "--step", "10s", "--field-every", "0", "--out", db, "-q"});
        QVERIFY(p.waitForFinished(testMs(120000)));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        w_->setCompareWithBaseline(false);
        QSignalSpy ready(w_.get(), &MainWindow::comparisonReady), failed(w_.get(), &MainWindow::comparisonFailed);
        w_->run()->openAsync(db, 2);
        QVERIFY(ready.wait(testMs(60000)));
        QVERIFY(w_->comparing());
        CompareView* cv = w_->compareView();
        QTabWidget* tabs = w_->centralTabs();
        QVERIFY(tabs->isTabEnabled(tabs->indexOf(cv)));
        QCOMPARE(w_->baseline()->info().id, 1);
        QVERIFY2(cv->summaryLabel()->text().contains("crah-03") && cv->summaryLabel()->text().contains("crah-01"),
                 qPrintable(cv->summaryLabel()->text()));
        QVERIFY(cv->summary().largest_rise_k > 0.5);
        // Any two runs: the baseline shown, compared with the variant by hand (Simulation > Compare with another
        // run…); the titles name both runs.
        w_->run()->openAsync(db, 1);
        QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->replay()->info().id == 1 && !w_->run()->loading(), testMs(60000));
        QVERIFY(w_->findChild<QAction*>("actionCompareWithRun"));
        ready.clear();
        w_->compareWithRun(db, 2);
        QVERIFY(ready.wait(testMs(60000)));
        QCOMPARE(w_->baseline()->info().id, 2);
        tabs->setCurrentWidget(cv);
        QTRY_VERIFY(cv->isVisible());
        QVERIFY2(cv->summaryLabel()->text().contains("adds no events to run 2"), qPrintable(cv->summaryLabel()->text()));
        QCOMPARE(cv->table()->horizontalHeaderItem(1)->text(), QString("Inlet, run 2 (°C)"));
        QCOMPARE(cv->table()->horizontalHeaderItem(2)->text(), QString("Inlet, shown (°C)"));
        // The charts' dashed curves name that run too.
        w_->select({"rack", "r02-03"});
        QTRY_VERIFY2(w_->charts()->findChild<QChartView*>()->chart()->title().contains("dashed: run 2, sweep demo: two-crahs.json"),
                     qPrintable(w_->charts()->findChild<QChartView*>()->chart()->title()));
        // At the end the shown baseline is cooler than the variant at some rack by more than half a kelvin.
        w_->run()->setTime(w_->run()->duration());
        QTRY_VERIFY(cv->table()->rowCount() > 0);
        const double coolest = cv->table()->item(cv->table()->rowCount() - 1, 3)->text().toDouble();
        QVERIFY2(coolest < -0.5, qPrintable(QString::number(coolest)));
        // The run itself, or a database that is not there: refused with why, the comparison kept.
        w_->compareWithRun(db, 1);
        QVERIFY(failed.wait(testMs(60000)));
        QVERIFY2(failed.last().first().toString().contains("shown run itself"), qPrintable(failed.last().first().toString()));
        w_->compareWithRun(dir_.filePath("nothere.sqlite"), 1);
        QVERIFY(failed.wait(testMs(60000)));
        QVERIFY2(failed.last().first().toString().contains("nothere.sqlite"), qPrintable(failed.last().first().toString()));
        QCOMPARE(w_->baseline()->info().id, 2);
        // A run of another version of the demo (crah-02 set to 18 °C, rack r04-05 taken out): the comparison
        // says what changed in the layout, from that version to the shown run's.
        const QString edited = dir_.filePath("demo-edited.json"), db2 = dir_.filePath("edited.sqlite");
        {
            auto s = ct::model::loadScenarioFile(MainWindow::demoScenarioPath().toStdString()).scenario;
            ct::model::setProperty(s, "crah-02", "supply_setpoint_c", "18");
            ct::model::removeEntities(s, {"r04-05"});
            ct::model::saveScenarioFile(s, edited.toStdString());
        }
        QProcess sim;
        sim.start(CT_CLI_PATH, {"simulate", edited, "--air", "quick", "--duration", "3min", "--field-every", "0", "--out", db2, "-q"});
        QVERIFY(sim.waitForFinished(testMs(120000)));
        QVERIFY2(sim.exitCode() == 0, sim.readAllStandardError().constData());
        ready.clear();
        w_->compareWithRun(db2, 1);
        QVERIFY(ready.wait(testMs(60000)));
        const QString layout = cv->summaryLabel()->text();
        QVERIFY2(layout.contains("Layout changed") && layout.contains("racks added (1): r04-05") &&
                     layout.contains("crah-02: supply setpoint 18.0 → 20.0 °C"),
                 qPrintable(layout));
        // The charts' dashed curves follow the new comparison.
        QTRY_VERIFY2(w_->charts()->findChild<QChartView*>()->chart()->title().contains("dashed: run 1, simulate demo"),
                     qPrintable(w_->charts()->findChild<QChartView*>()->chart()->title()));
        // Each pane draws its run's own layout: the compared version has no r04-05, the shown run is the open
        // demo's.
        if (View3D::available()) {
            QVERIFY(cv->baselineView()->showsVersion());
            QVERIFY(!cv->whatIfView()->showsVersion());
            QCOMPARE(cv->baselineView()->scene()->rackCount() + 1, cv->whatIfView()->scene()->rackCount());
            // An edit of the open demo (r01-01 taken out) leaves the shown run on its own version: all its racks.
            const std::size_t shown_racks = cv->whatIfView()->scene()->rackCount();
            QVERIFY(w_->document().apply("remove r01-01", [](ct::model::Scenario& s) { ct::model::removeEntities(s, {"r01-01"}); }));
            QVERIFY(cv->whatIfView()->showsVersion());
            QCOMPARE(cv->whatIfView()->scene()->rackCount(), shown_racks);
            w_->document().undoStack()->undo();
            QVERIFY(!cv->whatIfView()->showsVersion());
        }
        if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) {  // the window, from the screen, and each view
            const QString shots = qEnvironmentVariable("CT_SHOT_DIR");
            windowShot(*w_).save(shots + "/compare-two-runs.png");
            if (View3D::available()) {
                cv->baselineView()->renderNow();
                cv->whatIfView()->renderNow();
                QVERIFY(cv->baselineView()->saveScreenshot(shots + "/compare-two-runs-left.png"));
                QVERIFY(cv->whatIfView()->saveScreenshot(shots + "/compare-two-runs-right.png"));
            }
        }
        tabs->setCurrentIndex(0);
    }

private:
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
};

QTEST_MAIN(TstAppCharts)
#include "tst_app_charts.moc"
