#pragma once
// The main window: the 3D view (and the 2D floor plan) in the centre; scenario tree, inspector (properties and
// current values), charts and alerts in docks; the timeline below. Views talk through ScenarioDocument,
// RunController and EntityRef selections; the window only wires them (contributing.md habit 12).
#include "entity_ref.hpp"

#include <QMainWindow>

#include <clustertwin/model/scenario.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QMessageBox;
class QTimer;

namespace ct::runs {
class RunReplay;
}
namespace ct::model {
struct Event;
struct Frame;
}  // namespace ct::model

class QMenu;
class QDialog;
class QProgressBar;
class QPushButton;
class QComboBox;
class QTabWidget;
class QDockWidget;

namespace ct::app {
struct RunMatch;
class ScenarioDocument;
class ScenarioTree;
class PropertiesPanel;
class FloorPlanView;
class View3D;
class CompareView;
class JobsPanel;
class TourPlayer;
class FabricPanel;
class RunController;
class Timeline;
class ValuesPanel;
class ChartsPanel;
class AlertsPanel;
class RunExplainer;
struct RunRequest;
class SimulationControl;
class SimulationOptions;
class NoticeBar;
class TwinPanel;
struct MeasuredOverlay;
class DocumentGuard;
class ChecksPanel;
class EditController;
class TelemetryControl;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a scenario; on failure shows the problems dialog (window-modal, non-blocking) and keeps the
    /// current one. Returns whether it opened.
    bool openScenario(const QString& path);
    /// Opens the scenario a run kept (RunMeta::scenario_json): `file` with that version applied as an unsaved
    /// edit, or that version alone when the file is gone (ScenarioDocument::loadVersion).
    bool openScenarioVersion(const std::string& json, const QString& file);
    /// Opens a run or telemetry database (newest run) in the background; the timeline binds to it.
    void openRun(const QString& db_path);
    /// Opens a database the user chose: with several runs, the run picker first (File > Open run, drops).
    void chooseRun(const QString& db_path);
    /// Simulation > Run without the dialog: simulates the open scenario for `duration_s` into `db_path`
    /// ("" = a new file under the app's data folder) in a worker thread. False when one is running.
    /// `steady`: stop once the inlets hold still (Analysis > Steady state), with duration_s as the most it runs.
    /// A run with the Run dialog's options (more jobs, events left out, step, solver, steady).
    bool runSimulation(const RunRequest& request, const QString& db_path = {});
    bool runSimulation(double duration_s, const QString& db_path = {}, const std::vector<model::Event>& extra_events = {},
                       bool steady = false);
    /// What-if (issue 6): simulates the scenario as it is (the baseline) and with `target` failing after one
    /// minute, each for `duration_s`, into two databases in `dir` ("" = the app's data folder); then replays
    /// the what-if run coloured by the change of node inlet against the baseline. False when it cannot start.
    bool runWhatIf(const EntityRef& target, double duration_s, const QString& dir = {});
    /// A what-if of several failures (and restores), as Simulation > What-if… builds them.
    bool runWhatIfEvents(const std::vector<model::Event>& events, double duration_s, const QString& dir = {});
    /// Colours the replay by its difference from the baseline run (when one is loaded).
    void setCompareWithBaseline(bool on);
    /// Compares the shown run with run `run` of `db` (0: its newest) of the same scenario: loaded in the
    /// background, then the Compare tab and the difference colouring show the shown run against it
    /// (comparisonReady, or comparisonFailed with why). A run that names its baseline (a what-if's or a sweep
    /// variant's metadata) gets it this way when it is opened.
    void compareWithRun(const QString& db, std::int64_t run = 0);
    /// Simulation > Compare with another run…: a database and one of its runs.
    void compareWithRunDialog();
    bool comparing() const { return compare_; }
    const runs::RunReplay* baseline() const;
    /// Impact query on an entity: lists it in the checks dock and highlights what is affected in 3D.
    bool showImpact(const EntityRef& target, QString* error = nullptr);
    /// Analysis > Trace path (issue 40): the route the fabric gives traffic from GPU `from` to GPU `to` (a node id
    /// stands for its first GPU), its cables lit in the 3D view and the path said in the status bar. False with
    /// why when there is no such GPU or route. Returns the number of cables lit through `lit`.
    bool tracePath(const QString& from, const QString& to, QString* error = nullptr, std::size_t* lit = nullptr);
    /// Saves the scenario (atomically); "" = its current file.
    bool saveScenario(const QString& path = {}, QString* error = nullptr);
    void setAutosaveInterval(int ms);
    /// Where Simulation > Run and What-if put their databases (default: runs/ in the app's data folder).
    void setRunsFolder(const QString& dir);
    QString runsFolder() const;
    /// The recovery question shown when an autosave newer than the opened file exists (nullptr if none).
    QMessageBox* recoveryDialog() const;
    void cancelSimulation();
    bool simulationRunning() const;
    void select(const EntityRef& ref);
    /// Writes the selection's recorded series as a long CSV (time_s,entity,metric,value,unit).
    bool exportSelectionCsv(const QString& path, QString* error = nullptr);

