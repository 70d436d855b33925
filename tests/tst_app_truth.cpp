// Issue 16, "one document, one truth": a run is shown only on the scenario it was computed for, every dock
// follows the open document, edits are never dropped without asking, shipped samples are never overwritten,
// an autosave belongs to one instance, a cancelled run opens, a database load shows progress and can be
// cancelled, and the 3D view repaints after every change.
#include "alerts_panel.hpp"
#include "checks_panel.hpp"
#include "image_checks.hpp"
#include "main_window.hpp"
#include "notice_bar.hpp"
#include "run_controller.hpp"
#include "run_panels.hpp"
#include "run_picker.hpp"
#include "scenario_document.hpp"
#include "timeline.hpp"
#include "view3d.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/store.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QLabel>
#include <QLineSeries>
#include <QLockFile>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

#include "test_paths.hpp"
#include "test_time.hpp"

using namespace ct::app;

namespace {
/// Answers the next modal "unsaved changes" question with `button` (QMessageBox::Discard, Cancel, or the
/// save button's object name "saveChanges").
void answerUnsavedChanges(QMessageBox::StandardButton button) {
    QTimer::singleShot(100, [button] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (box && box->objectName() == "unsavedChangesDialog") box->button(button)->click();
    });
}

/// The share of (nearly) black pixels of what the X server shows where the 3D view is (read from the root
/// window: what a user sees, not what VTK drew off screen).
double blackShareOnScreen(View3D* v) {
    QApplication::processEvents();
    QTest::qWait(50);
    const QPoint at = v->mapToGlobal(QPoint(0, 0));
    const QImage img = QGuiApplication::primaryScreen()->grabWindow(0, at.x(), at.y(), v->width(), v->height()).toImage();
    if (img.isNull()) return 1;
    int black = 0, all = 0;
    for (int y = 0; y < img.height(); y += 4)
        for (int x = 0; x < img.width(); x += 4, ++all)
            if (qGray(img.pixel(x, y)) < 12) ++black;
    return all ? double(black) / all : 1;
}
}  // namespace

class TstAppTruth : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void aRunOfAnotherScenarioIsNotPaintedAndItsScenarioIsOffered();
    void aDatabaseWithSeveralRunsAsksWhichToOpen();
    void theRunOfAnUnsavedEditOpensWithThatVersion();
    void openingAnotherScenarioDropsTheRunAndEveryDockFollows();
    void anEditedScenarioKeepsItsRunWithANotice();
    void aRunFinishingAfterASwitchStaysWithItsScenario();
    void theRunBeingComputedIsWhatEveryViewShows();
    void openingAnotherScenarioAsksBeforeDroppingEdits();
    void theShippedDemoIsNeverOverwritten();
    void aSecondInstanceLeavesTheAutosaveAlone();
    void openingADatabaseShowsProgressAndCanBeCancelled();
    void the3DViewIsRepaintedAfterEveryChange();

private:
    /// Opens `scenario` and simulates it for `duration_s` into `db`; waits until the run is shown.
    bool simulate(const QString& scenario, double duration_s, const QString& db);
    QTemporaryDir dir_;  // before the window: removed after it lets go of its locks
    QString lab_, lab_db_;
    std::unique_ptr<MainWindow> w_;
};

