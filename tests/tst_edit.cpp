// Issue 6: layout edits (undo/redo by snapshots gives back identical JSON), live layout checks on crafted
// layouts, atomic saves under a write error, and the impact query against hand-worked answers.
#include "sim_fixtures.hpp"

#include <clustertwin/model/capacity.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/layout_checks.hpp>
#include <clustertwin/model/scenario_diff.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/sim/impact.hpp>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <sys/resource.h>
#include <csignal>
#include <filesystem>
#include <functional>
#include <map>

namespace m = ct::model;

namespace {

bool hasFinding(const std::vector<m::LayoutFinding>& f, const std::string& kind, const std::string& entity) {
    for (const auto& x : f)
        if (x.kind == kind && (entity.empty() || x.entity == entity)) return true;
    return false;
}

std::string dump(const std::vector<m::LayoutFinding>& f) {
    std::string s;
    for (const auto& x : f) s += x.kind + " " + x.entity + ": " + x.message + "\n";
    return s;
}

}  // namespace

using Edit = std::function<void(m::Scenario&, const m::Catalog&)>;
Q_DECLARE_METATYPE(Edit)

class TstEdit : public QObject {
    Q_OBJECT
private slots:
    void everyEditUndoneAndRedoneGivesIdenticalJson_data();
    void everyEditUndoneAndRedoneGivesIdenticalJson();
    void moveIsByWholeTiles();
    void sensorsArePlacedEditedAndGoWithTheirRack();
    void badEditsLeaveTheScenarioUnchanged();
    void checksFindOverlapAndOutsideTheHall();
    void checksFindAisleOrientation();
    void checksFindBreakerFloorLoadAndCooling();
    void theSamplesHaveNoLayoutErrors();
    void aSaveFailingMidwayLeavesTheOldFile();
    void impactLeafSwitchCutsRailZero();
    void impactFeedLeavesRacksOnOneSide();
    void impactSingleFedNodesLosePower();
    void impactCoolingUnitAndCdu();
    void impactUnknownIdIsAnError();
    void twoVersionsSayWhatChangedInTheLayout();
    void headroomAndPlacementAsWorkedByHand();
};

void TstEdit::everyEditUndoneAndRedoneGivesIdenticalJson_data() {
    QTest::addColumn<Edit>("edit");
    QTest::newRow("move") << Edit([](m::Scenario& s, const m::Catalog&) { m::moveEntities(s, {"r01-01", "crah-01"}, 1.3, -0.5); });
    QTest::newRow("move row") << Edit([](m::Scenario& s, const m::Catalog&) { m::moveEntities(s, {"row02"}, 0.6, 0); });
    QTest::newRow("rotate") << Edit([](m::Scenario& s, const m::Catalog&) { m::rotateEntities(s, {"r02-03", "crah-02"}); });
    QTest::newRow("duplicate") << Edit([](m::Scenario& s, const m::Catalog& c) { m::duplicateRacks(s, c, {"r03-05", "r01-02"}); });
    QTest::newRow("remove") << Edit([](m::Scenario& s, const m::Catalog&) { m::removeEntities(s, {"r01-01", "crah-08"}); });
    QTest::newRow("add sensor") << Edit([](m::Scenario& s, const m::Catalog& c) {
        m::addSensor(s, "hall1", m::sensorAt(s, c, "hall1", {0.3, 0.3}, 1.1));
    });
    QTest::newRow("remove row") << Edit([](m::Scenario& s, const m::Catalog&) { m::removeEntities(s, {"row04"}); });
    QTest::newRow("add row") << Edit([](m::Scenario& s, const m::Catalog&) { m::addRow(s, "hall1", "Extra"); });
    QTest::newRow("add rack") << Edit([](m::Scenario& s, const m::Catalog& c) {
        m::addRack(s, c, "row01", "rack-48u-600x1200", "dgx-h100", 4, {2.1, 1.5}, m::Facing::South);
    });
    QTest::newRow("property") << Edit([](m::Scenario& s, const m::Catalog&) {
        m::setProperty(s, "r02-02", "name", "Storage");
        m::setProperty(s, "crah-03", "supply_setpoint_c", "19.5");
    });
}

