#include "tour_player.hpp"
#include "qstr.hpp"

#include "run_dialog.hpp"

#include "main_window.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "scenario_tree.hpp"
#include "simulation_options.hpp"
#include "view3d.hpp"
#include "window_extras.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/render/scene.hpp>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

namespace ct::app {

namespace {}  // namespace

TourPlayer::TourPlayer(MainWindow& w) : QFrame(w.centralTabs()), w_(w) {
    setObjectName("tourPlayer");
    setStyleSheet(
        "#tourPlayer { background: rgba(12, 14, 20, 215); border-radius: 8px; } QLabel { color: white; } "
        "QPushButton { padding: 4px 12px; }");
    auto* l = new QVBoxLayout(this);
    caption_ = new QLabel(this);
    caption_->setObjectName("tourCaption");
    caption_->setWordWrap(true);
    QFont f = caption_->font();
    f.setPointSizeF(f.pointSizeF() * 1.7);
    caption_->setFont(f);
    l->addWidget(caption_);
    auto* row = new QHBoxLayout;
    counter_ = new QLabel(this);
    back_ = new QPushButton(tr("◀ Back"), this);
    pause_ = new QPushButton(tr("Pause"), this);
    next_ = new QPushButton(tr("Next ▶"), this);
    auto* stop = new QPushButton(tr("End tour"), this);
    row->addWidget(counter_);
    row->addStretch(1);
    for (QPushButton* b : {back_, pause_, next_, stop}) row->addWidget(b);
    l->addLayout(row);
    timer_ = new QTimer(this);
    timer_->setSingleShot(true);
    connect(timer_, &QTimer::timeout, this, &TourPlayer::next);
    connect(back_, &QPushButton::clicked, this, &TourPlayer::back);
    connect(next_, &QPushButton::clicked, this, &TourPlayer::next);
    connect(pause_, &QPushButton::clicked, this, [this] { setAutoplay(!autoplay_); });
    connect(stop, &QPushButton::clicked, this, &TourPlayer::stop);
    tabs_ = w.centralTabs();
    host_ = &w;
    tabs_->installEventFilter(this);
    qApp->installEventFilter(this);
    hide();
}

bool TourPlayer::eventFilter(QObject* o, QEvent* e) {
    // An application-wide filter sees events while the window is being destroyed too: it touches the window
    // only through guarded QObject pointers, never as a MainWindow.
    if (e->type() == QEvent::Resize && o == tabs_) place();
    // Esc ends the tour, then presentation mode, whichever widget has the focus (item views take Esc for
    // themselves otherwise).
    if (e->type() == QEvent::KeyPress && static_cast<QKeyEvent*>(e)->key() == Qt::Key_Escape) {
        const bool presenting = host_ && host_->property("presentation").toBool();
        if (running() || presenting) {
            if (running()) stop();
            else setPresentationMode(w_, false);
            return true;
        }
    }
    return QFrame::eventFilter(o, e);
}

void TourPlayer::place() {
    // Across the bottom of the central view, above the timeline.
    QWidget* host = tabs_;
    if (!host) return;
    const int width = std::min(host->width() - 40, 1100);
    adjustSize();
    const int height = std::max(sizeHint().height(), 90);
    setGeometry((host->width() - width) / 2, host->height() - height - 16, width, height);
    raise();
}

bool TourPlayer::start(const QString& path, QString* error) {
    try {
        tour_ = report::loadTour(QDir::toNativeSeparators(path).toStdString(), QDir(resourcesDir()).filePath("scenarios").toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        tour_.reset();
        return false;
    }
    const QString scenario = QFileInfo(qs(tour_->scenario)).canonicalFilePath();
    if (QFileInfo(w_.document().path()).canonicalFilePath() != scenario && !w_.openScenario(scenario)) {
        if (error) *error = tr("Cannot open the tour's scenario %1").arg(scenario);
        tour_.reset();
        return false;
    }
    step_ = -1;
    show();
    place();
    if (tour_->simulate_s) {
        // The steps replay a run: simulate it first (quick air, in the runs folder) and start once it is shown.
        waiting_ = true;
        caption_->setText(tr("Preparing the tour: simulating %1 of the hall…").arg(qs(model::formatDuration(*tour_->simulate_s))));
        counter_->setText(qs(tour_->title));
        for (QPushButton* b : {back_, next_, pause_}) b->setEnabled(false);
        connect(
            &w_, &MainWindow::simulationEnded, this,
            [this](const QString& how) {
                if (!tour_) return;
                if (how != "finished") {
                    caption_->setText(tr("The tour's simulation did not finish (%1).").arg(how));
                    return;
                }
                // The run is opened after the simulation ends: start when it is shown.
                connect(
                    w_.run(), &RunController::runChanged, this,
                    [this] {
                        waiting_ = false;
                        for (QPushButton* b : {back_, next_, pause_}) b->setEnabled(true);
                        if (tour_) showStep(0);
                    },
                    Qt::SingleShotConnection);
            },
            Qt::SingleShotConnection);
        // Quick air for the tour's run, named in the request: the user's own choice in Simulation > Room air is
        // left as it is.
        RunRequest request;
        request.duration_s = *tour_->simulate_s;
        request.air = "quick";
        if (!w_.runSimulation(request)) {
            if (error) *error = tr("Cannot start the tour's simulation (one is running already?)");
            stop();
            return false;
        }
        return true;
    }
    showStep(0);
    return true;
}

void TourPlayer::stop() {
    timer_->stop();
    if (w_.run()->playing()) w_.run()->pause();
    tour_.reset();
    step_ = -1;
    waiting_ = false;
    hide();
    emit finished();
}

QString TourPlayer::caption() const { return caption_->text(); }

void TourPlayer::setAutoplay(bool on) {
    autoplay_ = on;
    pause_->setText(on ? tr("Pause") : tr("Play"));
    if (!on) timer_->stop();
    else if (tour_ && step_ >= 0) timer_->start(static_cast<int>(1000 * tour_->steps[static_cast<std::size_t>(step_)].seconds));
}

void TourPlayer::next() {
    if (!tour_ || waiting_) return;
    if (step_ + 1 >= stepCount()) {
        stop();
        return;
    }
    showStep(step_ + 1);
}

void TourPlayer::back() {
    if (tour_ && !waiting_ && step_ > 0) showStep(step_ - 1);
}

void TourPlayer::showStep(int i) {
    if (!tour_ || i < 0 || i >= stepCount()) return;
    step_ = i;
    const report::TourStep& st = tour_->steps[static_cast<std::size_t>(i)];
    caption_->setText(qs(st.caption));
    counter_->setText(tr("%1 · %2 of %3").arg(qs(tour_->title)).arg(i + 1).arg(stepCount()));
    back_->setEnabled(i > 0);
    next_->setText(i + 1 < stepCount() ? tr("Next ▶") : tr("Finish"));
    apply(st);
    place();
    timer_->stop();
    if (autoplay_) timer_->start(static_cast<int>(1000 * st.seconds));
}

void TourPlayer::apply(const report::TourStep& st) {
    w_.centralTabs()->setCurrentWidget(w_.view3d());
    render::Scene* sc = w_.view3d()->scene();
    if (!st.metric.empty()) {
        const int k = w_.metricBox()->findData(qs(st.metric));
        if (k >= 0) w_.metricBox()->setCurrentIndex(k);
    }
    if (sc) {
        if (!st.camera.empty()) sc->setCamera(st.camera);
        render::Overlays o = sc->overlays();
        render::applyOverlaySettings(o, st.overlays);
        sc->setOverlays(o);
        // The toolbar shows what the step set (its toggles and spin boxes, found by their object names).
        for (const render::OverlayInfo& info : render::overlayTable()) {
            if (auto* a = w_.findChild<QAction*>(QString::fromStdString(info.object_name))) {
                const QSignalBlocker quiet(a);
                a->setChecked(o.*info.flag);
            }
            if (auto* box = info.value ? w_.findChild<QDoubleSpinBox*>(QString::fromStdString(info.object_name) + "Value") : nullptr) {
                const QSignalBlocker quiet(box);
                box->setValue(o.*info.value);
            }
        }
    }
    if (!st.select.empty()) {
        const EntityRef ref = w_.tree()->refFor(qs(st.select));
        if (ref.isValid()) w_.select(ref);
    }
    if (sc) {
        sc->setHighlighted(st.highlight);
        if (!st.focus.empty()) sc->focus(st.focus);
    }
    RunController* run = w_.run();
    if (run->hasRun()) {
        if (run->playing()) run->pause();
        if (st.time_s) run->setTime(*st.time_s);
        if (st.play_to_s && *st.play_to_s > run->time()) {
            run->setSpeed(std::clamp((*st.play_to_s - run->time()) / st.seconds, 1.0, 3600.0));
            run->play();
            const double stop_at = *st.play_to_s;
            QTimer::singleShot(static_cast<int>(1000 * st.seconds), this, [this, stop_at] {
                if (w_.run()->playing()) w_.run()->pause();
                if (tour_) w_.run()->setTime(stop_at);
            });
        }
    }
    w_.view3d()->update();
}

void populateToursMenu(QMenu* menu, TourPlayer& player) {
    menu->setObjectName("menuTours");
    const QDir dir(QDir(resourcesDir()).filePath("tours"));
    for (const QFileInfo& fi : dir.entryInfoList({"*.json"}, QDir::Files, QDir::Name)) {
        QFile f(fi.filePath());
        QString title = fi.baseName(), about;
        if (f.open(QIODevice::ReadOnly)) {
            const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
            if (o.contains("title")) title = o["title"].toString();
            about = o["description"].toString();
        }
        QAction* a = menu->addAction(title, &player, [&player, p = fi.filePath()] {
            QString error;
            if (!player.start(p, &error))
                if (auto* mw = qobject_cast<QMainWindow*>(player.window())) mw->statusBar()->showMessage(error, 10000);
        });
        a->setToolTip(about);
        a->setStatusTip(about);
        a->setData(fi.filePath());
    }
    menu->setToolTipsVisible(true);
    menu->setEnabled(!menu->isEmpty());
}

void setPresentationMode(MainWindow& w, bool on) {
    if (on == presentationMode(w)) return;
    w.setProperty("presentation", on);
    // Docks, toolbars and the menu bar out of the way; the central view and its timeline fill the screen.
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
        if (on) d->setProperty("visibleBeforePresentation", d->isVisible());
        d->setVisible(on ? false : d->property("visibleBeforePresentation").toBool());
    }
    for (QToolBar* t : w.findChildren<QToolBar*>()) t->setVisible(!on);
    w.menuBar()->setVisible(!on);
    w.statusBar()->setVisible(!on);
    // Large type: the app's font and the 3D view's text.
    QFont f = w.font();
    f.setPointSizeF(on ? f.pointSizeF() * 1.5 : f.pointSizeF() / 1.5);
    w.setFont(f);
    w.view3d()->setTextScale(on ? 1.8 : 1.0);
    if (on) w.showFullScreen();
    else w.showNormal();
    w.view3d()->update();
}

bool presentationMode(const MainWindow& w) { return w.property("presentation").toBool(); }

}  // namespace ct::app
