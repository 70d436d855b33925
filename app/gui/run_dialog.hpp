#pragma once
// Simulation > Run: what a run needs besides the scenario — simulated time, engine step, room-air solver, stop
// at steady state, more jobs from a jobs file, which of the scenario's scheduled events to include and more
// events from an events file (issue 16), and the measurements that drive it (issue 44). Files are checked when OK
// is pressed; problems are listed with their
// file and JSON pointer and the dialog stays open.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QDialog>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace ct::app {

struct RunRequest {
    double duration_s = 900;
    double step_s = 1;
    std::string air = "lbm";  ///< a solver of sim::airSolvers(); the first is the default
    bool steady = false;
    std::vector<model::Job> extra_jobs;
    std::vector<model::Event> extra_events;
    std::vector<int> skipped_events;  ///< indices into the scenario's events left out of this run
    /// Driven by a hall's measurements (session::planDrive, planned in the run's worker): the database (empty:
    /// not driven; its latest run), a map file, and whether the run lasts as long as the measurements.
    std::string drive_db, drive_map;
    bool drive_span = true;
    /// A what-if's failure run: its baseline ("<database>, run N") and its changes, for the run's metadata.
    std::string whatif_baseline;
    std::vector<std::string> whatif_changes;

    /// The scenario as this run simulates it: extra jobs added, skipped events removed (extra events are
    /// given to the engine separately, so they stay visible as this run's own).
    model::Scenario applyTo(const model::Scenario& s) const;
};

class RunDialog : public QDialog {
    Q_OBJECT
public:
    RunDialog(const model::Scenario& s, const model::Catalog& c, const std::string& air, QWidget* parent = nullptr);
    /// What was asked (valid after accept()).
    const RunRequest& request() const { return request_; }
    /// For tests: the fields.
    QLineEdit* durationEdit() const { return duration_; }
    QLineEdit* stepEdit() const { return step_; }
    QComboBox* airBox() const { return air_; }
    QCheckBox* steadyBox() const { return steady_; }
    QLineEdit* jobsEdit() const { return jobs_; }
    QLineEdit* eventsEdit() const { return events_; }
    QListWidget* scenarioEvents() const { return scenario_events_; }
    QLabel* problems() const { return problems_; }
    QLineEdit* driveEdit() const { return drive_; }
    QLineEdit* driveMapEdit() const { return drive_map_; }
    QCheckBox* driveSpanBox() const { return drive_span_; }

public slots:
    void accept() override;

private:
    QGroupBox* driveGroup();
    const model::Scenario& scenario_;
    const model::Catalog& catalog_;
    QLineEdit* duration_;
    QLineEdit* step_;
    QComboBox* air_;
    QCheckBox* steady_;
    QLineEdit* jobs_;
    QLineEdit* events_;
    QListWidget* scenario_events_;
    QLabel* problems_;
    QLineEdit* drive_ = nullptr;
    QLineEdit* drive_map_ = nullptr;
    QCheckBox* drive_span_ = nullptr;
    RunRequest request_;
};

}  // namespace ct::app