void TstAppTruth::initTestCase() {
    QVERIFY(dir_.isValid());
    // Settings, autosaves and runs in this test's folder, not the user's.
    qputenv("XDG_CONFIG_HOME", dir_.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", dir_.filePath("data").toUtf8());
    QApplication::setOrganizationName("ClusterTwinTruthTests");
    lab_ = dir_.filePath("lab.json");
    QVERIFY(QFile::copy(QString(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json", lab_));
    QFile::setPermissions(lab_, QFile::ReadOwner | QFile::WriteOwner);
    lab_db_ = dir_.filePath("lab.sqlite");
    w_ = std::make_unique<MainWindow>();
    w_->setRunsFolder(dir_.filePath("runs"));
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    w_->findChild<QAction*>("actionAirQuick")->trigger();  // the app's behaviour, not the air physics
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
}

bool TstAppTruth::simulate(const QString& scenario, double duration_s, const QString& db) {
    if (w_->document().path() != scenario && !w_->openScenario(scenario)) return false;
    QFile::remove(db);
    QSignalSpy ended(w_.get(), &MainWindow::simulationEnded);
    if (!w_->runSimulation(duration_s, db) || !ended.wait(testMs(120000))) return false;
    return QTest::qWaitFor([&] { return w_->run()->hasRun() && w_->run()->databasePath() == db && !w_->run()->loading(); }, testMs(30000));
}

void TstAppTruth::aRunOfAnotherScenarioIsNotPaintedAndItsScenarioIsOffered() {
    QVERIFY(simulate(lab_, 300, lab_db_));
    QVERIFY(w_->notice()->text().isEmpty());
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    QVERIFY(!w_->run()->hasRun());  // the lab's run is gone with the lab
    // Opening the lab's run on the demo: nothing of it is shown; the lab is offered.
    w_->openRun(lab_db_);
    QTRY_VERIFY_WITH_TIMEOUT(w_->runMismatchDialog() && w_->runMismatchDialog()->isVisible(), testMs(20000));
    QVERIFY(w_->runMismatchDialog()->text().contains("lab-8node"));
    QVERIFY(!w_->run()->hasRun());
    if (View3D::available()) QVERIFY(!w_->view3d()->scene()->hasFrame());
    QVERIFY(w_->values()->table()->rowCount() == 0);
    auto* open = w_->runMismatchDialog()->findChild<QPushButton*>("openRunScenario");
    QVERIFY(open);
    open->click();
    QCOMPARE(w_->document().scenario().id, std::string("lab-8node"));
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == lab_db_, testMs(20000));
    if (View3D::available()) QVERIFY(w_->view3d()->scene()->hasFrame());
}

/// Issue 40: "Open scenario X and its run" for a run of an unsaved edit opened the file as saved, so the run
/// was shown on a version it was not computed for. The run keeps its scenario: the file opens with that version
/// applied as an unsaved edit, or, with the file gone, that version alone.
void TstAppTruth::theRunOfAnUnsavedEditOpensWithThatVersion() {
    const QString file = dir_.filePath("lab-version.json"), db = dir_.filePath("lab-version.sqlite");
    QVERIFY(QFile::copy(lab_, file));
    QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner);
    QVERIFY(w_->openScenario(file));
    QVERIFY(w_->document().apply("rename", [](ct::model::Scenario& s) { s.name = "Lab, as run"; }));
    QVERIFY(simulate(file, 60, db));
    QVERIFY(w_->notice()->text().isEmpty());
    for (bool file_gone : {false, true}) {
        w_->document().undoStack()->setIndex(0);  // the file as saved, then another scenario: no prompt
        QVERIFY(!w_->document().isModified());
        QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
        if (file_gone) QVERIFY(QFile::remove(file));
        w_->openRun(db);
        QTRY_VERIFY_WITH_TIMEOUT(w_->runMismatchDialog() && w_->runMismatchDialog()->isVisible(), testMs(20000));
        auto* open = w_->runMismatchDialog()->findChild<QPushButton*>("openRunScenario");
        QVERIFY(open);
        QVERIFY2(open->text().contains("version"), qPrintable(open->text()));
        open->click();
        QCOMPARE(w_->document().scenario().name, std::string("Lab, as run"));
        QCOMPARE(w_->document().path(), file_gone ? QString() : file);
        QCOMPARE(w_->document().isModified(), !file_gone);  // the edit, to save or to undo
        QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == db && !w_->run()->loading(), testMs(20000));
        QVERIFY2(w_->notice()->text().isEmpty(), qPrintable(w_->notice()->text()));  // the version it was computed for
    }
    // Back to the lab and its run for the tests after this one.
    QVERIFY(w_->openScenario(lab_));
    w_->openRun(lab_db_);
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == lab_db_ && !w_->run()->loading(), testMs(20000));
}