void TstEdit::everyEditUndoneAndRedoneGivesIdenticalJson() {
    QFETCH(Edit, edit);
    const auto l = fixtures::sample("demo");
    m::Scenario s = l.scenario;
    const std::string before = m::scenarioToJson(s);
    const m::Scenario snapshot = s;  // what the undo stack keeps
    edit(s, l.catalog);
    const std::string after = m::scenarioToJson(s);
    QVERIFY(after != before);
    // Undo restores the snapshot; redo applies the same edit again.
    m::Scenario undone = snapshot;
    QCOMPARE(m::scenarioToJson(undone), before);
    m::Scenario redone = undone;
    edit(redone, l.catalog);
    QCOMPARE(m::scenarioToJson(redone), after);
    // And the edited scenario reloads to the same text (it is a real scenario, not a half-edited one).
    QCOMPARE(m::scenarioToJson(m::parseScenario(after).scenario), after);
}

void TstEdit::sensorsArePlacedEditedAndGoWithTheirRack() {
    const auto l = fixtures::sample("demo");
    m::Scenario s = l.scenario;
    const auto& r = s.halls[0].rows[0].racks[0];
    const std::string rack = r.id, hall = s.halls[0].id;
    QVERIFY(r.facing == m::Facing::North);  // demo's first row faces north: the front half is the higher y
    const auto* rm = l.catalog.rack(r.model);
    const double y_front = r.position_m.y_m + rm->depth_m / 4, y_rear = r.position_m.y_m - rm->depth_m / 4;
    // A click on a rack's front half, its rear half, and the open floor.
    const m::Sensor front = m::sensorAt(s, l.catalog, hall, {r.position_m.x_m, y_front}, 1.1);
    QCOMPARE(front.rack, rack);
    QCOMPARE(front.side, std::string("front"));
    QCOMPARE(front.id, rack + "-front-1.10");
    const std::string id_front = m::addSensor(s, hall, front);
    const m::Sensor rear = m::sensorAt(s, l.catalog, hall, {r.position_m.x_m, y_rear}, 1.1);
    QCOMPARE(rear.side, std::string("rear"));
    const std::string id_rear = m::addSensor(s, hall, rear);
    const std::string id_again = m::addSensor(s, hall, m::sensorAt(s, l.catalog, hall, {r.position_m.x_m, y_front}, 1.1));
    QCOMPARE(id_again, rack + "-front-1.10-2");  // a second one there gets a fresh id
    const m::Sensor point = m::sensorAt(s, l.catalog, hall, {0.3, 0.3}, 2.0);
    QVERIFY(point.rack.empty());
    QCOMPARE(point.position_m.x_m, 0.3);
    const std::string id_point = m::addSensor(s, hall, point);
    QVERIFY(!m::hasErrors(m::validateScenario(s, l.catalog)));
    // Edited, checked; bad values leave it as it was.
    m::setProperty(s, id_front, "height_m", "1.8");
    QCOMPARE(s.halls[0].sensors[0].height_m, 1.8);
    const m::Scenario before = s;
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::setProperty(s, id_front, "height_m", "9"));  // above the 4 m ceiling
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::setProperty(s, id_front, "x_m", "1"));       // it sits on its rack
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::setProperty(s, id_point, "x_m", "-1"));      // off the floor
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addSensor(s, hall, point));                  // the id is taken
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::moveEntities(s, {id_front}, 0.6, 0));        // moves with its rack
    QVERIFY(s == before);
    m::moveEntities(s, {id_point}, 0.6, 0);
    QCOMPARE(s.halls[0].sensors.back().position_m.x_m, 0.9);
    // Removing the rack takes its sensors along; the room's stays.
    m::removeEntities(s, {rack});
    QCOMPARE(s.halls[0].sensors.size(), std::size_t(1));
    QCOMPARE(s.halls[0].sensors[0].id, id_point);
    QVERIFY(!m::hasErrors(m::validateScenario(s, l.catalog)));
    Q_UNUSED(id_rear);
}

