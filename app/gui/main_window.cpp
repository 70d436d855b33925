#include "main_window.hpp"
#include "compare_view.hpp"
#include "fabric_panel.hpp"
#include "jobs_panel.hpp"

#include "alerts_panel.hpp"
#include "checks_panel.hpp"
#include "document_guard.hpp"
#include "edit_controller.hpp"
#include "floor_plan_view.hpp"
#include "inventory_import.hpp"
#include "navigator.hpp"
#include "notice_bar.hpp"
#include "problems_dialog.hpp"
#include "properties_panel.hpp"
#include "run_binding.hpp"
#include "run_controller.hpp"
#include "run_dialog.hpp"
#include "run_explainer.hpp"
#include "run_panels.hpp"
#include "run_picker.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "scene_toolbar.hpp"
#include "simulation_control.hpp"
#include "simulation_options.hpp"
#include "telemetry_control.hpp"
#include "timeline.hpp"
#include "view3d.hpp"
#include "window_extras.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/sim/impact.hpp>
#include <clustertwin/sim/path_trace.hpp>

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>

#include <cmath>

namespace ct::app {

namespace {
constexpr int kMaxRecent = 8;
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      doc_(new ScenarioDocument(this)),
      run_(new RunController(this)),
      tree_(new ScenarioTree(*doc_)),
      props_(new PropertiesPanel(*doc_)),
      plan_(new FloorPlanView(*doc_)),
      view3d_(new View3D(*doc_)) {
    setObjectName("mainWindow");
    setWindowTitle(tr("ClusterTwin"));
    NoticeBar* result_notice = buildCentre();
    const QList<QDockWidget*> docks = buildDocks(*result_notice);
    buildStatusBar();
    connectSimulations();
    connectRunLoading();
    edits_ = new EditController(*doc_, this);
    guard_ = new DocumentGuard(*doc_, *notice_, this, [this](const QString& path, QString* error) { return saveScenario(path, error); });
    autosave_ = new QTimer(this);
    autosave_->setInterval(30000);
    connect(autosave_, &QTimer::timeout, doc_, &ScenarioDocument::writeAutosave);
    autosave_->start();
    telemetry_ = new TelemetryControl(
        this, *doc_, *run_, [this](const QString& path) { return openScenario(path); }, [this] { return runsFolder(); });
    buildMenus();
    for (auto* d : docks) view_menu_->addAction(d->toggleViewAction());
    buildSceneToolbar();
    connectSelection();
    connectDocument();
    updateRecentMenu();
    resize(1400, 900);
    resizeDocks({docks[0], docks[1]}, {280, 360}, Qt::Horizontal);  // the scenario tree and the inspector
    resizeDocks({docks[2]}, {220}, Qt::Vertical);                   // the charts
    restoreWindowLayout(this);                                      // the last session's, over these defaults
    auto* drops = new FileDrops(this);
    connect(drops, &FileDrops::scenarioDropped, this, &MainWindow::openScenario);
    connect(drops, &FileDrops::runDropped, this, &MainWindow::chooseRun);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildSceneToolbar() {
    auto* tb = new SceneToolbar(*view3d_, this);
    addToolBar(tb);
    metric_box_ = tb->metricBox();
    connect(doc_, &ScenarioDocument::changed, tb, &SceneToolbar::applyMetric);
    // A run with values switches from the design colouring to inlet temperatures.
    connect(run_, &RunController::runChanged, this, [this] {
        if (metric_box_->currentData().toString() == "nameplate_kw") metric_box_->setCurrentIndex(metric_box_->findData("inlet_c"));
    });
    // The floor plan colours by the same metric as the 3D view (after the toolbar has applied it).
    connect(metric_box_, &QComboBox::currentIndexChanged, this, [this] {
        if (run_->hasRun() && runMatchesScenario()) showFrame();
        else if (!run_->hasRun() && metric_box_->currentData().toString() == "nameplate_kw")
            plan_->setFrame(model::Frame{}, "nameplate_kw");
        else if (!run_->hasRun()) plan_->clearFrame();  // design colours until there are values
    });
}

QString MainWindow::demoScenarioPath() {
    const QString p = QDir(resourcesDir()).filePath("scenarios/demo.json");
    return QFileInfo::exists(p) ? QFileInfo(p).canonicalFilePath() : QString();
}

bool MainWindow::openScenario(const QString& path) {
    model::Diagnostics problems;
    QString error;
    if (path.isEmpty()) {
        error = tr("The demo scenario was not found (set CT_RESOURCE_DIR to the resources folder).");
    } else if (!guard_->settle(tr("Opening %1").arg(QFileInfo(path).fileName()))) {
        return false;  // the user kept the edits
    } else if (doc_->load(path, problems, error)) {
        addRecent(QFileInfo(path).absoluteFilePath());
        guard_->offerRecovery(path);
        return true;
    }
    delete problems_;
    problems_ = new ProblemsDialog(QFileInfo(path).fileName(), error, problems, this);
    problems_->open();
    statusBar()->showMessage(tr("Could not open %1").arg(path));
    return false;
}

bool MainWindow::openScenarioVersion(const std::string& json, const QString& file) {
    if (!guard_->settle(tr("Opening the run's scenario"))) return false;
    model::Diagnostics problems;
    QString error;
    if (doc_->loadVersion(json, file, problems, error)) {
        if (!doc_->path().isEmpty()) addRecent(QFileInfo(doc_->path()).absoluteFilePath());
        return true;
    }
    delete problems_;
    problems_ = new ProblemsDialog(tr("the run's scenario"), error, problems, this);
    problems_->open();
    return false;
}

void MainWindow::openRun(const QString& db_path) {
    statusBar()->showMessage(tr("Loading %1…").arg(db_path));
    run_->openAsync(db_path);
}

bool MainWindow::runMatchesScenario() const { return run_->hasRun() && run_matches_; }

RunMatch MainWindow::matchWithScenario(const runs::RunReplay& run) const {
    return matchRun(run, doc_->scenario(), doc_->catalog(), model::scenarioHash(doc_->scenario()));
}

void MainWindow::showRunMatch(const RunMatch& m) {
    run_matches_ = m.shown();
    notice_->setNotice(m.kind == RunMatch::Kind::Imported ? NoticeBar::Level::Info : NoticeBar::Level::Warning,
                       m.shown() ? m.describe(QString::fromStdString(doc_->scenario().id)) : QString());
}

void MainWindow::bindOpenRun() {
    run_->mapHosts(hostAliases(doc_->scenario()));  // telemetry's host names onto this scenario's nodes
    const RunMatch m = matchWithScenario(*run_->replay());
    showRunMatch(m);
    if (!m.shown()) run_->close();  // the docks, the timeline and the 3D view go back to the design
}

bool MainWindow::admitRun(runs::RunReplay& run, const QString& db) {
    const QString sid = QString::fromStdString(doc_->scenario().id);
    run.mapHosts(hostAliases(doc_->scenario()));  // telemetry's host names onto this scenario's nodes
    const RunMatch m = matchWithScenario(run);
    if (m.shown()) {
        showRunMatch(m);
        // A run that is not the what-if's ends the comparison (runReady reconnects it for the what-if's).
        if (compare_) setCompareWithBaseline(false);
        return true;
    }
    // Not this scenario's: keep what is shown and offer the run's own scenario when its file is known.
    delete run_mismatch_;
    run_mismatch_ = new QMessageBox(QMessageBox::Warning, tr("Open run"), m.describe(sid), QMessageBox::Cancel, this);
    run_mismatch_->setObjectName("runMismatchDialog");
    run_mismatch_->setInformativeText(tr("Run database: %1").arg(db));
    const bool can_open = !m.scenario_file.isEmpty() && QFileInfo(m.scenario_file).isFile();
    if (m.has_version) {
        // The very version it was computed for (an unsaved edit, a file changed since): the file with that
        // version applied as an undoable edit, or that version alone when the file is gone.
        QPushButton* open = run_mismatch_->addButton(tr("Open the version of %1 it was computed for, and the run").arg(m.run_scenario),
                                                     QMessageBox::AcceptRole);
        open->setObjectName("openRunScenario");
        connect(open, &QPushButton::clicked, this, [this, json = run.info().meta.scenario_json, file = m.scenario_file, db] {
            if (openScenarioVersion(json, file)) openRun(db);
        });
        run_mismatch_->setDefaultButton(open);
    } else if (can_open) {
        QPushButton* open = run_mismatch_->addButton(tr("Open scenario %1 and its run").arg(m.run_scenario), QMessageBox::AcceptRole);
        open->setObjectName("openRunScenario");
        const QString file = m.scenario_file;
        connect(open, &QPushButton::clicked, this, [this, file, db] {
            if (openScenario(file)) openRun(db);
        });
        run_mismatch_->setDefaultButton(open);
    } else if (!m.run_scenario.isEmpty()) {
        run_mismatch_->setInformativeText(
            tr("Run database: %1\nOpen scenario %2 first (File > Open scenario), then the run.").arg(db, m.run_scenario));
    }
    run_mismatch_->open();
    statusBar()->showMessage(tr("Not shown: %1").arg(m.describe(sid)));
    return false;
}

void MainWindow::resetForNewScenario() {
    notice_->clear();
    // The run first, so that nothing below paints it on the new scenario (kept when it is this scenario's too).
    if (run_->hasRun()) bindOpenRun();
    // A load asked for before the switch (a followed server's reload) was meant for the last scenario: it
    // would only be turned away here with a prompt.
    run_->cancelLoad();
    // A what-if's baseline and its comparison belong to the scenario they were computed for.
    if (compare_) setCompareWithBaseline(false);
    sims_->dropBaseline();
    compare_view_->setBaseline(nullptr);
    if (tabs_->currentWidget() == compare_view_) tabs_->setCurrentWidget(view3d_);
    tabs_->setTabEnabled(tabs_->indexOf(compare_view_), false);
    compare_action_->setEnabled(false);
    checks_->clearImpact();
}

void MainWindow::select(const EntityRef& ref) {
    selection_ = ref;
    if (!(plan_->selection().size() > 1 && plan_->selection().contains(ref))) edits_->setTargets({ref});
    tree_->select(ref);
    plan_->setSelected(ref);
    view3d_->setSelected(ref);
    if (auto* sc = view3d_->scene(); sc && ref.kind != "job") sc->setHighlightedLinks({});  // a job's links go with it
    props_->show(ref);
    values_->setEntity(ref);
    charts_->setEntity(ref);
}

bool MainWindow::runSimulation(double duration_s, const QString& db_path, const std::vector<model::Event>& extra_events, bool steady) {
    RunRequest r;
    r.duration_s = duration_s;
    r.extra_events = extra_events;
    r.steady = steady;
    r.air = sim_options_->air();
    return runSimulation(r, db_path);
}

bool MainWindow::runSimulation(const RunRequest& request, const QString& db_path) { return sims_->start(request, db_path); }

bool MainWindow::simulationRunning() const { return sims_->running(); }

const runs::RunReplay* MainWindow::baseline() const { return sims_->baseline().get(); }

void MainWindow::showRunInProgress(const QString& db_path, qint64 run) {
    if (!follow_simulation_ || run_->loading()) return;  // a load is under way: the next second's will do
    const bool shown = run_->hasRun() && run_->databasePath() == db_path && run_->replay()->info().id == run;
    if (run_->hasRun() && !shown) {  // the user opened another run: leave it
        follow_simulation_ = false;
        return;
    }
    // What was written since, read into the shown run (at the newest time, unless the user went back in it); the
    // first time, the run so far.
    if (shown) run_->growAsync(db_path, run);
    else run_->openAsync(db_path, run);
}

void MainWindow::endSimulation(const QString& how, const QString& message) {
    follow_simulation_ = false;
    progress_->hide();
    run_action_->setEnabled(true);
    cancel_->hide();
    statusBar()->showMessage(message);
    emit simulationEnded(how);
}

void MainWindow::cancelSimulation() { sims_->cancel(); }

bool MainWindow::tracePath(const QString& from, const QString& to, QString* error, std::size_t* lit) {
    try {
        const sim::net::PathTrace t = sim::net::tracePath(doc_->scenario(), doc_->catalog(), from.toStdString(), to.toStdString());
        std::size_t n = 0;
        if (auto* sc = view3d_->scene()) {
            n = sc->setHighlightedLinks(t.cables);
            view3d_->update();
        }
        if (lit) *lit = n;
        QStringList via;
        for (std::size_t i = 1; i + 1 < t.hops.size(); ++i) via << QString::fromStdString(t.hops[i]);
        statusBar()->showMessage(tr("%1 → %2: %3 cable(s) via %4 (%5 routing), %6 µs, narrowest %7 Gb/s")
                                     .arg(from, to)
                                     .arg(t.cables.size())
                                     .arg(via.join(", "), QString::fromStdString(t.routing))
                                     .arg(t.latency_s * 1e6, 0, 'f', 1)
                                     .arg(t.bottleneck_gbps, 0, 'f', 0));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool MainWindow::showImpact(const EntityRef& target, QString* error) {
    try {
        const sim::ImpactReport r = sim::impactOf(doc_->scenario(), doc_->catalog(), target.id.toStdString());
        checks_->showImpact(r);
        if (auto* sc = view3d_->scene()) sc->setHighlighted(r.affected());
        view3d_->update();
        statusBar()->showMessage(tr("If %1 fails: %2 affected").arg(target.id).arg(r.affected().size()));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool MainWindow::saveScenario(const QString& path, QString* error) {
    const QString target = path.isEmpty() ? doc_->path() : path;
    if (isShippedSample(target)) {
        if (error)
            *error = tr("%1 is a sample shipped with ClusterTwin and is not overwritten: use Save as to keep your changes.").arg(target);
        return false;
    }
    if (!doc_->save(path, error)) return false;
    addRecent(QFileInfo(doc_->path()).absoluteFilePath());
    statusBar()->showMessage(tr("Saved %1").arg(doc_->path()));
    updateTitle();
    return true;
}

QMessageBox* MainWindow::recoveryDialog() const { return guard_->recoveryDialog(); }

void MainWindow::setAutosaveInterval(int ms) { autosave_->setInterval(ms); }

QString MainWindow::runsFolder() const { return sims_->runsFolder(); }

void MainWindow::setRunsFolder(const QString& dir) { sims_->setRunsFolder(dir); }

void MainWindow::updateTitle() {
    const auto& s = doc_->scenario();
    setWindowTitle(tr("%1%2 — ClusterTwin").arg(QString::fromStdString(s.name.empty() ? s.id : s.name), doc_->isModified() ? "*" : ""));
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!guard_->settle(tr("Quitting"))) {
        e->ignore();
        return;
    }
    doc_->removeAutosave();  // a clean exit: nothing to recover
    saveWindowLayout(this);
    e->accept();
}

bool MainWindow::exportSelectionCsv(const QString& path, QString* error) {
    if (!run_->replay() || !selection_.isValid()) {
        if (error) *error = tr("Open a run and select an entity first.");
        return false;
    }
    return writeSeriesCsv(*run_->replay(), selection_.id, path, error);
}

void MainWindow::openDialog() {
    const QString start = doc_->path().isEmpty() ? QDir::currentPath() : QFileInfo(doc_->path()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), start, tr("Scenarios (*.json);;All files (*)"));
    if (!path.isEmpty()) openScenario(path);
}

void MainWindow::openRunDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open run or telemetry database"), QDir::currentPath(),
                                                      tr("Run databases (*.sqlite *.db);;All files (*)"));
    if (!path.isEmpty()) chooseRun(path);
}

void MainWindow::chooseRun(const QString& db_path) {
    RunPicker::choose(this, db_path, [this, db_path](std::int64_t run) {
        statusBar()->showMessage(tr("Loading %1…").arg(db_path));
        run_->openAsync(db_path, run);
    });
}

void MainWindow::simulateDialog() {
    // The lattice runs near real time on two cores: a quarter of an hour by default (or until steady).
    RunDialog d(doc_->scenario(), doc_->catalog(), sim_options_->air(), this);
    if (d.exec() != QDialog::Accepted) return;
    sim_options_->setAir(d.request().air);
    if (!runSimulation(d.request())) statusBar()->showMessage(tr("A simulation is already running"));
}

void MainWindow::screenshotDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save screenshot"), "clustertwin.png", tr("PNG images (*.png)"));
    if (path.isEmpty()) return;
    QString error;
    const bool ok = tabs_->currentWidget() == view3d_ ? view3d_->saveScreenshot(path, &error) : plan_->grab().save(path);
    if (!ok) QMessageBox::warning(this, tr("Save screenshot"), error.isEmpty() ? tr("Could not write %1").arg(path) : error);
}

void MainWindow::exportDialog() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export series"), selection_.id + ".csv", tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportSelectionCsv(path, &error)) QMessageBox::warning(this, tr("Export series"), error);
}

void MainWindow::addRecent(const QString& path) {
    rememberRecentFile(path, kMaxRecent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recent_menu_->clear();
    for (const QString& p : recentFiles()) recent_menu_->addAction(p, this, [this, p] { openScenario(p); });
    recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

}  // namespace ct::app
