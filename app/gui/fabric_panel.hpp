#pragma once
// The Fabric dock (issue 19): leaf–spine link utilization as a matrix at the timeline's time, hot cells red,
// a click selects the link (its figures in the inspector and the Charts dock). A run records up to 2,000
// switch-to-switch links, busiest first; the cells of any others say so.
#include "entity_ref.hpp"

#include <clustertwin/model/frame.hpp>

#include <QWidget>

class QLabel;
class QTableWidget;

namespace ct::app {
class RunController;

class FabricPanel : public QWidget {
    Q_OBJECT
public:
    explicit FabricPanel(const RunController& run, QWidget* parent = nullptr);
    QTableWidget* matrix() const { return table_; }
    /// The matrix from these links (a replayed or a live frame's).
    void setLinks(const std::vector<model::LinkFrame>& links);
    /// From the shown run at the timeline's time.
    void refresh();

signals:
    void linkSelected(const ct::app::EntityRef& ref);

protected:
    void showEvent(QShowEvent* e) override;

private:
    bool stale_ = false;
    const RunController& run_;
    QTableWidget* table_;
    QLabel* note_;
};

}  // namespace ct::app