void TstEdit::moveIsByWholeTiles() {
    const auto l = fixtures::sample("demo");
    m::Scenario s = l.scenario;
    const auto& r0 = s.halls[0].rows[0].racks[0];
    const m::Vec2 p0 = r0.position_m;
    m::moveEntities(s, {r0.id}, 1.0, 0.29);  // 1.0 m → 2 tiles (1.2 m); 0.29 m → 0 tiles
    const auto& r1 = s.halls[0].rows[0].racks[0];
    QCOMPARE(r1.position_m.x_m - p0.x_m, 1.2);
    QCOMPARE(r1.position_m.y_m, p0.y_m);
    QCOMPARE(m::snapToTiles(-0.31, 0.6), -0.6);
    QCOMPARE(m::snapToTiles(0.29, 0.6), 0.0);
}

void TstEdit::badEditsLeaveTheScenarioUnchanged() {
    const auto l = fixtures::sample("demo");
    m::Scenario s = l.scenario;
    const std::string before = m::scenarioToJson(s);
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::moveEntities(s, {"r01-01", "no-such"}, 0.6, 0));
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::rotateEntities(s, {"no-such"}));
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::duplicateRacks(s, l.catalog, {"crah-01"}));
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::removeEntities(s, {"r01-01", "ghost"}));
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addRack(s, l.catalog, "row01", "no-rack", "", 0, {1, 1}, m::Facing::North));
    QVERIFY_THROWS_EXCEPTION(m::ModelError,
                             m::addRack(s, l.catalog, "row01", "rack-48u-600x1200", "dgx-h100", 9, {1, 1}, m::Facing::North));
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::setProperty(s, "crah-01", "supply_setpoint_c", "cold"));
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::setProperty(s, "r01-01", "colour", "red"));
    QCOMPARE(m::scenarioToJson(s), before);
}

void TstEdit::checksFindOverlapAndOutsideTheHall() {
    const auto l = fixtures::sample("demo");
    m::Scenario s = l.scenario;
    QVERIFY2(!hasFinding(m::checkLayout(s, l.catalog), "overlap", ""), dump(m::checkLayout(s, l.catalog)).c_str());
    // Move r01-02 onto r01-01 (one rack width, 0.6 m, to the west).
    m::moveEntities(s, {"r01-02"}, -0.6, 0);
    auto f = m::checkLayout(s, l.catalog);
    QVERIFY2(hasFinding(f, "overlap", "r01-02") || hasFinding(f, "overlap", "r01-01"), dump(f).c_str());
    m::Scenario t = l.scenario;
    m::moveEntities(t, {"crah-01"}, -60, 0);
    f = m::checkLayout(t, l.catalog);
    QVERIFY2(hasFinding(f, "outside_hall", "crah-01"), dump(f).c_str());
}

void TstEdit::checksFindAisleOrientation() {
    const auto l = fixtures::sample("demo");
    auto f = m::checkLayout(l.scenario, l.catalog);
    QVERIFY2(!hasFinding(f, "aisle_orientation", ""), dump(f).c_str());  // the demo has hot/cold aisles
    // Turn one rack around: it now exhausts into its row's cold aisle.
    m::Scenario s = l.scenario;
    m::rotateEntities(s, {"r02-03"});
    m::rotateEntities(s, {"r02-03"});
    f = m::checkLayout(s, l.catalog);
    QVERIFY2(hasFinding(f, "aisle_orientation", "r02-03"), dump(f).c_str());
    // Turn a whole row: it faces the back of its neighbour.
    m::Scenario t = l.scenario;
    m::rotateEntities(t, {"row01"});
    m::rotateEntities(t, {"row01"});
    f = m::checkLayout(t, l.catalog);
    QVERIFY2(hasFinding(f, "aisle_orientation", ""), dump(f).c_str());
}

