#pragma once
// Where a pick takes the user (issue 16): a rack, node, GPU or unit picked in the tree is framed in 3D; an
// event moves the timeline to its time; a job frames its first node; an alert moves the timeline to the alert
// and frames its entity on the 3D tab.
#include "entity_ref.hpp"

#include <QObject>

#include <limits>

class QTabWidget;

namespace ct::app {
class RunController;
class ScenarioDocument;
class View3D;

class Navigator : public QObject {
    Q_OBJECT
public:
    Navigator(const ScenarioDocument& doc, RunController& run, View3D& view, QTabWidget& tabs, QObject* parent = nullptr);
    /// After a pick in the tree (already selected).
    void showInViewAndTime(const EntityRef& ref);
    /// From an alert or a check: selects the entity, shows the 3D tab and frames it; with a time, the timeline
    /// moves there first.
    void activate(const QString& id, double t_s = std::numeric_limits<double>::quiet_NaN());

signals:
    void selectRequested(const ct::app::EntityRef& ref);

private:
    const ScenarioDocument& doc_;
    RunController& run_;
    View3D& view_;
    QTabWidget& tabs_;
};

}  // namespace ct::app