void TstAppTruth::aDatabaseWithSeveralRunsAsksWhichToOpen() {
    // The lab's run, then an empty run after it (an import that was cut off before its first reading): the
    // empty one is never opened in place of the run with data, and File > Open run lets the user choose.
    const QString db = dir_.filePath("two-runs.sqlite");
    QVERIFY(QFile::copy(lab_db_, db));
    std::int64_t empty = 0;
    {
        auto store = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        empty = store.createRun("cut-off import", "imported", "");
    }
    w_->openRun(db);  // no choice asked: the newest run that holds samples
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == db && !w_->run()->loading(), testMs(20000));
    QVERIFY(w_->run()->replay()->info().id != empty);
    w_->run()->close();
    w_->chooseRun(db);
    RunPicker* picker = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((picker = w_->findChild<RunPicker*>("runPicker")) && picker->isVisible(), testMs(10000));
    auto* table = picker->findChild<QTableWidget*>("runTable");
    QCOMPARE(table->rowCount(), 2);
    QVERIFY(picker->run() != empty);  // offered first: the run with data
    auto* open = picker->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Open);
    table->setCurrentCell(1, 0);
    QCOMPARE(picker->run(), empty);
    QVERIFY(!open->isEnabled());  // an empty run shows nothing: it cannot be opened
    QVERIFY(table->item(1, 4)->text().contains("no samples"));
    table->setCurrentCell(0, 0);
    QVERIFY(open->isEnabled());
    const auto* details = picker->findChild<QTreeWidget*>("runDetails");
    QVERIFY(details->topLevelItemCount() >= 2);
    QVERIFY(details->topLevelItem(1)->text(0).startsWith("Metrics"));
    QVERIFY(details->topLevelItem(1)->childCount() > 5);
    const std::int64_t chosen = picker->run();
    open->click();
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && !w_->run()->loading() && w_->run()->replay()->info().id == chosen, testMs(20000));
}

void TstAppTruth::openingAnotherScenarioDropsTheRunAndEveryDockFollows() {
    // The lab with its run, a what-if comparison, an impact query and a selection with values and a chart.
    QCOMPARE(w_->document().path(), lab_);
    QSignalSpy ready(w_.get(), &MainWindow::whatIfReady);
    QVERIFY(w_->runWhatIf({"cooling_unit", "crah-01"}, 180, dir_.filePath("whatif")));
    QVERIFY(ready.wait(testMs(180000)));
    QVERIFY(w_->comparing());
    QCOMPARE(w_->metricBox()->currentData().toString(), QString("inlet_delta_c"));
    QString error;
    QVERIFY2(w_->showImpact({"cooling_unit", "crah-01"}, &error), qPrintable(error));
    QVERIFY(w_->checks()->impactTable()->isVisibleTo(w_.get()));
    w_->select({"rack", "r01-01"});
    QVERIFY(w_->values()->table()->rowCount() > 0);
    QVERIFY(w_->charts()->series()->count() > 0);
    QVERIFY(w_->timeline()->isEnabled());

    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    QVERIFY(!w_->run()->hasRun());
    QVERIFY(!w_->comparing());
    QVERIFY(!w_->baseline());
    QVERIFY(w_->metricBox()->currentData().toString() != "inlet_delta_c");
    QVERIFY(!w_->checks()->impactTable()->isVisibleTo(w_.get()));
    QCOMPARE(w_->values()->table()->rowCount(), 0);
    QCOMPARE(w_->charts()->series()->count(), 0);
    QCOMPARE(w_->alerts()->shownCount(), 0);
    QVERIFY(!w_->timeline()->isEnabled());
    QCOMPARE(w_->timeline()->timeLabel()->text(), QString("no run"));
    if (View3D::available()) QVERIFY(!w_->view3d()->scene()->hasFrame());
}

