// Issue 6 in the app: a drag on the plan moves a rack by whole tiles, every edit undoes and redoes to the
// identical JSON, checks show in the dock and as 3D markers, saves and autosave recovery, impact highlights,
// and a what-if run coloured by its difference from the baseline.
#include "add_rack_dialog.hpp"
#include "checks_panel.hpp"
#include "edit_controller.hpp"
#include "floor_plan_view.hpp"
#include "inventory_import.hpp"
#include "main_window.hpp"
#include "properties_panel.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "simulation_options.hpp"
#include "view3d.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/render/scene.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "test_time.hpp"

#include <clustertwin/model/containment.hpp>
#include <clustertwin/runs/replay.hpp>

#include <cmath>
#include <map>
#include "test_paths.hpp"

using namespace ct::app;
namespace m = ct::model;

namespace {
std::string json(MainWindow& w) { return m::scenarioToJson(w.document().scenario()); }
const m::Rack* rack(MainWindow& w, const std::string& id) {
    for (const auto& row : w.document().scenario().halls[0].rows)
        for (const auto& r : row.racks)
            if (r.id == id) return &r;
    return nullptr;
}
}  // namespace

class TstPlanner : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void draggingARackMovesItByWholeTiles();
    void everyEditUndoesAndRedoesToIdenticalJson();
    void checksShowInTheDockAndIn3D();
    void inspectorEditsAreUndoable();
    void shiftDragIn3DMovesARackByWholeTiles();
    void saveThenAutosaveIsOfferedForRecovery();
    void impactHighlightsWhatIsAffected();
    void whatIfIsColouredByTheDifference();
    void addRackDialogPreviewsWhereAndHowItIsPowered();
    void containmentInRowCoolersAndRearDoorsAreUndoableEdits();
    void anInventoryFromNetboxOpensWithItsReport();
    void aSensorIsPlacedWithAClickOnThePlan();

private:
    std::unique_ptr<MainWindow> w_;
    QTemporaryDir dir_;
    QString file_;
};

void TstPlanner::initTestCase() {
    QApplication::setOrganizationName("ClusterTwinPlannerTests");
    QVERIFY(dir_.isValid());
    // Work on a copy of the demo, so saves do not touch the sample.
    file_ = dir_.filePath("hall.json");
    QVERIFY(QFile::copy(MainWindow::demoScenarioPath(), file_));
    QFile::setPermissions(file_, QFile::ReadOwner | QFile::WriteOwner);
    w_ = std::make_unique<MainWindow>();
    QVERIFY(w_->openScenario(file_));
    // These tests drive the app, not the air physics (tst_lbm, tst_air_solver): quick air keeps their runs short.
    auto* quick = w_->findChild<QAction*>("actionAirQuick");
    QVERIFY(quick && w_->findChild<QAction*>("actionAirLbm")->isChecked());
    quick->trigger();
    QCOMPARE(w_->simulationOptions()->air(), std::string("quick"));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
}

void TstPlanner::draggingARackMovesItByWholeTiles() {
    FloorPlanView* plan = w_->floorPlan();
    w_->findChild<QTabWidget*>()->setCurrentWidget(plan);
    QTest::qWait(50);
    const std::string before = json(*w_);
    const m::Vec2 p0 = rack(*w_, "r02-03")->position_m;
    const QPointF at = plan->widgetPosOf({"rack", "r02-03"});
    const QPointF next = plan->widgetPosOf({"rack", "r02-04"});  // one rack (0.6 m) along
    const double px_per_m = std::abs(next.x() - at.x()) / 0.6;
    QVERIFY(px_per_m > 1);
    // Drag 1.6 tiles east and 0.3 tiles north (screen y grows southwards): snaps to 2 tiles and 0.
    const QPoint from = at.toPoint();
    const QPoint to = from + QPoint(int(1.6 * 0.6 * px_per_m), -int(0.3 * 0.6 * px_per_m));
    QTest::mousePress(plan, Qt::LeftButton, {}, from);
    for (int i = 1; i <= 8; ++i) QTest::mouseMove(plan, from + (to - from) * i / 8);
    QTest::mouseRelease(plan, Qt::LeftButton, {}, to);
    const m::Vec2 p1 = rack(*w_, "r02-03")->position_m;
    QCOMPARE(p1.x_m - p0.x_m, 1.2);
    QCOMPARE(p1.y_m, p0.y_m);
    QVERIFY(w_->document().isModified());
    QVERIFY(w_->windowTitle().contains('*'));
    const std::string after = json(*w_);
    w_->document().undoStack()->undo();
    QCOMPARE(json(*w_), before);
    w_->document().undoStack()->redo();
    QCOMPARE(json(*w_), after);
    w_->document().undoStack()->undo();
}

