#pragma once
// Simulation > Run: the engine in a worker thread, recorded into a run database like clustertwin-cli simulate.
// Reports progress and live frames to the GUI thread; cancel stops it at the next step and keeps what was
// recorded as a shorter run.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include <QString>
#include <QThread>

#include <atomic>

namespace ct::app {

class SimulationJob : public QThread {
    Q_OBJECT
public:
    SimulationJob(model::Scenario s, model::Catalog c, double duration_s, QString db_path, std::vector<model::Event> extra_events = {},
                  QObject* parent = nullptr);
    void cancel() { cancel_ = true; }
    const QString& databasePath() const { return db_; }

signals:
    void progress(int percent);
    /// About four times a second, with the air field.
    void liveFrame(const ct::model::Frame& f);
    void succeeded(const QString& db_path, qint64 run);
    void cancelled(const QString& db_path, qint64 run);
    void failed(const QString& message);

protected:
    void run() override;

private:
    model::Scenario scenario_;
    model::Catalog catalog_;
    double duration_s_;
    std::vector<model::Event> extra_;
    QString db_;
    std::atomic<bool> cancel_{false};
};

} // namespace ct::app

Q_DECLARE_METATYPE(ct::model::Frame)
