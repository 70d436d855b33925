// Issue 44: what real halls have that the scenario format could not say.
// - Several servers side by side in one chassis (OCP sleds, a 2U4N chassis, blades): a server model's `slots`
//   (how many stand across a rack's width) and a node's `slot` (which one, from the left as seen from the rack's
//   front). Saved and read back, checked (the slot's range, overlaps by U and width), and in the air each sled
//   breathes the air in front of its own part of the rack: the rack's ports split into one column per grid cell
//   across it, so a sled's inlet is the air of the cell before it (a half-width sled the mix of the columns it
//   spans), left and right the right way round, and the rack still moves exactly its servers' air.
// - Wall-standing coolers that blow over part of their height and draw through a grille of their front: the
//   catalog's supply and return openings put the cold air where they say.
// - A unit whose fans are held at a speed (its fan signal) blows that share of its rating whatever the racks draw.
// - A unit whose valve controls its return air holds the return at its setpoint, its supply floating, and comes
//   back to it after a load step.
#include <QTemporaryDir>
#include <QTest>

#include "sim_fixtures.hpp"

#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/engine.hpp>

#include <cmath>

using namespace ct;

namespace {

// A third-width CPU sled (three in a 1U tray) and a half-width one (a 2U4N chassis' sled), 1U each.
const char* kSleds = R"({"servers": [
  {"id": "sled-3w", "name": "Third-width sled", "form_factor": "node", "gpu_count": 0, "height_u": 1, "slots": 3,
   "weight_kg": 12, "max_power_w": 600, "idle_power_w": 150, "cpu_count": 2, "cpu_idle_power_w": 40,
   "cpu_max_power_w": 200, "nic_power_w": 20, "other_power_w": 130, "fan_max_power_w": 50, "airflow_cfm": 60,
   "psu_count": 1, "psu_rating_w": 800, "psu_curve": "psu-80plus-titanium-230v", "nic_count": 1,
   "nic_speed_gbps": 25, "source": "test"},
  {"id": "sled-2w", "name": "Half-width sled", "form_factor": "node", "gpu_count": 0, "height_u": 1, "slots": 2,
   "weight_kg": 15, "max_power_w": 800, "idle_power_w": 200, "cpu_count": 2, "cpu_idle_power_w": 50,
   "cpu_max_power_w": 270, "nic_power_w": 20, "other_power_w": 180, "fan_max_power_w": 60, "airflow_cfm": 80,
   "psu_count": 1, "psu_rating_w": 1000, "psu_curve": "psu-80plus-titanium-230v", "nic_count": 1,
   "nic_speed_gbps": 25, "source": "test"}]})";

model::Node sled(const char* id, const char* model, int u, int slot) {
    model::Node n;
    n.id = id;
    n.model = model;
    n.u_position = u;
    n.slot = slot;
    n.feeds = {"r01-01-pdu-a", "r01-01-pdu-b"};
    return n;
}

/// lab-8node with three third-width sleds at U 37 and two half-width ones at U 38 in rack r01-01 (above its
/// four DGX H100), its neighbour r01-02 loaded, and no recirculation inside the rack.
fixtures::Loaded withSleds() {
    auto l = fixtures::sample("lab-8node", 0.8, kSleds);
    auto& rack = l.scenario.halls.front().rows.front().racks.front();
    rack.blanking.clear();
    rack.recirculation_fraction.reset();
    for (const auto& n : {sled("s1", "sled-3w", 37, 1), sled("s2", "sled-3w", 37, 2), sled("s3", "sled-3w", 37, 3),
                          sled("h1", "sled-2w", 38, 1), sled("h2", "sled-2w", 38, 2)})
        rack.nodes.push_back(n);
    l.scenario.linkParents();
    return l;
}

