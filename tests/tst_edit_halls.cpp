// Issue 18: editing halls as they are built now. Add rack finds the next free slot (or a new row's line across an
// aisle) and fits feeds that carry its servers; containment, in-row coolers, rear doors and halls are added and
// removed; the impact of an in-row cooler or its water loop names what loses cooling.
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/layout_checks.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/impact.hpp>

#include <QTest>

#include <algorithm>

namespace m = ct::model;

namespace {

std::string errors(const m::Scenario& s, const m::Catalog& c) {
    std::string out;
    for (const auto& d : m::validateScenario(s, c))
        if (d.severity == m::Severity::Error) out += d.toString() + "\n";
    return out;
}

const m::Rack* rack(const m::Scenario& s, const std::string& id) {
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                if (r.id == id) return &r;
    return nullptr;
}

m::Scenario hall(int rows = 2, int racks = 4) {
    m::HallParams p;
    p.rows = rows;
    p.racks_per_row = racks;
    p.containment = "none";
    p.topology = "none";
    return m::buildHall(p);
}

}  // namespace

class TstEditHalls : public QObject {
    Q_OBJECT
private slots:
    void addRackGoesToTheNextFreeSlotOnFeedsThatCarryIt();
    void addRackToANewRowFacesItAcrossAnAisle();
    void addRackSaysWhyWhenTheRowIsFull();
    void aNewRowGoesOnTheRoomiestFloorPdusAndSaysWhatRedundancyItCosts();
    void containmentAroundAPairOfRowsAddsAndRemoves();
    void inRowCoolerStandsInLineAndRearDoorFits();
    void addHallGoesBesideTheLast();
    void impactOfAnInRowCoolerAndItsLoop();
};

void TstEditHalls::addRackGoesToTheNextFreeSlotOnFeedsThatCarryIt() {
    m::Scenario s = hall();
    const m::Catalog& c = m::Catalog::builtin();
    const auto plan = m::planRack(s, c, "hall1", "row01", "rack-48u-600x1200", "dgx-h100", 4);
    QVERIFY2(plan.problem.empty(), plan.problem.c_str());
    const m::Rack& last = s.halls[0].rows[0].racks.back();
    QVERIFY(plan.facing == last.facing);
    QVERIFY(std::abs(plan.position_m.y_m - last.position_m.y_m) < 1e-9);
    QVERIFY(std::abs(plan.position_m.x_m - (last.position_m.x_m + 0.6)) < 1e-6);  // right after it, not on top of it
    QCOMPARE(plan.load_w, 4 * c.server("dgx-h100")->max_power_w);
    QVERIFY(plan.breaker_a >= 63);  // 40.8 kW on one side within 80 %: not the 32 A of the old Add rack
    const std::string id = m::addPlannedRack(s, c, plan, "rack-48u-600x1200", "dgx-h100", 4);
    QVERIFY2(errors(s, c).empty(), errors(s, c).c_str());
    const auto findings = m::checkLayout(s, c);
    for (const auto& f : findings) QVERIFY2(f.kind != "rack_power" && f.kind != "overlap", f.message.c_str());
    QCOMPARE(rack(s, id)->nodes.size(), std::size_t{4});
    QCOMPARE(rack(s, id)->nodes.front().feeds.size(), rack(s, id)->pdus.size());
}

void TstEditHalls::addRackToANewRowFacesItAcrossAnAisle() {
    m::Scenario s = hall(2, 4);
    const m::Catalog& c = m::Catalog::builtin();
    // Make room beyond the last row, then ask for a rack in a new row.
    s.halls[0].depth_m += 4.8;
    const auto plan = m::planRack(s, c, "hall1", "", "rack-48u-600x1200", "dgx-h100", 2);
    QVERIFY2(plan.problem.empty(), plan.problem.c_str());
    QVERIFY(plan.row_id.empty() && !plan.new_row_name.empty());
    const m::Rack& last = s.halls[0].rows[1].racks.front();
    QVERIFY(plan.facing != last.facing);
    QVERIFY(std::abs(plan.position_m.y_m - (last.position_m.y_m + 1.2 + 1.2)) < 1e-6);  // a 1.2 m aisle beyond row 2
    const std::string id = m::addPlannedRack(s, c, plan, "rack-48u-600x1200", "dgx-h100", 2);
    QCOMPARE(s.halls[0].rows.size(), std::size_t{3});
    QCOMPARE(s.halls[0].rows[2].racks.front().id, id);
    QVERIFY2(errors(s, c).empty(), errors(s, c).c_str());
    // The next rack of that row goes beside it.
    const auto next = m::planRack(s, c, "hall1", s.halls[0].rows[2].id, "rack-48u-600x1200", "", 0);
    QVERIFY(next.problem.empty());
    QVERIFY(std::abs(next.position_m.x_m - rack(s, id)->position_m.x_m - 0.6) < 1e-6);
}

