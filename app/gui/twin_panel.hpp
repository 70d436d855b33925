#pragma once
// The Twin dock (issue 44): the shown run against what its hall measured. Score pairs every measured series with
// the run's (session::scoreRun, in a worker) and lists the errors — overall, per entity kind, per time window,
// per series — beside the naive baseline's (every inlet at the supply temperature) and the twin's skill over it.
// After a score the Charts dock draws the measurements dotted beside the run's curves, and the views can colour
// each node by its inlet's residual (simulated − measured). Calibrate… opens the calibration on the same
// measurements. A driven run names its measurements, so the field starts filled.
#include "measured_overlay.hpp"

#include <QWidget>

#include <cstdint>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace ct::session {
struct ScoreReport;
}

namespace ct::app {
class RunController;
class ScenarioDocument;
class ScoreJob;

class TwinPanel : public QWidget {
    Q_OBJECT
public:
    TwinPanel(const RunController& run, const ScenarioDocument& doc, QWidget* parent = nullptr);
    ~TwinPanel() override;

    /// Scores the shown run against the measurements named in the field, in a worker; scored() or failed()
    /// follow. False (with why) when there is no run, no measurements, or a score is running.
    bool score(QString* why = nullptr);
    bool scoring() const { return job_ != nullptr; }
    /// The last score of the shown run (nullptr before one, or after the run changed).
    const session::ScoreReport* report() const { return report_.get(); }
    const std::shared_ptr<const MeasuredOverlay>& overlay() const { return overlay_; }

    QLineEdit* measuredEdit() const { return measured_; }
    QLineEdit* mapEdit() const { return map_; }
    QPushButton* scoreButton() const { return score_; }
    QPushButton* calibrateButton() const { return calibrate_; }
    QComboBox* levelBox() const { return level_; }
    QTableWidget* table() const { return table_; }
    QCheckBox* residualBox() const { return residual_; }
    QLabel* status() const { return status_; }

signals:
    void scored();
    void failed(const QString& message);
    /// The measurements beside the run changed (nullptr: none).
    void overlayChanged(std::shared_ptr<const MeasuredOverlay> overlay);
    void residualColouring(bool on);
    /// A series row was double-clicked: show that entity and metric.
    void seriesActivated(const QString& entity, const QString& metric);
    void calibrateRequested(const QString& measured_db, const QString& map);

private:
    void runChanged();
    void jobFinished();
    void fillTable();
    const RunController& run_;
    const ScenarioDocument& doc_;
    QLineEdit* measured_;
    QLineEdit* map_;
    QPushButton* score_;
    QPushButton* calibrate_;
    QLabel* status_;
    QComboBox* level_;
    QTableWidget* table_;
    QCheckBox* residual_;
    ScoreJob* job_ = nullptr;
    QString scored_db_;  ///< the run the running score is of
    std::int64_t scored_run_ = 0;
    std::shared_ptr<const session::ScoreReport> report_;
    std::shared_ptr<const MeasuredOverlay> overlay_;
};

}  // namespace ct::app