void TstPlanner::everyEditUndoesAndRedoesToIdenticalJson() {
    EditController* e = w_->edits();
    QUndoStack* undo = w_->document().undoStack();
    const int base = undo->index();
    std::vector<std::string> states{json(*w_)};
    auto step = [&](const char* what, const std::function<bool()>& edit) {
        QVERIFY2(edit(), qPrintable(QString(what) + ": " + e->lastError()));
        states.push_back(json(*w_));
        QVERIFY2(states.back() != states[states.size() - 2], what);
    };
    w_->select({"rack", "r01-02"});
    step("rotate", [&] { return e->rotateTargets(); });
    step("nudge", [&] { return e->nudgeTargets(0, -1); });
    step("duplicate", [&] { return e->duplicateTargets(); });
    step("add rack", [&] { return !e->addRack("rack-48u-600x1200", "dgx-h100", 2).isEmpty(); });
    step("add row", [&] { return !e->addRow().isEmpty(); });
    w_->floorPlan()->setSelection({{"rack", "r03-01"}, {"cooling_unit", "crah-03"}});
    e->setTargets({{"rack", "r03-01"}, {"cooling_unit", "crah-03"}});
    step("move two", [&] { return e->move({"r03-01", "crah-03"}, 0.6, 0); });
    step("delete two", [&] { return e->removeTargets(); });
    // Undo everything, checking each state on the way; then redo everything.
    for (int i = static_cast<int>(states.size()) - 2; i >= 0; --i) {
        undo->undo();
        QCOMPARE(json(*w_), states[i]);
    }
    QCOMPARE(undo->index(), base);
    for (std::size_t i = 1; i < states.size(); ++i) {
        undo->redo();
        QCOMPARE(json(*w_), states[i]);
    }
    while (undo->index() > base) undo->undo();
    QCOMPARE(json(*w_), states.front());
}

void TstPlanner::inspectorEditsAreUndoable() {
    const std::string before = json(*w_);
    w_->select({"rack", "r04-02"});
    QVERIFY(w_->properties()->editValue("name", "Storage 1"));
    QCOMPARE(rack(*w_, "r04-02")->name, std::string("Storage 1"));
    QVERIFY(w_->properties()->editValue("facing (cold air in)", "east"));
    QVERIFY(rack(*w_, "r04-02")->facing == m::Facing::East);
    const m::Vec2 p = rack(*w_, "r04-02")->position_m;
    QVERIFY(w_->properties()->editValue("position", QString("(%1, %2) m").arg(p.x_m + 0.6).arg(p.y_m)));
    QCOMPARE(rack(*w_, "r04-02")->position_m.x_m, p.x_m + 0.6);
    w_->select({"cooling_unit", "crah-04"});
    QVERIFY(w_->properties()->editValue("supply setpoint", "19.5 °C"));
    QVERIFY(!w_->properties()->editValue("capacity", "1 MW"));  // catalog figures are not editable
    // A bad value changes nothing.
    const std::string mid = json(*w_);
    QVERIFY(w_->properties()->editValue("supply setpoint", "warm"));
    QCOMPARE(json(*w_), mid);
    for (int i = 0; i < 4; ++i) w_->document().undoStack()->undo();
    QCOMPARE(json(*w_), before);
}