void TstEditHalls::aNewRowGoesOnTheRoomiestFloorPdusAndSaysWhatRedundancyItCosts() {
    m::Scenario s = hall(2, 4);
    const m::Catalog& c = m::Catalog::builtin();
    s.halls[0].depth_m += 4.8;
    // What each floor PDU carries when the other side fails: every rack it feeds, whole.
    auto failover = [&](const std::string& id) {
        double w = 0;
        for (const auto& row : s.halls[0].rows)
            for (const auto& r : row.racks)
                if (std::any_of(r.pdus.begin(), r.pdus.end(), [&](const m::RackPdu& p) { return p.upstream == id; }))
                    w += m::rackNameplatePowerW(r, c);
        return w;
    };
    // A spare pair of floor PDUs, on the two UPSs: the new row goes on them, not on the first row's.
    QVERIFY(s.power.pdus.size() >= 2 && s.power.pdus[0].ups != s.power.pdus[1].ups);
    m::Pdu spare_a = s.power.pdus[0], spare_b = s.power.pdus[1];
    spare_a.id = "pdu-spare-a";
    spare_b.id = "pdu-spare-b";
    s.power.pdus.push_back(spare_a);
    s.power.pdus.push_back(spare_b);
    auto plan = m::planRack(s, c, "hall1", "", "rack-48u-600x1200", "dgx-h100", 4);
    QVERIFY2(plan.problem.empty(), plan.problem.c_str());
    QCOMPARE(plan.upstream_a, std::string("pdu-spare-a"));
    QCOMPARE(plan.upstream_b, std::string("pdu-spare-b"));
    QVERIFY2(plan.warning.empty(), plan.warning.c_str());
    // Without them: the roomiest pair, one per UPS; and when those cannot carry one more rack on failover, the
    // plan still goes (it is the planner's call) but says which floor PDU loses its redundancy and by how much.
    s.power.pdus.resize(s.power.pdus.size() - 2);
    plan = m::planRack(s, c, "hall1", "", "rack-48u-600x1200", "dgx-h100", 4);
    const auto pdu = [&](const std::string& id) {
        return *std::find_if(s.power.pdus.begin(), s.power.pdus.end(), [&](const m::Pdu& p) { return p.id == id; });
    };
    QVERIFY(pdu(plan.upstream_a).ups != pdu(plan.upstream_b).ups);
    for (const auto& p : s.power.pdus)
        QVERIFY(p.capacity_w - failover(p.id) <= pdu(plan.upstream_a).capacity_w - failover(plan.upstream_a) + 1e-6);
    for (auto& p : s.power.pdus) p.capacity_w = failover(p.id) + plan.load_w / 2;  // room for half a rack each
    plan = m::planRack(s, c, "hall1", "", "rack-48u-600x1200", "dgx-h100", 4);
    QVERIFY(plan.problem.empty());
    QVERIFY2(plan.warning.find("floor PDU " + plan.upstream_a + " would carry") != std::string::npos &&
                 plan.warning.find("lose their redundancy") != std::string::npos,
             plan.warning.c_str());
    QVERIFY(!m::addPlannedRack(s, c, plan, "rack-48u-600x1200", "dgx-h100", 4).empty());
    // One floor PDU for both sides: said too.
    s.power.pdus.resize(1);
    s.power.pdus[0].capacity_w = 1e9;
    plan = m::planRack(s, c, "hall1", "", "rack-48u-600x1200", "", 0);
    QVERIFY2(plan.warning.find("both sides from floor PDU") != std::string::npos, plan.warning.c_str());
}

void TstEditHalls::addRackSaysWhyWhenTheRowIsFull() {
    m::Scenario s = hall(1, 4);
    const m::Catalog& c = m::Catalog::builtin();
    // The row runs from the west wall to 0.3 m short of the east wall: no room for another rack at either end.
    s.halls[0].width_m = 2.7;
    for (std::size_t i = 0; i < 4; ++i) s.halls[0].rows[0].racks[i].position_m.x_m = 0.3 + 0.6 * static_cast<double>(i);
    const auto plan = m::planRack(s, c, "hall1", "row01", "rack-48u-600x1200", "", 0);
    QVERIFY(!plan.problem.empty());
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addPlannedRack(s, c, plan, "rack-48u-600x1200", "", 0));
    QVERIFY(!m::planRack(s, c, "hall1", "row01", "rack-48u-600x1200", "dgx-h100", 7).problem.empty());  // 7 × 8U in 48U
}

