#include "edit_controller.hpp"

#include "add_rack_dialog.hpp"
#include "scenario_document.hpp"

#include <clustertwin/model/capacity.hpp>
#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/edit.hpp>

#include <QAction>
#include <QInputDialog>
#include <QLineEdit>
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
    m->addAction(tr("Add r&ow…"), this, [this] { addRackDialog(true); });
    m->addAction(tr("Add &rack…"), this, [this] { addRackDialog(false); });
    m->addSeparator();
    m->addAction(tr("Add aisle &containment…"), this, [this] { containmentDialog(); })->setObjectName("actionAddContainment");
    m->addAction(tr("Add &in-row cooler"), this, [this] { addInRowCooler(); })->setObjectName("actionAddInRowCooler");
    m->addAction(tr("Fit rear &door…"), this, [this] { rearDoorDialog(); })->setObjectName("actionFitRearDoor");
    m->addAction(tr("Add &hall…"), this, [this] { hallDialog(); })->setObjectName("actionAddHall");
    m->addAction(tr("Add &sensor…"), this, [this] { sensorDialog(); })->setObjectName("actionAddSensor");
}

void EditController::targetPlace(std::string& hall, std::string& row) const {
    const auto& sc = doc_.scenario();
    hall.clear();
    row.clear();
    for (const auto& t : targets_)
        for (const auto& h : sc.halls) {
            if (t.kind == "hall" && h.id == t.id.toStdString()) hall = h.id;
            for (const auto& r : h.rows) {
                bool hit = t.kind == "row" && r.id == t.id.toStdString();
                for (const auto& k : r.racks) hit = hit || (t.kind == "rack" && k.id == t.id.toStdString());
                if (hit) hall = h.id, row = r.id;
            }
            for (const auto& u : h.cooling_units)
                if (t.kind == "cooling_unit" && u.id == t.id.toStdString()) hall = h.id, row = u.row;
        }
    if (hall.empty() && !sc.halls.empty()) hall = sc.halls.front().id;
}

std::vector<std::string> EditController::targetRows() const {
    std::vector<std::string> rows;
    const auto& sc = doc_.scenario();
    for (const auto& t : targets_)
        for (const auto& h : sc.halls)
            for (const auto& r : h.rows) {
                bool hit = t.kind == "row" && r.id == t.id.toStdString();
                for (const auto& k : r.racks) hit = hit || (t.kind == "rack" && k.id == t.id.toStdString());
                if (hit && std::find(rows.begin(), rows.end(), r.id) == rows.end()) rows.push_back(r.id);
            }
    return rows;
}