void TstPlanner::shiftDragIn3DMovesARackByWholeTiles() {
    if (!View3D::available()) QSKIP("the 3D view needs an X display (Xvfb in CI)");
    View3D* v = w_->view3d();
    w_->findChild<QTabWidget*>()->setCurrentWidget(v);
    QTest::qWait(50);
    v->scene()->setCamera("top");
    v->renderNow();
    const std::string before = json(*w_);
    const m::Vec2 p0 = rack(*w_, "r03-03")->position_m;
    int x = 0, y = 0;
    QVERIFY(v->scene()->project("r03-03", x, y, true));
    double fx0 = 0, fy0 = 0, fx1 = 0, fy1 = 0;
    QVERIFY(v->scene()->floorPoint(x, y, fx0, fy0));
    // Find how many pixels make 1.5 tiles eastwards on the floor.
    int dx = 1;
    while (dx < 400 && v->scene()->floorPoint(x + dx, y, fx1, fy1) && fx1 - fx0 < 0.9) ++dx;
    QTest::mousePress(v, Qt::LeftButton, Qt::ShiftModifier, QPoint(x, y));
    for (int i = 1; i <= 6; ++i) QTest::mouseMove(v, QPoint(x + dx * i / 6, y));
    QTest::mouseRelease(v, Qt::LeftButton, Qt::ShiftModifier, QPoint(x + dx, y));
    const m::Vec2 p1 = rack(*w_, "r03-03")->position_m;
    QCOMPARE(p1.x_m - p0.x_m, 1.2);  // 0.9 m dragged: 1.5 tiles, rounded to 2 tiles
    QCOMPARE(p1.y_m, p0.y_m);
    QCOMPARE(w_->selection(), (EntityRef{"rack", "r03-03"}));
    w_->document().undoStack()->undo();
    QCOMPARE(json(*w_), before);
    v->scene()->setCamera("iso");
}

void TstPlanner::checksShowInTheDockAndIn3D() {
    auto* table = w_->checks()->table();
    auto count = [&](const QString& kind) {
        int n = 0;
        for (int r = 0; r < table->rowCount(); ++r) n += table->item(r, 1)->text() == kind;
        return n;
    };
    QCOMPARE(count("overlap"), 0);
    const std::size_t marks0 = View3D::available() ? w_->view3d()->scene()->markerCount() : 0;
    QVERIFY(w_->edits()->move({"r01-02"}, -0.6, 0));  // onto r01-01
    QVERIFY(count("overlap") > 0);
    if (View3D::available()) QVERIFY(w_->view3d()->scene()->markerCount() > marks0);
    w_->document().undoStack()->undo();
    QCOMPARE(count("overlap"), 0);
}

void TstPlanner::saveThenAutosaveIsOfferedForRecovery() {
    QVERIFY(w_->edits()->move({"crah-02"}, 0, -0.6));
    QString error;
    QVERIFY2(w_->saveScenario({}, &error), qPrintable(error));
    QVERIFY(!w_->document().isModified());
    QCOMPARE(m::readTextFile(file_.toStdString()), json(*w_));
    // Edit again, autosave, and "crash": a new window opening the file is offered the autosave.
    QVERIFY(w_->edits()->move({"crah-02"}, 0, 0.6));
    const std::string edited = json(*w_);
    QTest::qWait(1100);  // the autosave must be newer than the file
    QVERIFY(w_->document().writeAutosave());
    QVERIFY(QFile::exists(ScenarioDocument::autosavePathFor(file_)));
    // The window goes away without closing (as in a crash): its autosave stays, its hold on it does not.
    w_.reset();
    {
        MainWindow other;
        QVERIFY(other.openScenario(file_));
        QVERIFY(other.recoveryDialog());
        QVERIFY(other.recoveryDialog()->isVisible());
        other.recoveryDialog()->done(QMessageBox::Yes);
        QCOMPARE(json(other), edited);
        QVERIFY(other.document().isModified());
        // Saving removes the autosave.
        QVERIFY(other.saveScenario({}, &error));
        QVERIFY(!QFile::exists(ScenarioDocument::autosavePathFor(file_)));
    }
    w_ = std::make_unique<MainWindow>();
    QVERIFY(w_->openScenario(file_));
    QVERIFY(!w_->recoveryDialog() || !w_->recoveryDialog()->isVisible());
    w_->findChild<QAction*>("actionAirQuick")->trigger();
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
}

void TstPlanner::impactHighlightsWhatIsAffected() {
    QString error;
    QVERIFY2(w_->showImpact({"pdu", "pdu-row02-b"}, &error), qPrintable(error));
    auto* t = w_->checks()->impactTable();
    QCOMPARE(t->rowCount(), 5);  // r02-01..05 left on side A
    for (int r = 0; r < 5; ++r) QVERIFY(t->item(r, 1)->text().startsWith("r02-"));
    if (View3D::available()) QCOMPARE(w_->view3d()->scene()->highlighted().size(), std::size_t(5));
    QVERIFY(!w_->showImpact({"rack", "no-such"}, &error));
}

