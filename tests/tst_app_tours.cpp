// Issue 19, for teachers and demos: guided tours played in the app (captions, camera, selection, timeline; a
// tour that replays a run simulates it first) and presentation mode (full screen, large type, no docks).
#include "main_window.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
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
        // Autoplay moves on by itself after the step's seconds.
        t->setAutoplay(true);
        QTRY_COMPARE_WITH_TIMEOUT(t->step(), 3, 10000);
        t->stop();
        QVERIFY(!t->running() && !t->isVisible());
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
        t->next();
        QCOMPARE(w_->selection().id, QString("crah-02"));
        QVERIFY(std::abs(w_->run()->time() - 600) < 1);
        t->stop();
    }

private:
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
};

QTEST_MAIN(TstAppTours)
#include "tst_app_tours.moc"