    ScenarioDocument& document() { return *doc_; }
    ScenarioTree* tree() const { return tree_; }
    PropertiesPanel* properties() const { return props_; }
    FloorPlanView* floorPlan() const { return plan_; }
    View3D* view3d() const { return view3d_; }
    /// The Compare tab: baseline and what-if side by side (enabled once a what-if has run).
    CompareView* compareView() const { return compare_view_; }
    JobsPanel* jobs() const { return jobs_; }
    FabricPanel* fabric() const { return fabric_; }
    /// Help > Guided tours plays through this.
    TourPlayer* tours() const { return tour_; }
    QTabWidget* centralTabs() const { return tabs_; }
    RunController* run() const { return run_; }
    Timeline* timeline() const { return timeline_; }
    ValuesPanel* values() const { return values_; }
    ChartsPanel* charts() const { return charts_; }
    /// The Twin dock: the shown run scored against its hall's measurements, and calibration (issue 44).
    TwinPanel* twin() const { return twin_; }
    /// Simulation > Calibrate…: the calibration dialog on `measured_db` (non-modal; the last one opened).
    QDialog* openCalibration(const QString& measured_db, const QString& map = {});
    AlertsPanel* alerts() const { return alerts_; }
    ChecksPanel* checks() const { return checks_; }
    EditController* edits() const { return edits_; }
    /// File > Import telemetry… and Connect to Prometheus….
    TelemetryControl* telemetry() const { return telemetry_; }
    QProgressBar* progressBar() const { return progress_; }
    SimulationOptions* simulationOptions() const { return sim_options_; }
    QComboBox* metricBox() const { return metric_box_; }
    const EntityRef& selection() const { return selection_; }
    /// The last problems dialog shown (nullptr if none), for tests.
    QDialog* problemsDialog() const { return problems_; }
    /// The last "this run belongs to another scenario" prompt (nullptr if none), for tests.
    QMessageBox* runMismatchDialog() const { return run_mismatch_; }
    /// What the notice bar above the 3D view says ("" when hidden).
    NoticeBar* notice() const { return notice_; }

