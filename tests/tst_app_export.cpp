// Issue 19: File > Export for other tools in the app: ParaView (VTK), glTF and the HTML report of the shown
// run, with the same writers as clustertwin-cli export (whose files tst_export reads back in detail).
#include "charts_panel.hpp"
#include "export_actions.hpp"
#include "fabric_panel.hpp"
#include "floor_plan_view.hpp"
#include "jobs_panel.hpp"
#include "run_dialog.hpp"
#include "scenario_document.hpp"
#include "view3d.hpp"

#include <clustertwin/render/scene.hpp>
#include "main_window.hpp"
#include "run_controller.hpp"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include <cmath>

#include "app_test_window.hpp"
#include "image_checks.hpp"
#include "test_paths.hpp"
#include "test_time.hpp"

using namespace ct::app;

class TstAppExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qputenv("CT_CLI", CT_CLI_PATH);  // the test program is not beside the app
        w_ = openTestWindow(dir_, "ClusterTwinExportTests");
        QVERIFY(w_);
        QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    }

    void theFileMenuOffersTheExports() {
        QStringList found;
        for (QAction* a : w_->menuBar()->actions())
            if (a->menu() && a->text().contains("File"))
                for (QAction* b : a->menu()->actions())
                    if (b->menu() && b->text().contains("other"))
                        for (QAction* c : b->menu()->actions()) found << c->text().remove('&');
        QCOMPARE(found.size(), 4);
        QVERIFY(found[0].contains("ParaView") && found[1].contains("glTF") && found[2].contains("report") && found[3].contains("video"));
    }

    void withoutARunTheDesignExportsAndTheReportSaysWhy() {
        QString error;
        QVERIFY2(exportVtk(*w_, dir_.filePath("design"), &error), qPrintable(error));
        QVERIFY(QFile::exists(dir_.filePath("design/hall.vtp")));
        QVERIFY(!QFile::exists(dir_.filePath("design/run.pvd")));
        QVERIFY(!exportReport(*w_, dir_.filePath("none.html"), &error));
        QVERIFY2(error.contains("simulate"), qPrintable(error));
        QVERIFY(!QFile::exists(dir_.filePath("none.html")));
    }

    void aRunExportsItsSeriesItsHallAndItsReport() {
        w_->findChild<QAction*>("actionAirQuick")->trigger();
        QSignalSpy ended(w_.get(), &MainWindow::simulationEnded);
        const QString db = dir_.filePath("demo.sqlite");
        QVERIFY(w_->runSimulation(180, db));
        QVERIFY(ended.wait(testMs(120000)));
        QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == db && !w_->run()->loading(), testMs(30000));

        QString error, note;
        const QString vtk = dir_.filePath("vtk");
        QVERIFY2(exportVtk(*w_, vtk, &error), qPrintable(error));
        QVERIFY(QFile::exists(vtk + "/hall.vtp"));
        QVERIFY(QFile::exists(vtk + "/run.pvd"));
        QFile pvd(vtk + "/run.pvd");
        QVERIFY(pvd.open(QIODevice::ReadOnly));
        const QString collection = QString::fromUtf8(pvd.readAll());
        // The app stores the air field every minute: hall and field per stored time.
        QVERIFY2(collection.count("air_") >= 2 && collection.count("hall_") == collection.count("air_"), qPrintable(collection));
        QVERIFY(QFile::exists(vtk + "/air_0000.vti"));

        const QString gltf = dir_.filePath("hall.gltf");
        QVERIFY2(exportGltf(*w_, gltf, &error), qPrintable(error));
        QFile g(gltf);
        QVERIFY(g.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(g.readAll()).object();
        QCOMPARE(doc["asset"].toObject()["version"].toString(), QString("2.0"));
        int coloured = 0;
        for (const auto& m : doc["meshes"].toArray())
            for (const auto& p : m.toObject()["primitives"].toArray())
                coloured += p.toObject()["attributes"].toObject().contains("COLOR_0");
        QVERIFY2(coloured >= 3, "racks, nodes and units should carry their colours");

        const QString html = dir_.filePath("report.html");
        QVERIFY2(exportReport(*w_, html, &error, &note), qPrintable(error));
        QFile r(html);
        QVERIFY(r.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(r.readAll());
        QVERIFY(text.contains("<svg") && text.contains("Checks") && text.contains("Hottest racks"));
        QVERIFY2(note.isEmpty() == text.contains("data:image/png;base64,"), qPrintable(note));

        // A video of the replay, made by clustertwin-cli in a child process.
        if (!QStandardPaths::findExecutable("ffmpeg").isEmpty()) {
            QVERIFY2(!cliPath().isEmpty(), "clustertwin-cli is not found beside the app");
            const QString mp4 = dir_.filePath("replay.mp4");
            QVERIFY2(exportVideo(*w_, mp4, 2, &error), qPrintable(error));
            QVERIFY(QFileInfo(mp4).size() > 1000);
        }
    }

    void theJobsDockListsJobsAndLightsUpTheirNodes() {
        JobsPanel* jobs = w_->jobs();
        w_->findChild<QDockWidget*>("jobsDock")->raise();  // a hidden dock catches up when shown
        QTRY_VERIFY(jobs->isVisible());
        QTableWidget* t = jobs->table();
        QCOMPARE(t->rowCount(), static_cast<int>(w_->document().scenario().jobs.size()));
        QCOMPARE(t->item(0, 0)->text(), QString("job1"));
        QCOMPARE(t->item(0, 2)->text(), QString("40"));
        QCOMPARE(t->item(0, 3)->text(), QString("running"));
        // A click selects the job everywhere and lights up its 40 nodes in 3D.
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualItemRect(t->item(0, 0)).center());
        QCOMPARE(w_->selection().kind, QString("job"));
        QCOMPARE(w_->selection().id, QString("job1"));
        if (auto* sc = w_->view3d()->scene()) QCOMPARE(sc->highlighted().size(), std::size_t(40));
        // Its busiest links: those with an end on its nodes, busiest first (a frame made up here: job1 runs no
        // fabric traffic of its own).
        ct::model::Frame f;
        f.links = {{"n0001/gpu0<->leaf0", "infiniband", 0.9, false},
                   {"n0099/gpu0<->leaf1", "infiniband", 0.8, false},
                   {"leaf0<->spine0", "infiniband", 0.7, false},
                   {"leaf2<->n0002/gpu3", "infiniband", 0.5, false}};
        const auto busy = w_->jobs()->busiestLinks("job1", f);
        QCOMPARE(busy, (std::vector<std::string>{"n0001/gpu0<->leaf0", "leaf2<->n0002/gpu3"}));
        if (auto* sc = w_->view3d()->scene()) {
            QCOMPARE(sc->setHighlightedLinks({"no<->such"}), std::size_t(0));
            QCOMPARE(sc->setHighlightedLinks({}), std::size_t(0));
        }
    }

    void aTrainingJobShowsItsStepTimeMfuAndCommunication() {
        // A job on the fabric (docs/network.md): job1's nodes training a 7B model.
        RunRequest r;
        r.duration_s = 60;
        r.air = "quick";
        ct::model::Job j;
        j.id = "llm";
        j.kind = "training";
        j.nodes = w_->document().scenario().jobs.front().nodes;
        ct::model::TrainingSpec ts;
        ts.model_params = 7e9;
        ts.tokens_per_step = 131072;
        ts.tensor_parallel = 8;
        ts.efficiency = 0.4;
        j.training = ts;
        r.extra_jobs = {j};
        QVERIFY(simulateAndShow(r, "train.sqlite"));
        w_->run()->setTime(w_->run()->duration());
        QTableWidget* t = w_->jobs()->table();
        const int row = rowOf(t, "llm");
        QVERIFY2(row >= 0, "the run's own job is listed");
        QCOMPARE(t->item(row, 1)->text(), QString("training"));  // its kind, though the scenario does not list it
        QVERIFY2(t->item(row, 4)->text().toDouble() > 0, qPrintable(t->item(row, 4)->text()));
        // Where the step goes, drawn as a bar: computing, exposed communication and the bubble add up to the step.
        const QVariantList shares = t->item(row, 5)->data(Qt::UserRole).toList();
        QCOMPARE(shares.size(), 3);
        QVERIFY(std::fabs(shares[0].toDouble() + shares[1].toDouble() + shares[2].toDouble() - 1) < 1e-9);
        QVERIFY2(shares[0].toDouble() > 0 && shares[1].toDouble() > 0, qPrintable(t->item(row, 5)->text()));
        QVERIFY(t->item(row, 5)->text().startsWith("compute "));
        const double comm_share = t->item(row, 7)->text().chopped(2).toDouble() / 100;
        QVERIFY2(std::fabs(shares[1].toDouble() - comm_share) <= 0.006, qPrintable(t->item(row, 5)->text()));
        QVERIFY(t->item(row, 6)->text().endsWith("%"));
        QVERIFY(t->item(row, 7)->text().endsWith("%"));
        QCOMPARE(t->horizontalHeaderItem(9)->text(), QString("Details"));  // bubble, interruptions; a served model's latencies
        if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) {                 // the dock on its own, wide enough to read
            auto* dock = w_->findChild<QDockWidget*>("jobsDock");
            dock->setFloating(true);
            dock->resize(1250, 200);
            QTRY_VERIFY(w_->jobs()->isVisible());
            w_->jobs()->table()->resizeColumnsToContents();
            dock->grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/jobs-dock.png");
            dock->setFloating(false);
        }
        // Selected: the Charts dock shows its step time over the run.
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualItemRect(t->item(row, 0)).center());
        QVERIFY(w_->charts()->metricBox()->findData("step_time_s") >= 0);

        // The fabric it loads: leaf–spine utilization as a matrix; a cell selects its link.
        w_->findChild<QDockWidget*>("fabricDock")->raise();
        QTRY_VERIFY(w_->fabric()->isVisible());
        QTableWidget* m = w_->fabric()->matrix();
        QVERIFY2(m->rowCount() > 0 && m->columnCount() > 0, "no leaf-spine links in the matrix");
        QVERIFY(m->verticalHeaderItem(0)->text().startsWith("leaf") && m->horizontalHeaderItem(0)->text().startsWith("spine"));
        QTableWidgetItem* hot = nullptr;
        for (int i = 0; i < m->rowCount(); ++i)
            for (int k = 0; k < m->columnCount(); ++k)
                if (!m->item(i, k)->data(Qt::UserRole).toString().isEmpty()) hot = m->item(i, k);
        QVERIFY(hot);
        QTest::mouseClick(m->viewport(), Qt::LeftButton, {}, m->visualItemRect(hot).center());
        QCOMPARE(w_->selection().kind, QString("link"));
        QVERIFY(w_->selection().id.contains("<->"));
        if (auto* sc = w_->view3d()->scene()) {  // the 3D view can light it up (a job's busiest links are shown so)
            QVERIFY(sc->setHighlightedLinks({w_->selection().id.toStdString()}) >= 1);
            sc->setHighlightedLinks({});
        }
        // A link can be picked in the 3D view: somewhere on the picture a link is nearest, the background far
        // from everything picks none.
        if (auto* sc = w_->view3d()->scene()) {
            w_->view3d()->renderNow();
            int found = 0;
            for (int y = 0; y < w_->view3d()->height(); y += 6)
                for (int x = 0; x < w_->view3d()->width(); x += 6)
                    for (const auto& id : sc->pickLink(x, y, 3)) found += id.find("<->") != std::string::npos;
            QVERIFY2(found > 0, "no link is pickable anywhere");
            QVERIFY(sc->pickLink(1, 1, 3).empty());
        }
    }

    void theFloorPlanColoursRacksByTheMetric() {
        // After the run above: the plan shows the 3D view's metric, one value per rack, with its legend.
        QVERIFY(w_->run()->hasRun());
        FloorPlanView* plan = w_->floorPlan();
        auto* tabs = w_->findChild<QTabWidget*>();
        QVERIFY(tabs);
        tabs->setCurrentWidget(plan);
        w_->metricBox()->setCurrentIndex(w_->metricBox()->findData("rack_inlet_c"));
        QTRY_VERIFY(plan->hasValues());
        const PlanValues& v = plan->values();
        QCOMPARE(QString::fromStdString(v.label), QString("Rack inlet, hottest intake (°C)"));
        std::string hot, cool;
        double hi = -1e9, lo = 1e9;
        for (const auto& [id, x] : v.rack) {
            QVERIFY2(std::isfinite(x), id.c_str());
            if (x > hi) hi = x, hot = id;
            if (x < lo) lo = x, cool = id;
        }
        const auto& f = w_->run()->frame();
        for (const auto& r : f.racks)
            if (r.id == hot) QCOMPARE(v.rack.at(hot), r.inlet_max_c);
        // The picture: the hottest and the coolest rack in different colours, the plan filling its tab.
        const QImage img = plan->grab().toImage();
        QVERIFY(plan->width() > tabs->width() * 0.9);
        const QPointF ph = plan->widgetPosOf({"rack", QString::fromStdString(hot)});
        const QPointF pc = plan->widgetPosOf({"rack", QString::fromStdString(cool)});
        QVERIFY(!ph.isNull() && !pc.isNull());
        const QColor ch = img.pixelColor(ph.toPoint() + QPoint(0, 2)), cc = img.pixelColor(pc.toPoint() + QPoint(0, 2));
        QVERIFY2(hi - lo > 1.0, "the run's racks all have one inlet: nothing to tell apart");
        QVERIFY2(ch.hueF() < cc.hueF(), qPrintable(QString("hot %1 vs cool %2").arg(ch.name(), cc.name())));
        const QString keep = qEnvironmentVariable("CT_KEEP_PLAN_PNG");
        if (!keep.isEmpty()) img.save(keep);
        // The tooltip names the rack, its model and its value.
        const QString tip = plan->toolTipAt(ph);
        QVERIFY2(
            tip.startsWith(QString::fromStdString(hot)) && tip.contains("Rack inlet") && tip.contains(QString::number(hi, 'f', v.decimals)),
            qPrintable(tip));
        // The wheel zooms toward the cursor (the rack under it stays there), a double click fits again.
        QWheelEvent wheel(ph, plan->mapToGlobal(ph), {}, {0, 240}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(plan, &wheel);
        QVERIFY(plan->zoom() > 1.4);
        QVERIFY((plan->widgetPosOf({"rack", QString::fromStdString(hot)}) - ph).manhattanLength() < 2.0);
        QTest::mouseDClick(plan, Qt::LeftButton, {}, QPoint(3, 3));
        QCOMPARE(plan->zoom(), 1.0);
        // A run-less metric: nameplate; closing the run brings the design colours back.
        w_->run()->close();
        QTRY_VERIFY(!plan->hasValues());
    }

    void theFloorPlanMatchesItsBaseline() {
        // The plan as a planner sees it (names, colours by rack inlet, a failed unit, the colour bar), against a
        // reviewed picture: the demo hall at a fixed size with made-up inlets, so no simulation is involved.
        ScenarioDocument doc;
        ct::model::Diagnostics problems;
        QString error;
        QVERIFY2(doc.load(MainWindow::demoScenarioPath(), problems, error), qPrintable(error));
        FloorPlanView plan(doc);
        plan.resize(900, 560);
        ct::model::Frame f;
        int i = 0;
        for (const auto& row : doc.scenario().halls.front().rows)
            for (const auto& r : row.racks) {
                ct::model::RackFrame rf;
                rf.id = r.id;
                rf.inlet_max_c = rf.inlet_mean_c = 19 + (i++ * 7) % 15;  // 19..33 °C, neighbours apart
                f.racks.push_back(rf);
            }
        QVERIFY(!doc.scenario().halls.front().cooling_units.empty());
        ct::model::CoolingUnitFrame failed;
        failed.id = doc.scenario().halls.front().cooling_units.front().id;
        failed.failed = true;
        f.cooling_units.push_back(failed);
        plan.setFrame(f, "rack_inlet_c");
        QVERIFY(plan.hasValues());
        const QString png = dir_.filePath("floor_plan_demo.png");
        QVERIFY(plan.grab().toImage().save(png));
        compareWithBaseline(png, "floor_plan_demo");
    }

    void aJobPlacedByTheRunLightsUpWhereItRan() {
        // A job that asks for 16 GPUs (no nodes), added for the run only: the engine places it, the run records
        // where (its metadata's job_nodes), and the Jobs dock shows and lights up those nodes.
        QVERIFY(w_->openScenario(QString(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json"));
        RunRequest r;
        r.duration_s = 20;
        r.air = "quick";
        ct::model::Job k;
        k.id = "small";
        k.kind = "training";
        k.gpus = 16;
        ct::model::TrainingSpec ts;
        ts.model_params = 7e9;
        ts.tokens_per_step = 131072;
        ts.tensor_parallel = 8;
        k.training = ts;
        r.extra_jobs = {k};
        QVERIFY(simulateAndShow(r, "placed.sqlite"));
        w_->findChild<QDockWidget*>("jobsDock")->raise();
        QTRY_VERIFY(w_->jobs()->isVisible());
        QTableWidget* t = w_->jobs()->table();
        const int row = rowOf(t, "small");
        QVERIFY2(row >= 0, "the run's placed job is listed");
        QCOMPARE(t->item(row, 2)->text(), QString("2"));  // two 8-GPU nodes
        // How its collectives ran, kept in the run's metadata: the gradients' all-reduce over the two nodes, one
        // ring per GPU index (the job gives no model shape, so no tensor-parallel traffic).
        QVERIFY2(t->item(row, 9)->text().contains("DP all-reduce ring/Simple"), qPrintable(t->item(row, 9)->text()));
        QVERIFY2(t->item(row, 9)->toolTip().contains(
                     QRegularExpression("DP all-reduce: ring/Simple, \\d+ channels?, [0-9.]+ ms \\(8 groups of 2\\)")),
                 qPrintable(t->item(row, 9)->toolTip()));
        const auto placed = w_->jobs()->nodesOf("small");
        QCOMPARE(placed, (std::vector<std::string>{"n0001", "n0002"}));  // packed: the first two in cabling order
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualItemRect(t->item(row, 0)).center());
        QCOMPARE(w_->selection().id, QString("small"));
        if (auto* sc = w_->view3d()->scene()) QCOMPARE(sc->highlighted().size(), std::size_t(2));
    }

private:
    /// Runs the request into a database in the test's folder and waits until the window shows that run.
    bool simulateAndShow(const RunRequest& r, const char* db_name) {
        QSignalSpy ended(w_.get(), &MainWindow::simulationEnded);
        const QString db = dir_.filePath(db_name);
        if (!w_->runSimulation(r, db) || !ended.wait(testMs(120000))) return false;
        return QTest::qWaitFor([&] { return w_->run()->hasRun() && w_->run()->databasePath() == db && !w_->run()->loading(); },
                               testMs(30000));
    }
    /// The table's row whose first column is `id`, or −1.
    static int rowOf(const QTableWidget* t, const QString& id) {
        for (int i = 0; i < t->rowCount(); ++i)
            if (t->item(i, 0)->text() == id) return i;
        return -1;
    }

    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
};

QTEST_MAIN(TstAppExport)
#include "tst_app_export.moc"
