#include "window_extras.hpp"
#include "docs_viewer.hpp"

#include <clustertwin/model/data_paths.hpp>
#include <clustertwin/render/scene.hpp>

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QDesktopServices>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QUrl>

namespace ct::app {

namespace {
constexpr int kLayoutVersion = 1;  // bump when docks or toolbars change, so an old layout is not applied
}  // namespace

QString resourcesDir() { return QString::fromStdString(model::resourceDir()); }

QStringList recentFiles() { return QSettings().value("recentFiles").toStringList(); }

void rememberRecentFile(const QString& path, int max) {
    QSettings settings;
    QStringList recent = settings.value("recentFiles").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > max) recent.removeLast();
    settings.setValue("recentFiles", recent);
}

QString documentationDir() { return QString::fromStdString(model::documentationDir()); }

void populateSamplesMenu(QMenu* menu, const std::function<void(const QString&)>& open) {
    const QDir dir(QDir(resourcesDir()).filePath("scenarios"));
    for (const QString& f : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
        QFile file(dir.filePath(f));
        if (!file.open(QIODevice::ReadOnly)) continue;
        const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
        const QString name = o.value("name").toString(f), description = o.value("description").toString();
        QAction* a = menu->addAction(name, menu, [open, path = dir.filePath(f)] { open(path); });
        a->setStatusTip(description);
        a->setToolTip(description);
    }
    menu->setToolTipsVisible(true);
}

void populateHelpMenu(QMenu* help, QMainWindow* window) {
    const QString docs = documentationDir();
    QMenu* topics = help->addMenu(QObject::tr("&Documentation"));
    topics->setObjectName("menuDocumentation");
    const QList<QPair<QString, QString>> pages = {{QObject::tr("Simulation: power, heat, room air"), "simulation.md"},
                                                  {QObject::tr("Planning and editing"), "planning.md"},
                                                  {QObject::tr("The 3D view"), "visualization.md"},
                                                  {QObject::tr("Telemetry import"), "importers.md"},
                                                  {QObject::tr("Network and jobs"), "network.md"},
                                                  {QObject::tr("Scenario file format"), "scenario-format.md"},
                                                  {QObject::tr("Performance"), "performance.md"},
                                                  {QObject::tr("Building"), "building.md"},
                                                  {QObject::tr("What the models compute"), "models.md"},
                                                  {QObject::tr("Architecture"), "architecture.md"},
                                                  {QObject::tr("Contributing"), "contributing.md"}};
    for (const auto& [title, file] : pages) {  // NOLINT(performance-for-range-copy): captured by the action
        const QString path = QDir(docs).filePath(file);
        // In the app's own viewer: nothing outside it is needed to read them.
        QAction* a = topics->addAction(title, window, [window, docs, file] { showDocumentation(window, docs, file); });
        a->setData(path);
        a->setEnabled(!docs.isEmpty() && QFileInfo::exists(path));
    }
    topics->addSeparator();
    QAction* folder = topics->addAction(QObject::tr("Open the documentation folder"), window,
                                        [docs] { QDesktopServices::openUrl(QUrl::fromLocalFile(docs)); });
    folder->setEnabled(!docs.isEmpty());
    help->addSeparator();
    QAction* about = help->addAction(QObject::tr("&About ClusterTwin"), window, [window] {
        QMessageBox::about(window, QObject::tr("About ClusterTwin"),
                           QObject::tr("<h3>ClusterTwin %1</h3><p>A digital twin of GPU data centers: lay out halls, simulate power, heat "
                                       "(air and liquid) and network, replay real telemetry, in 3D.</p>"
                                       "<p>Qt %2, VTK %3.</p><p>Documentation: %4</p>")
                               .arg(QCoreApplication::applicationVersion(), QString::fromLatin1(qVersion()),
                                    QString::fromStdString(render::vtkVersionText()), documentationDir().toHtmlEscaped()));
    });
    about->setObjectName("actionAbout");
    about->setMenuRole(QAction::AboutRole);
    QAction* about_qt = help->addAction(QObject::tr("About &Qt"), qApp, &QApplication::aboutQt);
    about_qt->setObjectName("actionAboutQt");
    about_qt->setMenuRole(QAction::AboutQtRole);
}

void restoreWindowLayout(QMainWindow* window) {
    const QSettings s;
    window->restoreGeometry(s.value("window/geometry").toByteArray());
    window->restoreState(s.value("window/state").toByteArray(), kLayoutVersion);
}

void saveWindowLayout(const QMainWindow* window) {
    QSettings s;
    s.setValue("window/geometry", window->saveGeometry());
    s.setValue("window/state", window->saveState(kLayoutVersion));
}

FileDrops::FileDrops(QMainWindow* window) : QObject(window) {
    window->setAcceptDrops(true);
    window->installEventFilter(this);
}

QString FileDrops::kindOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (!QFileInfo(path).isFile()) return {};
    if (suffix == "json") return "scenario";
    if (suffix == "sqlite" || suffix == "db" || suffix == "sqlite3") return "run";
    return {};
}

bool FileDrops::eventFilter(QObject* watched, QEvent* e) {
    if (e->type() != QEvent::DragEnter && e->type() != QEvent::Drop) return QObject::eventFilter(watched, e);
    auto* drop = static_cast<QDropEvent*>(e);
    QString scenario, run;
    for (const QUrl& url : drop->mimeData()->urls()) {
        if (!url.isLocalFile()) continue;
        const QString path = url.toLocalFile();
        const QString kind = kindOf(path);
        if (kind == "scenario" && scenario.isEmpty()) scenario = path;
        if (kind == "run" && run.isEmpty()) run = path;
    }
    if (scenario.isEmpty() && run.isEmpty()) {
        drop->ignore();
        return true;
    }
    drop->acceptProposedAction();
    if (e->type() == QEvent::Drop) {
        if (!scenario.isEmpty()) emit scenarioDropped(scenario);
        if (!run.isEmpty()) emit runDropped(run);
    }
    return true;
}

}  // namespace ct::app
