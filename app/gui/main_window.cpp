#include "main_window.hpp"

#include "floor_plan_view.hpp"
#include "problems_dialog.hpp"
#include "properties_panel.hpp"
#include "run_controller.hpp"
#include "run_panels.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "simulation_job.hpp"
#include "timeline.hpp"
#include "view3d.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>

#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
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
    timeline_ = new Timeline(*run_);
    auto* centre = new QWidget;
    auto* cl = new QVBoxLayout(centre);
    cl->setContentsMargins(0, 0, 0, 0);
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
    QDockWidget* tree_dock = dock(this, tr("Scenario"), "scenarioDock", tree_, Qt::LeftDockWidgetArea);
    QDockWidget* props_dock = dock(this, tr("Inspector"), "propertiesDock", inspector, Qt::RightDockWidgetArea);
    QDockWidget* charts_dock = dock(this, tr("Charts"), "chartsDock", charts_, Qt::BottomDockWidgetArea);
    QDockWidget* alerts_dock = dock(this, tr("Alerts"), "alertsDock", alerts_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(charts_dock, alerts_dock);
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
    connect(cancel_, &QPushButton::clicked, this, &MainWindow::cancelSimulation);

    buildMenus();
    for (auto* d : {tree_dock, props_dock, charts_dock, alerts_dock}) view_menu_->addAction(d->toggleViewAction());
    buildSceneToolbar();

    connect(tree_, &ScenarioTree::entitySelected, this, &MainWindow::select);
    connect(plan_, &FloorPlanView::entitySelected, this, &MainWindow::select);
    connect(view3d_, &View3D::entitySelected, this, &MainWindow::select);
    connect(alerts_, &AlertsPanel::entityActivated, this, [this](const QString& id) {
        const EntityRef ref = doc_->refOf(id);
        if (!ref.isValid()) return;
        select(ref);
        tabs_->setCurrentWidget(view3d_);
        view3d_->focus(ref);
    });
    connect(run_, &RunController::timeChanged, this, [this] {
        if (runMatchesScenario()) view3d_->setFrame(run_->frame());
    });
    connect(run_, &RunController::runChanged, this, [this] {
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
        setWindowTitle(tr("%1 — ClusterTwin").arg(QString::fromStdString(s.name.empty() ? s.id : s.name)));
        select({"scenario", QString::fromStdString(s.id)});
        if (run_->hasRun() && runMatchesScenario()) view3d_->setFrame(run_->frame());
        if (run_->hasRun() && !runMatchesScenario()) {
            statusBar()->showMessage(tr("The open run belongs to scenario %1: its values are not shown on this one")
                                         .arg(QString::fromStdString(run_->replay()->info().scenario_id)));
            return;
        }
        statusBar()->showMessage(doc_->warnings().empty()
                                     ? tr("Opened %1").arg(doc_->path())
                                     : tr("Opened %1 with %2 warning(s)").arg(doc_->path()).arg(doc_->warnings().size()));
    });
    updateRecentMenu();
    resize(1400, 900);
    resizeDocks({tree_dock, props_dock}, {280, 360}, Qt::Horizontal);
    resizeDocks({charts_dock}, {220}, Qt::Vertical);
}

MainWindow::~MainWindow() {
    if (job_) {
        job_->cancel();
        job_->wait();
    }
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open scenario…"), QKeySequence::Open, this, &MainWindow::openDialog);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &demo"), this, [this] { openScenario(demoScenarioPath()); });
    file->addAction(tr("Open r&un or telemetry database…"), this, &MainWindow::openRunDialog);
    file->addSeparator();
    file->addAction(tr("Save &screenshot…"), this, &MainWindow::screenshotDialog);
    file->addAction(tr("&Export selection's series as CSV…"), this, &MainWindow::exportDialog);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
    view_menu_ = menuBar()->addMenu(tr("&View"));
    QMenu* sim = menuBar()->addMenu(tr("&Simulation"));
    QAction* run = sim->addAction(tr("&Run…"), this, &MainWindow::simulateDialog);
    run->setObjectName("actionRunSimulation");
    run->setShortcut(QKeySequence(Qt::Key_F5));
    sim->addAction(tr("&Cancel"), this, &MainWindow::cancelSimulation);
}