bool hasError(const model::Diagnostics& d, const std::string& pointer, const std::string& part = "") {
    for (const auto& x : d)
        if (x.severity == model::Severity::Error && x.location == pointer && x.message.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

class TstRealHalls : public QObject {
    Q_OBJECT
private slots:
    void slotsAreSavedReadBackAndChecked();
    void eachSledBreathesTheAirInFrontOfIt();
    void unitOpeningsPutTheColdAirWhereTheySay();
    void unitOpeningsAreChecked();
    void unitFansHeldAtASpeedBlowThatShare();
    void unitsOnReturnAirControlHoldTheirReturn();
};

void TstRealHalls::slotsAreSavedReadBackAndChecked() {
    auto l = withSleds();
    QVERIFY(!model::hasErrors(model::validateScenario(l.scenario, l.catalog)));
    QTemporaryDir tmp;
    const std::string file = tmp.filePath("sleds.json").toStdString();
    model::saveScenarioFile(l.scenario, file);
    const auto back = model::loadScenarioFile(file);
    const auto& nodes = back.scenario.halls.front().rows.front().racks.front().nodes;
    QCOMPARE(nodes.size(), std::size_t(9));
    QCOMPARE(nodes[6].slot, 3);
    QCOMPARE(nodes[0].slot, 1);  // a full-width server: slot 1, not written
    QVERIFY(back.scenario.catalog_json.find("\"slots\"") != std::string::npos);
    // What cannot be: a fourth third, a second sled in a taken slot, a full-width server over the sleds, slot 2
    // of a full-width server.
    auto& rack = l.scenario.halls.front().rows.front().racks.front();
    rack.nodes[4].slot = 4;
    rack.nodes[5].slot = 3;
    rack.nodes[2].slot = 2;
    model::Node over = sled("over", "dgx-h100", 36, 1);  // U 36–43 covers the sleds
    rack.nodes.push_back(over);
    l.scenario.linkParents();
    const auto d = model::validateScenario(l.scenario, l.catalog);
    const std::string np = "/halls/0/rows/0/racks/0/nodes/";
    QVERIFY(hasError(d, np + "4/slot", "1..3"));
    QVERIFY(hasError(d, np + "6/u_position", "overlaps node s2"));  // s2 now in slot 3, as s3
    QVERIFY(hasError(d, np + "2/slot", "full width"));
    QVERIFY(hasError(d, np + "9/u_position", "overlaps node"));
    // Sleds in different slots of the same U, and a half-width pair above a third-width trio, are fine: the
    // first sample validated above with them.
}

void TstRealHalls::eachSledBreathesTheAirInFrontOfIt() {
    auto l = withSleds();
    // Air from one side only: a west wall unit, the east one off, so that the rack's columns differ.
    l.scenario.halls.front().cooling_units.pop_back();
    const auto& rack = l.scenario.halls.front().rows.front().racks.front();
    const auto* rm = l.catalog.rack(rack.model);
    QVERIFY(rm && rack.facing == model::Facing::North);
    // Point sensors in the grid cell in front of each of the rack's three columns at the sleds' level
    // (0.2 m cells: U 37–38 lie within 1.6–1.8 m), listed from the left as seen from the front: facing north,
    // the left is east.
    const double c = 0.2;
    const model::Box2 b = model::footprint(rack.position_m, rm->width_m, rm->depth_m, rack.facing);
    for (int k = 0; k < 3; ++k) {
        model::Sensor x;
        x.id = "col" + std::to_string(k);
        x.position_m = {b.x1 - (k + 0.5) * (b.x1 - b.x0) / 3, b.y1 + c / 2};
        x.height_m = 1.7;
        l.scenario.halls.front().sensors.push_back(x);
    }
    l.scenario.linkParents();
    auto o = fixtures::quickAir();
    o.cell_m = c;
    sim::Engine e(l.scenario, l.catalog, o);
    const model::Frame& f = fixtures::runTo(e, 900);
    auto node = [&](const char* id) -> const model::NodeFrame& {
        for (const auto& n : f.nodes)
            if (n.id == id) return n;
        qFatal("no node %s", id);
    };
    double col[3];
    for (int k = 0; k < 3; ++k) col[k] = f.sensors[static_cast<std::size_t>(k)].temp_c;
    const QString cols = QString("columns %1 %2 %3").arg(col[0], 0, 'f', 6).arg(col[1], 0, 'f', 6).arg(col[2], 0, 'f', 6);
    // The room is not symmetric about the rack: its columns differ by far more than the air changes within a
    // step (the nodes read their inlets at the step's start, the sensors at its end).
    const double tol = 1e-4;
    QVERIFY2(std::abs(col[0] - col[1]) > 100 * tol && std::abs(col[2] - col[1]) > 100 * tol, qPrintable(cols));
    const char* thirds[] = {"s1", "s2", "s3"};
    for (int k = 0; k < 3; ++k) {
        const double in = node(thirds[k]).inlet_c;
        QVERIFY2(std::abs(in - col[k]) < tol, qPrintable(QString("%1 reads %2; ").arg(thirds[k]).arg(in, 0, 'f', 6) + cols));
    }
    // A half-width sled spans a column and a half: 2/3 of its air through one, 1/3 through the middle one.
    QVERIFY(std::abs(node("h1").inlet_c - (2 * col[0] + col[1]) / 3) < tol);
    QVERIFY(std::abs(node("h2").inlet_c - (2 * col[2] + col[1]) / 3) < tol);
    // The rack moves its servers' air and gives the room their heat, split or not.
    double q = 0, heat = 0;
    for (const auto& n : rack.nodes) {
        q += node(n.id.c_str()).airflow_m3s;
        heat += node(n.id.c_str()).power_ac_w - node(n.id.c_str()).heat_to_liquid_w;
    }
    const model::RackFrame& rf = f.racks.front();
    QVERIFY2(std::abs(rf.airflow_m3s - q) < 1e-9 * q, qPrintable(QString("%1 vs %2").arg(rf.airflow_m3s).arg(q)));
    QVERIFY2(std::abs(rf.heat_to_air_w - heat) < 1e-6 * heat, qPrintable(QString("%1 vs %2").arg(rf.heat_to_air_w).arg(heat)));
    // The rack's inlet profile keeps one value per height: the sleds' level reads the mean of its columns.
    QCOMPARE(rf.inlet_c.size(), rf.level_height_m.size());
    for (std::size_t k = 1; k < rf.level_height_m.size(); ++k) QVERIFY(rf.level_height_m[k] > rf.level_height_m[k - 1]);
}

namespace {
/// lab-8node on a plain floor (no plenum): its two units blow into the room through their own fronts. Their
/// model is `unit_json` merged over the catalog's crah-cw-120kw (1.97 m tall).
fixtures::Loaded plainFloor(const std::string& unit_json) {
    auto l = fixtures::sample("lab-8node", 0.8, R"({"cooling_units": [{"id": "crah-cw-120kw")" + unit_json + "}]}");
    l.scenario.halls.front().raised_floor.reset();
    return l;
}
/// The air just in front of crah-01 (at x 0.45 m, 0.9 m deep, facing east) at height z, after 20 minutes.
std::pair<double, double> inFrontOfUnit(fixtures::Loaded l, double z_low, double z_high) {
    for (double z : {z_low, z_high}) {
        model::Sensor x;
        x.id = "z" + std::to_string(static_cast<int>(z * 100));
        x.position_m = {0.9 + 0.1, 2.4};
        x.height_m = z;
        l.scenario.halls.front().sensors.push_back(x);
    }
    l.scenario.linkParents();
    auto o = fixtures::quickAir();
    o.cell_m = 0.2;
    sim::Engine e(l.scenario, l.catalog, o);
    const model::Frame& f = fixtures::runTo(e, 1200);
    return {f.sensors[0].temp_c, f.sensors[1].temp_c};
}
}  // namespace

void TstRealHalls::unitOpeningsPutTheColdAirWhereTheySay() {
    // The default: the supply low at the front, the return through the top. Low in front: cold; higher: warmer.
    const auto [lo_default, hi_default] = inFrontOfUnit(plainFloor(""), 0.5, 1.5);
    QVERIFY2(hi_default > lo_default + 0.05 && lo_default < 20.05,
             qPrintable(QString("default: %1 at 0.5 m, %2 at 1.5 m").arg(lo_default).arg(hi_default)));
    // A wall-standing unit that blows at 1.2–1.8 m and draws through its front below: the other way round.
    const auto [lo, hi] = inFrontOfUnit(
        plainFloor(R"(, "supply_from_m": 1.2, "supply_to_m": 1.8, "return_side": "front", "return_from_m": 0.2, "return_to_m": 0.8)"), 0.5,
        1.5);
    qInfo("in front of crah-01 at 0.5 / 1.5 m: default %.4f / %.4f °C, wall unit %.4f / %.4f °C", lo_default, hi_default, lo, hi);
    QVERIFY2(lo > hi + 0.05, qPrintable(QString("wall unit: %1 at 0.5 m, %2 at 1.5 m").arg(lo).arg(hi)));
    QVERIFY2(hi < 20.05, qPrintable(QString::number(hi)));  // its grille's air: its 20 °C supply
}

void TstRealHalls::unitOpeningsAreChecked() {
    auto check = [](const std::string& unit_json, const std::string& field) {
        model::Scenario sc;
        sc.catalog_json = R"({"cooling_units": [{"id": "crah-cw-120kw")" + unit_json + "}]}";
        model::Diagnostics d;
        model::effectiveCatalog(sc, model::Catalog::builtin(), d);
        for (const auto& x : d)
            if (x.severity == model::Severity::Error && x.location.find(field) != std::string::npos) return true;
        return false;
    };
    QVERIFY(
        !check(R"(, "supply_from_m": 1.2, "supply_to_m": 1.8, "return_side": "front", "return_from_m": 0.2, "return_to_m": 0.8)", "_m"));
    QVERIFY(check(R"(, "supply_from_m": 1.2, "supply_to_m": 2.5)", "supply_to_m"));  // above the unit's 1.97 m
    QVERIFY(check(R"(, "supply_from_m": 1.0, "supply_to_m": 0.5)", "supply_to_m"));
    QVERIFY(check(R"(, "return_side": "side")", "return_side"));
    QVERIFY(!check(R"(, "return_side": "front")", "_m"));  // the upper half of its front, over the supply's lower half
    QVERIFY(check(R"(, "return_side": "front", "return_from_m": 0.5, "return_to_m": 1.2)", "return_from_m"));  // over the supply
    QVERIFY(check(R"(, "return_from_m": 0.5, "return_to_m": 1.2)", "return_from_m"));                          // a top return has no span
}

void TstRealHalls::unitFansHeldAtASpeedBlowThatShare() {
    const double rated = model::Catalog::builtin().coolingUnit("crah-cw-120kw")->airflow_m3s;
    for (double util : {0.2, 0.9}) {
        auto l = fixtures::sample("lab-8node", util);
        l.scenario.halls.front().cooling_units[0].fan_speed = 0.6;  // crah-02 follows the racks
        sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
        const model::Frame& f = fixtures::runTo(e, 300);
        QVERIFY2(std::abs(f.cooling_units[0].airflow_m3s - 0.6 * rated) < 1e-9 * rated,
                 qPrintable(QString("%1 at %2").arg(f.cooling_units[0].airflow_m3s).arg(util)));
        QVERIFY(std::abs(f.cooling_units[1].airflow_m3s - 0.6 * rated) > 0.01);  // the other one follows the racks
    }
    auto l = fixtures::sample("lab-8node");
    l.scenario.halls.front().cooling_units[0].fan_speed = 0.0;
    l.scenario.halls.front().cooling_units[1].fan_speed = 1.2;
    const auto d = model::validateScenario(l.scenario, l.catalog);
    QVERIFY(hasError(d, "/halls/0/cooling_units/0/fan_speed"));
    QVERIFY(hasError(d, "/halls/0/cooling_units/1/fan_speed"));
    l.scenario.halls.front().cooling_units[1].fan_speed = 0.45;
    QTemporaryDir tmp;
    const std::string file = tmp.filePath("held.json").toStdString();
    model::saveScenarioFile(l.scenario, file);
    QCOMPARE(*model::loadScenarioFile(file).scenario.halls.front().cooling_units[1].fan_speed, 0.45);
}

void TstRealHalls::unitsOnReturnAirControlHoldTheirReturn() {
    auto l = fixtures::sample("lab-8node", 0.6);
    for (auto& u : l.scenario.halls.front().cooling_units) {
        u.control = "return";
        u.return_setpoint_c = 30;
    }
    QVERIFY(!model::hasErrors(model::validateScenario(l.scenario, l.catalog)));
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    e.addEvents({fixtures::event(3600, "workload_change", "test-job", 0.95)});
    auto report = [](const model::Frame& f) {
        return QString("return %1 / %2, supply %3 / %4 °C")
            .arg(f.cooling_units[0].return_c)
            .arg(f.cooling_units[1].return_c)
            .arg(f.cooling_units[0].supply_c)
            .arg(f.cooling_units[1].supply_c);
    };
    const model::Frame& settled = fixtures::runTo(e, 3590);
    const double supply_before = settled.cooling_units[0].supply_c;
    for (const auto& u : settled.cooling_units) {
        QVERIFY2(std::abs(u.return_c - 30) < 0.2, qPrintable(report(settled)));
        QVERIFY2(std::abs(u.supply_c - 20) > 0.5, qPrintable(report(settled)));  // not the supply setpoint it started at
    }
    qInfo("settled at 0.6: %s", qPrintable(report(settled)));
    const model::Frame& stepped = fixtures::runTo(e, 3600 + 120);  // more heat: the return rises first
    QVERIFY2(stepped.cooling_units[0].return_c > 30.3, qPrintable(report(stepped)));
    qInfo("2 min after the step to 0.95: %s", qPrintable(report(stepped)));
    const model::Frame& again = fixtures::runTo(e, 3600 + 2400);  // and the valve brings it back, colder supply
    for (const auto& u : again.cooling_units) QVERIFY2(std::abs(u.return_c - 30) < 0.2, qPrintable(report(again)));
    QVERIFY2(again.cooling_units[0].supply_c < supply_before - 1, qPrintable(report(again)));
    qInfo("40 min after: %s", qPrintable(report(again)));
    // A return setpoint without return control, and return control without one, are refused.
    auto& u = l.scenario.halls.front().cooling_units;
    u[0].control = "supply";
    u[1].return_setpoint_c.reset();
    const auto d = model::validateScenario(l.scenario, l.catalog);
    QVERIFY(hasError(d, "/halls/0/cooling_units/0/return_setpoint_c", "set control"));
    QVERIFY(hasError(d, "/halls/0/cooling_units/1/return_setpoint_c", "needs"));
}

QTEST_GUILESS_MAIN(TstRealHalls)
#include "tst_real_halls.moc"