void TstAppTruth::anEditedScenarioKeepsItsRunWithANotice() {
    QVERIFY(w_->openScenario(lab_));
    w_->openRun(lab_db_);
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun(), testMs(20000));
    QVERIFY(w_->notice()->text().isEmpty());
    QVERIFY(w_->document().apply("rename", [](ct::model::Scenario& s) { s.name = "Lab, edited"; }));
    QVERIFY(w_->run()->hasRun());
    QVERIFY2(w_->notice()->text().contains("different version"), qPrintable(w_->notice()->text()));
    w_->document().undoStack()->undo();  // back to the run's version: the notice goes
    QVERIFY(!w_->document().isModified());
    QVERIFY2(w_->notice()->text().isEmpty(), qPrintable(w_->notice()->text()));
}

void TstAppTruth::aRunFinishingAfterASwitchStaysWithItsScenario() {
    QVERIFY(w_->openScenario(lab_));
    w_->run()->close();
    const QString db = dir_.filePath("late.sqlite");
    QSignalSpy ended(w_.get(), &MainWindow::simulationEnded);
    QVERIFY(w_->runSimulation(600, db));
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));  // before the run's result reaches the window
    QVERIFY(ended.wait(testMs(120000)));
    QTest::qWait(500);
    QVERIFY(!w_->run()->hasRun());
    QVERIFY2(w_->statusBar()->currentMessage().contains("not shown"), qPrintable(w_->statusBar()->currentMessage()));
    QVERIFY(QFile::exists(db));  // the run is kept for its own scenario
}

void TstAppTruth::theRunBeingComputedIsWhatEveryViewShows() {
    // Issue 40: while a new run went, the 3D view showed its live frames and the timeline, the inspector and the
    // alerts the previous run. Now the run being computed is what every view shows, read from its database as it
    // grows (about every second), until the user opens another run.
    QVERIFY(simulate(lab_, 300, lab_db_));
    const auto previous = w_->run()->replay()->info().id;
    const int loads = w_->run()->loads();
    const QString db = dir_.filePath("growing.sqlite");
    QFile::remove(db);
    ct::model::Event fail;
    fail.time_s = 20;
    fail.kind = "cooling_unit_fail";
    fail.target = w_->document().scenario().halls.at(0).cooling_units.at(0).id;
    QSignalSpy ended(w_.get(), &MainWindow::simulationEnded);
    // Long enough that it is still running at the end on any machine (4 h of the lab took ~2 s here); cancelled below.
    QVERIFY(w_->runSimulation(90 * 24 * 3600, db, {fail}));
    QVERIFY(!w_->run()->hasRun());  // the previous run is not beside the new one
    QCOMPARE(w_->timeline()->timeLabel()->text(), QString("no run"));
    // The run so far, while it is computed: the timeline, the inspector and the alerts are all of it.
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == db && w_->run()->duration() > 60, testMs(60000));
    QVERIFY(w_->simulationRunning());
    const double first = w_->run()->duration();
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->duration() > first && !w_->run()->loading(), testMs(60000));  // it grows
    QVERIFY(w_->simulationRunning());
    // Read as it grows: loaded whole once, then only what each checkpoint added (RunReplay::extend).
    QCOMPARE(w_->run()->loads(), loads + 1);
    QVERIFY(w_->run()->growths() >= 1);
    QCOMPARE(w_->run()->time(), w_->run()->duration());  // at the newest time
    const auto& events = w_->run()->replay()->events();
    QVERIFY(std::any_of(events.begin(), events.end(), [&](const auto& e) { return e.kind == "unit_failed" && e.target == fail.target; }));
    QVERIFY(w_->alerts()->shownCount() >= 1);
    w_->select({"rack", QString::fromStdString(w_->document().scenario().halls[0].rows[0].racks[0].id)});
    const std::string rack = w_->document().scenario().halls[0].rows[0].racks[0].id;
    const double shown = w_->values()->value("inlet_max_c").split(' ').first().toDouble();
    const double stored = ct::runs::valueAt(*w_->run()->replay()->series(rack, "inlet_max_c"), w_->run()->absoluteTime());
    QVERIFY2(std::abs(shown - stored) < 0.06, qPrintable(QString("%1 vs %2").arg(shown).arg(stored)));
    QVERIFY(w_->timeline()->timeLabel()->text().endsWith(QString::fromStdString(ct::model::formatDuration(w_->run()->duration()))));
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) w_->grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/run-in-progress.png");
    // The user opens the earlier run: it stays, however long the new one goes on.
    w_->openRun(lab_db_);
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->databasePath() == lab_db_ && !w_->run()->loading(), testMs(30000));
    QCOMPARE(w_->run()->replay()->info().id, previous);
    // The new run goes on growing in its database (read here beside the app) while the window stays on the
    // user's choice.
    auto grown = [&] {
        auto st = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        const auto span = st.timeSpan(st.runs().back().id);
        return span ? span->second : 0.0;
    };
    const double then = grown();
    QTRY_VERIFY_WITH_TIMEOUT(grown() > then + 30, testMs(60000));
    QVERIFY(w_->simulationRunning());
    QTest::qWait(50);  // any reload it would have started has had its event loop turn
    QCOMPARE(w_->run()->databasePath(), lab_db_);
    QVERIFY(!w_->run()->loading());
    w_->cancelSimulation();
    QVERIFY(ended.wait(testMs(60000)));
}

