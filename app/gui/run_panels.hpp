#pragma once
// Docks that read the replayed run: the selection's current values and its metrics over time (Qt Charts).
// The alerts are in alerts_panel.hpp.
#include "entity_ref.hpp"

#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QLineSeries;
class QTableWidget;
class QValueAxis;

namespace ct::importers {
class RunReplay;
}

namespace ct::app {
class RunController;

/// The selection's recorded metrics at the current time.
class ValuesPanel : public QWidget {
    Q_OBJECT
public:
    ValuesPanel(const RunController& run, QWidget* parent = nullptr);
    void setEntity(const EntityRef& ref);
    /// The shown value of a metric ("" when not shown), for tests.
    QString value(const QString& metric) const;
    QTableWidget* table() const { return table_; }

private:
    void refresh();
    const RunController& run_;
    EntityRef ref_;
    QTableWidget* table_;
};

/// One metric of the selection over the whole run, with a cursor at the current time.
class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    ChartsPanel(const RunController& run, QWidget* parent = nullptr);
    void setEntity(const EntityRef& ref);
    QComboBox* metricBox() const { return metric_; }
    QLineSeries* series() const { return series_; }
    /// The charted metric's stored id ("power_w"); the box shows its name ("Power").
    QString currentMetric() const;
    QValueAxis* valueAxis() const { return y_; }
    QValueAxis* timeAxis() const { return x_; }

private:
    void reload();
    static void setNiceAxis(QValueAxis* axis, double lo, double hi);
    void moveCursor();
    const RunController& run_;
    EntityRef ref_;
    QComboBox* metric_;
    QChartView* view_;
    QLineSeries* series_;
    QLineSeries* cursor_;
    QValueAxis* x_;
    QValueAxis* y_;
    double time_unit_s_ = 60;
};

/// Every series of `entity` in the run as RFC 4180 CSV (`time_s,entity,metric,value,unit`, CRLF; the same as
/// `clustertwin-cli query --format csv`), written atomically. False with a message on failure.
bool writeSeriesCsv(const importers::RunReplay& run, const QString& entity, const QString& path, QString* error);

} // namespace ct::app
