#pragma once
// Live layout checks (issue 6) and the last impact query, as lists; a click selects and focuses the entity.
#include <QWidget>

class QLabel;
class QTableWidget;

namespace ct::sim {
struct ImpactReport;
}

namespace ct::app {
class ScenarioDocument;

class ChecksPanel : public QWidget {
    Q_OBJECT
public:
    explicit ChecksPanel(const ScenarioDocument& doc, QWidget* parent = nullptr);
    QTableWidget* table() const { return table_; }
    /// Shows what an impact query found, below the checks.
    void showImpact(const sim::ImpactReport& r);
    QTableWidget* impactTable() const { return impact_; }
    /// Forgets the last impact query (another scenario was opened).
    void clearImpact();

signals:
    void entityActivated(const QString& id);

private:
    void refresh();
    const ScenarioDocument& doc_;
    QTableWidget* table_;
    QLabel* impact_title_;
    QTableWidget* impact_;
};

}  // namespace ct::app
