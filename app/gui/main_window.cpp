#include "main_window.hpp"

#include "floor_plan_view.hpp"
#include "problems_dialog.hpp"
#include "properties_panel.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QSettings>
#include <QStatusBar>

namespace ct::app {

namespace {
constexpr int kMaxRecent = 8;
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), doc_(new ScenarioDocument(this)), tree_(new ScenarioTree(*doc_)), props_(new PropertiesPanel(*doc_)),
      plan_(new FloorPlanView(*doc_)) {
    setObjectName("mainWindow");
    setWindowTitle(tr("ClusterTwin"));
    setCentralWidget(plan_);

    auto* tree_dock = new QDockWidget(tr("Scenario"), this);
    tree_dock->setObjectName("scenarioDock");
    tree_dock->setWidget(tree_);
    addDockWidget(Qt::LeftDockWidgetArea, tree_dock);
    auto* props_dock = new QDockWidget(tr("Properties"), this);
    props_dock->setObjectName("propertiesDock");
    props_dock->setWidget(props_);
    addDockWidget(Qt::RightDockWidgetArea, props_dock);

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open scenario…"), QKeySequence::Open, this, &MainWindow::openDialog);
    recent_menu_ = file->addMenu(tr("Open &recent"));
    file->addAction(tr("Open &demo"), this, [this] { openScenario(demoScenarioPath()); });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tree_dock->toggleViewAction());
    view->addAction(props_dock->toggleViewAction());

    connect(tree_, &ScenarioTree::entitySelected, this, &MainWindow::select);
    connect(plan_, &FloorPlanView::entitySelected, this, &MainWindow::select);
    connect(doc_, &ScenarioDocument::changed, this, [this] {
        const auto& s = doc_->scenario();
        setWindowTitle(tr("%1 — ClusterTwin").arg(QString::fromStdString(s.name.empty() ? s.id : s.name)));
        select({"scenario", QString::fromStdString(s.id)});
        statusBar()->showMessage(doc_->warnings().empty()
                                     ? tr("Opened %1").arg(doc_->path())
                                     : tr("Opened %1 with %2 warning(s)").arg(doc_->path()).arg(doc_->warnings().size()));
    });
    updateRecentMenu();
    resize(1280, 800);
    resizeDocks({tree_dock, props_dock}, {300, 420}, Qt::Horizontal);
}

MainWindow::~MainWindow() = default;

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

void MainWindow::select(const EntityRef& ref) {
    tree_->select(ref);
    plan_->setSelected(ref);
    props_->show(ref);
}

void MainWindow::openDialog() {
    const QString start = doc_->path().isEmpty() ? QDir::currentPath() : QFileInfo(doc_->path()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), start, tr("Scenarios (*.json);;All files (*)"));
    if (!path.isEmpty()) openScenario(path);
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
