#pragma once
// The Charts dock (issue 19): the selection's metric over the run (the live series) and series pinned from any
// entity (Pin, or a drag from the scenario tree), on up to two value axes by unit. A hover read-out gives every
// series' value at the time under the cursor; a drag across the plot zooms into that time, the wheel zooms
// around the cursor, a middle drag pans, a double click shows the whole run. Limit lines (27 and 32 °C for
// inlets, 80 % for breakers), the run's events as marks, the baseline's curves in compare mode, what the hall
// measured beside a scored run (dotted; issue 44), and export as PNG and CSV. Long series are drawn min/max-decimated to the plot's width, so 10⁵ points stay interactive.
#include "entity_ref.hpp"

#include <QWidget>

#include <memory>
#include <string>
#include <utility>
#include <vector>

class QChartView;
class QComboBox;
class QLineSeries;
class QValueAxis;
class QPushButton;

namespace ct::runs {
class RunReplay;
}

namespace ct::app {
class RunController;
struct MeasuredOverlay;

class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    ChartsPanel(const RunController& run, QWidget* parent = nullptr);
    ~ChartsPanel() override;
    void setEntity(const EntityRef& ref);
    QComboBox* metricBox() const { return metric_; }
    /// The selection's (live) series as drawn.
    QLineSeries* series() const;
    /// The charted metric's stored id ("power_w"); the box shows its name ("Power").
    QString currentMetric() const;
    QValueAxis* valueAxis() const { return y_; }
    QValueAxis* timeAxis() const { return x_; }

    /// Keeps the live series on the chart when the selection changes. False when there is none, it is pinned
    /// already, or its unit needs a third axis (`why` says).
    bool pinCurrent(QString* why = nullptr);
    /// Pins `metric` of `entity` (the live metric when empty, else the entity's first one).
    bool addSeries(const QString& entity, const QString& metric = {}, QString* why = nullptr);
    void clearPinned();
    /// "entity · metric name" of every series, the live one first; baseline curves are not counted.
    QStringList seriesNames() const;
    /// The run to overlay (compare mode: the baseline), or nullptr.
    void setBaseline(std::shared_ptr<const runs::RunReplay> baseline);
    int baselineCurveCount() const;
    /// What the hall measured, drawn dotted beside each curve that has a measured twin (nullptr: none).
    void setMeasured(std::shared_ptr<const MeasuredOverlay> measured);
    int measuredCurveCount() const;
    /// What the read-out says at `t_s` seconds from the run's start: the time, each series' last value at or
    /// before it, the baseline's beside it, and the events within a few seconds.
    QString readoutAt(double t_s) const;
    /// Shows [t0, t1] seconds from the start; resetZoom shows the whole run.
    void zoomTime(double t0_s, double t1_s);
    void resetZoom();
    std::pair<double, double> timeRange() const;
    /// The limit lines drawn (in stored units: °C, ratio).
    std::vector<double> limits() const;
    int eventMarkCount() const;
    /// Points drawn for a series after decimation (index as seriesNames()).
    int drawnPoints(int series) const;
    bool savePng(const QString& path, QString* error = nullptr);
    /// Every series' recorded points (not the decimated ones) as `time_s,entity,metric,value,unit`.
    bool saveCsv(const QString& path, QString* error = nullptr);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;

private:
    struct Curve;
    void reload();
    void rebuild();
    void reloadCurves();                         ///< the curves again (the pinned ones kept), after the baseline or the measurements change
    void addCurves(double lo[2], double hi[2]);  ///< each curve (and its baseline twin); lo/hi: each axis's range
    /// Limit lines of the metrics shown, when near enough the data to matter (they widen lo/hi).
    void addLimits(double t_end, double lo[2], double hi[2]);
    void addEventMarks(const runs::RunReplay& replay);  ///< the run's events (a unit failing, a restore) as vertical marks
    void labelChart();                                  ///< the legend (curves only), the title and the axes' titles
    void redraw();
    void moveCursor();
    bool addCurve(const std::string& entity, const std::string& metric, bool pinned, QString* why);
    const RunController& run_;
    EntityRef ref_;
    QComboBox* metric_;
    QPushButton* pin_;
    QChartView* view_;
    QValueAxis* x_;
    QValueAxis* y_;
    QValueAxis* y2_;
    QLineSeries* cursor_;
    QLineSeries* empty_;
    std::vector<std::unique_ptr<Curve>> curves_;  ///< live first (when there is one), then pinned
    std::vector<QLineSeries*> decorations_;       ///< limit lines and event marks
    std::vector<double> limits_;
    int event_marks_ = 0;
    std::shared_ptr<const runs::RunReplay> baseline_;
    std::shared_ptr<const MeasuredOverlay> measured_;
    double time_unit_s_ = 60;
    bool zoomed_ = false;
    bool panning_ = false;
    double pan_from_x_ = 0;
};

}  // namespace ct::app