void TstEdit::checksFindBreakerFloorLoadAndCooling() {
    const auto l = fixtures::sample("demo");
    // A 16 A breaker cannot carry four DGX H100 (4 × 10.2 kW over 2 sides: 20.4 kW per side > 80 % of 10.5 kW).
    m::Scenario s = l.scenario;
    for (auto& p : s.halls[0].rows[0].racks[0].pdus) p.breaker_a = 16;
    auto f = m::checkLayout(s, l.catalog);
    QVERIFY2(hasFinding(f, "rack_power", "r01-01"), dump(f).c_str());
    // Floor load: four DGX H100 (130.45 kg each) + rack on 0.72 m² are ~870 kg/m²; a 600 kg/m² floor is too weak.
    m::Scenario t = l.scenario;
    t.halls[0].extra["floor_rating_kg_m2"] = "600";
    f = m::checkLayout(t, l.catalog);
    QVERIFY2(hasFinding(f, "floor_load", "r01-01"), dump(f).c_str());
    QVERIFY(!hasFinding(m::checkLayout(l.scenario, l.catalog), "floor_load", ""));
    // Cooling: eight 120 kW units carry 816 kW with one lost (840 kW); with two removed, N−1 fails; with three, N fails.
    m::Scenario u = l.scenario;
    m::removeEntities(u, {"crah-08"});
    f = m::checkLayout(u, l.catalog);
    QVERIFY2(hasFinding(f, "cooling_n_minus_1", ""), dump(f).c_str());
    m::removeEntities(u, {"crah-07"});
    f = m::checkLayout(u, l.catalog);
    QVERIFY2(hasFinding(f, "cooling_n", ""), dump(f).c_str());
}

void TstEdit::theSamplesHaveNoLayoutErrors() {
    for (const char* name : {"demo", "lab-8node", "superpod-h100-su", "gb200-nvl72-liquid"}) {
        const auto l = fixtures::sample(name);
        for (const auto& x : m::checkLayout(l.scenario, l.catalog))
            QVERIFY2(x.severity != m::Severity::Error, (std::string(name) + ": " + x.message).c_str());
    }
}

void TstEdit::aSaveFailingMidwayLeavesTheOldFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("hall.json").toStdString();
    const auto l = fixtures::sample("demo");
    m::saveScenarioFile(l.scenario, path);
    const std::string old = m::readTextFile(path);
    m::Scenario bigger = l.scenario;
    m::duplicateRacks(bigger, l.catalog, {"r01-01", "r02-01", "r03-01"});
    const std::string next = m::scenarioToJson(bigger);
    QVERIFY(next.size() > 8192);
    // A real write error midway: the file size limit makes write() fail with EFBIG after 8 KiB.
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit saved{};
    getrlimit(RLIMIT_FSIZE, &saved);
    rlimit small = saved;
    small.rlim_cur = 8192;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool threw = false;
    try {
        m::saveScenarioFile(bigger, path);
    } catch (const m::ModelError& e) {
        threw = true;
        QVERIFY2(std::string(e.what()).find("unchanged") != std::string::npos, e.what());
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    QVERIFY(threw);
    QCOMPARE(m::readTextFile(path), old);
    int files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
        ++files;
        Q_UNUSED(e);
    }
    QCOMPARE(files, 1);                 // no temporary file left behind
    m::saveScenarioFile(bigger, path);  // and without the limit it saves
    QCOMPARE(m::readTextFile(path), next);
}

