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

#include <algorithm>

namespace ct::app {

namespace {}  // namespace

TourPlayer::TourPlayer(MainWindow& w) : QFrame(w.centralTabs()), w_(w) {
    setObjectName("tourPlayer");
    // Opaque: a translucent panel over the OpenGL view kept the previous step's caption showing through (the
    // view does not repaint under a child that changed).
    setAutoFillBackground(true);
    setStyleSheet(
        "#tourPlayer { background: rgb(24, 27, 36); border-radius: 8px; } QLabel { color: white; } "
        "#tourNote { color: rgb(255, 190, 90); } #tourCounter { color: rgb(170, 178, 195); } QPushButton { padding: 4px 12px; }");
    auto* l = new QVBoxLayout(this);
    counter_ = new QLabel(this);  // the tour's title and where in it: a line of its own above the caption
    counter_->setObjectName("tourCounter");
    counter_->setWordWrap(true);
    l->addWidget(counter_);
    caption_ = new QLabel(this);
    caption_->setObjectName("tourCaption");
    caption_->setWordWrap(true);  // its type: place()
    l->addWidget(caption_);
    note_ = new QLabel(this);  // what the run does not bear out of this caption, when anything
    note_->setObjectName("tourNote");
    note_->setWordWrap(true);
    note_->hide();
    l->addWidget(note_);
    auto* row = new QHBoxLayout;
    back_ = new QPushButton(tr("◀ Back"), this);
    pause_ = new QPushButton(tr("Pause"), this);
    next_ = new QPushButton(tr("Next ▶"), this);
    auto* stop = new QPushButton(tr("End tour"), this);
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
    // At the top of the central view, in its middle three fifths: the colour bars run along the bottom, the
    // equipment legend stands at the top right.
    QWidget* host = tabs_;
    if (!host) return;
    // The caption's type follows the view: 1.7 × the window's on a tall one (presentation mode on a projector),
    // down to 1.15 × on a short one, where larger type would wrap the caption down over the subject in the middle.
    QFont f = caption_->font();
    f.setPointSizeF(w_.font().pointSizeF() * std::clamp(host->height() / 560.0, 1.15, 1.7));
    caption_->setFont(f);
    const int width = std::min({host->width() * 3 / 5, host->width() - 40, 1000});
    setFixedWidth(std::max(width, 200));
    adjustSize();
    const int height = std::max(heightForWidth(width), std::max(sizeHint().height(), 90));
    setGeometry((host->width() - width) / 2, 34, width, height);  // below the tab bar
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
    false_claims_.clear();
    before_ = {};
    before_.metric_index = w_.metricBox()->currentIndex();
    if (const render::Scene* sc = w_.view3d()->scene()) {
        before_.overlays = sc->overlays();
        before_.camera = sc->cameraState();
    }
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
                        if (!tour_) return;
                        // The captions against the run they play over: a claim it does not bear out is said so.
                        if (const auto* rp = w_.run()->replay()) false_claims_ = report::checkTour(*tour_, *rp);
                        showStep(0);
                    },
                    Qt::SingleShotConnection);
            },
            Qt::SingleShotConnection);
        // The air model the tour was written for, named in the request: the user's own choice in Simulation >
        // Room air is left as it is.
        RunRequest request;
        request.duration_s = *tour_->simulate_s;
        request.air = tour_->air;
        request.extra_events = tour_->events;  // what the tour's run adds to the scenario's own events and jobs
        request.extra_jobs = tour_->jobs;
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
    const bool was = tour_.has_value();
    tour_.reset();
    step_ = -1;
    waiting_ = false;
    hide();
    if (was) {  // the view as the user had it: colouring, overlays (and the toolbar with them), camera, hint
        if (before_.metric_index >= 0) w_.metricBox()->setCurrentIndex(before_.metric_index);
        if (render::Scene* sc = w_.view3d()->scene()) {
            if (before_.overlays) setOverlays(*before_.overlays);
            if (!before_.camera.empty()) sc->setCameraState(before_.camera);
            sc->setHighlighted({});
            sc->setShowHint(true);
        }
        w_.view3d()->update();
    }
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
    QStringList notes;
    for (const auto& f : false_claims_)
        if (f.step == static_cast<std::size_t>(i)) notes << qs(f.found);
    note_->setText(notes.isEmpty() ? QString() : tr("Not so in this run: %1").arg(notes.join("; ")));
    note_->setVisible(!notes.isEmpty());
    apply(i);
    place();
    timer_->stop();
    if (autoplay_) timer_->start(static_cast<int>(1000 * st.seconds));
}

void TourPlayer::setOverlays(const render::Overlays& o) {
    render::Scene* sc = w_.view3d()->scene();
    if (!sc) return;
    sc->setOverlays(o);
    // The toolbar shows what is set (its toggles and spin boxes, found by their object names).
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

void TourPlayer::apply(int i) {
    const auto& steps = tour_->steps;
    const report::TourStep& st = steps[static_cast<std::size_t>(i)];
    w_.centralTabs()->setCurrentWidget(w_.view3d());
    render::Scene* sc = w_.view3d()->scene();
    // What the steps up to this one left: the last metric and camera any of them set, every overlay they set.
    std::string metric, camera;
    render::Overlays o = before_.overlays ? *before_.overlays : (sc ? sc->overlays() : render::Overlays{});
    for (int k = 0; k <= i; ++k) {
        const report::TourStep& s = steps[static_cast<std::size_t>(k)];
        if (!s.metric.empty()) metric = s.metric;
        if (!s.camera.empty()) camera = s.camera;
        render::applyOverlaySettings(o, s.overlays);
    }
    if (!metric.empty()) {
        const int k = w_.metricBox()->findData(qs(metric));
        if (k >= 0) w_.metricBox()->setCurrentIndex(k);
    }
    if (sc) {
        if (!camera.empty()) sc->setCamera(camera);
        setOverlays(o);
        sc->setShowHint(false);  // "Run a simulation (F5)" and the like are for the user, not the audience
    }
    if (!st.select.empty()) {
        EntityRef ref = w_.tree()->refFor(qs(st.select));
        // A fabric cable is no entity of the tree: selected as a click on its line selects it.
        if (!ref.isValid() && st.select.find("<->") != std::string::npos) ref = {"link", qs(st.select)};
        if (ref.isValid()) w_.select(ref);
    }
    if (sc) {
        sc->setHighlighted(st.highlight);
        if (!st.focus.empty()) sc->focus(st.focus);
    }
    RunController* run = w_.run();
    if (run->hasRun()) {
        if (run->playing()) run->pause();
        if (const auto at = report::stepStartS(*tour_, static_cast<std::size_t>(i))) run->setTime(*at);
        if (st.play_to_s && *st.play_to_s > run->time()) {
            run->setSpeed(std::clamp((*st.play_to_s - run->time()) / st.seconds, 1.0, 3600.0));
            run->play();
            const double stop_at = *st.play_to_s;
            QTimer::singleShot(static_cast<int>(1000 * st.seconds), this, [this, stop_at, i] {
                if (!tour_ || step_ != i) return;  // the user moved on (or back) meanwhile
                if (w_.run()->playing()) w_.run()->pause();
                w_.run()->setTime(stop_at);
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
