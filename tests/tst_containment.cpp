// Halls as they are built now (issue 18): containment, in-row coolers, rear doors, rack recirculation and water
// loops against analytic answers, on both air solvers. With ideal containment every rack breathes supply air;
// with a leakage f it breathes (1 − f)·T_supply + f·T_exhaust; a rear door at capacity takes exactly its rating;
// room air plus every water loop carries the IT heat.
#include "sim_fixtures.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/layout_checks.hpp>
#include <clustertwin/model/units.hpp>

#include <cmath>

using namespace ct;
using fixtures::requireValid;
using fixtures::runTo;
using fixtures::supplyMean;

namespace {

constexpr double kRhoCp = model::units::kAirDensityKgM3 * model::units::kAirCpJPerKgK;

/// Two rows of four racks, two DGX H100 in each (or `nodes_per_rack`), all at `util`; the rows' fronts face each other.
fixtures::Loaded hall(double raised_floor_m, double util = 0.8, int nodes_per_rack = 2) {
    model::HallParams p;
    p.rows = 2;
    p.racks_per_row = 4;
    p.nodes_per_rack = nodes_per_rack;
    p.raised_floor_m = raised_floor_m;
    p.topology = "none";
    p.containment = "none";  // each test adds its own
    return fixtures::built(p, util);
}

model::Containment containment(const char* kind, double leakage) {
    model::Containment c;
    c.id = "pod1";
    c.kind = kind;
    c.rows = {"row01", "row02"};
    c.leakage_fraction = leakage;
    return c;
}

sim::EngineOptions options(const QString& solver) {
    sim::EngineOptions o;
    o.air = solver.toStdString();
    o.cell_m = 0.25;
    o.step_s = 2;
    o.threads = 2;
    return o;
}

double flowMean(const model::Frame& f, bool exhaust) {
    double q = 0, t = 0;
    for (const auto& r : f.racks) {
        q += r.airflow_m3s;
        t += r.airflow_m3s * (exhaust ? r.exhaust_c : r.inlet_mean_c);
    }
    return t / q;
}

}  // namespace

class TstContainment : public QObject {
    Q_OBJECT
private slots:
    void solvers_data();
    void idealColdContainmentBreathesSupplyAir_data() { solvers_data(); }
    void idealColdContainmentBreathesSupplyAir();
    void leakyColdContainmentMixesInItsShareOfExhaust_data() { solvers_data(); }
    void leakyColdContainmentMixesInItsShareOfExhaust();
    void hotContainmentWithCeilingReturnKeepsTheRoomCold_data() { solvers_data(); }
    void hotContainmentWithCeilingReturnKeepsTheRoomCold();
    void inRowCoolersInAContainedHotAisleCarryTheRows_data() { solvers_data(); }
    void inRowCoolersInAContainedHotAisleCarryTheRows();
    void rearDoorAtCapacityRemovesExactlyItsRating();
    void rackRecirculationWarmsTheServersNotTheRoom();
    void failedWaterLoopStopsItsCoolers();
    void generatedHallsStayWithinTheAllowableRange_data();
    void generatedHallsStayWithinTheAllowableRange();
    void newPartsRoundTripExactly();
    void badPartsAreNamedByPointer();
    void liveChecksFlagAislesWithoutSupplyOrReturnAndSmallDoors();
};

void TstContainment::solvers_data() {
    QTest::addColumn<QString>("solver");
    QTest::newRow("quick") << "quick";
    // Under ASan + UBSan (CT_TEST_TIME_SCALE set by the asan preset) the lattice runs here would take most of an
    // hour; the code under test (geometry, regions, ports, balancing) is the same for both solvers, and tst_lbm
    // checks the lattice itself under the sanitizers.
    if (qEnvironmentVariable("CT_TEST_TIME_SCALE", "1").toDouble() <= 1) QTest::newRow("lbm") << "lbm";
}