void TstEdit::impactLeafSwitchCutsRailZero() {
    // Hand-worked: superpod-h100-su is rail-optimized, radix 64 at 1:1, so a leaf has 32 host ports and rail 0
    // (GPU 0 of the 32 nodes) fills leaf0. Losing leaf0 cuts exactly those 32 GPUs' own links; every node still
    // reaches the others through NVLink to a sibling GPU.
    const auto l = fixtures::sample("superpod-h100-su");
    const auto r = ct::sim::impactOf(l.scenario, l.catalog, "leaf0");
    QCOMPARE(r.kind, std::string("switch"));
    QCOMPARE(r.gpus_without_fabric_link.size(), std::size_t(32));
    for (const auto& g : r.gpus_without_fabric_link) QVERIFY2(g.size() > 5 && g.substr(g.size() - 5) == "/gpu0", g.c_str());
    QVERIFY(r.nodes_disconnected.empty());
    QVERIFY(r.nodes_unpowered.empty() && r.racks_cooling_short.empty());
    // One cable: one GPU.
    const auto one = ct::sim::impactOf(l.scenario, l.catalog, "n0001/gpu0<->leaf0");
    QCOMPARE(one.kind, std::string("link"));
    QCOMPARE(one.gpus_without_fabric_link, std::vector<std::string>{"n0001/gpu0"});
    // A node failing disconnects nobody else; it and its eight GPUs are lost.
    const auto node = ct::sim::impactOf(l.scenario, l.catalog, "n0001");
    QCOMPARE(node.kind, std::string("node"));
    QVERIFY(node.nodes_disconnected.empty());
    QVERIFY(node.gpus_without_fabric_link.empty());
    QCOMPARE(node.nodes_lost, std::vector<std::string>{"n0001"});
    QCOMPARE(node.gpus_lost.size(), std::size_t(8));
    // Issue 40: a GPU is not a switch. n0001/gpu0 failing cuts no node off (its node reaches the fabric through its
    // other GPUs), loses only itself and its own link.
    const auto gpu = ct::sim::impactOf(l.scenario, l.catalog, "n0001/gpu0");
    QCOMPARE(gpu.kind, std::string("gpu"));
    QVERIFY(gpu.nodes_disconnected.empty());
    QCOMPARE(gpu.gpus_lost, std::vector<std::string>{"n0001/gpu0"});
    QCOMPARE(gpu.gpus_without_fabric_link, std::vector<std::string>{"n0001/gpu0"});
    QVERIFY(gpu.nodes_lost.empty());
    QVERIFY(ct::sim::impactOf(l.scenario, l.catalog, "n0001/gpu3").kind == "gpu");
    // On demo, whose jobs list their nodes: the node's and the GPU's job is hit, and no other.
    const auto d = fixtures::sample("demo");
    QCOMPARE(ct::sim::impactOf(d.scenario, d.catalog, "n0001").jobs_hit, std::vector<std::string>{"job1"});
    QCOMPARE(ct::sim::impactOf(d.scenario, d.catalog, "n0001/gpu3").jobs_hit, std::vector<std::string>{"job1"});
    const auto rack = ct::sim::impactOf(d.scenario, d.catalog, "r01-01");
    QVERIFY(!rack.nodes_lost.empty() && rack.gpus_lost.size() == 8 * rack.nodes_lost.size());
}

void TstEdit::impactFeedLeavesRacksOnOneSide() {
    // Hand-worked: demo is 2N. Losing util-a puts all 20 racks on side B; ups-b (2 × 500 kW) carries the 816 kW
    // nameplate and each row's B PDU (250 kW) its 5 × 40.8 = 204 kW: nothing overloads, nothing goes dark.
    const auto l = fixtures::sample("demo");
    const auto r = ct::sim::impactOf(l.scenario, l.catalog, "util-a");
    QCOMPARE(r.kind, std::string("utility_feed"));
    QCOMPARE(r.racks_single_fed.size(), std::size_t(20));
    QVERIFY(r.nodes_unpowered.empty());
    QVERIFY2(r.overloaded.empty(), r.overloaded.empty() ? "" : r.overloaded.front().c_str());
    // A floor PDU: only its row.
    const auto p = ct::sim::impactOf(l.scenario, l.catalog, "pdu-row02-b");
    QCOMPARE(p.racks_single_fed, (std::vector<std::string>{"r02-01", "r02-02", "r02-03", "r02-04", "r02-05"}));
    // With the B PDUs shrunk to 150 kW, losing side A overloads all four (204 kW each).
    m::Scenario s = l.scenario;
    for (auto& q : s.power.pdus)
        if (q.ups == "ups-b") q.capacity_w = 150000;
    const auto o = ct::sim::impactOf(s, l.catalog, "ups-a");
    QCOMPARE(o.overloaded.size(), std::size_t(4));
}