void TstPlanner::whatIfIsColouredByTheDifference() {
    QSignalSpy ready(w_.get(), &MainWindow::whatIfReady);
    QVERIFY(w_->runWhatIf({"cooling_unit", "crah-01"}, 600, dir_.path()));
    QVERIFY(ready.wait(testMs(240000)));
    QVERIFY(w_->comparing());
    QCOMPARE(w_->metricBox()->currentData().toString(), QString("inlet_delta_c"));
    RunController* run = w_->run();
    QVERIFY(run->replay()->info().name.find("app") != std::string::npos);
    run->setTime(run->duration());
    // Losing a CRAH warms some inlets against the same moment of the baseline (others may cool: the remaining
    // units blow harder).
    QVERIFY(w_->baseline());
    const auto f = run->frame();
    const auto b = w_->baseline()->frameAt(w_->baseline()->startS() + run->time() + 1e-6);
    std::map<std::string, double> base;
    for (const auto& n : b.nodes) base[n.id] = n.inlet_c;
    double most = -1e9, least = 1e9;
    for (const auto& n : f.nodes) {
        QVERIFY(base.count(n.id));
        most = std::max(most, n.inlet_c - base[n.id]);
        least = std::min(least, n.inlet_c - base[n.id]);
    }
    QVERIFY2(most > 0.3, qPrintable(QString("largest inlet rise %1 K").arg(most)));
    qInfo("inlet change at the end: %+.2f to %+.2f K", least, most);
    if (View3D::available()) {
        QVERIFY(w_->view3d()->scene()->hasFrame());
        QCOMPARE(w_->view3d()->scene()->metric(), std::string("inlet_delta_c"));
    }
    const QString png = QDir(dir_.path()).filePath("whatif.png");
    if (View3D::available()) {
        w_->findChild<QTabWidget*>()->setCurrentWidget(w_->view3d());
        w_->view3d()->renderNow();
        QVERIFY(w_->view3d()->saveScreenshot(png));
        QFile::copy(png, QDir::current().filePath("tst_planner_whatif.png"));
    }
}

void TstPlanner::addRackDialogPreviewsWhereAndHowItIsPowered() {
    const auto& sc = w_->document().scenario();
    AddRackDialog d(sc, w_->document().catalog(), sc.halls[0].id, "row01", w_.get());
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    // Preselected like the row's racks: four DGX H100 on feeds that carry 40.8 kW, after the row's last rack.
    QCOMPARE(d.serverModel(), std::string("dgx-h100"));
    QCOMPARE(d.nodes(), 4);
    QVERIFY2(d.plan().problem.empty(), d.plan().problem.c_str());
    QVERIFY2(d.previewText().contains("in row01") && d.previewText().contains("40.8 kW") && d.previewText().contains("100 A"),
             qPrintable(d.previewText()));
    auto* ok = d.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    // Seven DGX do not fit in 48U: the preview says why and Add is disabled.
    d.findChild<QSpinBox*>("addRackCount")->setValue(7);
    QVERIFY(d.previewText().startsWith("Cannot add"));
    QVERIFY(!ok->isEnabled());
    // Six fit, but row01's floor PDUs (204 of 250 kW on failover) could not carry 61.2 kW more: said, still allowed.
    d.findChild<QSpinBox*>("addRackCount")->setValue(6);
    QVERIFY(ok->isEnabled());
    QVERIFY2(d.previewText().contains("Warning: floor PDU pdu-row01-a would carry 265.2 of its 250.0 kW"), qPrintable(d.previewText()));
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) d.grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/add-rack-warning.png");
    d.findChild<QSpinBox*>("addRackCount")->setValue(2);
    QVERIFY(ok->isEnabled());
    QVERIFY(d.previewText().contains("20.4 kW"));
    QVERIFY(!d.previewText().contains("Warning"));
    const QImage plan = d.findChild<QWidget*>("addRackPreviewPlan")->grab().toImage();
    plan.save(QDir::current().absoluteFilePath("tst_planner_add_rack_preview.png"));  // to look at
    int accent = 0;                                                                   // the planned rack is drawn in orange
    for (int y = 0; y < plan.height(); ++y)
        for (int x = 0; x < plan.width(); ++x) {
            const QColor c = plan.pixelColor(x, y);
            accent += c.red() > 200 && c.green() > 90 && c.green() < 150 && c.blue() < 60 ? 1 : 0;
        }
    QVERIFY2(accent > 4, "the planned rack is not drawn on the preview");
    // Issue 40: Add row adds a row — as long as the hall's last (five racks), planned one beside the other — and
    // the dialog says what redundancy they would have.
    AddRackDialog row(sc, w_->document().catalog(), sc.halls[0].id, "", w_.get());
    QCOMPARE(row.windowTitle(), QString("Add row"));
    QCOMPARE(row.racks(), 5);
    QCOMPARE(row.plans().racks.size(), std::size_t(5));
    QVERIFY2(row.previewText().contains("in a new row") && row.previewText().contains("and 4 more beside it"),
             qPrintable(row.previewText()));
    // Five more racks of four DGX H100: no floor PDU can take 204 kW more on failover, nor the cooling at N+1.
    QVERIFY2(row.previewText().contains("Redundancy: lost") && row.previewText().contains("falls short at N+1"),
             qPrintable(row.previewText()));
    // Two racks of one server each keep 2N and N+1.
    row.findChild<QSpinBox*>("addRackRacks")->setValue(2);
    row.findChild<QSpinBox*>("addRackCount")->setValue(1);
    QVERIFY2(row.previewText().contains("Redundancy: 2N: side A from") && row.previewText().contains("holds at N+1"),
             qPrintable(row.previewText()));
    QCOMPARE(row.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok)->text(), QString("Add 2 racks"));
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) row.grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/add-row.png");
    // Added in one undo step, in one new row.
    QUndoStack* undo = w_->document().undoStack();
    const int before = undo->index();
    const std::size_t rows = sc.halls[0].rows.size();
    const QStringList ids = w_->edits()->placeAll(row.plans(), row.rackModel(), row.serverModel(), row.nodes());
    QCOMPARE(ids.size(), 2);
    QCOMPARE(undo->index(), before + 1);
    QCOMPARE(w_->document().scenario().halls[0].rows.size(), rows + 1);
    QCOMPARE(w_->document().scenario().halls[0].rows.back().racks.size(), std::size_t(2));
    undo->undo();
    QCOMPARE(w_->document().scenario().halls[0].rows.size(), rows);
}