void TstContainment::idealColdContainmentBreathesSupplyAir() {
    QFETCH(QString, solver);
    auto l = hall(0.6);
    l.scenario.halls[0].containments = {containment("cold", 0.0)};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options(solver));
    const model::Frame& f = runTo(e, 900);
    const double sup = supplyMean(f);
    for (const auto& r : f.racks) {
        qInfo("%s: %s inlet %.2f °C (max %.2f), supply %.2f °C", qPrintable(solver), r.id.c_str(), r.inlet_mean_c, r.inlet_max_c, sup);
        QVERIFY2(std::fabs(r.inlet_max_c - sup) < 0.3, r.id.c_str());
    }
    QVERIFY(flowMean(f, true) > sup + 10);  // the racks do heat their air
}

void TstContainment::leakyColdContainmentMixesInItsShareOfExhaust() {
    QFETCH(QString, solver);
    const double leak = 0.2;
    auto l = hall(0.6);
    l.scenario.halls[0].containments = {containment("cold", leak)};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options(solver));
    const model::Frame& f = runTo(e, 1200);
    const double sup = supplyMean(f), ex = flowMean(f, true), in = flowMean(f, false);
    const double expected = (1 - leak) * sup + leak * ex;
    qInfo("%s: supply %.2f, exhaust %.2f: inlet %.2f °C, (1 − f)·T_s + f·T_ex = %.2f °C", qPrintable(solver), sup, ex, in, expected);
    // The leak enters under the roof, so the top levels take more of it and breathe it hotter, and it carries the
    // air under the hot side's roof rather than the racks' mean exhaust: within 0.6 K (quick 0.52 K and lbm 0.10 K
    // since the ports exchange the flows their fluxes carry; 0.5 K and 0.1 K before).
    QVERIFY2(std::fabs(in - expected) < 0.6, "mean inlet is not the leakage mix");
    // Rack by rack within 2 K: the rows' end racks breathe most of the leak, 1.1–1.5 K above the mix on the lattice
    // (25.04, 25.17, 25.46 and 25.22 °C for r01-01 with the ports switched on at once and over 1, 2 and 4 sound
    // crossings: where the eddies settle depends on how the air started), the mean within 0.1 K all the same.
    for (const auto& r : f.racks) QVERIFY2(std::fabs(r.inlet_mean_c - expected) < 2.0, r.id.c_str());
}

void TstContainment::hotContainmentWithCeilingReturnKeepsTheRoomCold() {
    QFETCH(QString, solver);
    auto l = hall(0.0);
    // Turn row 2 round so the rows' backs face each other across the aisle between them.
    for (auto& r : l.scenario.halls[0].rows[0].racks) r.facing = model::Facing::South;
    for (auto& r : l.scenario.halls[0].rows[1].racks) r.facing = model::Facing::North;
    l.scenario.halls[0].containments = {containment("hot", 0.0)};
    l.scenario.halls[0].ceiling_return = model::CeilingReturn{};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options(solver));
    const model::Frame& f = runTo(e, 1200);
    const double sup = supplyMean(f);
    for (const auto& r : f.racks) {
        qInfo("%s: %s inlet %.2f °C, supply %.2f °C", qPrintable(solver), r.id.c_str(), r.inlet_mean_c, sup);
        QVERIFY2(std::fabs(r.inlet_max_c - sup) < 0.5, r.id.c_str());
    }
    // The units see the hot aisle's air through the duct: return ≈ the racks' exhaust.
    for (const auto& u : f.cooling_units) QVERIFY2(std::fabs(u.return_c - flowMean(f, true)) < 0.5, u.id.c_str());
}

