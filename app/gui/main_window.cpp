#include "main_window.hpp"
#include "compare_view.hpp"
#include "jobs_panel.hpp"
#include "fabric_panel.hpp"

#include "checks_panel.hpp"
#include "inventory_import.hpp"
#include "document_guard.hpp"
#include "notice_bar.hpp"
#include "run_binding.hpp"
#include "simulation_control.hpp"
#include "telemetry_control.hpp"
#include "edit_controller.hpp"
#include "floor_plan_view.hpp"
#include "problems_dialog.hpp"
#include "properties_panel.hpp"
#include "run_controller.hpp"
#include "alerts_panel.hpp"
#include "run_dialog.hpp"
#include "run_picker.hpp"
#include "navigator.hpp"
#include "run_explainer.hpp"
#include "run_panels.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "scene_toolbar.hpp"
#include "simulation_options.hpp"
#include "timeline.hpp"
#include "view3d.hpp"
#include "window_extras.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/sim/impact.hpp>

#include <QApplication>
#include <QCloseEvent>
#include <QTimer>
#include <QUndoStack>
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
#include <QVBoxLayout>

#include <cmath>

namespace ct::app {

namespace {
constexpr int kMaxRecent = 8;

QDockWidget* dock(QMainWindow* w, const QString& title, const char* name, QWidget* content, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, w);
    d->setObjectName(name);
    d->setWidget(content);
    w->addDockWidget(area, d);
    return d;
}
} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), doc_(new ScenarioDocument(this)), run_(new RunController(this)), tree_(new ScenarioTree(*doc_)),
      props_(new PropertiesPanel(*doc_)), plan_(new FloorPlanView(*doc_)), view3d_(new View3D(*doc_)) {
    setObjectName("mainWindow");
    setWindowTitle(tr("ClusterTwin"));

    // Centre: the 3D view and the floor plan, with the timeline under both.
    tabs_ = new QTabWidget;
    tabs_->addTab(view3d_, tr("3D"));
    tabs_->addTab(plan_, tr("Floor plan"));
    compare_view_ = new CompareView(*doc_, *run_);
    tabs_->addTab(compare_view_, tr("Compare"));
    tabs_->setTabEnabled(tabs_->indexOf(compare_view_), false);
    tabs_->setTabToolTip(tabs_->indexOf(compare_view_), tr("Baseline and what-if side by side (Simulation > What-if)"));
    timeline_ = new Timeline(*run_);
    auto* centre = new QWidget;
    auto* cl = new QVBoxLayout(centre);
    cl->setContentsMargins(0, 0, 0, 0);
    cl->setSpacing(0);
    notice_ = new NoticeBar(centre);
    cl->addWidget(notice_);
    auto* result_notice = new NoticeBar(centre);
    result_notice->setObjectName("resultNotice");
    cl->addWidget(result_notice);
    cl->addWidget(tabs_, 1);
    cl->addWidget(timeline_);
    setCentralWidget(centre);

    // Inspector: properties above the current values of the selection.
    values_ = new ValuesPanel(*run_);
    auto* inspector = new QSplitter(Qt::Vertical);
    inspector->addWidget(props_);
    inspector->addWidget(values_);
    charts_ = new ChartsPanel(*run_);
    alerts_ = new AlertsPanel(*run_);
    explainer_ = new RunExplainer(*run_, *result_notice, this);
    QDockWidget* tree_dock = dock(this, tr("Scenario"), "scenarioDock", tree_, Qt::LeftDockWidgetArea);
    QDockWidget* props_dock = dock(this, tr("Inspector"), "propertiesDock", inspector, Qt::RightDockWidgetArea);
    QDockWidget* charts_dock = dock(this, tr("Charts"), "chartsDock", charts_, Qt::BottomDockWidgetArea);
    QDockWidget* alerts_dock = dock(this, tr("Alerts"), "alertsDock", alerts_, Qt::BottomDockWidgetArea);
    checks_ = new ChecksPanel(*doc_);
    QDockWidget* checks_dock = dock(this, tr("Checks"), "checksDock", checks_, Qt::BottomDockWidgetArea);
    jobs_ = new JobsPanel(*doc_, *run_);
    QDockWidget* jobs_dock = dock(this, tr("Jobs"), "jobsDock", jobs_, Qt::BottomDockWidgetArea);
    fabric_ = new FabricPanel(*run_);
    QDockWidget* fabric_dock = dock(this, tr("Fabric"), "fabricDock", fabric_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(charts_dock, alerts_dock);
    tabifyDockWidget(alerts_dock, checks_dock);
    tabifyDockWidget(checks_dock, jobs_dock);
    tabifyDockWidget(jobs_dock, fabric_dock);
    charts_dock->raise();

    progress_ = new QProgressBar;
    progress_->setObjectName("simulationProgress");
    progress_->setMaximumWidth(220);
    progress_->setRange(0, 100);
    progress_->hide();
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setObjectName("cancelSimulation");
    cancel_->hide();
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(cancel_);
    connect(cancel_, &QPushButton::clicked, this, [this] {
        if (run_->loading()) run_->cancelLoad();
        else cancelSimulation();
    });
    sims_ = new SimulationControl(*doc_, this);
    connect(sims_, &SimulationControl::started, this, [this](const QString& m) {
        progress_->setValue(0);
        progress_->setFormat("%p%");
        progress_->show();
        run_action_->setEnabled(false);
        cancel_->show();
        statusBar()->showMessage(m);
    });
    connect(sims_, &SimulationControl::progress, progress_, &QProgressBar::setValue);
    connect(sims_, &SimulationControl::timeLeft, this, [this](double s) {
        progress_->setFormat(std::isfinite(s) ? tr("%p% · %1 left").arg(QString::fromStdString(model::formatDuration(std::ceil(s)))) : QString("%p%"));
    });
    connect(sims_, &SimulationControl::airSolver, this, [this](const QString& label, const QString& summary) {
        progress_->setToolTip(summary);
        statusBar()->showMessage(tr("Simulating with %1: %2").arg(label, summary));
    });
    connect(sims_, &SimulationControl::liveFrame, this, [this](const model::Frame& f) {
        if (!run_->hasRun() || !run_->playing()) {
            view3d_->setFrame(f);
            plan_->setFrame(f, metric_box_ ? metric_box_->currentData().toString().toStdString() : std::string("inlet_c"));
        }
    });
    connect(sims_, &SimulationControl::ended, this, &MainWindow::endSimulation);
    connect(sims_, &SimulationControl::failed, this, [this](const QString& m) { QMessageBox::warning(this, tr("Simulation"), m); });
    connect(sims_, &SimulationControl::runReady, this, [this](const QString& path, bool whatif) {
        if (whatif) {
            compare_action_->setEnabled(true);
            connect(run_, &RunController::runChanged, this, [this] {
                explainer_->describeWhatIf(whatif_events_);
                setCompareWithBaseline(true);
                compare_view_->setBaseline(sims_->baseline());
                tabs_->setTabEnabled(tabs_->indexOf(compare_view_), true);
                statusBar()->showMessage(tr("What-if ready: the Compare tab shows it beside its baseline"), 8000);
                emit whatIfReady();
            }, Qt::SingleShotConnection);
        }
        openRun(path);
    });
    // Opening a database: the same progress bar, and Cancel stops the load.
    connect(run_, &RunController::loadProgress, progress_, &QProgressBar::setValue);
    connect(run_, &RunController::loadingChanged, this, [this](bool on) {
        if (sims_->running()) return;  // the bar is the simulation's
        progress_->setVisible(on);
        cancel_->setVisible(on);
        if (!on && statusBar()->currentMessage().startsWith(tr("Loading"))) statusBar()->clearMessage();
    });
    run_->setGate([this](runs::RunReplay& r, const QString& db) { return admitRun(r, db); });

    edits_ = new EditController(*doc_, this);
    guard_ = new DocumentGuard(*doc_, *notice_, this, [this](const QString& path, QString* error) { return saveScenario(path, error); });
    autosave_ = new QTimer(this);
    autosave_->setInterval(30000);
    connect(autosave_, &QTimer::timeout, doc_, &ScenarioDocument::writeAutosave);
    autosave_->start();
    telemetry_ = new TelemetryControl(this, *doc_, *run_, [this](const QString& path) { return openScenario(path); }, [this] { return runsFolder(); });
    buildMenus();
    for (auto* d : {tree_dock, props_dock, charts_dock, alerts_dock, checks_dock, jobs_dock, fabric_dock}) view_menu_->addAction(d->toggleViewAction());
    buildSceneToolbar();

    // A pick in the tree also shows it: the camera frames racks, nodes, GPUs and units; an event moves the
    // timeline to its time; a job frames its first node.
    auto* nav = new Navigator(*doc_, *run_, *view3d_, *tabs_, this);
    connect(nav, &Navigator::selectRequested, this, &MainWindow::select);
    connect(tree_, &ScenarioTree::entitySelected, this, [this, nav](const EntityRef& ref) {
        select(ref);
        nav->showInViewAndTime(ref);
    });
    connect(plan_, &FloorPlanView::entitySelected, this, &MainWindow::select);
    connect(view3d_, &View3D::entitySelected, this, &MainWindow::select);
    connect(compare_view_, &CompareView::entitySelected, this, &MainWindow::select);
    connect(fabric_, &FabricPanel::linkSelected, this, &MainWindow::select);
    connect(jobs_, &JobsPanel::jobSelected, this, [this](const EntityRef& ref) {
        select(ref);
        if (auto* sc = view3d_->scene()) {
            sc->setHighlighted(jobs_->nodesOf(ref.id));  // its nodes light up
            sc->setHighlightedLinks(jobs_->busiestLinks(ref.id, run_->frame()));  // and its busiest links
        }
        view3d_->update();
    });
    connect(alerts_, &AlertsPanel::alertActivated, nav, [nav](const QString& id, double t_s) { nav->activate(id, t_s); });
    connect(checks_, &ChecksPanel::entityActivated, nav, [nav](const QString& id) { nav->activate(id); });
    connect(plan_, &FloorPlanView::selectionChanged, this, [this](const QList<EntityRef>& refs) { edits_->setTargets(refs); });
    connect(plan_, &FloorPlanView::moveRequested, edits_, &EditController::move);
    connect(view3d_, &View3D::moveRequested, edits_, &EditController::move);
    connect(edits_, &EditController::selectRequested, this, &MainWindow::select);
    connect(props_, &PropertiesPanel::propertyEdited, this, [this](const QString& id, const QString& key, const QString& value) {
        if (!edits_->setProperty(id, key, value)) {
            props_->show(selection_);  // put the shown value back
            statusBar()->showMessage(edits_->lastError());
        }
    });
    connect(doc_, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(doc_, &ScenarioDocument::edited, this, [this] {
        // Keep the selection across the edit when it still exists.
        const EntityRef again = doc_->refOf(selection_.id);
        const QList<EntityRef> multi = plan_->selection();
        select(again.isValid() ? again : EntityRef{"scenario", QString::fromStdString(doc_->scenario().id)});
        if (multi.size() > 1) {
            plan_->setSelection(multi);
            edits_->setTargets(multi);
        }
        if (run_->hasRun()) bindOpenRun();  // the scenario moved away from the run's version (or back to it)
        showFrame();
        updateTitle();
    });
    connect(run_, &RunController::timeChanged, this, &MainWindow::showFrame);
    connect(run_, &RunController::runChanged, this, [this] {
        if (!run_->hasRun()) {
            run_matches_ = false;
            view3d_->clearFrame();
            plan_->clearFrame();
            return;
        }
        statusBar()->showMessage(tr("Run %1 of %2: %3 series, %4 events")
                                     .arg(run_->replay()->info().id)
                                     .arg(run_->databasePath())
                                     .arg(run_->replay()->seriesCount())
                                     .arg(run_->replay()->events().size()));
    });
    connect(run_, &RunController::loadFailed, this, [this](const QString& m) {
        statusBar()->showMessage(tr("Could not open the run"));
        QMessageBox::warning(this, tr("Open run"), m);
    });
    connect(doc_, &ScenarioDocument::changed, this, [this] {
        const auto& s = doc_->scenario();
        updateTitle();
        resetForNewScenario();
        select({"scenario", QString::fromStdString(s.id)});
        showFrame();
        statusBar()->showMessage(doc_->warnings().empty()
                                     ? tr("Opened %1").arg(doc_->path())
                                     : tr("Opened %1 with %2 warning(s)").arg(doc_->path()).arg(doc_->warnings().size()));
    });
    updateRecentMenu();
    resize(1400, 900);
    resizeDocks({tree_dock, props_dock}, {280, 360}, Qt::Horizontal);
    resizeDocks({charts_dock}, {220}, Qt::Vertical);
    restoreWindowLayout(this);  // the last session's, over these defaults
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
        else if (!run_->hasRun() && metric_box_->currentData().toString() == "nameplate_kw") plan_->setFrame(model::Frame{}, "nameplate_kw");
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
    if (can_open) {
        QPushButton* open = run_mismatch_->addButton(tr("Open scenario %1 and its run").arg(m.run_scenario), QMessageBox::AcceptRole);
        open->setObjectName("openRunScenario");
        const QString file = m.scenario_file;
        connect(open, &QPushButton::clicked, this, [this, file, db] {
            if (openScenario(file)) openRun(db);
        });
        run_mismatch_->setDefaultButton(open);
    } else if (!m.run_scenario.isEmpty()) {
        run_mismatch_->setInformativeText(tr("Run database: %1\nOpen scenario %2 first (File > Open scenario), then the run.").arg(db, m.run_scenario));
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

void MainWindow::endSimulation(const QString& how, const QString& message) {
    progress_->hide();
    run_action_->setEnabled(true);
    cancel_->hide();
    statusBar()->showMessage(message);
    emit simulationEnded(how);
}

void MainWindow::cancelSimulation() { sims_->cancel(); }

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
        if (error) *error = tr("%1 is a sample shipped with ClusterTwin and is not overwritten: use Save as to keep your changes.").arg(target);
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

} // namespace ct::app