void TstPlanner::aSensorIsPlacedWithAClickOnThePlan() {
    // Edit > Add sensor (its height asked first, here given), then a click on the front half of rack r01-01
    // (facing north: its front is the plan's upper half) puts a strip sensor there, selected, one undo away.
    FloorPlanView* plan = w_->floorPlan();
    QUndoStack* undo = w_->document().undoStack();
    const std::string before = json(*w_);
    QVERIFY(w_->findChild<QAction*>("actionAddSensor"));
    w_->edits()->beginAddSensor(1.1);
    QVERIFY(plan->placing());
    QCOMPARE(w_->findChild<QTabWidget*>()->currentWidget(), plan);  // the plan is where it is placed
    QTest::qWait(50);
    const m::Rack* r = rack(*w_, "r01-01");
    QVERIFY(r && r->facing == m::Facing::North);
    const QPointF front = plan->widgetPosOfFloor(r->position_m.x_m, r->position_m.y_m + 0.3);
    QTest::mouseClick(plan, Qt::LeftButton, {}, front.toPoint());
    QVERIFY(!plan->placing());
    const auto& sensors = w_->document().scenario().halls[0].sensors;
    QCOMPARE(sensors.size(), std::size_t(1));
    QCOMPARE(sensors[0].rack, std::string("r01-01"));
    QCOMPARE(sensors[0].side, std::string("front"));
    QCOMPARE(sensors[0].height_m, 1.1);
    // Selected, drawn on the plan where the click was (the rack's front edge), its tooltip saying what it is.
    QVERIFY(plan->selection().contains(EntityRef{"sensor", QString::fromStdString(sensors[0].id)}));
    const QPointF mark = plan->widgetPosOf({"sensor", QString::fromStdString(sensors[0].id)});
    QVERIFY2(plan->toolTipAt(mark).contains("on r01-01's front, 1.1 m up"), qPrintable(plan->toolTipAt(mark)));
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) plan->grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/plan-sensor.png");
    // Esc cancels a placement; nothing is added.
    w_->edits()->beginAddSensor(0.5);
    QTest::keyClick(plan, Qt::Key_Escape);
    QVERIFY(!plan->placing());
    QTest::mouseClick(plan, Qt::LeftButton, {}, plan->widgetPosOfFloor(0.3, 0.3).toPoint());
    QCOMPARE(w_->document().scenario().halls[0].sensors.size(), std::size_t(1));
    undo->undo();
    QCOMPARE(json(*w_), before);
}