void TstContainment::inRowCoolersInAContainedHotAisleCarryTheRows() {
    QFETCH(QString, solver);
    auto l = hall(0.0, 0.8, 1);  // 65 kW of air for two 60 kW coolers
    auto& h = l.scenario.halls[0];
    for (auto& r : h.rows[0].racks) r.facing = model::Facing::South;
    for (auto& r : h.rows[1].racks) r.facing = model::Facing::North;
    // Replace the perimeter units by one 600 mm in-row cooler at the east end of each row.
    h.cooling_units.clear();
    for (int i = 0; i < 2; ++i) {
        const model::Rack& last = h.rows[i].racks.back();
        model::CoolingUnit u;
        u.id = "irc-" + std::to_string(i + 1);
        u.model = "inrow-cw-600";
        u.row = h.rows[i].id;
        u.facing = last.facing;
        u.position_m = {last.position_m.x_m + 0.6, last.position_m.y_m};
        u.supply_setpoint_c = 20;
        h.cooling_units.push_back(u);
    }
    h.containments = {containment("hot", 0.0)};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options(solver));
    const model::Frame& f = runTo(e, 1200);
    const double sup = supplyMean(f);
    for (const auto& r : f.racks) {
        qInfo("%s: %s inlet %.2f °C, supply %.2f °C", qPrintable(solver), r.id.c_str(), r.inlet_mean_c, sup);
        QVERIFY2(std::fabs(r.inlet_max_c - sup) < 0.5, r.id.c_str());
    }
    double removed = 0;
    for (const auto& u : f.cooling_units) removed += u.load_w;
    QVERIFY2(std::fabs(removed - f.heat_in_w) < 0.01 * f.heat_in_w, "in-row coolers do not carry the racks' heat");
}

void TstContainment::rearDoorAtCapacityRemovesExactlyItsRating() {
    auto l = hall(0.0, 1.0);
    auto& racks = l.scenario.halls[0].rows[0].racks;
    racks[0].rear_door = model::RearDoor{"rdhx-passive-35kw", "", {}};
    // A door too small for its rack: 10 kW at most.
    l.scenario.catalog_json = R"({"rear_doors": [{"id": "small-door", "name": "10 kW door", "source": "test", "kind": "passive",
        "capacity_w": 10000, "rated_airflow_m3s": 0.6, "rated_air_in_c": 40, "rated_water_in_c": 18, "max_capacity_w": 10000,
        "water_flow_lpm": 30}]})";
    model::Diagnostics d;
    l.catalog = model::effectiveCatalog(l.scenario, model::Catalog::builtin(), d);
    racks[1].rear_door = model::RearDoor{"small-door", "", {}};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 600);
    const model::RackFrame& big = f.racks[0];
    const model::RackFrame& small = f.racks[1];
    qInfo("rack %s: %.1f kW to air, door %.1f kW; rack %s: %.1f kW, door %.1f kW", big.id.c_str(), big.heat_to_air_w / 1e3,
          big.rear_door_w / 1e3, small.id.c_str(), small.heat_to_air_w / 1e3, small.rear_door_w / 1e3);
    QVERIFY(small.heat_to_air_w > 15000);
    QCOMPARE(small.rear_door_w, 10000.0);  // at capacity: exactly its rating
    // The room gets the rest: the exhaust leaves at inlet + (P − door) / (ρ c_p Q).
    QVERIFY(std::fabs((small.exhaust_c - small.inlet_mean_c) * kRhoCp * small.airflow_m3s - (small.heat_to_air_w - 10000)) < 50);
    // Below capacity the door takes ε ρ c_p Q (T_exhaust − T_water) with ε from its rated point.
    const model::RearDoorModel& door = *l.catalog.rearDoor("rdhx-passive-35kw");
    const double t_servers = big.inlet_mean_c + big.heat_to_air_w / (kRhoCp * big.airflow_m3s);
    const double expected = door.effectiveness() * kRhoCp * big.airflow_m3s * (t_servers - l.scenario.plant.facility_water_temp_c);
    QVERIFY(big.rear_door_w < door.max_capacity_w);
    QVERIFY2(std::fabs(big.rear_door_w - expected) < 0.01 * expected, "door heat is not ε ρ c_p Q ΔT");
    // Heat balance: room air + water = IT heat.
    double units = 0;
    for (const auto& u : f.cooling_units) units += u.load_w;
    const model::Frame& g = runTo(e, 1800);
    units = 0;
    for (const auto& u : g.cooling_units) units += u.load_w;
    qInfo("IT %.1f kW = units %.1f kW + doors %.1f kW", g.heat_in_w / 1e3, units / 1e3, g.rear_door_heat_w / 1e3);
    QVERIFY(std::fabs(units + g.rear_door_heat_w - g.heat_in_w) < 0.01 * g.heat_in_w);
}

