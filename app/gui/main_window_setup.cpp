// The main window's parts, built once by the constructor (main_window.cpp): the centre, the docks, the status
// bar, and the connections of the simulations, run loading, selection and the document.
#include "alerts_panel.hpp"
#include "checks_panel.hpp"
#include "compare_view.hpp"
#include "edit_controller.hpp"
#include "fabric_panel.hpp"
#include "floor_plan_view.hpp"
#include "jobs_panel.hpp"
#include "main_window.hpp"
#include "navigator.hpp"
#include "notice_bar.hpp"
#include "properties_panel.hpp"
#include "run_controller.hpp"
#include "run_explainer.hpp"
#include "run_panels.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "simulation_control.hpp"
#include "timeline.hpp"
#include "view3d.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QComboBox>
#include <QDockWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>

namespace ct::app {

namespace {
QDockWidget* dock(QMainWindow* w, const QString& title, const char* name, QWidget* content, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, w);
    d->setObjectName(name);
    d->setWidget(content);
    w->addDockWidget(area, d);
    return d;
}
}  // namespace

NoticeBar* MainWindow::buildCentre() {
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
    return result_notice;
}

QList<QDockWidget*> MainWindow::buildDocks(NoticeBar& result_notice) {
    // Inspector: properties above the current values of the selection.
    values_ = new ValuesPanel(*run_);
    auto* inspector = new QSplitter(Qt::Vertical);
    inspector->addWidget(props_);
    inspector->addWidget(values_);
    charts_ = new ChartsPanel(*run_);
    alerts_ = new AlertsPanel(*run_);
    explainer_ = new RunExplainer(*run_, result_notice, this);
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
    QDockWidget* twin_dock = buildTwin(fabric_dock);
    charts_dock->raise();
    return {tree_dock, props_dock, charts_dock, alerts_dock, checks_dock, jobs_dock, fabric_dock, twin_dock};
}

void MainWindow::buildStatusBar() {
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
    // One button for both long jobs. A running simulation comes first: while it runs, the app keeps loading the
    // run so far in the background, and a click that landed during such a load used to stop the load and leave the
    // simulation running to its end.
    connect(cancel_, &QPushButton::clicked, this, [this] {
        if (simulationRunning()) cancelSimulation();
        else if (run_->loading()) run_->cancelLoad();
    });
}

void MainWindow::connectSimulations() {
    sims_ = new SimulationControl(*doc_, this);
    connect(sims_, &SimulationControl::started, this, [this](const QString& m) {
        // One run on every view: the one being computed (the previous one would sit in the timeline, the
        // inspector and the alerts beside the new one's live frames).
        follow_simulation_ = true;
        run_->close();
        progress_->setValue(0);
        progress_->setFormat("%p%");
        progress_->show();
        run_action_->setEnabled(false);
        cancel_->show();
        statusBar()->showMessage(m);
    });
    connect(sims_, &SimulationControl::progress, progress_, &QProgressBar::setValue);
    connect(sims_, &SimulationControl::driveNote, this, [this](const QString& summary, const QStringList& notes) {
        statusBar()->showMessage(tr("Simulating, %1%2…").arg(summary, notes.isEmpty() ? QString() : " (" + notes.join("; ") + ")"));
    });
    connect(sims_, &SimulationControl::timeLeft, this, [this](double s) {
        progress_->setFormat(std::isfinite(s) ? tr("%p% · %1 left").arg(QString::fromStdString(model::formatDuration(std::ceil(s))))
                                              : QString("%p%"));
    });
    connect(sims_, &SimulationControl::airSolver, this, [this](const QString& label, const QString& summary) {
        progress_->setToolTip(summary);
        statusBar()->showMessage(tr("Simulating with %1: %2").arg(label, summary));
    });
    connect(sims_, &SimulationControl::runGrew, this, &MainWindow::showRunInProgress);
    connect(sims_, &SimulationControl::liveFrame, this, [this](const model::Frame& f) {
        if (!run_->hasRun() && !run_->loading()) {  // until the run so far is loaded; never over another run
            view3d_->setFrame(f);
            plan_->setFrame(f, metric_box_ ? metric_box_->currentData().toString().toStdString() : std::string("inlet_c"));
        }
    });
    connect(sims_, &SimulationControl::ended, this, &MainWindow::endSimulation);
    connect(sims_, &SimulationControl::failed, this, [this](const QString& m) { QMessageBox::warning(this, tr("Simulation"), m); });
    connect(sims_, &SimulationControl::runReady, this, [this](const QString& path, bool whatif) {
        if (whatif) {
            compare_action_->setEnabled(true);
            connect(
                run_, &RunController::runChanged, this,
                [this] {
                    explainer_->describeWhatIf(whatif_events_);
                    setCompareWithBaseline(true);
                    compare_view_->setBaseline(sims_->baseline());
                    tabs_->setTabEnabled(tabs_->indexOf(compare_view_), true);
                    statusBar()->showMessage(tr("What-if ready: the Compare tab shows it beside its baseline"), 8000);
                    emit whatIfReady();
                },
                Qt::SingleShotConnection);
        }
        openRun(path);
    });
}

void MainWindow::connectRunLoading() {
    // Opening a database: the same progress bar, and Cancel stops the load.
    connect(run_, &RunController::loadProgress, progress_, &QProgressBar::setValue);
    connect(run_, &RunController::loadingChanged, this, [this](bool on) {
        if (sims_->running()) return;  // the bar is the simulation's
        progress_->setVisible(on);
        cancel_->setVisible(on);
        if (!on && statusBar()->currentMessage().startsWith(tr("Loading"))) statusBar()->clearMessage();
    });
    run_->setGate([this](runs::RunReplay& r, const QString& db) { return admitRun(r, db); });
}

void MainWindow::connectSelection() {
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
            sc->setHighlighted(jobs_->nodesOf(ref.id));                           // its nodes light up
            sc->setHighlightedLinks(jobs_->busiestLinks(ref.id, run_->frame()));  // and its busiest links
        }
        view3d_->update();
    });
    connect(alerts_, &AlertsPanel::alertActivated, nav, [nav](const QString& id, double t_s) { nav->activate(id, t_s); });
    connect(checks_, &ChecksPanel::entityActivated, nav, [nav](const QString& id) { nav->activate(id); });
    connect(plan_, &FloorPlanView::selectionChanged, this, [this](const QList<EntityRef>& refs) { edits_->setTargets(refs); });
    connect(plan_, &FloorPlanView::moveRequested, edits_, &EditController::move);
    connect(edits_, &EditController::placementRequested, this, [this](const QString& hint) {
        tabs_->setCurrentWidget(plan_);  // sensors are placed on the floor plan
        plan_->beginPlacing(hint);
    });
    connect(plan_, &FloorPlanView::placeRequested, edits_, &EditController::placeSensor);
    connect(edits_, &EditController::notice, this, [this](const QString& text) { statusBar()->showMessage(text, 20000); });
    connect(view3d_, &View3D::moveRequested, edits_, &EditController::move);
    connect(edits_, &EditController::selectRequested, this, &MainWindow::select);
    connect(props_, &PropertiesPanel::propertyEdited, this, [this](const QString& id, const QString& key, const QString& value) {
        if (!edits_->setProperty(id, key, value)) {
            props_->show(selection_);  // put the shown value back
            statusBar()->showMessage(edits_->lastError());
        }
    });
}

void MainWindow::connectDocument() {
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
        followNamedBaseline();  // a what-if's or a sweep variant's run is shown beside its baseline
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
}

}  // namespace ct::app
