#include "run_controller.hpp"

#include <clustertwin/model/time.hpp>

#include <cmath>

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

std::shared_ptr<std::atomic<bool>> RunController::beginLoad() {
    cancelLoad();  // the newest request wins
    loading_ = true;
    emit loadingChanged(true);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    cancel_load_ = cancel;
    return cancel;
}

void RunController::growAsync(const QString& db_path, std::int64_t run) {
    if (!replay_ || db_path_ != db_path || replay_->info().id != run || replay_->info().kind != "simulated") {
        openAsync(db_path, run);
        return;
    }
    if (since_growth_.isValid() && since_growth_.elapsed() < 4 * growth_cost_ms_) return;  // the views are still busy
    auto cancel = beginLoad();
    QPointer<RunController> self(this);
    // The worker copies the shown replay (the GUI thread only reads it meanwhile: a simulated run is never renamed)
    // and reads what was written since into the copy.
    std::shared_ptr<const runs::RunReplay> base = replay_;
    QThread* worker = QThread::create([self, db_path, base, cancel] {
        std::shared_ptr<runs::RunReplay> grown;
        std::vector<double> fields;
        QString error;
        try {
            auto store = runs::TelemetryStore::open(db_path.toStdString(), runs::TelemetryStore::Mode::Existing);
            grown = std::make_shared<runs::RunReplay>(*base);
            grown->extend(store);
            fields = store.airFieldTimes(grown->info().id);
        } catch (const std::exception& e) {
            grown.reset();
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, grown, fields, error, cancel] {
                if (!self || *cancel) return;
                self->loading_ = false;
                self->cancel_load_.reset();
                emit self->loadingChanged(false);
                if (!grown) emit self->loadFailed(error);
                else self->grow(grown, fields);
            },
            Qt::QueuedConnection);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void RunController::grow(std::shared_ptr<runs::RunReplay> replay, std::vector<double> field_times) {
    const bool at_end = t_ >= duration() - 1e-6;
    replay_ = std::move(replay);
    ++growths_;
    if (store_ == nullptr && !field_times.empty()) {
        try {
            store_ = std::make_unique<runs::TelemetryStore>(
                runs::TelemetryStore::open(db_path_.toStdString(), runs::TelemetryStore::Mode::Existing));
        } catch (const std::exception&) {
            field_times.clear();
        }
    }
    field_times_ = std::move(field_times);
    if (at_end) t_ = duration();  // following the newest time; a user who went back stays there
    QElapsedTimer cost;
    cost.start();
    updateFrame();
    emit runChanged();
    emit timeChanged(t_);
    growth_cost_ms_ = cost.elapsed();
    since_growth_.start();
}

void RunController::openAsync(const QString& db_path, std::int64_t run) {
    auto cancel = beginLoad();
    emit loadProgress(0);
    QPointer<RunController> self(this);
    QThread* worker = QThread::create([self, db_path, run, cancel] {
        std::shared_ptr<runs::RunReplay> replay;
        std::vector<double> fields;
        QString error;
        try {
            auto store = runs::TelemetryStore::open(db_path.toStdString(), runs::TelemetryStore::Mode::Existing);
            const auto runs = store.runs();
            if (runs.empty()) throw runs::StoreError(db_path.toStdString() + ": the database holds no run");
            // Without a choice: the newest run that holds samples (an import that failed or a run cut off
            // before its first record is never opened in place of one that has data).
            std::int64_t id = run > 0 ? run : runs.back().id;
            if (run <= 0)
                for (auto it = runs.rbegin(); it != runs.rend(); ++it)
                    if (store.timeSpan(it->id)) {
                        id = it->id;
                        break;
                    }
            int last = -1;
            replay = std::make_shared<runs::RunReplay>(runs::RunReplay::load(store, id, [&](double f) {
                const int pct = static_cast<int>(95 * f);
                if (pct != last) {
                    last = pct;
                    QMetaObject::invokeMethod(
                        qApp,
                        [self, pct, cancel] {
                            if (self && !*cancel) emit self->loadProgress(pct);
                        },
                        Qt::QueuedConnection);
                }
                return !*cancel;
            }));
            fields = store.airFieldTimes(id);
        } catch (const runs::StoreCancelled&) {
            replay.reset();
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            qApp,
            [self, replay, fields, db_path, error, cancel] {
                if (!self || *cancel) return;  // cancelled, or a newer request took over
                self->loading_ = false;
                self->cancel_load_.reset();
                emit self->loadingChanged(false);
                if (!replay) {
                    emit self->loadFailed(error);
                } else if (!self->gate_ || self->gate_(*replay, db_path)) {
                    self->adopt(replay, fields, db_path);
                }
            },
            Qt::QueuedConnection);
    });
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void RunController::cancelLoad() {
    if (!cancel_load_) return;
    *cancel_load_ = true;
    cancel_load_.reset();
    loading_ = false;
    emit loadingChanged(false);
}

void RunController::close() {
    cancelLoad();
    if (!replay_) return;
    pause();
    replay_.reset();
    store_.reset();
    field_times_.clear();
    field_.reset();
    field_loaded_at_ = -1e300;
    db_path_.clear();
    frame_ = {};
    t_ = 0;
    emit runChanged();
    emit timeChanged(t_);
}

void RunController::adopt(std::shared_ptr<runs::RunReplay> replay, std::vector<double> field_times, const QString& db) {
    pause();
    replay_ = std::move(replay);
    ++loads_;
    field_times_ = std::move(field_times);
    field_.reset();
    field_loaded_at_ = -1e300;
    db_path_ = db;
    store_.reset();
    if (!field_times_.empty()) {
        try {
            store_ =
                std::make_unique<runs::TelemetryStore>(runs::TelemetryStore::open(db.toStdString(), runs::TelemetryStore::Mode::Existing));
        } catch (const std::exception&) {
            field_times_.clear();  // replay without the air field
        }
    }
    t_ = duration();  // show the end state first: what the run led to
    updateFrame();
    emit runChanged();
    emit timeChanged(t_);
}

std::size_t RunController::mapHosts(const std::map<std::string, std::string>& host_to_node) {
    if (!replay_ || replay_->info().kind == "simulated") return 0;
    // Called after every edit: the same host names change nothing, and must not look like a new run to the
    // docks (the alert list would drop its acknowledgements).
    if (replay_->hostMap() == host_to_node) return 0;
    const std::size_t n = replay_->mapHosts(host_to_node);
    updateFrame();
    emit runChanged();
    emit timeChanged(t_);
    return n;
}

QString wallClockText(double unix_s) {
    QString iso = QString::fromStdString(model::formatIsoTime(unix_s));  // 2023-11-14T22:13:20Z
    return iso.replace('T', ' ').replace("Z", " UTC");
}

double RunController::wallClockAt(double t_s) const {
    if (!replay_) return std::nan("");
    const runs::RunInfo& info = replay_->info();
    if (info.kind == "imported") return replay_->startS() + t_s;
    if (info.meta.time_origin_unix) return *info.meta.time_origin_unix + t_s;
    return std::nan("");
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
    frame_ = replay_->frameAt(absoluteTime());
    // The stored air field at or before t: loaded only when a newer snapshot applies.
    auto it = std::upper_bound(field_times_.begin(), field_times_.end(), absoluteTime() + 1e-6);
    if (store_ && it != field_times_.begin()) {
        const double ft = *std::prev(it);
        if (ft != field_loaded_at_) {
            try {
                model::Frame fields;
                store_->loadAirFields(replay_->info().id, ft + 1e-9, fields);  // every hall's
                field_ = std::move(fields.air);
                other_fields_ = std::move(fields.other_halls_air);
            } catch (const std::exception&) {
                field_.reset();
                other_fields_.clear();
            }
            field_loaded_at_ = ft;
        }
    } else {
        field_.reset();
        other_fields_.clear();
        field_loaded_at_ = -1e300;
    }
    frame_.air = field_;
    frame_.other_halls_air = field_ ? other_fields_ : std::vector<model::AirField>{};
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

}  // namespace ct::app