void TstContainment::rackRecirculationWarmsTheServersNotTheRoom() {
    auto l = hall(0.6);
    l.scenario.halls[0].containments = {containment("cold", 0.0)};
    l.scenario.halls[0].rows[0].racks[0].recirculation_fraction = 0.2;
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 900);
    const model::RackFrame& r = f.racks[0];
    // T_in = T_air + f/(1 − f)·ΔT with ΔT = P / (ρ c_p Q): the servers breathe a quarter of their rise.
    const double rise = r.heat_to_air_w / (kRhoCp * r.airflow_m3s);
    const double sup = supplyMean(f);
    qInfo("rack %s: inlet %.2f °C, supply %.2f, rise %.2f K", r.id.c_str(), r.inlet_mean_c, sup, rise);
    QVERIFY(std::fabs(r.inlet_mean_c - (sup + 0.25 * rise)) < 0.3);
    QVERIFY(std::fabs(f.racks[1].inlet_mean_c - sup) < 0.3);  // its neighbour is unaffected
}

void TstContainment::failedWaterLoopStopsItsCoolers() {
    auto l = hall(0.6);
    l.scenario.plant.loops = {{"chw-a", "Chilled water A", 16, 0, {}}, {"chw-b", "Chilled water B", 16, 0, {}}};
    auto& units = l.scenario.halls[0].cooling_units;
    for (std::size_t i = 0; i < units.size(); ++i) units[i].loop = i == 0 ? "chw-a" : "chw-b";
    l.scenario.events = {fixtures::event(600, "loop_fail", "chw-a")};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const double before = fixtures::meanInlet(runTo(e, 590));
    const model::Frame& f = runTo(e, 1200);
    const double after = fixtures::meanInlet(f);
    qInfo("mean inlet %.2f °C before, %.2f °C with loop chw-a failed", before, after);
    QVERIFY(after > before + 1.0);
    QCOMPARE(f.cooling_units[0].load_w, 0.0);  // no water: nothing cooled
    QVERIFY(f.loops.size() == 2 && f.loops[0].failed && f.loops[1].load_w > 0);
}

void TstContainment::generatedHallsStayWithinTheAllowableRange_data() {
    QTest::addColumn<QString>("cooling");
    QTest::addColumn<QString>("containment");
    QTest::addColumn<QString>("server");
    QTest::addColumn<double>("raised_floor");
    QTest::newRow("40 kW racks, auto (hot aisles, ducted return)") << "auto"
                                                                   << "auto"
                                                                   << "dgx-h100" << 0.0;
    QTest::newRow("in-row coolers") << "inrow"
                                    << "auto"
                                    << "dgx-h100" << 0.0;
    QTest::newRow("rear doors") << "rear-door"
                                << "auto"
                                << "dgx-h100" << 0.0;
    QTest::newRow("cold aisles on a raised floor") << "perimeter"
                                                   << "cold"
                                                   << "dgx-h100" << 0.6;
    QTest::newRow("GB200 NVL72 on liquid") << "auto"
                                           << "auto"
                                           << "gb200-nvl72" << 0.0;
}

