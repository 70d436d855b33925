#pragma once
// Simulation > What-if… (issue 19): which equipment fails, when and for how long, and for how long to simulate;
// it lists the scenario's own events, which the baseline and the what-if both run.
#include "entity_ref.hpp"

#include <clustertwin/model/scenario.hpp>

#include <QDialog>

#include <vector>

class QComboBox;
class QLineEdit;
class QTableWidget;
class QLabel;

namespace ct::app {

/// Fail and restore event kinds for an entity kind ("cooling_unit" -> cooling_unit_fail / _restore); empty
/// when such an entity cannot fail in a what-if.
std::pair<std::string, std::string> whatIfKinds(const QString& entity_kind);

class WhatIfDialog : public QDialog {
    Q_OBJECT
public:
    /// `preset`: the selected entities, each failing at one minute for the rest of the run.
    WhatIfDialog(const model::Scenario& s, const QList<EntityRef>& preset, QWidget* parent = nullptr);
    /// The failures (and restores) as events; throws model::ModelError naming a bad time.
    std::vector<model::Event> events() const;
    double durationS() const;
    QTableWidget* table() const { return table_; }
    QLineEdit* durationEdit() const { return duration_; }
    QLabel* scenarioEvents() const { return included_; }
    /// Adds a failure row (for the dialog's Add button and tests).
    void addFailure(const EntityRef& ref, const QString& at = "1min", const QString& for_ = {});

private:
    const model::Scenario& s_;
    std::vector<EntityRef> candidates_;
    QTableWidget* table_;
    QComboBox* add_;
    QLineEdit* duration_;
    QLabel* included_;
};

}  // namespace ct::app
