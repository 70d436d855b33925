#pragma once
// The Jobs dock (issue 19): the scenario's jobs and those a run recorded, with what they do at the timeline's
// time (running, GPUs, step time and where it goes, MFU, communication share, utilization). Selecting one selects it everywhere:
// the 3D view highlights its nodes, the Charts dock shows its step time, MFU and communication share over time.
#include "entity_ref.hpp"

#include <clustertwin/model/frame.hpp>

#include <QWidget>

#include <map>
#include <string>
#include <vector>

class QTableWidget;
class QLabel;

namespace ct::app {
class RunController;
class ScenarioDocument;

class JobsPanel : public QWidget {
    Q_OBJECT
public:
    JobsPanel(const ScenarioDocument& doc, const RunController& run, QWidget* parent = nullptr);
    QTableWidget* table() const { return table_; }
    /// The nodes a job runs on: the scenario's, or where the loaded run placed it (its metadata's job_nodes).
    std::vector<std::string> nodesOf(const QString& job) const;
    /// The links of the job's GPUs in the frame (those with one end on its nodes), busiest first, at most `n`.
    std::vector<std::string> busiestLinks(const QString& job, const model::Frame& f, std::size_t n = 20) const;
    void refresh();

signals:
    void jobSelected(const ct::app::EntityRef& ref);

protected:
    void showEvent(QShowEvent* e) override;

private:
    /// How a job's collectives ran: its frame's lines, or the loaded run's metadata (a replayed frame has none).
    QString collectivesOf(const std::string& job, const model::JobFrame* f) const;
    bool stale_ = false;
    const ScenarioDocument& doc_;
    const RunController& run_;
    QTableWidget* table_;
    QLabel* note_;
};

}  // namespace ct::app