void MainWindow::buildSceneToolbar() {
    QToolBar* tb = addToolBar(tr("3D view"));
    tb->setObjectName("sceneToolbar");
    tb->addWidget(new QLabel(tr(" Colour by ")));
    metric_box_ = new QComboBox;
    metric_box_->setObjectName("metricBox");
    for (const auto& m : render::metrics()) metric_box_->addItem(QString::fromStdString(m.label), QString::fromStdString(m.id));
    metric_box_->setCurrentIndex(metric_box_->findData("nameplate_kw"));
    tb->addWidget(metric_box_);
    connect(metric_box_, &QComboBox::currentIndexChanged, this, [this] {
        if (auto* sc = view3d_->scene()) sc->setMetric(metric_box_->currentData().toString().toStdString());
        view3d_->update();
    });
    connect(doc_, &ScenarioDocument::changed, this, [this] {
        if (auto* sc = view3d_->scene()) sc->setMetric(metric_box_->currentData().toString().toStdString());
    });
    // A run with values switches from the design colouring to inlet temperatures.
    connect(run_, &RunController::runChanged, this, [this] {
        if (metric_box_->currentData().toString() == "nameplate_kw") metric_box_->setCurrentIndex(metric_box_->findData("inlet_c"));
    });
    tb->addSeparator();
    for (const char* v : {"iso", "top", "aisle"}) {
        QAction* a = tb->addAction(QString(v).replace(0, 1, QString(v).at(0).toUpper()));
        a->setToolTip(tr("Camera: %1 view").arg(v));
        connect(a, &QAction::triggered, this, [this, v] {
            if (auto* sc = view3d_->scene()) sc->setCamera(v);
            view3d_->update();
        });
    }
    tb->addSeparator();
    auto overlay = [&](const QString& text, const char* name, auto member, bool on) {
        QAction* a = tb->addAction(text);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setChecked(on);
        connect(a, &QAction::toggled, this, [this, member](bool v) {
            if (auto* sc = view3d_->scene()) {
                render::Overlays o = sc->overlays();
                o.*member = v;
                sc->setOverlays(o);
                view3d_->update();
            }
        });
    };
    overlay(tr("Slice"), "overlaySlice", &render::Overlays::floor_slice, false);
    auto* height = new QDoubleSpinBox;
    height->setRange(0.1, 10);
    height->setSingleStep(0.25);
    height->setValue(1.0);
    height->setSuffix(tr(" m"));
    height->setToolTip(tr("Height of the horizontal slice"));
    tb->addWidget(height);
    connect(height, &QDoubleSpinBox::valueChanged, this, [this](double h) {
        if (auto* sc = view3d_->scene()) {
            render::Overlays o = sc->overlays();
            o.slice_height_m = h;
            sc->setOverlays(o);
            view3d_->update();
        }
    });
    overlay(tr("Aisle slice"), "overlayAisle", &render::Overlays::aisle_slice, false);
    overlay(tr("27 °C surface"), "overlayIso", &render::Overlays::isosurface, false);
    overlay(tr("Streamlines"), "overlayStreamlines", &render::Overlays::streamlines, false);
    overlay(tr("Links"), "overlayLinks", &render::Overlays::links, true);
    overlay(tr("Labels"), "overlayLabels", &render::Overlays::labels, true);
}

QString MainWindow::demoScenarioPath() {
    QStringList dirs;
    if (qEnvironmentVariableIsSet("CT_RESOURCE_DIR")) dirs << qEnvironmentVariable("CT_RESOURCE_DIR");
    dirs << QCoreApplication::applicationDirPath() + "/../share/clustertwin/resources" << QStringLiteral(CT_SOURCE_RESOURCE_DIR);
    for (const QString& d : dirs) {
        const QString p = QDir(d).filePath("scenarios/demo.json");
        if (QFileInfo::exists(p)) return QFileInfo(p).canonicalFilePath();
    }
    return {};
}