std::vector<std::string> EditController::ids(bool floor_only) const {
    std::vector<std::string> out;
    for (const auto& r : targets_) {
        if (floor_only && r.kind != "rack" && r.kind != "row" && r.kind != "cooling_unit" && r.kind != "cdu" && r.kind != "containment")
            continue;
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
    const bool ok = doc_.apply(
        tr("Delete %1").arg(QString::fromStdString(v.front())), [&](model::Scenario& s) { model::removeEntities(s, v); }, &error_);
    if (ok) emit selectRequested({"scenario", QString::fromStdString(doc_.scenario().id)});
    return report(ok);
}

bool EditController::rotateTargets() {
    const auto v = ids(true);
    if (v.empty()) return false;
    return report(doc_.apply(
        tr("Rotate"), [&](model::Scenario& s) { model::rotateEntities(s, v); }, &error_));
}

bool EditController::duplicateTargets() {
    std::vector<std::string> racks;
    for (const auto& r : targets_)
        if (r.kind == "rack") racks.push_back(r.id.toStdString());
    if (racks.empty()) return false;
    std::vector<std::string> made;
    const bool ok = doc_.apply(
        tr("Duplicate"), [&](model::Scenario& s) { made = model::duplicateRacks(s, doc_.catalog(), racks); }, &error_);
    if (ok && !made.empty()) emit selectRequested({"rack", QString::fromStdString(made.front())});
    return report(ok);
}

bool EditController::nudgeTargets(int dx_tiles, int dy_tiles) {
    const auto v = ids(true);
    if (v.empty() || doc_.scenario().halls.empty()) return false;
    const double tile = doc_.scenario().halls.front().tile_m;
    return report(doc_.apply(
        tr("Move"), [&](model::Scenario& s) { model::moveEntities(s, v, dx_tiles * tile, dy_tiles * tile); }, &error_));
}

bool EditController::move(const QStringList& list, double dx_m, double dy_m) {
    std::vector<std::string> v;
    for (const auto& id : list) v.push_back(id.toStdString());
    return report(doc_.apply(
        tr("Move"), [&](model::Scenario& s) { model::moveEntities(s, v, dx_m, dy_m); }, &error_));
}

QString EditController::addRow() {
    // A row is where its racks stand: the new row starts with a rack like the last row's, across an aisle from it.
    const auto& sc = doc_.scenario();
    std::string hall, row;
    targetPlace(hall, row);
    std::string rack_model = "rack-48u-600x1200", server;
    int nodes = 0;
    for (const auto& h : sc.halls)
        for (const auto& r : h.rows)
            if (h.id == hall && !r.racks.empty()) {
                rack_model = r.racks.back().model;
                nodes = static_cast<int>(r.racks.back().nodes.size());
                server = nodes ? r.racks.back().nodes.front().model : "";
            }
    // As long as the last row: Add row used to add a single rack.
    int count = 1;
    for (const auto& h : sc.halls)
        if (h.id == hall && !h.rows.empty()) count = std::max<int>(1, static_cast<int>(h.rows.back().racks.size()));
    const QStringList ids =
        placeAll(model::planRacks(sc, doc_.catalog(), hall, "", count, rack_model, server, nodes), rack_model, server, nodes);
    if (ids.isEmpty()) return {};
    const QString id = ids.front();
    for (const auto& h : doc_.scenario().halls)
        for (const auto& r : h.rows)
            for (const auto& k : r.racks)
                if (k.id == id.toStdString()) {
                    emit selectRequested({"row", QString::fromStdString(r.id)});
                    return QString::fromStdString(r.id);
                }
    return {};
}

QString EditController::addRack(const QString& rack_model, const QString& server_model, int nodes) {
    std::string hall, row;
    targetPlace(hall, row);
    if (row.empty() && !doc_.scenario().halls.empty())
        for (const auto& h : doc_.scenario().halls)
            if (h.id == hall && !h.rows.empty()) row = h.rows.back().id;
    const std::string rm = rack_model.toStdString(), sm = server_model.toStdString();
    return place(model::planRack(doc_.scenario(), doc_.catalog(), hall, row, rm, sm, nodes), rm, sm, nodes);
}

QString EditController::place(const model::RackPlan& plan, const std::string& rack_model, const std::string& server_model, int nodes) {
    std::string id;
    const bool ok = doc_.apply(
        tr("Add rack"), [&](model::Scenario& s) { id = model::addPlannedRack(s, doc_.catalog(), plan, rack_model, server_model, nodes); },
        &error_);
    report(ok);
    if (ok) emit selectRequested({"rack", QString::fromStdString(id)});
    warning_ = ok ? QString::fromStdString(plan.warning) : QString();
    if (!warning_.isEmpty()) emit notice(tr("Added %1, but %2").arg(QString::fromStdString(id), warning_));
    return ok ? QString::fromStdString(id) : QString();
}

QString EditController::addContainment(const QString& kind) {
    auto rows = targetRows();
    const auto& sc = doc_.scenario();
    if (rows.size() == 1) {
        // One row: pair it with the row across an aisle of that kind.
        for (const auto& h : sc.halls)
            for (const auto& r : h.rows) {
                if (r.id == rows.front()) continue;
                model::Containment probe;
                probe.kind = kind.toStdString();
                probe.rows = {rows.front(), r.id};
                if (std::any_of(h.rows.begin(), h.rows.end(), [&](const model::Row& x) { return x.id == rows.front(); }) &&
                    !model::containedAisles(h, probe, doc_.catalog()).empty() && rows.size() == 1)
                    rows.push_back(r.id);
            }
    }
    if (rows.size() < 2) {
        error_ = tr("Select the rows (or racks of the rows) whose %1 aisle to contain").arg(kind);
        report(false);
        return {};
    }
    std::string id;
    const bool ok = doc_.apply(
        tr("Add %1-aisle containment").arg(kind),
        [&](model::Scenario& s) { id = model::addContainment(s, doc_.catalog(), rows, kind.toStdString()); }, &error_);
    report(ok);
    if (ok) emit selectRequested({"containment", QString::fromStdString(id)});
    return ok ? QString::fromStdString(id) : QString();
}

QString EditController::addInRowCooler(const QString& model_id) {
    std::string hall, row;
    targetPlace(hall, row);
    if (row.empty()) {
        error_ = tr("Select a row (or one of its racks) to place the in-row cooler in");
        report(false);
        return {};
    }
    const auto& loops = doc_.scenario().plant.loops;
    const std::string loop = loops.empty() ? "" : loops.front().id;
    std::string id;
    const bool ok = doc_.apply(
        tr("Add in-row cooler"),
        [&](model::Scenario& s) {
            id = model::addInRowCooler(s, doc_.catalog(), row, model_id.isEmpty() ? "inrow-cw-600" : model_id.toStdString(), loop);
        },
        &error_);
    report(ok);
    if (ok) emit selectRequested({"cooling_unit", QString::fromStdString(id)});
    return ok ? QString::fromStdString(id) : QString();
}

bool EditController::fitRearDoor(const QString& model_id) {
    std::vector<std::string> racks;
    for (const auto& t : targets_)
        if (t.kind == "rack") racks.push_back(t.id.toStdString());
    if (racks.empty()) {
        error_ = tr("Select the racks to fit a rear door to");
        return report(false);
    }
    const auto& loops = doc_.scenario().plant.loops;
    const std::string loop = loops.empty() ? "" : loops.front().id;
    return report(doc_.apply(
        model_id.isEmpty() ? tr("Remove rear doors") : tr("Fit rear doors"),
        [&](model::Scenario& s) {
            for (const auto& r : racks) model::fitRearDoor(s, doc_.catalog(), r, model_id.toStdString(), loop);
        },
        &error_));
}

QString EditController::addHall(double width_m, double depth_m, double height_m) {
    std::string id;
    const bool ok = doc_.apply(
        tr("Add hall"), [&](model::Scenario& s) { id = model::addHall(s, width_m, depth_m, height_m); }, &error_);
    report(ok);
    if (ok) emit selectRequested({"hall", QString::fromStdString(id)});
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
        return doc_.apply(
            tr("Move %1").arg(id),
            [&](model::Scenario& s) {
                model::setProperty(s, id.toStdString(), "x_m", xy[0].toStdString());
                model::setProperty(s, id.toStdString(), "y_m", xy[1].toStdString());
            },
            &error_);
    }
    QString v = value.trimmed();
    if (key.endsWith("_c") || key.endsWith("_m") || key == "u_position" || key == "slot") v = v.section(' ', 0, 0);
    return doc_.apply(
        tr("Set %1 of %2").arg(key, id),
        [&](model::Scenario& s) { model::setProperty(s, id.toStdString(), key.toStdString(), v.toStdString()); }, &error_);
}

