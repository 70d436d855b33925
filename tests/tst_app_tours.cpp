// Issue 19, for teachers and demos: guided tours played in the app (captions, camera, selection, timeline; a
// tour that replays a run simulates it first) and presentation mode (full screen, large type, no docks).
#include "main_window.hpp"
#include "run_controller.hpp"
#include "run_panels.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "simulation_options.hpp"
#include "tour_player.hpp"
#include "view3d.hpp"

#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QTemporaryDir>

#include <QTest>

#include <algorithm>
#include <cmath>

#include "app_test_window.hpp"
#include "test_paths.hpp"
#include "test_time.hpp"

using namespace ct::app;

class TstAppTours : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        w_ = openTestWindow(dir_, "ClusterTwinTourTests", QSize(1280, 800));
        QVERIFY(w_);
    }

    void theHelpMenuListsTheTours() {
        auto* menu = w_->findChild<QMenu*>("menuTours");
        QVERIFY(menu);
        QStringList titles;
        for (QAction* a : menu->actions()) titles << a->text();
        QVERIFY2(titles.contains("How a GPU cluster is built") && titles.contains("A cooling unit fails during a training job"),
                 qPrintable(titles.join("|")));
    }

    void aTourStepsThroughCaptionsCameraAndSelection() {
        TourPlayer* t = w_->tours();
        QString error;
        QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
        auto* links = w_->findChild<QAction*>("overlayLinks");  // the user has the fabric's links off
        QVERIFY(links);
        if (links->isChecked()) links->trigger();
        QVERIFY(!w_->view3d()->scene()->overlays().links);
        QVERIFY2(t->start(QString(CT_RESOURCE_DIR) + "/tours/how-a-gpu-cluster-is-built.json", &error), qPrintable(error));
        t->setAutoplay(false);
        QVERIFY(t->running() && t->isVisible());
        QCOMPARE(t->step(), 0);
        QVERIFY(t->caption().startsWith("An AI cluster"));
        QVERIFY(w_->document().path().endsWith("demo.json"));
        std::vector<double> before;
        if (auto* sc = w_->view3d()->scene()) before = sc->cameraState();
        t->next();
        QCOMPARE(t->step(), 1);
        QVERIFY(t->caption().contains("H100"));
        QCOMPARE(w_->selection().id, QString("n0001/gpu0"));
        if (auto* sc = w_->view3d()->scene()) {
            const auto after = sc->cameraState();
            double moved = 0;
            for (std::size_t i = 0; i < after.size() && i < before.size(); ++i) moved += std::abs(after[i] - before[i]);
            QVERIFY2(moved > 0.1, "the camera did not move to the GPU");
        }
        t->next();
        t->next();
        QCOMPARE(t->step(), 3);
        if (auto* sc = w_->view3d()->scene()) QCOMPARE(sc->highlighted().size(), std::size_t(4));  // the rack's four servers
        t->back();
        QCOMPARE(t->step(), 2);
        // The caption sits at the top of the view, clear of the colour bars along its bottom; the hint meant for
        // the user ("Run a simulation (F5)") is not shown to the audience.
        QVERIFY2(captionInTopHalf(t), qPrintable(captionPlace(t)));
        if (auto* sc = w_->view3d()->scene()) QVERIFY(!sc->showsHint());
        shoot(t, "tour-built-step3");
        // Autoplay moves on by itself after the step's seconds.
        t->setAutoplay(true);
        QTRY_COMPARE_WITH_TIMEOUT(t->step(), 3, 10000);
        t->setAutoplay(false);
        // The fabric step turns the links on; End puts back what the user had, the toolbar with it.
        const bool user_links = false;
        t->showStep(5);
        QVERIFY(w_->view3d()->scene()->overlays().links && links->isChecked());
        t->showStep(t->stepCount() - 1);
        shoot(t, "tour-built-last");
        t->stop();
        QVERIFY(!t->running() && !t->isVisible());
        QCOMPARE(w_->view3d()->scene()->overlays().links, user_links);
        QCOMPARE(links->isChecked(), user_links);
        QVERIFY(w_->view3d()->scene()->showsHint());
    }

    void presentationModeIsFullScreenWithoutDocks() {
        auto* dock = w_->findChild<QDockWidget*>("chartsDock");
        QVERIFY(dock && dock->isVisible());
        const double font = w_->font().pointSizeF();
        w_->findChild<QAction*>("actionPresentation")->trigger();
        QVERIFY(presentationMode(*w_));
        QVERIFY(!dock->isVisible());
        QVERIFY(!w_->menuBar()->isVisible());
        QVERIFY(w_->windowState() & Qt::WindowFullScreen);
        QVERIFY(w_->font().pointSizeF() > 1.4 * font);
        // Esc leaves it, and everything comes back.
        w_->activateWindow();
        QTest::keyClick(w_.get(), Qt::Key_Escape);
        QVERIFY(!presentationMode(*w_));
        QVERIFY(dock->isVisible());
        QVERIFY(w_->menuBar()->isVisible());
        QVERIFY(std::abs(w_->font().pointSizeF() - font) < 0.01);
    }

    void aTourOfARunSimulatesItFirst() {
        TourPlayer* t = w_->tours();
        QString error;
        const std::string users_air = w_->simulationOptions()->air();
        QVERIFY2(t->start(QString(CT_RESOURCE_DIR) + "/tours/cooling-unit-fails-during-training.json", &error), qPrintable(error));
        t->setAutoplay(false);
        QVERIFY(t->caption().startsWith("Preparing the tour"));
        QTRY_VERIFY_WITH_TIMEOUT(t->step() == 0 && w_->run()->hasRun(), testMs(240000));
        // The tour's run used quick air without touching the user's own choice (issue 39: the tour no longer
        // switches the menu by an action's name).
        QCOMPARE(w_->run()->replay()->info().meta.air, std::string("quick"));
        QCOMPARE(w_->simulationOptions()->air(), users_air);
        QVERIFY(std::abs(w_->run()->time() - 540) < 1);  // "time": "9m"
        QVERIFY(w_->run()->duration() >= 35 * 60 - 1);
        // Every caption is true of the run it plays over (report::checkTour; tst_tours checks the claims fail
        // when they are not).
        QVERIFY(t->falseClaims().empty());
        shoot(t, "tour-cooling-first");
        t->next();
        QCOMPARE(w_->selection().id, QString("crah-02"));
        QVERIFY(std::abs(w_->run()->time() - 600) < 1);
        // Back restores the step's time: the slice step (no time of its own) starts where the step before
        // played to, 16 minutes, however far a later step played.
        t->showStep(5);
        QVERIFY(std::abs(w_->run()->time() - 29 * 60) < 1);
        t->back();  // step 5: "time" 16m, plays to 25m
        QVERIFY(std::abs(w_->run()->time() - 16 * 60) < 1);
        t->back();  // step 4: the slice
        QVERIFY(std::abs(w_->run()->time() - 16 * 60) < 1);
        QVERIFY(w_->view3d()->scene()->overlays().floor_slice);
        t->back();  // step 3: from 10 minutes
        QVERIFY(std::abs(w_->run()->time() - 10 * 60) < 1);
        QVERIFY(!w_->view3d()->scene()->overlays().floor_slice);  // the slice is step 4's
        t->showStep(t->stepCount() - 1);
        shoot(t, "tour-cooling-last");
        t->stop();
    }

    void thePowerTourFollowsAFeedFailureWithTrueCaptions() {
        // Issue 40's power tour: feed A of the demo's 2N chain fails at 5 minutes (an event the tour adds to its
        // run); the B-side PDUs carry each rack, their breakers near 60 %.
        TourPlayer* t = w_->tours();
        QString error;
        QVERIFY2(t->start(QString(CT_RESOURCE_DIR) + "/tours/a-power-feed-fails.json", &error), qPrintable(error));
        t->setAutoplay(false);
        QTRY_VERIFY_WITH_TIMEOUT(t->step() == 0 && w_->run()->hasRun() && !w_->run()->loading(), testMs(240000));
        QVERIFY(t->falseClaims().empty());
        const auto& ev = w_->run()->replay()->events();
        QVERIFY(std::any_of(ev.begin(), ev.end(), [](const auto& e) { return e.kind == "event" && e.message == "feed_fail"; }));
        shoot(t, "tour-power-first");
        t->showStep(2);
        QCOMPARE(w_->selection().id, QString("r01-01-pdu-b"));
        const double load = w_->values()->value("breaker_utilization").split(' ').first().toDouble();
        QVERIFY2(load > 55 && load < 70, qPrintable(w_->values()->value("breaker_utilization")));  // the inspector says it
        t->showStep(t->stepCount() - 1);
        shoot(t, "tour-power-last");
        t->stop();
    }

    void theNetworkTourFollowsACableFailureWithTrueCaptions() {
        // Issue 40's network tour: a training job the tour adds to the lab (its "jobs") loses one of the spine
        // cables its all-reduce crosses; the next cable carries two rings and every step waits for it.
        TourPlayer* t = w_->tours();
        QString error;
        QVERIFY2(t->start(QString(CT_RESOURCE_DIR) + "/tours/a-cable-fails-under-an-all-reduce.json", &error), qPrintable(error));
        t->setAutoplay(false);
        QTRY_VERIFY_WITH_TIMEOUT(t->step() == 0 && w_->run()->hasRun() && !w_->run()->loading(), testMs(240000));
        QVERIFY(w_->document().path().endsWith("lab-8node.json"));
        QVERIFY(t->falseClaims().empty());
        const auto* run = w_->run()->replay();
        QVERIFY(run->series("llama3-70b", "step_time_s"));  // the tour's job ran
        shoot(t, "tour-network-first");
        t->showStep(2);
        QCOMPARE(w_->selection().id, QString("leaf0<->spine0#3"));
        QVERIFY(w_->tree()->selectedItems().isEmpty());  // a cable has no item: the server selected before is not shown as chosen
        if (View3D::available()) {
            QVERIFY(w_->view3d()->scene() && w_->view3d()->scene()->overlays().links);
            // Once the step has played to 90 s, the line of leaf 0's spine cables is named with its busiest, the
            // one carrying two rings.
            w_->run()->setTime(90);
            QApplication::processEvents();
            const auto& labels = w_->view3d()->scene()->linkLabels();
            QVERIFY(!labels.empty());
            QVERIFY2(labels.front().rfind("leaf0 – spine0, cable 3: 3", 0) == 0, labels.front().c_str());
        }
        QVERIFY2(captionInTopHalf(t), qPrintable(captionPlace(t)));  // its longest caption
        shoot(t, "tour-network-failed");
        t->showStep(t->stepCount() - 1);
        shoot(t, "tour-network-last");
        t->stop();
    }

private:
    /// The caption stays in the view's top half, clear of the colour bars along its bottom and of the subject the
    /// camera frames in its middle.
    QRect viewRect() const { return {w_->view3d()->mapTo(w_->centralTabs(), QPoint(0, 0)), w_->view3d()->size()}; }
    bool captionInTopHalf(const TourPlayer* t) const { return t->geometry().bottom() < viewRect().center().y(); }
    QString captionPlace(const TourPlayer* t) const {
        return QString("caption %1,%2 %3x%4, the view's middle at y %5")
            .arg(t->x())
            .arg(t->y())
            .arg(t->width())
            .arg(t->height())
            .arg(viewRect().center().y());
    }
    /// The window as it shows (from the screen: the caption panel and the 3D pane) and the 3D view alone.
    void shoot(TourPlayer* t, const QString& name) {
        if (qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) return;
        const QString dir = qEnvironmentVariable("CT_SHOT_DIR");
        QApplication::processEvents();
        windowShot(*w_).save(dir + "/" + name + "-window.png");
        w_->view3d()->saveScreenshot(dir + "/" + name + "-3d.png");
        Q_UNUSED(t);
    }
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
};

QTEST_MAIN(TstAppTours)
#include "tst_app_tours.moc"
