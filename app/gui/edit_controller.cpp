#include "edit_controller.hpp"

#include "scenario_document.hpp"

#include <clustertwin/model/edit.hpp>

#include <QAction>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QUndoStack>

namespace ct::app {

EditController::EditController(ScenarioDocument& doc, QWidget* window) : QObject(window), doc_(doc), window_(window) {}

void EditController::populate(QMenu* m) {
    QAction* undo = doc_.undoStack()->createUndoAction(m, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setObjectName("actionUndo");
    QAction* redo = doc_.undoStack()->createRedoAction(m, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setObjectName("actionRedo");
    m->addAction(undo);
    m->addAction(redo);
    m->addSeparator();
    m->addAction(tr("&Delete"), QKeySequence::Delete, this, [this] { removeTargets(); });
    m->addAction(tr("R&otate a quarter turn"), QKeySequence(Qt::Key_R), this, [this] { rotateTargets(); });
    m->addAction(tr("D&uplicate racks"), QKeySequence(Qt::CTRL | Qt::Key_D), this, [this] { duplicateTargets(); });
    QMenu* nudge = m->addMenu(tr("&Nudge one tile"));
    nudge->addAction(tr("West"), QKeySequence(Qt::ALT | Qt::Key_Left), this, [this] { nudgeTargets(-1, 0); });
    nudge->addAction(tr("East"), QKeySequence(Qt::ALT | Qt::Key_Right), this, [this] { nudgeTargets(1, 0); });
    nudge->addAction(tr("North"), QKeySequence(Qt::ALT | Qt::Key_Up), this, [this] { nudgeTargets(0, 1); });
    nudge->addAction(tr("South"), QKeySequence(Qt::ALT | Qt::Key_Down), this, [this] { nudgeTargets(0, -1); });
    m->addSeparator();
    m->addAction(tr("Add r&ow"), this, [this] { addRow(); });
    m->addAction(tr("Add &rack…"), this, &EditController::addRackDialog);
}

std::vector<std::string> EditController::ids(bool floor_only) const {
    std::vector<std::string> out;
    for (const auto& r : targets_) {
        if (floor_only && r.kind != "rack" && r.kind != "row" && r.kind != "cooling_unit" && r.kind != "cdu") continue;
        out.push_back(r.id.toStdString());
    }
    return out;
}

bool EditController::report(bool ok) {
    if (!ok && window_->isVisible()) QMessageBox::warning(window_, tr("Edit"), error_);
    return ok;
}

bool EditController::removeTargets() {
    const auto v = ids(true);
    if (v.empty()) return false;
    const bool ok = doc_.apply(tr("Delete %1").arg(QString::fromStdString(v.front())), [&](model::Scenario& s) { model::removeEntities(s, v); }, &error_);
    if (ok) emit selectRequested({"scenario", QString::fromStdString(doc_.scenario().id)});
    return report(ok);
}

bool EditController::rotateTargets() {
    const auto v = ids(true);
    if (v.empty()) return false;
    return report(doc_.apply(tr("Rotate"), [&](model::Scenario& s) { model::rotateEntities(s, v); }, &error_));
}

bool EditController::duplicateTargets() {
    std::vector<std::string> racks;
    for (const auto& r : targets_)
        if (r.kind == "rack") racks.push_back(r.id.toStdString());
    if (racks.empty()) return false;
    std::vector<std::string> made;
    const bool ok = doc_.apply(tr("Duplicate"), [&](model::Scenario& s) { made = model::duplicateRacks(s, doc_.catalog(), racks); }, &error_);
    if (ok && !made.empty()) emit selectRequested({"rack", QString::fromStdString(made.front())});
    return report(ok);
}

bool EditController::nudgeTargets(int dx_tiles, int dy_tiles) {
    const auto v = ids(true);
    if (v.empty() || doc_.scenario().halls.empty()) return false;
    const double tile = doc_.scenario().halls.front().tile_m;
    return report(doc_.apply(tr("Move"), [&](model::Scenario& s) { model::moveEntities(s, v, dx_tiles * tile, dy_tiles * tile); }, &error_));
}

bool EditController::move(const QStringList& list, double dx_m, double dy_m) {
    std::vector<std::string> v;
    for (const auto& id : list) v.push_back(id.toStdString());
    return report(doc_.apply(tr("Move"), [&](model::Scenario& s) { model::moveEntities(s, v, dx_m, dy_m); }, &error_));
}

QString EditController::addRow() {
    if (doc_.scenario().halls.empty()) return {};
    std::string id;
    const bool ok = doc_.apply(tr("Add row"), [&](model::Scenario& s) { id = model::addRow(s, s.halls.front().id); }, &error_);
    report(ok);
    if (ok) emit selectRequested({"row", QString::fromStdString(id)});
    return ok ? QString::fromStdString(id) : QString();
}

QString EditController::addRack(const QString& rack_model, const QString& server_model, int nodes) {
    const auto& sc = doc_.scenario();
    if (sc.halls.empty()) return {};
    // The row of the target (a row, or a rack's row); else the last row; else a new one.
    std::string row_id;
    for (const auto& t : targets_) {
        if (t.kind == "row") row_id = t.id.toStdString();
        if (t.kind == "rack")
            for (const auto& row : sc.halls.front().rows)
                for (const auto& r : row.racks)
                    if (r.id == t.id.toStdString()) row_id = row.id;
    }
    if (row_id.empty() && !sc.halls.front().rows.empty()) row_id = sc.halls.front().rows.back().id;
    std::string id;
    const bool ok = doc_.apply(tr("Add rack"), [&](model::Scenario& s) {
        model::Hall& h = s.halls.front();
        std::string row = row_id.empty() ? model::addRow(s, h.id) : row_id;
        // After the row's last rack, one footprint along the row; an empty row starts mid-hall.
        model::Vec2 at{h.width_m / 2, h.depth_m / 2};
        model::Facing facing = model::Facing::North;
        const model::RackModel* rm = doc_.catalog().rack(rack_model.toStdString());
        const double step = std::ceil((rm ? rm->width_m : 0.6) / h.tile_m - 1e-9) * h.tile_m;
        for (const auto& r : h.rows)
            if (r.id == row && !r.racks.empty()) {
                const auto& last = r.racks.back();
                facing = last.facing;
                at = last.position_m;
                if (facing == model::Facing::North || facing == model::Facing::South) at.x_m += step;
                else at.y_m += step;
            }
        id = model::addRack(s, doc_.catalog(), row, rack_model.toStdString(), server_model.toStdString(), nodes, at, facing);
    }, &error_);
    report(ok);
    if (ok) emit selectRequested({"rack", QString::fromStdString(id)});
    return ok ? QString::fromStdString(id) : QString();
}

bool EditController::setProperty(const QString& id, const QString& key, const QString& value) {
    if (key == "position") {
        static const QRegularExpression num(R"([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)");
        QStringList xy;
        for (auto it = num.globalMatch(value); it.hasNext();) xy << it.next().captured();
        if (xy.size() != 2) {
            error_ = tr("position: give two numbers, x and y in metres");
            return false;
        }
        return doc_.apply(tr("Move %1").arg(id), [&](model::Scenario& s) {
            model::setProperty(s, id.toStdString(), "x_m", xy[0].toStdString());
            model::setProperty(s, id.toStdString(), "y_m", xy[1].toStdString());
        }, &error_);
    }
    QString v = value.trimmed();
    if (key.endsWith("_c") || key == "u_position") v = v.section(' ', 0, 0);
    return doc_.apply(tr("Set %1 of %2").arg(key, id),
                      [&](model::Scenario& s) { model::setProperty(s, id.toStdString(), key.toStdString(), v.toStdString()); }, &error_);
}

void EditController::addRackDialog() {
    QStringList racks, servers{tr("(empty)")};
    for (const auto& r : doc_.catalog().racks) racks << QString::fromStdString(r.id);
    for (const auto& s : doc_.catalog().servers)
        if (s.form_factor == "node" || s.form_factor == "rack") servers << QString::fromStdString(s.id);
    bool ok = false;
    const QString rack = QInputDialog::getItem(window_, tr("Add rack"), tr("Rack model:"), racks, 0, false, &ok);
    if (!ok) return;
    const QString server = QInputDialog::getItem(window_, tr("Add rack"), tr("Servers:"), servers, 1, false, &ok);
    if (!ok) return;
    int n = 0;
    if (server != servers.front()) {
        n = QInputDialog::getInt(window_, tr("Add rack"), tr("How many %1:").arg(server), 4, 1, 48, 1, &ok);
        if (!ok) return;
    }
    addRack(rack, server == servers.front() ? QString() : server, n);
}

} // namespace ct::app
