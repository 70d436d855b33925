#pragma once
// Guided tours in the app (issue 19, for teachers and demos): Help > Guided tours plays a tour file
// (render/tour.hpp) step by step over the main window: a large caption with Back, Next, Pause and Stop; each
// step moves the camera, selects and lights up things, colours by a metric, moves or plays the timeline. A tour
// that replays a run simulates it first (quick air). View > Presentation mode shows it full screen, large type,
// no docks.
#include <clustertwin/report/tour.hpp>

#include <clustertwin/render/overlays.hpp>

#include <QFrame>
#include <QPointer>
#include <QString>

#include <optional>
#include <vector>

class QLabel;
class QMenu;
class QPushButton;
class QTimer;

namespace ct::app {
class MainWindow;

class TourPlayer : public QFrame {
    Q_OBJECT
public:
    explicit TourPlayer(MainWindow& w);
    /// Loads and starts a tour (opening its scenario, simulating its run first when it has one). False with
    /// `error` set when the tour or its scenario cannot be read.
    bool start(const QString& path, QString* error = nullptr);
    void stop();
    bool running() const { return tour_.has_value(); }
    int step() const { return step_; }
    int stepCount() const { return tour_ ? static_cast<int>(tour_->steps.size()) : 0; }
    QString caption() const;
    /// Shows step `i` (0-based); with `autoplay` the next follows after the step's seconds.
    void showStep(int i);
    void next();
    void back();
    void setAutoplay(bool on);
    bool autoplay() const { return autoplay_; }
    /// What the run the tour plays over contradicts in its captions (report::checkTour), once it is shown.
    const std::vector<report::TourCheckFailure>& falseClaims() const { return false_claims_; }

signals:
    void finished();

protected:
    bool eventFilter(QObject* o, QEvent* e) override;

private:
    void place();
    /// Shows step `i` as if the tour had played up to it: the metric, camera and overlays the steps so far left
    /// (so Back restores them), the step's start time, then what the step itself does.
    void apply(int i);
    void setOverlays(const render::Overlays& o);  ///< on the scene and the toolbar alike
    /// What the user had before the tour (colouring, overlays, camera), put back by stop().
    struct Before {
        int metric_index = -1;
        std::optional<render::Overlays> overlays;
        std::vector<double> camera;
    };
    Before before_;
    std::vector<report::TourCheckFailure> false_claims_;
    QLabel* note_;
    MainWindow& w_;
    std::optional<report::Tour> tour_;
    int step_ = -1;
    bool autoplay_ = true;
    bool waiting_ = false;  ///< the tour's run is being simulated
    QLabel* caption_;
    QLabel* counter_;
    QPushButton* back_;
    QPushButton* next_;
    QPushButton* pause_;
    QTimer* timer_;
    QPointer<QWidget> tabs_;  ///< the central tabs the panel floats over
    QPointer<QWidget> host_;  ///< the main window, as a QObject (see eventFilter)
};

/// Fills Help > Guided tours with the tours in resources/tours (title, description as the tooltip).
void populateToursMenu(QMenu* menu, TourPlayer& player);

/// View > Presentation mode: full screen, docks, toolbars and menu bar hidden, large type; again (or Esc) restores.
void setPresentationMode(MainWindow& w, bool on);
bool presentationMode(const MainWindow& w);

}  // namespace ct::app