void TstAppTruth::openingAnotherScenarioAsksBeforeDroppingEdits() {
    QVERIFY(w_->openScenario(lab_));
    QVERIFY(w_->document().apply("rename", [](ct::model::Scenario& s) { s.name = "Lab, unsaved"; }));
    QVERIFY(w_->document().writeAutosave());
    const QString autosave = ScenarioDocument::autosavePathFor(lab_);
    QVERIFY(QFile::exists(autosave));
    answerUnsavedChanges(QMessageBox::Cancel);
    QVERIFY(!w_->openScenario(MainWindow::demoScenarioPath()));
    QCOMPARE(w_->document().scenario().name, std::string("Lab, unsaved"));
    QVERIFY(w_->document().isModified());
    answerUnsavedChanges(QMessageBox::Discard);
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    QCOMPARE(w_->document().scenario().id, std::string("demo"));
    QVERIFY(!QFile::exists(autosave));  // discarded on purpose: no recovery prompt later
    QVERIFY(w_->openScenario(lab_));
    QVERIFY(!w_->recoveryDialog() || !w_->recoveryDialog()->isVisible());
    QVERIFY(w_->document().scenario().name != "Lab, unsaved");
}

void TstAppTruth::theShippedDemoIsNeverOverwritten() {
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    const std::string before = ct::model::readTextFile(MainWindow::demoScenarioPath().toStdString());
    QVERIFY(w_->document().apply("rename", [](ct::model::Scenario& s) { s.name = "Mine now"; }));
    QString error;
    QVERIFY(!w_->saveScenario({}, &error));
    QVERIFY2(error.contains("sample"), qPrintable(error));
    QVERIFY(!w_->saveScenario(MainWindow::demoScenarioPath(), &error));
    QCOMPARE(ct::model::readTextFile(MainWindow::demoScenarioPath().toStdString()), before);
    // Saving elsewhere works, and from then on the document is that file.
    const QString mine = dir_.filePath("mine.json");
    QVERIFY2(w_->saveScenario(mine, &error), qPrintable(error));
    QCOMPARE(w_->document().path(), mine);
    QVERIFY(w_->saveScenario({}, &error));
}