void TstPlanner::containmentInRowCoolersAndRearDoorsAreUndoableEdits() {
    EditController* e = w_->edits();
    QUndoStack* undo = w_->document().undoStack();
    const std::string before = json(*w_);
    // A failed edit would put up a modal warning; with the window hidden it only sets lastError().
    w_->hide();
    e->setTargets({{"row", "row02"}});
    const QString c = e->addContainment("hot");  // row02's backs face row03
    QVERIFY2(!c.isEmpty(), qPrintable(e->lastError()));
    QCOMPARE(w_->document().scenario().halls[0].containments.size(), std::size_t{1});
    QCOMPARE(w_->document().scenario().halls[0].containments[0].rows, (std::vector<std::string>{"row02", "row03"}));
    // The floor plan tints the contained aisle and names it on hover.
    const auto& hall = w_->document().scenario().halls[0];
    const auto aisles = m::containedAisles(hall, hall.containments[0], w_->document().catalog());
    QCOMPARE(aisles.size(), std::size_t{1});
    FloorPlanView* plan = w_->floorPlan();
    plan->resize(900, 600);
    const QPointF mid = plan->widgetPosOfFloor((aisles[0].box.x0 + aisles[0].box.x1) / 2, (aisles[0].box.y0 + aisles[0].box.y1) / 2);
    const QString tip = plan->toolTipAt(mid);
    QVERIFY2(tip.contains(QString("containment %1: hot aisle between row02 and row03, roofed, end doors").arg(c)), qPrintable(tip));
    const QImage shot = plan->grab().toImage();
    const QColor at = shot.pixelColor(mid.toPoint() + QPoint(0, 12));  // beside the label: the red tint on the floor
    QVERIFY2(at.red() > at.blue() + 20, qPrintable(at.name()));
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) shot.save(qEnvironmentVariable("CT_SHOT_DIR") + "/plan-containment.png");
    e->setTargets({{"rack", "r01-01"}});
    const QString u = e->addInRowCooler();
    QVERIFY2(!u.isEmpty(), qPrintable(e->lastError()));
    e->setTargets({{"rack", "r01-01"}});  // adding selected the new cooler
    QVERIFY2(e->fitRearDoor("rdhx-passive-35kw"), qPrintable(e->lastError()));
    QVERIFY(rack(*w_, "r01-01")->rear_door);
    // The tree lists the containment; Delete on it removes it.
    e->setTargets({{"containment", c}});
    QVERIFY(e->removeTargets());
    QVERIFY(w_->document().scenario().halls[0].containments.empty());
    for (int i = 0; i < 4; ++i) undo->undo();
    QCOMPARE(json(*w_), before);
    w_->show();
}

void TstPlanner::anInventoryFromNetboxOpensWithItsReport() {
    QStringList files;
    for (const char* f : {"sites", "locations", "racks", "device-types", "devices", "floorplans"})
        files << QString(CT_TEST_DATA_DIR) + "/netbox/" + f + ".json";
    const QString out = QDir(dir_.path()).filePath("fra-dc1.json");
    QString error;
    const QString report = importInventory(files, out, &error);
    QVERIFY2(!report.isEmpty(), qPrintable(error));
    QVERIFY2(report.contains("8 rack(s) (6 at their floor-plan position), 19 node(s) from 20 device(s)"), qPrintable(report));
    QVERIFY2(report.contains("AP8886") && report.contains("perimeter CRAHs"), qPrintable(report));
    QVERIFY(w_->openScenario(out));
    QVERIFY(w_->tree()->itemFor({"rack", "a-01"}));
    QVERIFY(w_->tree()->itemFor({"hall", "hall-b"}));
    QVERIFY(importInventory({QString(CT_TEST_DATA_DIR) + "/netbox/sites.json"}, out + ".none", &error).isEmpty());
    QVERIFY(error.contains("no NetBox racks"));
    QVERIFY(w_->openScenario(file_));  // back to the hall the other tests use
}

QTEST_MAIN(TstPlanner)
#include "tst_planner.moc"