void TstEdit::impactSingleFedNodesLosePower() {
    // lab-8node with every node plugged into side A only: losing pdu-row01-a darkens all 8 nodes and both racks.
    auto l = fixtures::sample("lab-8node");
    for (auto& row : l.scenario.halls[0].rows)
        for (auto& rack : row.racks)
            for (auto& n : rack.nodes) n.feeds = {rack.pdus.front().id};
    QCOMPARE(l.scenario.halls[0].rows[0].racks[0].pdus.front().feed, std::string("A"));
    const auto r = ct::sim::impactOf(l.scenario, l.catalog, "pdu-row01-a");
    QCOMPARE(r.nodes_unpowered.size(), std::size_t(8));
    QCOMPARE(r.racks_unpowered, (std::vector<std::string>{"r01-01", "r01-02"}));
    const auto b = ct::sim::impactOf(l.scenario, l.catalog, "pdu-row01-b");
    QVERIFY(b.nodes_unpowered.empty());
}

void TstEdit::impactCoolingUnitAndCdu() {
    // demo: 8 × 120 kW CRAH for 816 kW: losing one leaves 840 kW, enough.
    const auto d = fixtures::sample("demo");
    const auto u = ct::sim::impactOf(d.scenario, d.catalog, "crah-01");
    QCOMPARE(u.air_capacity_left_w, 840000.0);
    QCOMPARE(u.air_heat_w, 816000.0);
    QVERIFY(u.racks_cooling_short.empty());
    // gb200: 3 × 750 kW CDUs on all 8 racks (816 kW of liquid heat): losing one leaves 1,500 kW.
    const auto g = fixtures::sample("gb200-nvl72-liquid");
    const auto c = ct::sim::impactOf(g.scenario, g.catalog, "cdu-01");
    QCOMPARE(c.liquid_capacity_left_w, 1500000.0);
    QVERIFY(c.racks_cooling_short.empty());
    // With only two CDUs, losing one leaves 750 kW for 816 kW: all 8 racks are short.
    m::Scenario s = g.scenario;
    m::removeEntities(s, {"cdu-03"});
    const auto c2 = ct::sim::impactOf(s, g.catalog, "cdu-01");
    QCOMPARE(c2.racks_cooling_short.size(), std::size_t(8));
    QCOMPARE(c2.liquid_capacity_left_w, 750000.0);
}

void TstEdit::impactUnknownIdIsAnError() {
    const auto l = fixtures::sample("demo");
    QVERIFY_THROWS_EXCEPTION(ct::sim::SimError, ct::sim::impactOf(l.scenario, l.catalog, "no-such-thing"));
}

void TstEdit::twoVersionsSayWhatChangedInTheLayout() {
    // Issue 40: two runs of two versions of a scenario compared — before and after a layout change — list what
    // changed. Edits a planner makes, each found once and said the way a planner says it.
    const auto l = fixtures::sample("demo");
    QVERIFY(ct::model::scenarioChanges(l.scenario, l.scenario).empty());
    namespace m = ct::model;
    m::Scenario after = l.scenario;
    after.name = "renamed";  // not a change of the layout
    QVERIFY(ct::model::scenarioChanges(l.scenario, after).empty());
    const std::string row = after.halls[0].rows[0].id;
    const std::string added = m::addRack(after, l.catalog, row, "rack-48u-600x1200", "dgx-h100", 2, {0.9, 2.4}, m::Facing::North);
    m::removeEntities(after, {"r04-05"});
    m::setProperty(after, "r01-01", "x_m", std::to_string(after.halls[0].rows[0].racks[0].position_m.x_m + 0.6));
    m::setProperty(after, "crah-02", "supply_setpoint_c", "18");
    after.jobs.pop_back();
    const auto lines = ct::model::scenarioChanges(l.scenario, after);
    QStringList got;
    for (const auto& x : lines) got << QString::fromStdString(x);
    const QStringList want = {QString("racks added (1): %1").arg(QString::fromStdString(added)), "racks removed (1): r04-05",
                              "racks moved (1): r01-01 0.6 m", "crah-02: supply setpoint 20.0 → 18.0 °C", "jobs removed (1): job2"};
    QCOMPARE(got, want);
}

