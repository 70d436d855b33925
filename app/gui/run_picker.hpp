#pragma once
// File > Open run: a database's runs side by side (kind, scenario, time range, complete or not, samples), the
// chosen run's entities by kind and metrics, and which to open. A database with one run opens without it.
#include <clustertwin/runs/run_overview.hpp>

#include <QDialog>

#include <functional>
#include <vector>

class QLabel;
class QTableWidget;
class QTreeWidget;

namespace ct::app {

class RunPicker : public QDialog {
    Q_OBJECT
public:
    RunPicker(const QString& db, std::vector<runs::RunOverview> runs, QWidget* parent);
    /// The run chosen (0 before one is).
    std::int64_t run() const;
    /// Opens `db` for the user: `open(0)` (the default run) when it holds one run or none, else the picker
    /// (window-modal) and `open(id)` with the run chosen. A database that cannot be read is a warning.
    static void choose(QWidget* parent, const QString& db, const std::function<void(std::int64_t)>& open);
    /// The run to offer first: the newest that holds samples (an empty or failed run is never the default).
    static std::int64_t defaultRun(const std::vector<runs::RunOverview>& runs);

private:
    void showDetails(int row);
    std::vector<runs::RunOverview> runs_;
    QTableWidget* table_ = nullptr;
    QTreeWidget* details_ = nullptr;
    QLabel* summary_ = nullptr;
};

}  // namespace ct::app
