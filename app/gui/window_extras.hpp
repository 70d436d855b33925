#pragma once
// What a desktop app is expected to have around its main window, apart from MainWindow itself: the Help menu,
// the window and dock layout kept between sessions, and files dropped on the window.
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

class QMainWindow;
class QMenu;

namespace ct::app {

/// model::resourceDir() and model::documentationDir() as QStrings (empty when not found).
QString resourcesDir();
QString documentationDir();

/// The recently opened scenarios, newest first (QSettings), and adding one (keeping at most `max`).
QStringList recentFiles();
void rememberRecentFile(const QString& path, int max);

/// Fills File > Open sample: every scenario in resources/scenarios by its name, its one-line description as the
/// tooltip and status tip; `open` is called with the file's path.
void populateSamplesMenu(QMenu* menu, const std::function<void(const QString&)>& open);

/// Fills the Help menu: each document of docs/, the docs folder, About ClusterTwin (version, Qt, VTK), About Qt.
void populateHelpMenu(QMenu* help, QMainWindow* window);

/// The window's geometry and its docks' and toolbars' layout, saved on a clean close and restored at start.
void restoreWindowLayout(QMainWindow* window);
void saveWindowLayout(const QMainWindow* window);

/// Accepts local files dragged onto the window: scenarios (.json) and run or telemetry databases (.sqlite,
/// .db). A drop with both opens the scenario first.
class FileDrops : public QObject {
    Q_OBJECT
public:
    explicit FileDrops(QMainWindow* window);
    /// What a dropped path is: "scenario", "run" or "" (refused).
    static QString kindOf(const QString& path);

signals:
    void scenarioDropped(const QString& path);
    void runDropped(const QString& path);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;
};

}  // namespace ct::app
