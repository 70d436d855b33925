#pragma once
// The timeline: play/pause, speed 1×–3600×, a scrub bar with the run's events marked, the current time.
#include <QSlider>
#include <QWidget>

class QComboBox;
class QLabel;
class QToolButton;

namespace ct::app {
class RunController;

/// A slider that marks positions (events) with ticks.
class MarkedSlider : public QSlider {
    Q_OBJECT
public:
    using QSlider::QSlider;
    void setMarks(QList<double> fractions) {
        marks_ = std::move(fractions);
        update();
    }
    const QList<double>& marks() const { return marks_; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    QList<double> marks_;
};

class Timeline : public QWidget {
    Q_OBJECT
public:
    explicit Timeline(RunController& run, QWidget* parent = nullptr);
    QToolButton* playButton() const { return play_; }
    MarkedSlider* slider() const { return slider_; }
    QComboBox* speedBox() const { return speed_; }
    QLabel* timeLabel() const { return label_; }

private:
    void onRunChanged();
    void onTimeChanged(double t);
    RunController& run_;
    QToolButton* play_;
    QComboBox* speed_;
    MarkedSlider* slider_;
    QLabel* label_;
    bool syncing_ = false;
};

}  // namespace ct::app
