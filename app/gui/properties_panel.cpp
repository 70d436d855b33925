#include "properties_panel.hpp"

#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/fabric.hpp>

#include "scenario_document.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/sim/training.hpp>

#include <QHeaderView>
#include <QMap>

namespace ct::app {

namespace {
using Props = std::vector<std::pair<QString, QString>>;
QString s(const std::string& x) { return QString::fromStdString(x); }
QString kw(double w) { return QString::number(w / 1000.0, 'f', 1) + " kW"; }
QString pos(const model::Vec2& p) { return QString("(%1, %2) m").arg(p.x_m).arg(p.y_m); }
QString join(const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& x : v) l << s(x);
    return l.join(", ");
}

void addScenario(Props& p, const ScenarioDocument& doc) {
    const model::Scenario& sc = doc.scenario();
    const model::Catalog& cat = doc.catalog();
    const auto sum = model::summarize(sc, cat);
    p.insert(p.end(), {{"name", s(sc.name)},
                       {"description", s(sc.description)},
                       {"racks", QString::number(sum.racks)},
                       {"nodes", QString::number(sum.nodes)},
                       {"GPUs", QString::number(sum.gpus)},
                       {"nameplate IT power", kw(sum.nameplate_it_power_w)},
                       {"air cooling capacity", kw(sum.air_cooling_capacity_w)},
                       {"liquid cooling capacity", kw(sum.liquid_cooling_capacity_w)},
                       {"cooling survives any one unit failing", sum.cooling_survives_any_single_failure() ? "yes" : "no"},
                       {"network", s(sc.network.topology)},
                       {"file", doc.path()}});
}

void addHall(Props& p, const model::Hall& h) {
    p.insert(p.end(), {{"name", s(h.name)},
                       {"size", QString("%1 × %2 × %3 m").arg(h.width_m).arg(h.depth_m).arg(h.height_m)},
                       {"floor tile", QString("%1 m").arg(h.tile_m)},
                       {"raised floor", h.raised_floor ? QString("%1 m").arg(h.raised_floor->height_m) : "none"},
                       {"rows", QString::number(h.rows.size())},
                       {"cooling units", QString::number(h.cooling_units.size())},
                       {"CDUs", QString::number(h.cdus.size())}});
}

void addRow(Props& p, const model::Row& row, const model::Catalog& cat) {
    double w = 0;
    for (const auto& r : row.racks) w += model::rackNameplatePowerW(r, cat);
    p.insert(p.end(),
             {{"name", s(row.name)}, {"hall", s(row.hall_id)}, {"racks", QString::number(row.racks.size())}, {"nameplate power", kw(w)}});
}

/// `row`: the rack's row (the gaps beside it count towards its open area).
void addRack(Props& p, const model::Rack& r, const model::Row& row, const model::Catalog& cat) {
    const auto* rm = cat.rack(r.model);
    p.insert(p.end(), {{"name", s(r.name)},
                       {"model", s(r.model) + (rm ? " (" + s(rm->name) + ")" : "")},
                       {"row", s(r.row_id)},
                       {"hall", s(r.hall_id)},
                       {"position", pos(r.position_m)},
                       {"facing (cold air in)", s(std::string(model::toString(r.facing)))},
                       {"nodes", QString::number(r.nodes.size())},
                       {"nameplate power", kw(model::rackNameplatePowerW(r, cat))},
                       {"liquid share", kw(model::rackLiquidPowerW(r, cat))}});
    if (r.rear_door) {
        const auto* d = cat.rearDoor(r.rear_door->model);
        p.push_back({"rear door", s(r.rear_door->model) +
                                      (d ? QString(" (%1, up to %2)").arg(s(d->kind), kw(d->max_capacity_w)) : QString()) +
                                      (r.rear_door->loop.empty() ? QString() : " on " + s(r.rear_door->loop))});
    }
    const QString blanking = r.blanking.empty() ? QString() : " (blanking " + s(r.blanking) + ")";
    if (const auto f = model::fixedRecirculation(r, cat))
        p.push_back({"recirculation", QString("%1 % of its exhaust, fixed").arg(100 * *f, 0, 'f', 0) + blanking});
    else if (!r.blanking.empty()) {
        // Half of each gap between it and a cabinet beside it is its own (models.md §3), whatever the air grid.
        std::vector<model::CabinetGap> beside;
        for (const auto& g : model::cabinetGaps(row, cat))
            if (&row.racks[g.a] == &r || &row.racks[g.b] == &r) beside.push_back(g);
        p.push_back(
            {"open area",
             QString("%1 m² back to front, its air driven by the pressure across it").arg(model::rackOpenArea(r, cat, beside), 0, 'f', 3) +
                 blanking});
    }
    for (const auto& pdu : r.pdus)
        p.push_back({"PDU " + s(pdu.id), QString("feed %1, %2-phase %3 V, %4 A → %5")
                                             .arg(s(pdu.feed))
                                             .arg(pdu.phases)
                                             .arg(pdu.voltage_v)
                                             .arg(pdu.breaker_a)
                                             .arg(s(pdu.upstream))});
}

void addRackPdu(Props& p, const model::RackPdu& pdu) {
    p.insert(p.end(), {{"rack", s(pdu.rack_id)},
                       {"feed", s(pdu.feed)},
                       {"upstream", s(pdu.upstream)},
                       {"phases", QString::number(pdu.phases)},
                       {"voltage", QString("%1 V").arg(pdu.voltage_v)},
                       {"breaker", QString("%1 A").arg(pdu.breaker_a)},
                       {"rated power", kw(pdu.ratedPowerW())}});
}

void addNode(Props& p, const model::Node& n, const model::ServerModel* sm) {
    p.insert(p.end(), {{"model", s(n.model) + (sm ? " (" + s(sm->name) + ")" : "")},
                       {"rack", s(n.rack_id)},
                       {"U position", QString::number(n.u_position)}});
    if (sm && sm->slot_count > 1)  // side by side in a chassis: which of them, seen from the front
        p.push_back({"slot", QString::number(n.slot)});
    p.insert(p.end(), {{"hostname", s(n.hostname)}, {"feeds", join(n.feeds)}});
    if (sm)
        p.insert(p.end(), {{"GPUs", QString("%1 × %2").arg(sm->gpu_count).arg(s(sm->gpu_model))},
                           {"max power", kw(sm->max_power_w)},
                           {"idle power", kw(sm->idle_power_w)},
                           {"airflow", QString("%1 m³/s").arg(sm->airflow_m3s, 0, 'f', 3)},
                           {"height", sm->slot_count > 1 ? QString("%1U, %2 side by side").arg(sm->height_u).arg(sm->slot_count)
                                                         : QString("%1U").arg(sm->height_u)},
                           {"source", s(sm->source)}});
}

void addGpu(Props& p, const model::Node& n, const model::ServerModel& server, int g, const model::Catalog& cat) {
    const auto* gm = cat.gpu(server.gpu_model);
    p.insert(p.end(), {{"node", s(n.id)}, {"index", QString::number(g)}, {"model", s(server.gpu_model)}});
    if (gm)
        p.insert(p.end(), {{"idle / max power", QString("%1 / %2 W").arg(gm->idle_power_w).arg(gm->max_power_w)},
                           {"slowdown / shutdown", QString("%1 / %2 °C").arg(gm->slowdown_temp_c).arg(gm->shutdown_temp_c)},
                           {"peak BF16", QString("%1 TFLOPS").arg(gm->peak_bf16_tflops)},
                           {"source", s(gm->source)}});
}

void addCoolingUnit(Props& p, const model::CoolingUnit& u, const model::Catalog& cat) {
    const auto* m = cat.coolingUnit(u.model);
    p.insert(p.end(), {{"name", s(u.name)},
                       {"model", s(u.model)},
                       {"position", pos(u.position_m)},
                       {"supply faces", s(std::string(model::toString(u.facing)))},
                       {"supply setpoint", QString("%1 °C").arg(u.supply_setpoint_c)},
                       // Held at a share of full speed, or (empty) following the racks' airflow.
                       {"fan speed", u.fan_speed ? QString::number(*u.fan_speed) : QString()}});
    if (!u.row.empty()) p.push_back({"in-row, in", s(u.row)});
    if (!u.loop.empty()) p.push_back({"water loop", s(u.loop)});
    if (m)
        p.insert(p.end(), {{"capacity", kw(m->capacity_w)},
                           {"airflow", QString("%1 m³/s").arg(m->airflow_m3s)},
                           {"fan power", kw(m->fan_power_w)},
                           {"source", s(m->source)}});
}

void addContainment(Props& p, const model::Containment& c, const model::Catalog& cat) {
    p.insert(p.end(), {{"name", s(c.name)},
                       {"kind", s(c.kind) + " aisle"},
                       {"rows", join(c.rows)},
                       {"roof", c.roof ? "yes" : "no"},
                       {"end doors", c.end_doors ? "yes" : "no"},
                       {"leakage", QString("%1 %").arg(100 * model::leakageFraction(c, cat), 0, 'f', 1) +
                                       (c.leakage_fraction ? QString() : " (" + s(c.model) + ")")}});
}

void addSensor(Props& p, const model::Sensor& x) {
    p.insert(p.end(), {{"name", s(x.name)},
                       {"reads", QObject::tr("air temperature (temp_c)")},
                       {"where", x.rack.empty() ? QObject::tr("a point of the room, (%1, %2) m").arg(x.position_m.x_m).arg(x.position_m.y_m)
                                                : QObject::tr("%1 of rack %2").arg(s(x.side), s(x.rack))},
                       {"height above the floor", QString("%1 m").arg(x.height_m)}});
}

void addCdu(Props& p, const model::Cdu& c, const model::Catalog& cat) {
    const auto* m = cat.cdu(c.model);
    p.insert(p.end(), {{"name", s(c.name)},
                       {"model", s(c.model)},
                       {"position", pos(c.position_m)},
                       {"supply temperature", QString("%1 °C").arg(c.supply_temp_c)},
                       {"feeds racks", join(c.racks)}});
    if (m) p.insert(p.end(), {{"capacity", kw(m->capacity_w)}, {"coolant flow", QString("%1 L/min").arg(m->coolant_flow_lpm)}});
}

/// A training job's compute from the kernels' rooflines (sim::trainingStep without a fabric: compute only, fast):
/// one GPU's compute a step, where it goes, and whose kernel shares it used.
void addTrainingCompute(Props& p, const model::Scenario& sc, const model::Catalog& cat, const model::Job& j) {
    try {
        const std::optional<sim::TrainingStep> step = sim::jobCompute(sc, cat, j);
        if (!step) return;
        const sim::TrainingStep& st = *step;
        const auto& L = st.layout;
        p.push_back(
            {"layout",
             QString("TP %1 × CP %2 × PP %3 × DP %4, %5 micro-batches").arg(L.tp).arg(L.cp).arg(L.pp).arg(L.dp).arg(L.micro_batches)});
        p.push_back({"compute a step", QString("%1 s on one GPU at full clock (the slowest stage)").arg(st.compute_full_s, 0, 'f', 3)});
        if (st.slowest_chip < 1)
            p.push_back({"slowest chip", QString("%1 of the median chip's speed sets the pace").arg(st.slowest_chip, 0, 'f', 3)});
        QStringList top;
        for (std::size_t i = 0; i < st.ops.size() && i < 4; ++i)
            top << QString("%1 %2 %").arg(s(st.ops[i].name)).arg(100 * st.ops[i].seconds / st.compute_full_s, 0, 'f', 0);
        p.push_back({"where it goes", top.join(", ")});
        p.push_back({"kernel shares", st.overrides.empty() ? QString("the %1's, from the catalog").arg(s(st.gpu))
                                                           : s(st.overrides.front()) + (st.overrides.size() > 1 ? " (and more)" : "")});
        for (const auto& w : st.warnings) p.push_back({"unchecked", s(w)});
    } catch (const std::exception& e) {
        p.push_back({"compute a step", QString("cannot lay out: %1").arg(e.what())});
    }
}

/// The site-wide parts: the power chain, water loops and jobs.
void addSitePart(Props& p, const model::Scenario& sc, const model::Catalog& cat, const EntityRef& ref, const std::string& id) {
    for (const auto& f : sc.power.feeds)
        if (ref.kind == "utility_feed" && f.id == id) p.insert(p.end(), {{"name", s(f.name)}, {"capacity", kw(f.capacity_w)}});
    for (const auto& t : sc.power.transformers)
        if (ref.kind == "transformer" && t.id == id)
            p.insert(p.end(), {{"name", s(t.name)},
                               {"feed", s(t.feed)},
                               {"capacity", kw(t.capacity_w)},
                               {"efficiency", QString("%1 %").arg(100 * t.efficiency, 0, 'f', 1)}});
    for (const auto& l : sc.plant.loops)
        if (ref.kind == "water_loop" && l.id == id)
            p.insert(p.end(), {{"name", s(l.name)},
                               {"supply temperature", QString("%1 °C").arg(l.supply_temp_c)},
                               {"capacity", l.capacity_w > 0 ? kw(l.capacity_w) : QString("the plant's")}});
    for (const auto& u : sc.power.ups)
        if (ref.kind == "ups" && u.id == id) {
            const auto* m = cat.upsModel(u.model);
            p.insert(p.end(), {{"name", s(u.name)}, {"model", s(u.model)}, {"feed", s(u.feed)}, {"modules", QString::number(u.modules)}});
            if (m) p.push_back({"capacity", kw(m->capacity_w * u.modules)});
        }
    for (const auto& d : sc.power.pdus)
        if (ref.kind == "pdu" && d.id == id) p.insert(p.end(), {{"name", s(d.name)}, {"UPS", s(d.ups)}, {"capacity", kw(d.capacity_w)}});
    for (const auto& j : sc.jobs)
        if (ref.kind == "job" && j.id == id) {
            const QString nodes = !j.nodes.empty() ? QString::number(j.nodes.size())
                                  : j.gpus > 0     ? QString("placed when it runs (%1 GPUs)").arg(j.gpus)
                                                   : QString("none");
            p.insert(p.end(), {{"name", s(j.name)}, {"kind", s(j.kind)}, {"nodes", nodes}});
            addTrainingCompute(p, sc, cat, j);
            p.insert(p.end(), {{"start", QString("%1 s").arg(j.start_s)}, {"end", j.end_s ? QString("%1 s").arg(*j.end_s) : "open"}});
            if (!j.training && !j.inference) p.push_back({"utilization", QString::number(j.utilization)});
        }
}

/// A link picked in the 3D view: "a<->b", "a<->b#k" for the k-th parallel cable (model::parseCableId).
void addLink(Props& p, const model::Scenario& sc, const std::string& id) {
    const model::CableName c = model::parseCableId(id);
    const bool nvlink = id.find("nvsw") != std::string::npos;
    p.insert(p.end(), {{"end A", s(c.valid ? c.a : id)}, {"end B", s(c.b)}});
    if (c.ordinal > 1) p.push_back({"cable", QString("%1 of the parallel cables between them").arg(c.ordinal)});
    p.insert(p.end(), {{"link speed", nvlink ? QString("NVLink (the server's)") : QString("%1 Gb/s").arg(sc.network.link_speed_gbps)},
                       {"utilization",
                        "below, and over the run in the Charts dock (a run records the 50 busiest links and up to "
                        "2,000 switch-to-switch ones)"}});
}

void addEvent(Props& p, const model::Scenario& sc, const EntityRef& ref) {
    const auto i = ref.id.toULongLong();
    if (i < sc.events.size()) {
        const auto& e = sc.events[i];
        p.insert(p.end(), {{"time", QString("%1 s").arg(e.time_s)},
                           {"event", s(e.kind)},
                           {"target", s(e.target)},
                           {"value", e.value ? QString::number(*e.value) : "-"}});
    }
}

/// What a rack holds: the rack itself, its rack PDUs, nodes and their GPUs. True when `ref` is one of them.
bool describeInRack(Props& p, const model::Rack& r, const model::Row& row, const model::Catalog& cat, const EntityRef& ref,
                    const std::string& id) {
    if (ref.kind == "rack" && r.id == id) return addRack(p, r, row, cat), true;
    for (const auto& pdu : r.pdus)
        if (ref.kind == "rack_pdu" && pdu.id == id) return addRackPdu(p, pdu), true;
    for (const auto& n : r.nodes) {
        const auto* sm = cat.server(n.model);
        if (ref.kind == "node" && n.id == id) return addNode(p, n, sm), true;
        for (int g = 0; ref.kind == "gpu" && sm && g < sm->gpu_count; ++g)
            if (model::gpuId(n.id, g) == id) return addGpu(p, n, *sm, g, cat), true;
    }
    return false;
}

/// What a hall holds: rows, racks (and what they hold), cooling units, containments and CDUs.
bool describeInHall(Props& p, const model::Hall& h, const model::Catalog& cat, const EntityRef& ref, const std::string& id) {
    if (ref.kind == "hall" && h.id == id) return addHall(p, h), true;
    for (const auto& row : h.rows) {
        if (ref.kind == "row" && row.id == id) return addRow(p, row, cat), true;
        for (const auto& r : row.racks)
            if (describeInRack(p, r, row, cat, ref, id)) return true;
    }
    for (const auto& u : h.cooling_units)
        if (ref.kind == "cooling_unit" && u.id == id) return addCoolingUnit(p, u, cat), true;
    for (const auto& c : h.containments)
        if (ref.kind == "containment" && c.id == id) return addContainment(p, c, cat), true;
    for (const auto& c : h.cdus)
        if (ref.kind == "cdu" && c.id == id) return addCdu(p, c, cat), true;
    for (const auto& x : h.sensors)
        if (ref.kind == "sensor" && x.id == id) return addSensor(p, x), true;
    return false;
}

Props describe(const ScenarioDocument& doc, const EntityRef& ref) {
    const model::Scenario& sc = doc.scenario();
    const model::Catalog& cat = doc.catalog();
    const std::string id = ref.id.toStdString();
    Props p{{"kind", ref.kind}, {"id", ref.id}};
    if (ref.kind == "scenario") {
        addScenario(p, doc);
        return p;
    }
    for (const auto& h : sc.halls)
        if (describeInHall(p, h, cat, ref, id)) return p;
    addSitePart(p, sc, cat, ref, id);
    if (ref.kind == "link") addLink(p, sc, id);
    if (ref.kind == "event") addEvent(p, sc, ref);
    return p;
}
}  // namespace