void TstAppTruth::aSecondInstanceLeavesTheAutosaveAlone() {
    const QString file = dir_.filePath("shared.json");
    QVERIFY(QFile::copy(lab_, file));
    const QString autosave = ScenarioDocument::autosavePathFor(file);
    QDir().mkpath(QFileInfo(autosave).absolutePath());
    // Another instance has the file open, with unsaved edits autosaved (newer than the file).
    QLockFile other(autosave + ".lock");
    QVERIFY(other.tryLock(0));
    QTest::qWait(1100);
    ct::model::Scenario theirs = ct::model::loadScenarioFile(file.toStdString()).scenario;
    theirs.name = "their edits";
    ct::model::writeFileAtomically(autosave.toStdString(), ct::model::scenarioToJson(theirs));
    const std::string their_text = ct::model::readTextFile(autosave.toStdString());
    QVERIFY(w_->openScenario(file));
    QVERIFY(!w_->recoveryDialog() || !w_->recoveryDialog()->isVisible());
    QVERIFY(!w_->document().ownsAutosave());
    QVERIFY2(w_->notice()->text().contains("another ClusterTwin"), qPrintable(w_->notice()->text()));
    QVERIFY(w_->document().apply("rename", [](ct::model::Scenario& s) { s.name = "mine"; }));
    QVERIFY(!w_->document().writeAutosave());
    QCOMPARE(ct::model::readTextFile(autosave.toStdString()), their_text);
    w_->document().undoStack()->undo();
    other.unlock();
    // Once the other instance is gone, its autosave is this one's to offer.
    QVERIFY(w_->openScenario(lab_));
    QVERIFY(w_->openScenario(file));
    QVERIFY(w_->document().ownsAutosave());
    QVERIFY(w_->recoveryDialog() && w_->recoveryDialog()->isVisible());
    w_->recoveryDialog()->done(QMessageBox::Discard);
    QVERIFY(!QFile::exists(autosave));
}

void TstAppTruth::openingADatabaseShowsProgressAndCanBeCancelled() {
    QVERIFY(w_->openScenario(lab_));
    w_->run()->close();
    QSignalSpy loading(w_->run(), &RunController::loadingChanged);
    w_->openRun(lab_db_);
    QVERIFY(w_->run()->loading());
    QVERIFY(w_->progressBar()->isVisible());
    auto* cancel = w_->findChild<QPushButton*>("cancelSimulation");
    QVERIFY(cancel && cancel->isVisible());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(!w_->run()->loading());
    QVERIFY(!w_->progressBar()->isVisible());
    QTest::qWait(1000);
    QVERIFY(!w_->run()->hasRun());  // the cancelled load's result is dropped
    QCOMPARE(loading.count(), 2);
    w_->openRun(lab_db_);
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun(), testMs(20000));
    QVERIFY(!w_->progressBar()->isVisible());
}

void TstAppTruth::the3DViewIsRepaintedAfterEveryChange() {
    if (!View3D::available()) QSKIP("needs an X display");
    View3D* v = w_->view3d();
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    QTRY_VERIFY_WITH_TIMEOUT(blackShareOnScreen(v) < 0.5, 5000);
    QVERIFY(w_->openScenario(lab_));
    QTRY_VERIFY_WITH_TIMEOUT(blackShareOnScreen(v) < 0.5, 5000);
    QVERIFY(w_->document().apply("rename rack", [](ct::model::Scenario& s) { s.halls[0].rows[0].racks[0].name = "renamed"; }));
    QTRY_VERIFY_WITH_TIMEOUT(blackShareOnScreen(v) < 0.5, 5000);
    w_->document().undoStack()->undo();
    QTRY_VERIFY_WITH_TIMEOUT(blackShareOnScreen(v) < 0.5, 5000);
    const QPoint at = v->mapToGlobal(QPoint(0, 0));
    const QImage shown = QGuiApplication::primaryScreen()->grabWindow(0, at.x(), at.y(), v->width(), v->height()).toImage();
    shown.save(QDir::current().absoluteFilePath("tst_app_truth_view3d.png"));
    QVERIFY(sampledColours(shown) > 8);
}

QTEST_MAIN(TstAppTruth)
#include "tst_app_truth.moc"
