#pragma once
// The main window: the 3D view (and the 2D floor plan) in the centre; scenario tree, inspector (properties and
// current values), charts and alerts in docks; the timeline below. Views talk through ScenarioDocument,
// RunController and EntityRef selections; the window only wires them (STYLE.md habit 12).
#include "entity_ref.hpp"

#include <QMainWindow>

class QMenu;
class QDialog;
class QProgressBar;
class QPushButton;
class QComboBox;
class QTabWidget;

namespace ct::app {
class ScenarioDocument;
class ScenarioTree;
class PropertiesPanel;
class FloorPlanView;
class View3D;
class RunController;
class Timeline;
class ValuesPanel;
class ChartsPanel;
class AlertsPanel;
class SimulationJob;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a scenario; on failure shows the problems dialog (window-modal, non-blocking) and keeps the
    /// current one. Returns whether it opened.
    bool openScenario(const QString& path);
    /// Opens a run or telemetry database (newest run) in the background; the timeline binds to it.
    void openRun(const QString& db_path);
    /// Simulation > Run without the dialog: simulates the open scenario for `duration_s` into `db_path`
    /// ("" = a new file under the app's data folder) in a worker thread. False when one is running.
    bool runSimulation(double duration_s, const QString& db_path = {});
    void cancelSimulation();
    bool simulationRunning() const { return job_ != nullptr; }
    void select(const EntityRef& ref);
    /// Writes the selection's recorded series as a long CSV (time_s,entity,metric,value,unit).
    bool exportSelectionCsv(const QString& path, QString* error = nullptr);

    ScenarioDocument& document() { return *doc_; }
    ScenarioTree* tree() const { return tree_; }
    PropertiesPanel* properties() const { return props_; }
    FloorPlanView* floorPlan() const { return plan_; }
    View3D* view3d() const { return view3d_; }
    RunController* run() const { return run_; }
    Timeline* timeline() const { return timeline_; }
    ValuesPanel* values() const { return values_; }
    ChartsPanel* charts() const { return charts_; }
    AlertsPanel* alerts() const { return alerts_; }
    QProgressBar* progressBar() const { return progress_; }
    QComboBox* metricBox() const { return metric_box_; }
    const EntityRef& selection() const { return selection_; }
    /// The last problems dialog shown (nullptr if none), for tests.
    QDialog* problemsDialog() const { return problems_; }

    /// The demo scenario shipped with the program ("" when it cannot be found).
    static QString demoScenarioPath();

signals:
    /// A simulation ended: "finished", "cancelled" or "failed".
    void simulationEnded(const QString& how);

private:
    void buildMenus();
    void buildSceneToolbar();
    void openDialog();
    void openRunDialog();
    void simulateDialog();
    void screenshotDialog();
    void exportDialog();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void endSimulation(const QString& how, const QString& message);
    /// Whether the open run was recorded for the open scenario (or names none).
    bool runMatchesScenario() const;

    ScenarioDocument* doc_;
    RunController* run_;
    ScenarioTree* tree_;
    PropertiesPanel* props_;
    FloorPlanView* plan_;
    View3D* view3d_;
    QTabWidget* tabs_;
    Timeline* timeline_;
    ValuesPanel* values_;
    ChartsPanel* charts_;
    AlertsPanel* alerts_;
    QProgressBar* progress_;
    QPushButton* cancel_;
    QComboBox* metric_box_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QMenu* view_menu_ = nullptr;
    QDialog* problems_ = nullptr;
    SimulationJob* job_ = nullptr;
    EntityRef selection_;
};

} // namespace ct::app