void TstContainment::generatedHallsStayWithinTheAllowableRange() {
    // Issue 18: every generated hall, at full load with all units running, keeps every rack inlet within ASHRAE's
    // allowable 15–32 °C (quick air: the sanity bound, not a figure to tune to; lbm figures in docs/simulation.md).
    QFETCH(QString, cooling);
    QFETCH(QString, containment);
    QFETCH(QString, server);
    QFETCH(double, raised_floor);
    model::HallParams p;
    p.rows = 4;
    p.racks_per_row = 4;
    p.server_model = server.toStdString();
    if (server == "gb200-nvl72") p.rack_model = "rack-mgx-nvl72", p.supply_setpoint_c = 24;
    p.cooling = cooling.toStdString();
    p.containment = containment.toStdString();
    p.raised_floor_m = raised_floor;
    p.topology = "none";
    fixtures::Loaded l{model::buildHall(p), model::Catalog::builtin()};
    model::Job j;
    j.id = "all";
    j.utilization = 1.0;
    for (const auto& row : l.scenario.halls[0].rows)
        for (const auto& r : row.racks)
            for (const auto& n : r.nodes) j.nodes.push_back(n.id);
    l.scenario.jobs = {j};
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 900);
    double lo = 1e9, hi = -1e9;
    for (const auto& r : f.racks) {
        lo = std::min(lo, r.inlet_mean_c);
        hi = std::max(hi, r.inlet_max_c);
    }
    qInfo("%s: IT %.0f kW, inlets %.1f–%.1f °C, PUE %.2f", l.scenario.description.c_str(), f.it_power_w / 1e3, lo, hi, f.pue);
    QVERIFY2(lo >= 15 && hi <= 32, qPrintable(QString("inlets %1–%2 °C").arg(lo).arg(hi)));
    // And the heat balances: room air and every water loop together carry the IT heat (within 1 %).
    double units = 0;
    for (const auto& u : f.cooling_units) units += u.load_w;
    QVERIFY(std::fabs(units + f.rear_door_heat_w + f.liquid_heat_w - f.it_power_w) < 0.01 * f.it_power_w);
}

namespace {

bool has(const model::Diagnostics& d, model::Severity sev, const std::string& ptr, const std::string& words) {
    for (const auto& x : d)
        if (x.severity == sev && x.location == ptr && x.message.find(words) != std::string::npos) return true;
    return false;
}

std::string dump(const model::Diagnostics& d) {
    std::string out;
    for (const auto& x : d) out += x.toString() + "\n";
    return out;
}

}  // namespace

void TstContainment::newPartsRoundTripExactly() {
    auto l = hall(0.6);
    auto& h = l.scenario.halls[0];
    h.containments = {containment("cold", 0.05)};
    h.containments[0].name = "Pod 1";
    h.containments[0].roof = false;
    h.ceiling_return = model::CeilingReturn{0.8, {}};
    h.site_position_m = {120, 40};
    h.rows[0].racks[0].rear_door = model::RearDoor{"rdhx-active-75kw", "chw-a", {}};
    h.rows[0].racks[1].blanking = "partial";
    h.rows[0].racks[1].floor_gap_m = 0.04;
    h.rows[0].racks[2].recirculation_fraction = 0.1;
    h.cooling_units[0].loop = "chw-a";
    l.scenario.plant.loops = {{"chw-a", "Chilled water A", 16, 500000, {}}};
    l.scenario.events = {fixtures::event(60, "loop_fail", "chw-a")};
    l.scenario.linkParents();
    requireValid(l);
    const std::string json = model::scenarioToJson(l.scenario);
    const auto back = model::parseScenario(json, "round-trip.json");
    QVERIFY2(back.diagnostics.empty(), dump(back.diagnostics).c_str());
    QVERIFY(back.scenario == l.scenario);
    QCOMPARE(model::scenarioToJson(back.scenario), json);
}

