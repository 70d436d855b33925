#pragma once
// Docks that read the replayed run: the selection's current values (the charts are in charts_panel.hpp, the
// alerts in alerts_panel.hpp).
#include "charts_panel.hpp"
#include "entity_ref.hpp"

#include <QWidget>

#include <string>
#include <utility>
#include <vector>

class QTableWidget;

namespace ct::runs {
class RunReplay;
}

namespace ct::app {
class RunController;

/// The selection's recorded metrics at the current time; for a node, its GPUs' rolled up after its own (power
/// and memory summed, the hottest temperature and lowest clock with the GPU it is, shares averaged).
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
    void addGpuRollUp(const runs::RunReplay& rp, const std::string& node);
    const RunController& run_;
    EntityRef ref_;
    QTableWidget* table_;
};

/// Every series of `entity` in the run as RFC 4180 CSV (`time_s,entity,metric,value,unit`, CRLF; the same as
/// `clustertwin-cli query --format csv`), written atomically. False with a message on failure.
bool writeSeriesCsv(const runs::RunReplay& run, const QString& entity, const QString& path, QString* error);
/// The same for the given (entity, metric) series, in that order (the Charts dock's export).
bool writeSeriesCsv(const runs::RunReplay& run, const std::vector<std::pair<std::string, std::string>>& series, const QString& path,
                    QString* error);

}  // namespace ct::app
