#pragma once
// The twin against its hall in the app (issue 44): scoring a run against measurements and calibrating the
// scenario on them, each in a worker thread so the window keeps responding; the calibration reports each run
// and stops at the next one on cancel. The same session calls as `clustertwin-cli score` and `calibrate`.
#include "measured_overlay.hpp"

#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/drive.hpp>
#include <clustertwin/session/score_run.hpp>

#include <QString>
#include <QThread>

#include <atomic>
#include <memory>

namespace ct::app {

class ScoreJob : public QThread {
    Q_OBJECT
public:
    /// `r.scenario` is ignored: the job keeps its own copy of `s` for the mapping of names.
    ScoreJob(session::ScoreRequest r, model::Scenario s, QObject* parent = nullptr);
    /// After finished(): the report and the measured series beside the run (nullptr on failure), or the error.
    const std::shared_ptr<const session::ScoreReport>& report() const { return report_; }
    const std::shared_ptr<const MeasuredOverlay>& overlay() const { return overlay_; }
    const QString& error() const { return error_; }

protected:
    void run() override;

private:
    session::ScoreRequest request_;
    model::Scenario scenario_;
    std::shared_ptr<const session::ScoreReport> report_;
    std::shared_ptr<const MeasuredOverlay> overlay_;
    QString error_;
};

class CalibrateJob : public QThread {
    Q_OBJECT
public:
    /// What the Calibrate dialog asks; the worker plans the drive, reads the measurements, parses the windows
    /// (durations from t = 0 or ISO 8601 times), fits, and writes the calibrated scenario to `out_path`.
    struct Setup {
        model::Scenario scenario;
        model::Catalog catalog;
        session::DriveRequest drive;
        std::vector<session::CalibParam> params;
        std::string train, validate;  ///< "A..B"
        sim::EngineOptions engine;
        double sample_s = 60;
        int max_runs = 60;
        double coarse_cell_m = 0;   ///< > 0: the search on this grid (CalibRequest::coarse_cell_m)
        bool noise_weights = true;  ///< each series' errors weighted by its noise (CalibRequest::noise_weights)
        std::string out_path;
    };
    explicit CalibrateJob(Setup s, QObject* parent = nullptr);
    void cancel() { cancel_ = true; }
    /// After finished(): the result (nullptr on failure or cancel), or the error.
    const std::shared_ptr<const session::CalibResult>& result() const { return result_; }
    const QString& error() const { return error_; }
    bool wasCancelled() const { return cancelled_; }
    const Setup& setup() const { return setup_; }

signals:
    /// After each evaluation: how many runs so far, of how many at most, and its training RMSE.
    void runDone(int run, int max_runs, double train_rmse);

protected:
    void run() override;

private:
    Setup setup_;
    std::atomic<bool> cancel_{false};
    std::shared_ptr<const session::CalibResult> result_;
    QString error_;
    bool cancelled_ = false;
};

}  // namespace ct::app
