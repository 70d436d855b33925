#include "inventory_import.hpp"

#include <clustertwin/importers/format.hpp>
#include <clustertwin/inventory/netbox.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QObject>

namespace ct::app {

QString importInventory(const QStringList& files, const QString& out, QString* error) {
    std::vector<std::string> paths;
    for (const QString& f : files) paths.push_back(f.toStdString());
    inventory::InventoryResult res;
    try {
        res = inventory::importNetbox(paths, model::Catalog::builtin());
        model::saveScenarioFile(res.scenario, out.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return {};
    }
    const auto& r = res.report;
    QString text =
        QObject::tr("Built %1 from NetBox: %2 hall(s), %3 rack(s) (%4 at their floor-plan position), %5 node(s) from %6 device(s).")
            .arg(QFileInfo(out).fileName())
            .arg(res.scenario.halls.size())
            .arg(r.racks)
            .arg(r.racks_placed)
            .arg(r.nodes)
            .arg(r.devices);
    auto section = [&](const QString& title, const std::vector<std::string>& lines) {
        if (lines.empty()) return;
        text += "\n\n" + title;
        for (const auto& l : lines) text += "\n• " + QString::fromStdString(l);
    };
    section(QObject::tr("Not mapped:"), r.unmapped);
    section(QObject::tr("Added (NetBox does not hold it):"), r.notes);
    section(QObject::tr("Could not be read:"), r.errors);
    std::vector<std::string> problems;
    for (const auto& d : model::validateScenario(res.scenario, model::Catalog::builtin())) problems.push_back(d.toString());
    section(QObject::tr("Validation:"), problems);
    return text;
}

void importInventoryDialog(QWidget* parent, const std::function<bool(const QString&)>& open) {
    const QStringList files = QFileDialog::getOpenFileNames(
        parent, QObject::tr("Import inventory: NetBox API JSON (sites, locations, racks, device types, devices, floor plans)"), QString(),
        QObject::tr("NetBox API JSON (*.json);;All files (*)"));
    if (files.isEmpty()) return;
    const QString out = QFileDialog::getSaveFileName(parent, QObject::tr("Save the scenario built from the inventory"),
                                                     QFileInfo(files.front()).dir().filePath("inventory.json"),
                                                     QObject::tr("ClusterTwin scenario (*.json)"));
    if (out.isEmpty()) return;
    QString error;
    const QString report = importInventory(files, out, &error);
    if (report.isEmpty()) {
        QMessageBox::warning(parent, QObject::tr("Import inventory"), error);
        return;
    }
    QMessageBox box(QMessageBox::Information, QObject::tr("Import inventory"), report, QMessageBox::Ok, parent);
    box.setObjectName("inventoryReport");
    box.exec();
    open(out);
}

}  // namespace ct::app
