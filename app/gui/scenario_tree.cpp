#include "scenario_tree.hpp"

#include <QMimeData>

#include "scenario_document.hpp"

#include <QHeaderView>

namespace ct::app {

namespace {
constexpr int kRefRole = Qt::UserRole + 1;

QTreeWidgetItem* addItem(QTreeWidgetItem* parent, const QString& label, const QString& detail, const EntityRef& ref) {
    auto* it = new QTreeWidgetItem(parent, {label, detail});
    if (ref.isValid()) it->setData(0, kRefRole, QVariant::fromValue(ref));
    return it;
}

QString s(const std::string& x) { return QString::fromStdString(x); }
QString label(const std::string& id, const std::string& name) { return name.empty() ? s(id) : s(id) + " — " + s(name); }
}  // namespace

QStringList ScenarioTree::mimeTypes() const { return {kEntityMime}; }

QMimeData* ScenarioTree::mimeData(const QList<QTreeWidgetItem*>& items) const {
    QStringList ids;
    for (const QTreeWidgetItem* it : items) {
        const auto ref = it->data(0, kRefRole).value<EntityRef>();
        if (ref.isValid() && ref.kind != "scenario") ids << ref.id;
    }
    if (ids.isEmpty()) return nullptr;
    auto* m = new QMimeData;
    m->setData(kEntityMime, ids.join('\n').toUtf8());
    return m;
}

ScenarioTree::ScenarioTree(const ScenarioDocument& doc, QWidget* parent) : QTreeWidget(parent), doc_(doc) {
    setObjectName("scenarioTree");
    setColumnCount(2);
    setHeaderLabels({tr("Entity"), tr("Model")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setUniformRowHeights(true);
    setDragEnabled(true);  // onto the Charts dock
    setDragDropMode(QAbstractItemView::DragOnly);
    connect(&doc_, &ScenarioDocument::changed, this, &ScenarioTree::rebuild);
    connect(&doc_, &ScenarioDocument::edited, this, &ScenarioTree::rebuild);
    connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* cur, QTreeWidgetItem*) {
        if (syncing_ || !cur) return;
        const auto ref = cur->data(0, kRefRole).value<EntityRef>();
        if (ref.isValid()) emit entitySelected(ref);
    });
    rebuild();
}

void ScenarioTree::rebuild() {
    clear();
    const model::Scenario& sc = doc_.scenario();
    if (sc.id.empty()) return;
    auto* root = new QTreeWidgetItem(this, {label(sc.id, sc.name), tr("scenario")});
    root->setData(0, kRefRole, QVariant::fromValue(EntityRef{"scenario", s(sc.id)}));
    for (const auto& h : sc.halls) {
        auto* hi =
            addItem(root, label(h.id, h.name), tr("%1 × %2 × %3 m").arg(h.width_m).arg(h.depth_m).arg(h.height_m), {"hall", s(h.id)});
        for (const auto& row : h.rows) {
            auto* ri = addItem(hi, label(row.id, row.name), tr("%n rack(s)", "", int(row.racks.size())), {"row", s(row.id)});
            for (const auto& r : row.racks) {
                auto* ki = addItem(ri, label(r.id, r.name), s(r.model), {"rack", s(r.id)});
                for (const auto& n : r.nodes) {
                    auto* ni = addItem(ki, s(n.id), s(n.model), {"node", s(n.id)});
                    const auto* sm = doc_.catalog().server(n.model);
                    for (int g = 0; sm && g < sm->gpu_count; ++g) {
                        const QString gid = s(model::gpuId(n.id, g));
                        addItem(ni, gid, s(sm->gpu_model), {"gpu", gid});
                    }
                }
                for (const auto& p : r.pdus) addItem(ki, s(p.id), tr("rack PDU, feed %1").arg(s(p.feed)), {"rack_pdu", s(p.id)});
            }
        }
        if (!h.cooling_units.empty() || !h.cdus.empty() || !h.containments.empty()) {
            auto* ci = addItem(hi, tr("Cooling"), QString(), {});
            for (const auto& u : h.cooling_units)
                addItem(ci, label(u.id, u.name), u.row.empty() ? s(u.model) : tr("%1, in-row in %2").arg(s(u.model), s(u.row)),
                        {"cooling_unit", s(u.id)});
            for (const auto& c : h.cdus) addItem(ci, label(c.id, c.name), s(c.model), {"cdu", s(c.id)});
            for (const auto& c : h.containments)
                addItem(ci, label(c.id, c.name), tr("%1-aisle containment, %n row(s)", "", int(c.rows.size())).arg(s(c.kind)),
                        {"containment", s(c.id)});
        }
        if (!h.sensors.empty()) {
            auto* si = addItem(hi, tr("Sensors"), tr("%n temperature sensor(s)", "", int(h.sensors.size())), {});
            for (const auto& x : h.sensors)
                addItem(si, label(x.id, x.name),
                        x.rack.empty() ? tr("at (%1, %2) m, %3 m up").arg(x.position_m.x_m).arg(x.position_m.y_m).arg(x.height_m)
                                       : tr("%1 of %2, %3 m up").arg(s(x.side), s(x.rack)).arg(x.height_m),
                        {"sensor", s(x.id)});
        }
        hi->setExpanded(true);
    }
    if (!sc.plant.loops.empty()) {
        auto* wi = addItem(root, tr("Water loops"), QString(), {});
        for (const auto& l : sc.plant.loops)
            addItem(wi, label(l.id, l.name), tr("chilled water, %1 °C").arg(l.supply_temp_c), {"water_loop", s(l.id)});
    }
    auto* pi = addItem(root, tr("Power"), QString(), {});
    for (const auto& f : sc.power.feeds) addItem(pi, label(f.id, f.name), tr("utility feed"), {"utility_feed", s(f.id)});
    for (const auto& t : sc.power.transformers) addItem(pi, label(t.id, t.name), tr("transformer"), {"transformer", s(t.id)});
    for (const auto& u : sc.power.ups) addItem(pi, label(u.id, u.name), s(u.model), {"ups", s(u.id)});
    for (const auto& p : sc.power.pdus) addItem(pi, label(p.id, p.name), tr("floor PDU"), {"pdu", s(p.id)});
    if (!sc.jobs.empty()) {
        auto* ji = addItem(root, tr("Jobs"), QString(), {});
        for (const auto& j : sc.jobs) addItem(ji, label(j.id, j.name), s(j.kind), {"job", s(j.id)});
    }
    if (!sc.events.empty()) {
        auto* ei = addItem(root, tr("Events"), QString(), {});
        for (std::size_t i = 0; i < sc.events.size(); ++i) {
            const auto& e = sc.events[i];
            addItem(ei, tr("t=%1 s  %2").arg(e.time_s).arg(s(e.kind)), s(e.target), {"event", QString::number(i)});
        }
    }
    root->setExpanded(true);
}

QTreeWidgetItem* ScenarioTree::itemFor(const EntityRef& ref) const {
    for (QTreeWidgetItemIterator it(const_cast<ScenarioTree*>(this)); *it; ++it)
        if ((*it)->data(0, kRefRole).value<EntityRef>() == ref) return *it;
    return nullptr;
}

EntityRef ScenarioTree::refFor(const QString& id) const {
    for (QTreeWidgetItemIterator it(const_cast<ScenarioTree*>(this)); *it; ++it)
        if (const auto ref = (*it)->data(0, kRefRole).value<EntityRef>(); ref.id == id) return ref;
    return {};
}

bool ScenarioTree::select(const EntityRef& ref) {
    QTreeWidgetItem* it = itemFor(ref);
    if (!it) {  // a cable, a job of the run: nothing of the tree is selected, rather than what was before
        syncing_ = true;
        clearSelection();
        setCurrentItem(nullptr);
        syncing_ = false;
        return false;
    }
    syncing_ = true;
    setCurrentItem(it);
    scrollToItem(it);
    syncing_ = false;
    return true;
}

}  // namespace ct::app