bool MainWindow::openScenario(const QString& path) {
    model::Diagnostics problems;
    QString error;
    if (path.isEmpty()) {
        error = tr("The demo scenario was not found (set CT_RESOURCE_DIR to the resources folder).");
    } else if (doc_->load(path, problems, error)) {
        addRecent(QFileInfo(path).absoluteFilePath());
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

bool MainWindow::runMatchesScenario() const {
    // Imported telemetry may name no scenario: its entities are matched by id.
    if (!run_->hasRun()) return false;
    const std::string& sid = run_->replay()->info().scenario_id;
    return sid.empty() || sid == doc_->scenario().id;
}

void MainWindow::select(const EntityRef& ref) {
    selection_ = ref;
    tree_->select(ref);
    plan_->setSelected(ref);
    view3d_->setSelected(ref);
    props_->show(ref);
    values_->setEntity(ref);
    charts_->setEntity(ref);
}

bool MainWindow::runSimulation(double duration_s, const QString& db_path) {
    if (job_ || doc_->scenario().halls.empty() || !(duration_s > 0)) return false;
    QString db = db_path;
    if (db.isEmpty()) {
        const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/runs";
        QDir().mkpath(dir);
        db = dir + QString("/%1-%2.sqlite").arg(QString::fromStdString(doc_->scenario().id), QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss"));
    }
    job_ = new SimulationJob(doc_->scenario(), doc_->catalog(), duration_s, db, this);
    connect(job_, &SimulationJob::progress, progress_, &QProgressBar::setValue);
    connect(job_, &SimulationJob::liveFrame, this, [this](const model::Frame& f) {
        if (!run_->hasRun() || !run_->playing()) view3d_->setFrame(f);
    });
    connect(job_, &SimulationJob::succeeded, this, [this](const QString& path, qint64) {
        endSimulation("finished", tr("Simulation finished: %1").arg(path));
        openRun(path);
    });
    connect(job_, &SimulationJob::cancelled, this, [this](const QString& path, qint64) {
        endSimulation("cancelled", tr("Simulation cancelled; the part that ran is in %1").arg(path));
    });
    connect(job_, &SimulationJob::failed, this, [this](const QString& m) {
        endSimulation("failed", tr("Simulation failed: %1").arg(m));
        QMessageBox::warning(this, tr("Simulation"), m);
    });
    progress_->setValue(0);
    progress_->show();
    cancel_->show();
    statusBar()->showMessage(tr("Simulating %1 of %2…").arg(QString::fromStdString(model::formatDuration(duration_s)), doc_->path()));
    job_->start();
    return true;
}

void MainWindow::endSimulation(const QString& how, const QString& message) {
    if (job_) {
        job_->wait();
        job_->deleteLater();
        job_ = nullptr;
    }
    progress_->hide();
    cancel_->hide();
    statusBar()->showMessage(message);
    emit simulationEnded(how);
}

void MainWindow::cancelSimulation() {
    if (job_) job_->cancel();
}

bool MainWindow::exportSelectionCsv(const QString& path, QString* error) {
    const auto* rp = run_->replay();
    if (!rp || !selection_.isValid()) {
        if (error) *error = tr("Open a run and select an entity first.");
        return false;
    }
    QSaveFile f(path);  // atomic: a temporary file renamed on commit
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error) *error = f.errorString();
        return false;
    }
    QTextStream out(&f);
    out << "time_s,entity,metric,value,unit\n";
    const std::string id = selection_.id.toStdString();
    for (const auto& m : rp->metricsOf(id))
        for (const auto& [t, v] : *rp->series(id, m))
            out << QString::number(t, 'f', 3) << ',' << selection_.id << ',' << QString::fromStdString(m) << ','
                << (std::isnan(v) ? QString() : QString::number(v, 'g', 10)) << ',' << QString::fromStdString(rp->unitOf(id, m)) << '\n';
    out.flush();
    if (!f.commit()) {
        if (error) *error = f.errorString();
        return false;
    }
    return true;
}

void MainWindow::openDialog() {
    const QString start = doc_->path().isEmpty() ? QDir::currentPath() : QFileInfo(doc_->path()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), start, tr("Scenarios (*.json);;All files (*)"));
    if (!path.isEmpty()) openScenario(path);
}

void MainWindow::openRunDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open run or telemetry database"), QDir::currentPath(),
                                                      tr("Run databases (*.sqlite *.db);;All files (*)"));
    if (!path.isEmpty()) openRun(path);
}

void MainWindow::simulateDialog() {
    bool ok = false;
    const QString text = QInputDialog::getText(this, tr("Run simulation"), tr("Simulated time (e.g. 30min, 1h):"), QLineEdit::Normal, "1h", &ok);
    if (!ok) return;
    try {
        runSimulation(model::parseDurationS(text.toStdString()), qEnvironmentVariable("CT_TEST_RUN_DB"));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Run simulation"), QString::fromStdString(e.what()));
    }
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
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue("recentFiles", recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recent_menu_->clear();
    const QStringList recent = QSettings().value("recentFiles").toStringList();
    for (const QString& p : recent) recent_menu_->addAction(p, this, [this, p] { openScenario(p); });
    recent_menu_->setEnabled(!recent.isEmpty());
}

} // namespace ct::app
