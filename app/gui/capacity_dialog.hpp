#pragma once
// Analysis > Capacity… (issue 40): the open scenario's headroom — space, power with its redundancy, cooling at
// N+1, per rack, row, floor PDU, UPS, feed and hall — and "where can N racks of this model go", as
// clustertwin-cli capacity answers them (model/capacity.hpp). The model's work is quick: it runs here.
#include <QDialog>

class QComboBox;
class QLabel;
class QListWidget;
class QSpinBox;
class QTableWidget;

namespace ct::app {

class ScenarioDocument;

class CapacityDialog : public QDialog {
    Q_OBJECT
public:
    CapacityDialog(const ScenarioDocument& doc, QWidget* parent = nullptr);
    /// Recomputes the headroom of the document as it is now.
    void refresh();
    /// Looks for places for the form's racks; the answers are listed.
    void findPlaces();
    QTableWidget* table() const { return table_; }
    QListWidget* places() const { return places_; }
    QSpinBox* countBox() const { return count_; }
    QComboBox* serverBox() const { return server_; }
    QSpinBox* serversBox() const { return servers_; }

signals:
    /// A place or an entity picked: the window selects it (a row, rack, PDU ...).
    void entityPicked(const QString& kind, const QString& id);

private:
    const ScenarioDocument& doc_;
    QTableWidget* table_;
    QLabel* summary_;
    QSpinBox* count_;
    QComboBox* rack_;
    QComboBox* server_;
    QSpinBox* servers_;
    QListWidget* places_;
};

}  // namespace ct::app
