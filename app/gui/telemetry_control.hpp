#pragma once
// Telemetry into the app (issue 17): File > Import telemetry… and File > Connect to Prometheus…, each an
// ImportJob in a worker thread with its own progress bar and Cancel in the status bar; a report of what was
// read (the CLI's summary, every failed file named). The imported run is opened on the open scenario when its
// entities are the scenario's; when none is, the report offers a scenario built from the telemetry
// (importers::skeletonScenario) to show it on. Following a Prometheus server polls it every step, appends
// what is new to the same run and reloads the replay, which stays at the newest reading (or where the user
// moved the timeline back to).
#include "import_dialogs.hpp"
#include "import_job.hpp"

#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QLabel;
class QMainWindow;
class QMenu;
class QMessageBox;
class QProgressBar;
class QPushButton;
class QAction;

namespace ct::app {
class RunController;
class ScenarioDocument;

class TelemetryControl : public QObject {
    Q_OBJECT
public:
    /// `open_scenario` opens a scenario in the window (false when it could not); `runs_folder` is where
    /// databases go unless the user names one.
    TelemetryControl(QMainWindow* window, const ScenarioDocument& doc, RunController& run,
                     std::function<bool(const QString&)> open_scenario, std::function<QString()> runs_folder);
    ~TelemetryControl() override;

    /// Adds Import telemetry…, Connect to Prometheus… and Stop following to the File menu.
    void populate(QMenu* file);
    /// Starts an import of files (what the dialog asks for). False when an import is running.
    bool importFiles(const FileImportSettings& s);
    /// Reads the last lookback from a Prometheus server, then follows it when asked. False when an import is
    /// running.
    bool connectPrometheus(const PrometheusSettings& s);
    /// Cancels the import in progress; when none is, stops following.
    void cancel();
    void stopFollowing();
    bool busy() const { return job_ != nullptr; }
    bool following() const { return follow_ != nullptr; }
    /// The last import's outcome (a file import, or the first read of a connection).
    const ImportOutcome& lastOutcome() const { return last_; }
    /// The report of the last file import or connection (nullptr before the first).
    QMessageBox* reportDialog() const { return report_; }
    /// Builds a scenario from the last import's entities beside its database, opens it and shows the run
    /// on it. False (with why) when there is nothing to build from or the scenario cannot be written.
    bool showOnScenarioFromTelemetry(QString* error = nullptr);
    QProgressBar* progressBar() const { return progress_; }
    QPushButton* cancelButton() const { return cancel_; }
    /// What the status bar says while following ("" when not following).
    QString followStatus() const;

signals:
    /// An import ended: "finished", "cancelled" or "failed".
    void importEnded(const QString& how);
    /// A poll of a followed server ended, with the samples it stored.
    void polled(qint64 stored);

private:
    struct Follow;
    void showImportDialog();
    void showConnectDialog();
    bool start(ImportRequest request, bool poll);
    void finished(ImportJob* job);
    void poll();
    /// Opens the run, or reloads it when it is the one shown (keeping the time unless it was at the end).
    void showRun(const ImportOutcome& o);
    void report(const ImportOutcome& o, const QString& title, const QString& extra);
    bool runShown(const ImportOutcome& o) const;
    void updateWidgets();

    QMainWindow* window_;
    const ScenarioDocument& doc_;
    RunController& run_;
    std::function<bool(const QString&)> open_scenario_;
    std::function<QString()> runs_folder_;
    ImportJob* job_ = nullptr;
    bool job_is_poll_ = false;
    ImportOutcome last_;
    std::unique_ptr<Follow> follow_;
    QTimer poll_timer_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QLabel* follow_label_;
    QMessageBox* report_ = nullptr;
    QAction* stop_action_ = nullptr;
};

}  // namespace ct::app