void EditController::addRackDialog(bool new_row) {
    std::string hall, row;
    targetPlace(hall, row);
    if (!new_row && row.empty())
        for (const auto& h : doc_.scenario().halls)
            if (h.id == hall && !h.rows.empty()) row = h.rows.back().id;
    AddRackDialog d(doc_.scenario(), doc_.catalog(), hall, new_row ? "" : row, window_);
    if (d.exec() != QDialog::Accepted) return;
    placeAll(d.plans(), d.rackModel(), d.serverModel(), d.nodes());
}

QStringList EditController::placeAll(const model::RowPlan& plans, const std::string& rack_model, const std::string& server_model,
                                     int nodes) {
    if (!plans.problem.empty() || plans.racks.empty()) {
        error_ = QString::fromStdString(plans.problem);
        report(false);
        return {};
    }
    if (plans.racks.size() == 1) return {place(plans.racks.front(), rack_model, server_model, nodes)};
    std::vector<std::string> ids;
    const bool ok = doc_.apply(
        tr("Add %1 racks").arg(plans.racks.size()),
        [&](model::Scenario& s) {
            for (const auto& p : plans.racks) ids.push_back(model::addPlannedRack(s, doc_.catalog(), p, rack_model, server_model, nodes));
        },
        &error_);
    report(ok);
    if (!ok) return {};
    QStringList out;
    for (const auto& id : ids) out << QString::fromStdString(id);
    for (const auto& h : doc_.scenario().halls)  // the row they stand in
        for (const auto& r : h.rows)
            for (const auto& k : r.racks)
                if (k.id == ids.front()) emit selectRequested({"row", QString::fromStdString(r.id)});
    const bool lost = plans.redundancy.rfind("2N", 0) != 0 || plans.redundancy.find("falls short") != std::string::npos;
    warning_ = lost ? QString::fromStdString(plans.redundancy) : QString();
    if (lost) emit notice(tr("Added %1 racks; redundancy: %2").arg(ids.size()).arg(warning_));
    return out;
}

