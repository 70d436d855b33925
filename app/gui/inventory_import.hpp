#pragma once
// File > Import inventory… (issue 18): a scenario built from NetBox's REST API JSON, saved where the user says and
// opened, with a report of what was read, what could not be mapped and what was added.
#include <QString>
#include <QStringList>

#include <functional>

class QWidget;

namespace ct::app {

/// Builds the scenario from `files` and saves it to `out`. Returns the report to show (empty and `error` set when
/// nothing could be built).
QString importInventory(const QStringList& files, const QString& out, QString* error);

/// Asks for the NetBox JSON files and where to save the scenario, imports, shows the report and calls `open` with
/// the saved scenario.
void importInventoryDialog(QWidget* parent, const std::function<bool(const QString&)>& open);

}  // namespace ct::app