PropertiesPanel::PropertiesPanel(const ScenarioDocument& doc, QWidget* parent) : QTableWidget(parent), doc_(doc) {
    setObjectName("propertiesPanel");
    setColumnCount(2);
    setHorizontalHeaderLabels({tr("Property"), tr("Value")});
    horizontalHeader()->setStretchLastSection(true);
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    setWordWrap(true);
    connect(this, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* it) {
        if (filling_ || it->column() != 1) return;
        const QString key = it->data(Qt::UserRole).toString();
        if (!key.isEmpty()) emit propertyEdited(ref_.id, key, it->text());
    });
}

void PropertiesPanel::show(const EntityRef& ref) {
    static const QMap<QString, QString> kEditable = {{"name", "name"},
                                                     {"position", "position"},
                                                     {"facing (cold air in)", "facing"},
                                                     {"supply faces", "facing"},
                                                     {"supply setpoint", "supply_setpoint_c"},
                                                     {"fan speed", "fan_speed"},
                                                     {"height above the floor", "height_m"},
                                                     {"supply temperature", "supply_temp_c"},
                                                     {"U position", "u_position"},
                                                     {"slot", "slot"}};
    const bool can_edit = ref.kind == "rack" || ref.kind == "row" || ref.kind == "node" || ref.kind == "cooling_unit" ||
                          ref.kind == "cdu" || ref.kind == "sensor";
    filling_ = true;
    ref_ = ref;
    const Props props = describe(doc_, ref);
    setRowCount(static_cast<int>(props.size()));
    for (int i = 0; i < static_cast<int>(props.size()); ++i) {
        auto* k = new QTableWidgetItem(props[i].first);
        k->setFlags(k->flags() & ~Qt::ItemIsEditable);
        setItem(i, 0, k);
        auto* v = new QTableWidgetItem(props[i].second);
        v->setToolTip(props[i].second);
        if (can_edit && kEditable.contains(props[i].first)) {
            v->setData(Qt::UserRole, kEditable.value(props[i].first));
            v->setToolTip(tr("Double-click to edit"));
        } else {
            v->setFlags(v->flags() & ~Qt::ItemIsEditable);
        }
        setItem(i, 1, v);
    }
    resizeColumnToContents(0);
    filling_ = false;
}

bool PropertiesPanel::editValue(const QString& key, const QString& text) {
    for (int i = 0; i < rowCount(); ++i)
        if (item(i, 0) && item(i, 0)->text() == key && (item(i, 1)->flags() & Qt::ItemIsEditable)) {
            item(i, 1)->setText(text);
            return true;
        }
    return false;
}

QString PropertiesPanel::value(const QString& key) const {
    for (int i = 0; i < rowCount(); ++i)
        if (item(i, 0) && item(i, 0)->text() == key) return item(i, 1)->text();
    return {};
}

}  // namespace ct::app
