#include "run_controller.hpp"

#include <QCoreApplication>
#include <QPointer>
#include <QThread>

#include <algorithm>

namespace ct::app {

RunController::RunController(QObject* parent) : QObject(parent) {
    timer_.setInterval(40);
    connect(&timer_, &QTimer::timeout, this, &RunController::tick);
}

RunController::~RunController() = default;

void RunController::openAsync(const QString& db_path, std::int64_t run) {
    loading_ = true;
    QPointer<RunController> self(this);
    QThread* worker = QThread::create([self, db_path, run] {
        std::shared_ptr<importers::RunReplay> replay;
        std::vector<double> fields;
        QString error;
        try {
            auto store = importers::TelemetryStore::open(db_path.toStdString(), importers::TelemetryStore::Mode::Existing);
            const auto runs = store.runs();
            if (runs.empty()) throw importers::ImportError(db_path.toStdString() + ": the database holds no run");
            const std::int64_t id = run > 0 ? run : runs.back().id;
            replay = std::make_shared<importers::RunReplay>(importers::RunReplay::load(store, id));
            fields = store.airFieldTimes(id);
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp, [self, replay, fields, db_path, error] {
                if (!self) return;
                self->loading_ = false;
                if (!replay) emit self->loadFailed(error);
                else self->adopt(replay, fields, db_path);
            },
            Qt::QueuedConnection);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void RunController::adopt(std::shared_ptr<importers::RunReplay> replay, std::vector<double> field_times, const QString& db) {
    pause();
    replay_ = std::move(replay);
    field_times_ = std::move(field_times);
    field_.reset();
    field_loaded_at_ = -1e300;
    db_path_ = db;
    store_.reset();
    if (!field_times_.empty()) {
        try {
            store_ = std::make_unique<importers::TelemetryStore>(importers::TelemetryStore::open(db.toStdString(), importers::TelemetryStore::Mode::Existing));
        } catch (const std::exception&) {
            field_times_.clear();  // replay without the air field
        }
    }
    t_ = duration();  // show the end state first: what the run led to
    updateFrame();
    emit runChanged();
    emit timeChanged(t_);
}

double RunController::duration() const { return replay_ ? replay_->endS() - replay_->startS() : 0.0; }
double RunController::absoluteTime() const { return replay_ ? replay_->startS() + t_ : t_; }

void RunController::setTime(double t_s) {
    if (!replay_) return;
    t_ = std::clamp(t_s, 0.0, duration());
    updateFrame();
    emit timeChanged(t_);
}

void RunController::updateFrame() {
    frame_ = replay_->frameAt(absoluteTime() + 1e-6);
    frame_.time_s = t_;
    // The stored air field at or before t: loaded only when a newer snapshot applies.
    auto it = std::upper_bound(field_times_.begin(), field_times_.end(), absoluteTime() + 1e-6);
    if (store_ && it != field_times_.begin()) {
        const double ft = *std::prev(it);
        if (ft != field_loaded_at_) {
            try {
                field_ = store_->airFieldAt(replay_->info().id, ft + 1e-9);
            } catch (const std::exception&) {
                field_.reset();
            }
            field_loaded_at_ = ft;
        }
    } else {
        field_.reset();
        field_loaded_at_ = -1e300;
    }
    frame_.air = field_;
}

void RunController::play() {
    if (!replay_ || playing()) return;
    if (t_ >= duration()) t_ = 0;
    wall_.start();
    timer_.start();
    emit playingChanged(true);
}

void RunController::pause() {
    if (!playing()) return;
    timer_.stop();
    emit playingChanged(false);
}

void RunController::setSpeed(double x) { speed_ = std::clamp(x, 1.0, 3600.0); }

void RunController::tick() {
    const double dt = wall_.restart() / 1000.0;
    setTime(t_ + dt * speed_);
    if (t_ >= duration()) pause();
}

} // namespace ct::app
