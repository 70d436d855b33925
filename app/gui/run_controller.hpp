#pragma once
// The replay clock (contributing.md habit 10): a run database bound to a time in seconds from the run's start, with
// play, pause and speed. Views observe it; loading runs in a worker so the window keeps responding.
#include <clustertwin/model/frame.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QElapsedTimer>
#include <QObject>

#include <QString>
#include <QTimer>
#include <map>
#include <string>

#include <atomic>
#include <functional>
#include <memory>

namespace ct::app {

/// A wall-clock time as the app writes it: "2023-11-14 22:13:20 UTC".
QString wallClockText(double unix_s);

class RunController : public QObject {
    Q_OBJECT
public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    /// Loads the newest run that holds samples (or `run`) of a database in a worker thread; emits runChanged or loadFailed (or
    /// nothing when the gate turns it away or the load is cancelled). Reports loadProgress on the way.
    void openAsync(const QString& db_path, std::int64_t run = 0);
    /// A simulated run being recorded, shown as it grows: when it is the shown run, only what was written since is
    /// read, in a worker (RunReplay::extend), and shown at the newest time if the user was there, else at the same
    /// time; otherwise as openAsync. Showing a grown run costs the GUI thread what the views take to redraw it,
    /// which grows with the run: a request that comes sooner after the last than four times that cost is let go
    /// (the next checkpoint's brings it all), so the window stays responsive. `growths()` counts the extensions
    /// shown, `loads()` the whole loads.
    void growAsync(const QString& db_path, std::int64_t run);
    int growths() const { return growths_; }
    int loads() const { return loads_; }
    /// Stops a load in progress (its result is dropped; the shown run stays).
    void cancelLoad();
    /// Asked before a loaded run is shown: false keeps the current one (the gate says why to the user).
    /// Decides whether a loaded run is shown; it may rename the run's hosts to the scenario's nodes first.
    void setGate(std::function<bool(runs::RunReplay&, const QString& db_path)> gate) { gate_ = std::move(gate); }
    /// Renames imported hosts to the nodes of the open scenario (RunReplay::mapHosts) and refreshes what
    /// shows the run. Returns how many entities are renamed (0 too when the names are those already applied:
    /// then nothing is refreshed).
    std::size_t mapHosts(const std::map<std::string, std::string>& host_to_node);
    /// Drops the run: the views go back to the scenario's design values (runChanged with hasRun() false).
    void close();
    bool loading() const { return loading_; }
    bool hasRun() const { return replay_ != nullptr; }
    const runs::RunReplay* replay() const { return replay_.get(); }
    const QString& databasePath() const { return db_path_; }

    /// Seconds from the run's start.
    double time() const { return t_; }
    double duration() const;
    /// The wall-clock time (Unix s) at `t_s` from the run's start, where the run has one: imported telemetry
    /// (its stored times are Unix seconds) and runs driven by measurements (their measured t = 0); NaN for a
    /// simulated run, whose time is relative.
    double wallClockAt(double t_s) const;
    /// Absolute time of the store (run start + time()).
    double absoluteTime() const;
    void setTime(double t_s);
    void play();
    void pause();
    bool playing() const { return timer_.isActive(); }
    /// Simulated seconds per wall second (1 to 3600).
    void setSpeed(double x);
    double speed() const { return speed_; }
    /// The frame at the current time, with the stored air field when the run has one.
    const model::Frame& frame() const { return frame_; }

signals:
    void runChanged();
    void loadFailed(const QString& message);
    /// While a database loads: percent done (0-100); loadingChanged(false) when it ends in any way.
    void loadProgress(int percent);
    void loadingChanged(bool loading);
    void timeChanged(double t_s);
    void playingChanged(bool playing);

private:
    void tick();
    void updateFrame();
    void adopt(std::shared_ptr<runs::RunReplay> replay, std::vector<double> field_times, const QString& db);
    void grow(std::shared_ptr<runs::RunReplay> replay, std::vector<double> field_times);
    /// A new load's cancel flag (the newest request wins), loading() and loadingChanged(true).
    std::shared_ptr<std::atomic<bool>> beginLoad();
    std::shared_ptr<runs::RunReplay> replay_;
    std::unique_ptr<runs::TelemetryStore> store_;  // for air fields, read on demand
    std::vector<double> field_times_;
    double field_loaded_at_ = -1e300;
    std::optional<model::AirField> field_;
    std::vector<model::AirField> other_fields_;  ///< the other halls' fields at the same time
    QString db_path_;
    model::Frame frame_;
    double t_ = 0, speed_ = 60;
    bool loading_ = false;
    int growths_ = 0, loads_ = 0;
    QElapsedTimer since_growth_;  ///< since the last grown run was shown
    qint64 growth_cost_ms_ = 0;   ///< what showing it took the GUI thread
    std::shared_ptr<std::atomic<bool>> cancel_load_;
    std::function<bool(runs::RunReplay&, const QString&)> gate_;
    QTimer timer_;
    QElapsedTimer wall_;
};

}  // namespace ct::app
