#include "timeline.hpp"

#include "run_controller.hpp"

#include <clustertwin/model/time.hpp>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QToolButton>

#include <cmath>

namespace ct::app {

void MarkedSlider::paintEvent(QPaintEvent* e) {
    QSlider::paintEvent(e);
    if (marks_.isEmpty()) return;
    QStyleOptionSlider opt;
    initStyleOption(&opt);
    const QRect groove = style()->subControlRect(QStyle::CC_Slider, &opt, QStyle::SC_SliderGroove, this);
    QPainter p(this);
    p.setPen(QPen(QColor(220, 60, 50), 2));
    for (double f : marks_) {
        const int x = groove.left() + static_cast<int>(f * groove.width());
        p.drawLine(x, groove.top() - 4, x, groove.bottom() + 4);
    }
}

Timeline::Timeline(RunController& run, QWidget* parent) : QWidget(parent), run_(run) {
    setObjectName("timeline");
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(6, 2, 6, 2);
    play_ = new QToolButton(this);
    play_->setObjectName("playButton");
    play_->setCheckable(true);
    play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    play_->setToolTip(tr("Play / pause the run"));
    speed_ = new QComboBox(this);
    speed_->setObjectName("speedBox");
    for (int x : {1, 10, 60, 300, 600, 3600}) speed_->addItem(tr("%1×").arg(x), x);
    speed_->setCurrentIndex(2);
    slider_ = new MarkedSlider(Qt::Horizontal, this);
    slider_->setObjectName("timeSlider");
    slider_->setRange(0, 1000);
    label_ = new QLabel(tr("no run"), this);
    label_->setObjectName("timeLabel");
    label_->setMinimumWidth(170);
    l->addWidget(play_);
    l->addWidget(speed_);
    l->addWidget(slider_, 1);
    l->addWidget(label_);
    setEnabled(false);

    connect(play_, &QToolButton::toggled, this, [this](bool on) { on ? run_.play() : run_.pause(); });
    connect(&run_, &RunController::playingChanged, this, [this](bool on) {
        play_->setChecked(on);
        play_->setIcon(style()->standardIcon(on ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    });
    connect(speed_, &QComboBox::currentIndexChanged, this, [this] { run_.setSpeed(speed_->currentData().toDouble()); });
    run_.setSpeed(speed_->currentData().toDouble());
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        if (!syncing_) run_.setTime(run_.duration() * v / 1000.0);
    });
    connect(&run_, &RunController::runChanged, this, &Timeline::onRunChanged);
    connect(&run_, &RunController::timeChanged, this, &Timeline::onTimeChanged);
}

void Timeline::onRunChanged() {
    setEnabled(run_.hasRun());
    QList<double> marks;
    const double d = run_.duration();
    if (run_.replay() && d > 0)
        for (const auto& e : run_.replay()->events()) {
            const double f = (e.t_s - run_.replay()->startS()) / d;
            if (f >= 0 && f <= 1 && (marks.isEmpty() || f - marks.back() > 0.002)) marks.push_back(f);
        }
    slider_->setMarks(marks);
}

void Timeline::onTimeChanged(double t) {
    syncing_ = true;
    const double d = run_.duration();
    slider_->setValue(d > 0 ? static_cast<int>(1000 * t / d + 0.5) : 0);
    syncing_ = false;
    if (!run_.hasRun()) {
        label_->setText(tr("no run"));
        return;
    }
    const QString rel =
        tr("%1 / %2").arg(QString::fromStdString(model::formatDuration(t)), QString::fromStdString(model::formatDuration(d)));
    // Measured data is read at the time it was measured (UTC), the time from its start beside it.
    const double wall = run_.wallClockAt(t);
    label_->setText(std::isfinite(wall) ? tr("%1 (%2)").arg(wallClockText(wall), rel) : rel);
}

}  // namespace ct::app