void TstEditHalls::containmentAroundAPairOfRowsAddsAndRemoves() {
    m::Scenario s = hall(2, 4);
    const m::Catalog& c = m::Catalog::builtin();
    s.halls[0].raised_floor = m::RaisedFloor{};
    // Rows 1 and 2 face each other: a cold aisle. Hot containment there is refused, saying why.
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addContainment(s, c, {"row01", "row02"}, "hot"));
    const std::string id = m::addContainment(s, c, {"row02", "row01"}, "cold");
    QCOMPARE(s.halls[0].containments.size(), std::size_t{1});
    QCOMPARE(s.halls[0].containments[0].rows, (std::vector<std::string>{"row01", "row02"}));  // floor order
    QVERIFY2(errors(s, c).empty(), errors(s, c).c_str());
    m::removeEntities(s, {id});
    QVERIFY(s.halls[0].containments.empty());
    m::addContainment(s, c, {"row01", "row02"}, "cold");
    m::removeEntities(s, {"row02"});  // a containment left with one row closes nothing
    QVERIFY(s.halls[0].containments.empty());
    QVERIFY2(errors(s, c).empty(), errors(s, c).c_str());
}

void TstEditHalls::inRowCoolerStandsInLineAndRearDoorFits() {
    m::Scenario s = hall(2, 4);
    const m::Catalog& c = m::Catalog::builtin();
    s.plant.loops = {{"chw-1", "Loop 1", 18, 0, {}}};
    const std::string u = m::addInRowCooler(s, c, "row01", "inrow-cw-600", "chw-1");
    QVERIFY2(errors(s, c).empty(), errors(s, c).c_str());
    const auto& unit = s.halls[0].cooling_units.back();
    QCOMPARE(unit.id, u);
    QCOMPARE(unit.row, std::string("row01"));
    QVERIFY(unit.facing == s.halls[0].rows[0].racks[0].facing);
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addInRowCooler(s, c, "row01", "crah-cw-120kw"));  // not an in-row model
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addInRowCooler(s, c, "row01", "inrow-cw-300", "no-loop"));
    m::fitRearDoor(s, c, "r01-01", "rdhx-active-75kw", "chw-1");
    QVERIFY(rack(s, "r01-01")->rear_door && rack(s, "r01-01")->rear_door->loop == "chw-1");
    QVERIFY2(errors(s, c).empty(), errors(s, c).c_str());
    m::fitRearDoor(s, c, "r01-01", "");
    QVERIFY(!rack(s, "r01-01")->rear_door);
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::fitRearDoor(s, c, "r01-01", "screen-door"));
    m::removeEntities(s, {"row01"});  // its in-row cooler goes with it
    for (const auto& x : s.halls[0].cooling_units) QVERIFY(x.id != u);
}

void TstEditHalls::addHallGoesBesideTheLast() {
    m::Scenario s = hall();
    const m::Catalog& c = m::Catalog::builtin();
    const std::string id = m::addHall(s, 20, 15, 4);
    QCOMPARE(s.halls.size(), std::size_t{2});
    QCOMPARE(s.halls[1].id, id);
    QVERIFY(s.halls[1].site_position_m.x_m >= s.halls[0].width_m);
    const auto plan = m::planRack(s, c, id, "", "rack-48u-600x1200", "dgx-h100", 1);
    QVERIFY2(plan.problem.empty(), plan.problem.c_str());
    m::addPlannedRack(s, c, plan, "rack-48u-600x1200", "dgx-h100", 1);
    QCOMPARE(s.halls[1].rows.size(), std::size_t{1});
    QVERIFY_THROWS_EXCEPTION(m::ModelError, m::addHall(s, 0, 10, 4));
}

void TstEditHalls::impactOfAnInRowCoolerAndItsLoop() {
    m::HallParams p;
    p.rows = 4;
    p.racks_per_row = 8;
    p.cooling = "inrow";
    p.pods = 2;
    p.topology = "none";
    const m::Scenario s = m::buildHall(p);
    const m::Catalog& c = m::Catalog::builtin();
    QCOMPARE(s.halls[0].containments.size(), std::size_t{2});
    // One cooler of pod 1 fails: N+1 per row, so pod 1 still carries its racks; pod 2 is untouched.
    std::string cooler;
    for (const auto& u : s.halls[0].cooling_units)
        if (u.row == "row01") cooler = u.id;
    const auto one = ct::sim::impactOf(s, c, cooler);
    QCOMPARE(one.kind, std::string("cooling_unit"));
    QVERIFY(one.racks_cooling_short.empty());
    QVERIFY(one.air_capacity_left_w >= one.air_heat_w && one.air_heat_w > 0);
    // The close-coupled loop fails: every in-row cooler stops, every rack of the hall loses cooling.
    const auto all = ct::sim::impactOf(s, c, s.plant.loops.front().id);
    QCOMPARE(all.kind, std::string("water_loop"));
    QCOMPARE(all.air_capacity_left_w, 0.0);
    QCOMPARE(all.racks_cooling_short.size(), std::size_t{32});
}

QTEST_GUILESS_MAIN(TstEditHalls)
#include "tst_edit_halls.moc"