    /// The demo scenario shipped with the program ("" when it cannot be found).
    static QString demoScenarioPath();

signals:
    /// A simulation ended: "finished", "cancelled" or "failed".
    void simulationEnded(const QString& how);
    /// Both runs of a what-if are done and the comparison is shown.
    void whatIfReady();
    /// compareWithRun: the comparison is shown, or why not.
    void comparisonReady();
    void comparisonFailed(const QString& why);

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    // main_window_compare.cpp
    void adoptBaseline(std::shared_ptr<runs::RunReplay> run, const QString& db, std::int64_t id);
    void followNamedBaseline();  ///< the shown run's named baseline, when it has one that is not shown already
    // main_window_setup.cpp: the constructor's parts.
    NoticeBar* buildCentre();  ///< the tabs (3D, floor plan, compare), notices and timeline; returns the result notice
    QList<QDockWidget*> buildDocks(NoticeBar& result_notice);  ///< tree, inspector, charts, alerts, checks, jobs, fabric
    void buildStatusBar();                                     ///< progress and Cancel
    void connectSimulations();                                 ///< SimulationControl: progress, live frames, what-if runs
    void connectRunLoading();                                  ///< opening a database: progress, Cancel, the gate
    void connectSelection();                                   ///< picks in every view, the navigator, edits from the plan and the 3D view
    void connectDocument();                                    ///< edits and opened scenarios; the run's changes
    void buildMenus();
    void buildSimulationMenu(QMenu* sim);  ///< run, cancel, the air solver, what-if, score and calibrate
    void buildSceneToolbar();
    void openDialog();
    void openRunDialog();
    void simulateDialog();
    void screenshotDialog();
    void exportDialog();
    void updateRecentMenu();
    void addRecent(const QString& path);
    void endSimulation(const QString& how, const QString& message);
    /// Whether the open run belongs to the open scenario (RunMatch::shown()).
    bool runMatchesScenario() const;
    RunMatch matchWithScenario(const runs::RunReplay& run) const;
    /// Sets run_matches_ and what the notice bar says for a run that is (or is not) shown.
    void showRunMatch(const RunMatch& m);
    /// Matches the open run with the open scenario again (after an edit or a switch); closes it when it no
    /// longer belongs.
    void bindOpenRun();
    /// The run controller's gate: shows a run that belongs to the open scenario (with a notice when it was
    /// edited since), turns others away with a prompt that offers the run's own scenario.
    bool admitRun(runs::RunReplay& run, const QString& db);
    /// A different scenario was opened: the run (unless it is this scenario's), the baseline, the comparison,
    /// the impact and the notices are dropped, so that nothing of the last one is shown on this one.
    void resetForNewScenario();

    ScenarioDocument* doc_;
    RunController* run_;
    ScenarioTree* tree_;
    PropertiesPanel* props_;
    FloorPlanView* plan_;
    View3D* view3d_;
    CompareView* compare_view_;
    JobsPanel* jobs_ = nullptr;
    TourPlayer* tour_ = nullptr;
    FabricPanel* fabric_ = nullptr;
    QTabWidget* tabs_;
    Timeline* timeline_;
    ValuesPanel* values_;
    ChartsPanel* charts_;
    AlertsPanel* alerts_;
    RunExplainer* explainer_;
    QAction* run_action_ = nullptr;
    std::vector<model::Event> whatif_events_;  // the failures of the last what-if asked for
    QProgressBar* progress_;
    QPushButton* cancel_;
    QComboBox* metric_box_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QMenu* view_menu_ = nullptr;
    QDialog* problems_ = nullptr;
    SimulationControl* sims_ = nullptr;
    SimulationOptions* sim_options_ = nullptr;
    NoticeBar* notice_ = nullptr;
    QMessageBox* run_mismatch_ = nullptr;
    bool run_matches_ = false;  ///< the open run belongs to the open scenario
    /// The run being computed is what every view shows (timeline, inspector, alerts, 3D), reloaded from its
    /// database as it grows, until the user opens another run.
    bool follow_simulation_ = false;
    void showRunInProgress(const QString& db_path, qint64 run);
    EntityRef selection_;
    ChecksPanel* checks_;
    EditController* edits_;
    TelemetryControl* telemetry_ = nullptr;
    QTimer* autosave_;
    DocumentGuard* guard_ = nullptr;
    bool compare_ = false;
    QAction* compare_action_ = nullptr;
    void showFrame();
    /// main_window_twin.cpp: the Twin dock (tabbed with `beside`) and what it drives.
    QDockWidget* buildTwin(QDockWidget* beside);
    /// The frame with each node's inlet replaced by simulated − measured (NaN where nothing was measured).
    model::Frame residualFrame() const;
    TwinPanel* twin_ = nullptr;
    std::shared_ptr<const MeasuredOverlay> measured_;
    QDialog* calibration_ = nullptr;
    void updateTitle();
    void whatIfDialog();
};

}  // namespace ct::app
