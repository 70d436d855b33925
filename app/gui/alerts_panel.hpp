#pragma once
// The run's alerts: severity, what crossed which limit, grouped by kind, filtered by severity and text, and
// acknowledged (greyed, or hidden) for this session. All of the run's alerts stay listed; those raised after the
// current time are in grey italics. A click moves the timeline to the alert and frames its entity (MainWindow
// connects alertActivated); the list keeps its place.
#include <QSet>
#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace ct::app {
class RunController;

class AlertsPanel : public QWidget {
    Q_OBJECT
public:
    AlertsPanel(const RunController& run, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return tree_; }
    /// Alerts listed (group rows not counted), and those of them raised by the current time.
    int shownCount() const { return shown_count_; }
    int raisedCount() const { return raised_count_; }
    QComboBox* severityFilter() const { return severity_; }
    QLineEdit* textFilter() const { return filter_; }
    QCheckBox* groupByKind() const { return group_; }
    QCheckBox* hideAcknowledged() const { return hide_acked_; }
    /// Acknowledges the selected alerts (all of a group when a group row is selected).
    void acknowledgeSelected();
    int acknowledgedCount() const { return static_cast<int>(acked_.size()); }

signals:
    /// An alert was clicked: its entity and its time from the run's start.
    void alertActivated(const QString& entity, double t_s);

private:
    void refresh(bool force = false);
    void markLater();
    const RunController& run_;
    QComboBox* severity_;
    QLineEdit* filter_;
    QCheckBox* group_;
    QCheckBox* hide_acked_;
    QPushButton* ack_;
    QTreeWidget* tree_;
    QSet<QString> acked_;
    QString signature_;  // what is listed: rebuilt only when it changes, so a selection survives playback
    int shown_count_ = 0;
    int raised_count_ = 0;
};

}  // namespace ct::app