void TstContainment::badPartsAreNamedByPointer() {
    auto l = hall(0.6);
    auto& h = l.scenario.halls[0];
    auto c = containment("hot", 0.0);  // the rows' fronts face each other: there is no hot aisle between them
    h.containments = {c, containment("cold", 1.5)};
    h.containments[1].id = "pod2";
    h.containments[1].model = "bubble-wrap";
    h.rows[0].racks[0].rear_door = model::RearDoor{"rdhx-passive-35kw", "no-such-loop", {}};
    h.rows[0].racks[1].blanking = "duct-tape";
    model::CoolingUnit u;
    u.id = "irc-1";
    u.model = "inrow-cw-300";
    u.facing = model::Facing::North;
    u.position_m = {5, 5};
    u.supply_setpoint_c = 20;
    h.cooling_units.push_back(u);  // an in-row cooler that names no row
    model::CoolingUnit v = u;
    v.id = "irc-2";
    v.row = "row01";
    v.position_m = {h.rows[0].racks.back().position_m.x_m + 0.45, h.rows[0].racks.back().position_m.y_m + 0.5};
    h.cooling_units.push_back(v);  // half a metre out of the row's line
    l.scenario.events = {fixtures::event(60, "loop_fail", "crah-01")};
    const auto d = model::validateScenario(l.scenario, l.catalog);
    const std::string all = dump(d);
    using S = model::Severity;
    QVERIFY2(has(d, S::Error, "/halls/0/containments/0/rows", "no hot aisle between its rows"), all.c_str());
    QVERIFY2(has(d, S::Error, "/halls/0/containments/1/leakage_fraction", "within 0..1"), all.c_str());
    QVERIFY2(has(d, S::Error, "/halls/0/containments/1/model", "unknown containment 'bubble-wrap'"), all.c_str());
    QVERIFY2(has(d, S::Error, "/halls/0/rows/0/racks/0/rear_door/loop", "unknown water loop 'no-such-loop'"), all.c_str());
    QVERIFY2(has(d, S::Error, "/halls/0/rows/0/racks/1/blanking", "unknown blanking 'duct-tape'"), all.c_str());
    const std::string units = "/halls/0/cooling_units/" + std::to_string(h.cooling_units.size() - 2);
    QVERIFY2(has(d, S::Error, units + "/row", "must name the row it stands in"), all.c_str());
    const std::string units2 = "/halls/0/cooling_units/" + std::to_string(h.cooling_units.size() - 1);
    QVERIFY2(has(d, S::Error, units2 + "/position_m", "out of the line of row row01"), all.c_str());
    QVERIFY2(has(d, S::Error, "/events/0/target", "not a water loop"), all.c_str());
}

void TstContainment::liveChecksFlagAislesWithoutSupplyOrReturnAndSmallDoors() {
    auto l = hall(0.0, 0.8, 4);  // slab floor, 40 kW racks
    auto& h = l.scenario.halls[0];
    h.containments = {containment("cold", 0.0)};
    h.rows[0].racks[0].rear_door = model::RearDoor{"rdhx-passive-35kw", "", {}};
    auto findings = model::checkLayout(l.scenario, l.catalog);
    auto kinds = [&](const char* kind) {
        int n = 0;
        for (const auto& f : findings) n += f.kind == kind ? 1 : 0;
        return n;
    };
    QCOMPARE(kinds("aisle_supply"), 1);
    QCOMPARE(kinds("rear_door_capacity"), 1);
    QCOMPARE(kinds("aisle_return"), 0);
    for (const auto& f : findings)
        if (f.kind == "rear_door_capacity") QCOMPARE(f.entity, h.rows[0].racks[0].id);
    // Turned round with hot containment and no ceiling return: nowhere for the exhaust to go.
    for (auto& r : h.rows[0].racks) r.facing = model::Facing::South;
    for (auto& r : h.rows[1].racks) r.facing = model::Facing::North;
    h.containments = {containment("hot", 0.0)};
    findings = model::checkLayout(l.scenario, l.catalog);
    QCOMPARE(kinds("aisle_return"), 1);
    QCOMPARE(kinds("aisle_supply"), 0);
    h.ceiling_return = model::CeilingReturn{};
    findings = model::checkLayout(l.scenario, l.catalog);
    QCOMPARE(kinds("aisle_return"), 0);
}

QTEST_GUILESS_MAIN(TstContainment)
#include "tst_containment.moc"