void TstEdit::headroomAndPlacementAsWorkedByHand() {
    // Issue 40: capacity for planners. The demo, worked from its file and the catalog: 20 racks of four DGX H100
    // on 2N power (rack PDUs 3 × 230 V × 100 A × 0.95 each side), floor PDUs of 250 kW per row and side, eight
    // CRAHs.
    namespace m = ct::model;
    const auto l = fixtures::sample("demo");
    const auto& c = l.catalog;
    const double server = c.server("dgx-h100")->max_power_w, rack = 4 * server;
    const auto& pdu = l.scenario.halls[0].rows[0].racks[0].pdus[0];
    const double breakers = 0.8 * pdu.phases * pdu.voltage_v * pdu.breaker_a * pdu.power_factor;
    double units = 0, largest = 0;
    for (const auto& u : l.scenario.halls[0].cooling_units) {
        units += c.coolingUnit(u.model)->capacity_w;
        largest = std::max(largest, c.coolingUnit(u.model)->capacity_w);
    }
    const double cooling_left = units - largest - 20 * rack;
    std::map<std::string, m::Headroom> got;
    for (const auto& h : m::capacityHeadroom(l.scenario, c)) got[h.id + "/" + h.what] = h;
    QCOMPARE(got.at("r01-01/space").used, 32.0);  // four 8U servers in a 48U rack
    QCOMPARE(got.at("r01-01/space").capacity, 48.0);
    QVERIFY(std::abs(got.at("r01-01/power").capacity - breakers) < 1e-6 && std::abs(got.at("r01-01/power").used - rack) < 1e-6);
    QVERIFY(std::abs(got.at("pdu-row01-a/power").left() - (250e3 - 5 * rack)) < 1e-6);  // its five racks, side B failed
    const auto* ups = c.upsModel(l.scenario.power.ups[0].model);
    QVERIFY(std::abs(got.at("ups-a/power").left() - (ups->capacity_w * l.scenario.power.ups[0].modules - 20 * rack)) < 1e-6);
    QVERIFY(std::abs(got.at("hall1/cooling").left() - cooling_left) < 1e-6);
    // One rack with one server fits in every row and in a new one; what it leaves is the row's floor PDU less
    // the server, and the hall's cooling at N+1 less the server.
    auto one = m::placeRacks(l.scenario, c, 1, "rack-48u-600x1200", "dgx-h100", 1);
    QCOMPARE(one.fits.size(), std::size_t(5));
    QVERIFY(one.refused.empty());
    for (const auto& p : one.fits) {
        QVERIFY(std::abs(p.power_left_w - (250e3 - 5 * rack - server)) < 1e-6);
        QVERIFY(std::abs(p.cooling_left_w - (cooling_left - server)) < 1e-6);
        QCOMPARE(p.positions.size(), std::size_t(1));
    }
    QCOMPARE(one.fits.back().row_id, std::string());  // a new row too
    // Two full racks: no floor PDU has room for them with its other side failed.
    auto two = m::placeRacks(l.scenario, c, 2, "rack-48u-600x1200", "dgx-h100", 4);
    QVERIFY(two.fits.empty());
    QCOMPARE(two.refused.size(), std::size_t(5));
    QVERIFY2(two.refused[0].find("floor PDU pdu-row01-a could not carry them") != std::string::npos, two.refused[0].c_str());
    // Three servers: the floor PDUs have room (46 kW), the hall's cooling at N+1 not (24 kW).
    auto three = m::placeRacks(l.scenario, c, 1, "rack-48u-600x1200", "dgx-h100", 3);
    QVERIFY(three.fits.empty());
    QVERIFY2(three.refused[0].find("air cooling could not carry them with its largest unit out") != std::string::npos,
             three.refused[0].c_str());
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::placeRacks(l.scenario, c, 1, "no-such-rack", "", 0));
}

QTEST_GUILESS_MAIN(TstEdit)
#include "tst_edit.moc"