void EditController::containmentDialog() {
    bool ok = false;
    const QStringList kinds{tr("hot"), tr("cold")};
    const QString k = QInputDialog::getItem(window_, tr("Add aisle containment"),
                                            tr("Close the selected rows' aisle (a hot aisle is where their backs face each other):"), kinds,
                                            0, false, &ok);
    if (ok) addContainment(k == kinds[1] ? "cold" : "hot");
}

void EditController::rearDoorDialog() {
    QStringList names{tr("(no rear door)")};
    QStringList ids{QString()};
    for (const auto& d : doc_.catalog().rear_doors) {
        names << QString::fromStdString(d.name);
        ids << QString::fromStdString(d.id);
    }
    bool ok = false;
    const QString pick = QInputDialog::getItem(window_, tr("Fit rear door"), tr("Rear door for the selected racks:"), names, 1, false, &ok);
    if (ok) fitRearDoor(ids[names.indexOf(pick)]);
}

void EditController::beginAddSensor(double height_m) {
    sensor_height_m_ = height_m;
    emit placementRequested(tr("Click where the %1 m sensor goes: a rack's front or rear half for a strip sensor, the floor "
                               "for a point of the room (Esc cancels)")
                                .arg(height_m));
}

QString EditController::placeSensor(double x_m, double y_m) {
    const auto& sc = doc_.scenario();
    if (sc.halls.empty()) return {};
    std::string id;
    const std::string hall = sc.halls.front().id;  // the plan shows the first hall
    const bool ok = doc_.apply(
        tr("Add sensor"),
        [&](model::Scenario& s) {
            id = model::addSensor(s, hall, model::sensorAt(s, doc_.catalog(), hall, {x_m, y_m}, sensor_height_m_));
        },
        &error_);
    report(ok);
    if (ok) emit selectRequested({"sensor", QString::fromStdString(id)});
    return ok ? QString::fromStdString(id) : QString();
}

void EditController::sensorDialog() {
    bool ok = false;
    const double h =
        QInputDialog::getDouble(window_, tr("Add sensor"), tr("Height above the floor (m):"), sensor_height_m_, 0.0, 10.0, 2, &ok);
    if (ok) beginAddSensor(h);
}

void EditController::hallDialog() {
    bool ok = false;
    const QString text =
        QInputDialog::getText(window_, tr("Add hall"), tr("Width × depth × height in metres:"), QLineEdit::Normal, "30 x 20 x 4", &ok);
    if (!ok) return;
    static const QRegularExpression num(R"(\d*\.?\d+)");
    QList<double> v;
    for (auto it = num.globalMatch(text); it.hasNext();) v << it.next().captured().toDouble();
    if (v.size() != 3) {
        error_ = tr("give three numbers: width, depth and height in metres");
        report(false);
        return;
    }
    addHall(v[0], v[1], v[2]);
}

}  // namespace ct::app
