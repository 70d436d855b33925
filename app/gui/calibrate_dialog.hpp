#pragma once
// Simulation > Calibrate… (issue 44): fits the open scenario's physical parameters to a hall's measurements, as
// `clustertwin-cli calibrate` does — which parameters (each with its target, bounds and start), the training and
// validation windows, the runs' air, step and how many the optimiser may take, and where the calibrated
// scenario goes. The fit runs in a worker (CalibrateJob) with a progress bar and Cancel; the result says the
// training and validation error before and after, and the calibrated scenario can be opened from here.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QCheckBox;
class QTableWidget;

namespace ct::app {
class CalibrateJob;

class CalibrateDialog : public QDialog {
    Q_OBJECT
public:
    CalibrateDialog(const model::Scenario& s, const model::Catalog& c, const QString& measured_db, const QString& map,
                    const QString& scenario_path, QWidget* parent = nullptr);
    ~CalibrateDialog() override;
    /// Checks the fields and starts the fit; false (the problems shown) when they do not fit together.
    bool start();
    bool running() const { return job_ != nullptr; }
    void cancel();

    QTableWidget* parameters() const { return params_; }
    QLineEdit* measuredEdit() const { return measured_; }
    QLineEdit* trainEdit() const { return train_; }
    QLineEdit* validateEdit() const { return validate_; }
    QComboBox* airBox() const { return air_; }
    QLineEdit* stepEdit() const { return step_; }
    QSpinBox* maxRunsBox() const { return max_runs_; }
    QComboBox* weightsBox() const { return weights_; }
    QLineEdit* outEdit() const { return out_; }
    QLabel* problems() const { return problems_; }
    QLabel* result() const { return result_; }
    QProgressBar* progress() const { return progress_; }
    QPushButton* openButton() const { return open_; }

signals:
    /// The fit ended and wrote its scenario (or failed, or was cancelled: ok false and why).
    void calibrationEnded(bool ok, const QString& message);
    /// "Open the calibrated scenario" was pressed.
    void openCalibrated(const QString& path);

protected:
    void reject() override;

private:
    QWidget* buildParameters();
    void jobFinished();
    const model::Scenario& scenario_;
    const model::Catalog& catalog_;
    QTableWidget* params_;
    QLineEdit* measured_;
    QLineEdit* map_;
    QLineEdit* train_;
    QLineEdit* validate_;
    QComboBox* air_;
    QLineEdit* step_;
    QSpinBox* max_runs_;
    QComboBox* weights_;  ///< each series' errors by its noise (the default), or every sample alike
    QCheckBox* coarse_;   ///< the search on a grid twice as coarse, mapped onto the fine one
    QLineEdit* out_;
    QLabel* problems_;
    QLabel* result_;
    QProgressBar* progress_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* open_;
    CalibrateJob* job_ = nullptr;
};

}  // namespace ct::app
