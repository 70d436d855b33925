#pragma once
// The Compare tab (issue 19): the baseline and the what-if (or any other run of the scenario, issue 40) side by side in two 3D views with linked cameras and
// the timeline's time, a per-rack difference table (inlet, power, alerts) and a summary (largest rise, racks over
// 27 °C, time until the first one crosses it, the events the what-if adds).
#include "compare_runs.hpp"
#include "entity_ref.hpp"

#include <QWidget>

#include <memory>

class QLabel;
class QTableWidget;

namespace ct::runs {
class RunReplay;
}

namespace ct::app {
class RunController;
class ScenarioDocument;
class View3D;

class CompareView : public QWidget {
    Q_OBJECT
public:
    CompareView(const ScenarioDocument& doc, const RunController& run, QWidget* parent = nullptr);
    /// The run the shown one (the what-if) is compared with; nullptr clears the comparison.
    void setBaseline(std::shared_ptr<const runs::RunReplay> baseline);
    bool hasBaseline() const { return baseline_ != nullptr; }
    View3D* baselineView() const { return left_; }
    View3D* whatIfView() const { return right_; }
    QTableWidget* table() const { return table_; }
    QLabel* summaryLabel() const { return summary_; }
    const CompareSummary& summary() const { return sum_; }
    /// Both views and the table at the timeline's time (called when it moves and when the tab is shown).
    void refresh();

signals:
    void entitySelected(const ct::app::EntityRef& ref);

protected:
    void showEvent(QShowEvent* e) override;

private:
    void link(View3D* from, View3D* to);
    /// Each pane on the layout its run was computed for (the run's kept scenario, where it is not the open one);
    /// again after every edit of the open one.
    void showVersions();
    const ScenarioDocument& doc_;
    const RunController& run_;
    std::shared_ptr<const runs::RunReplay> baseline_;
    CompareSummary sum_;
    View3D* left_;
    View3D* right_;
    QLabel* left_title_;
    QLabel* right_title_;
    QLabel* summary_;
    QTableWidget* table_;
    bool linking_ = false;
};

}  // namespace ct::app
