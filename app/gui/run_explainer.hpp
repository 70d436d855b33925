#pragma once
// The banner under the run-match notice that says what a result means (issue 16, "results explained"):
// findings of runs::checkRun (inlets past where IT shuts down, a heat imbalance at steady state, each
// with its likely cause) and, for a what-if, every event the run contains — the failure asked for and the
// scenario's own scheduled events, which a what-if includes too.
#include <QObject>

#include <clustertwin/model/scenario.hpp>

#include <vector>

namespace ct::app {
class NoticeBar;
class RunController;

class RunExplainer : public QObject {
    Q_OBJECT
public:
    RunExplainer(const RunController& run, NoticeBar& bar, QObject* parent = nullptr);
    /// The open run is a what-if of these failures: list them and the run's other events.
    void describeWhatIf(const std::vector<model::Event>& failures);

private:
    void explain();
    const RunController& run_;
    NoticeBar& bar_;
    QString whatif_;  // kept with the run it describes; cleared when another run opens
};

/// "crah-02 fails", "crah-01 setpoint 22 °C": an event as a person reads it.
QString describeEvent(const std::string& kind, const std::string& target, const std::optional<double>& value);

}  // namespace ct::app
