// MainWindow's menus: File, Edit, View, Analysis, Simulation, Help (main_window.hpp).
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
#include <QLineEdit>
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
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/sim/impact.hpp>
#include <cmath>
#include "alerts_panel.hpp"
#include "capacity_dialog.hpp"
#include "checks_panel.hpp"
#include "document_guard.hpp"
#include "edit_controller.hpp"
#include "export_actions.hpp"
#include "floor_plan_view.hpp"
#include "inventory_import.hpp"
#include "main_window.hpp"
#include "nccl_compare_dialog.hpp"

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
#include "tour_player.hpp"
#include "twin_panel.hpp"
#include "view3d.hpp"
#include "window_extras.hpp"

#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace ct::app {

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open scenario…"), QKeySequence::Open, this, &MainWindow::openDialog);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    populateSamplesMenu(file->addMenu(tr("Open &sample")), [this](const QString& path) { openScenario(path); });
    file->addAction(tr("Open r&un or telemetry database…"), this, &MainWindow::openRunDialog);
    telemetry_->populate(file);
    file->addAction(tr("Import &inventory (NetBox)…"), this,
                    [this] { importInventoryDialog(this, [this](const QString& p) { return openScenario(p); }); });
    file->addSeparator();
    file->addAction(tr("&Save scenario"), QKeySequence::Save, this, [this] {
        QString error, path;
        if (isShippedSample(doc_->path()) && (path = guard_->saveAsPath()).isEmpty()) return;  // a sample is never overwritten
        if (!saveScenario(path, &error)) QMessageBox::warning(this, tr("Save"), error);
    });
    file->addAction(tr("Save scenario &as…"), QKeySequence::SaveAs, this, [this] {
        const QString path = guard_->saveAsPath();
        QString error;
        if (!path.isEmpty() && !saveScenario(path, &error)) QMessageBox::warning(this, tr("Save"), error);
    });
    file->addSeparator();
    file->addAction(tr("Save &screenshot…"), this, &MainWindow::screenshotDialog);
    file->addAction(tr("&Export selection's series as CSV…"), this, &MainWindow::exportDialog);
    QMenu* exp = file->addMenu(tr("Export for other &tools"));
    exp->addAction(tr("For &ParaView (VTK: hall, air field, time series)…"), this, [this] { exportVtkDialog(*this); });
    exp->addAction(tr("Hall as &glTF 2.0…"), this, [this] { exportGltfDialog(*this); });
    exp->addAction(tr("Run &report (HTML)…"), this, [this] { exportReportDialog(*this); });
    exp->addAction(tr("Replay as &video (MP4, WebM)…"), this, [this] { exportVideoDialog(*this); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
    edits_->populate(menuBar()->addMenu(tr("&Edit")));
    view_menu_ = menuBar()->addMenu(tr("&View"));
    QAction* present =
        view_menu_->addAction(tr("&Presentation mode"), this, [this] { setPresentationMode(*this, !presentationMode(*this)); });
    present->setObjectName("actionPresentation");
    present->setShortcut(QKeySequence(Qt::Key_F11));
    present->setShortcutContext(Qt::ApplicationShortcut);
    addAction(present);  // still reachable with the menu bar hidden
    view_menu_->addSeparator();
    QMenu* analysis = menuBar()->addMenu(tr("&Analysis"));
    analysis->addAction(tr("&Impact if the selection fails"), QKeySequence(Qt::CTRL | Qt::Key_I), this, [this] {
        QString error;
        if (!showImpact(selection_, &error)) QMessageBox::information(this, tr("Impact"), error);
    });
    QAction* steady = analysis->addAction(tr("&Steady state"), this, [this] {
        if (!runSimulation(4 * 3600.0, {}, {}, true)) statusBar()->showMessage(tr("A simulation is already running"));
    });
    steady->setObjectName("actionSteadyState");
    steady->setToolTip(
        tr("Simulate until no rack inlet drifts more than 0.05 K per flow-through time of the room air (averaged over at least four)"));
    QAction* trace = analysis->addAction(tr("&Trace path from the selected GPU…"), this, [this] {
        bool ok = false;
        const QString from = selection_.id;
        const QString to =
            QInputDialog::getText(this, tr("Trace path"), tr("From %1 to the GPU (or node):").arg(from), QLineEdit::Normal, {}, &ok)
                .trimmed();
        if (!ok || to.isEmpty()) return;
        QString error;
        if (!tracePath(from, to, &error)) QMessageBox::information(this, tr("Trace path"), error);
    });
    trace->setObjectName("actionTracePath");
    QAction* capacity = analysis->addAction(tr("C&apacity and where racks fit…"), this, [this] {
        auto* d = findChild<CapacityDialog*>("capacityDialog");
        if (!d) {
            d = new CapacityDialog(*doc_, this);
            connect(d, &CapacityDialog::entityPicked, this, [this](const QString&, const QString& id) {
                const EntityRef ref = tree_->refFor(id);
                if (ref.isValid()) select(ref);
            });
        }
        d->refresh();
        d->show();
        d->raise();
    });
    capacity->setObjectName("actionCapacity");
    capacity->setToolTip(tr("Headroom per rack, row, PDU, UPS, feed and hall, redundancy respected; where N racks of a model fit"));
    QAction* nccl = analysis->addAction(tr("Compare with &nccl-tests output…"), this, [this] {
        auto* d = findChild<NcclCompareDialog*>("ncclCompareDialog");
        if (!d) d = new NcclCompareDialog(*doc_, this);
        d->show();
        d->raise();
    });
    nccl->setObjectName("actionCompareNccl");
    nccl->setToolTip(tr("What nccl-tests measured on a cluster against the twin's collective on this fabric, size by size"));
    analysis->addAction(tr("&Clear highlights"), this, [this] {
        if (auto* sc = view3d_->scene()) sc->setHighlighted({});
        view3d_->update();
    });
    buildSimulationMenu(menuBar()->addMenu(tr("&Simulation")));
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    tour_ = new TourPlayer(*this);
    populateToursMenu(help->addMenu(tr("Guided &tours")), *tour_);
    populateHelpMenu(help, this);
}

void MainWindow::buildSimulationMenu(QMenu* sim) {
    QAction* run = sim->addAction(tr("&Run…"), this, &MainWindow::simulateDialog);
    run->setObjectName("actionRunSimulation");
    run->setShortcut(QKeySequence(Qt::Key_F5));
    run_action_ = run;  // disabled while a run is going: one at a time
    sim->addAction(tr("&Cancel"), this, &MainWindow::cancelSimulation);
    sim_options_ = new SimulationOptions(this);
    sim_options_->populate(sim);
    sim_options_->setAir(doc_->scenario().simulation.air);
    connect(doc_, &ScenarioDocument::changed, this, [this] { sim_options_->setAir(doc_->scenario().simulation.air); });
    sim->addSeparator();
    sim->addAction(tr("&What-if: fail equipment and compare…"), this, &MainWindow::whatIfDialog);
    sim->addAction(tr("Compare with &another run…"), this, &MainWindow::compareWithRunDialog)->setObjectName("actionCompareWithRun");
    compare_action_ = sim->addAction(tr("Colour by &difference from the baseline"));
    compare_action_->setCheckable(true);
    compare_action_->setEnabled(false);
    connect(compare_action_, &QAction::toggled, this, &MainWindow::setCompareWithBaseline);
    sim->addSeparator();
    sim->addAction(tr("&Score against measurements…"), this, [this] {
        if (auto* d = findChild<QDockWidget*>("twinDock")) {
            d->show();
            d->raise();
        }
        twin_->measuredEdit()->setFocus();
    });
    sim->addAction(tr("Ca&librate on measurements…"), this,
                   [this] { openCalibration(twin_->measuredEdit()->text().trimmed(), twin_->mapEdit()->text().trimmed()); });
}

}  // namespace ct::app
