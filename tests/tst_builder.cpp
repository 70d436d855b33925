// Hall builder invariants: counts as asked, no overlaps, valid, power and cooling sized (issue 8).
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/model/validate.hpp>

#include <QElapsedTimer>

#include <QTest>
#include <map>

using namespace ct::model;

class TstBuilder : public QObject {
    Q_OBJECT
private slots:
    void buildsWhatWasAsked_data();
    void buildsWhatWasAsked();
    void largeHallsBuildAndValidate_data();
    void largeHallsBuildAndValidate();
    void aislesAlternateColdAndHot();
    void badParametersNameTheField();
    void everyCoolingAndContainmentBuildsAValidHall_data();
    void everyCoolingAndContainmentBuildsAValidHall();
    void fourHundredRacksMakeANearSquareHall();
    void perimeterUnitsStandOnEveryWallTheyNeed();
    void hundredThousandGpusMakeACampus();
    void coldContainmentOnASlabIsRefused();
};

void TstBuilder::buildsWhatWasAsked_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("racks");
    QTest::addColumn<QString>("server");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<QString>("rack_model");
    QTest::addColumn<int>("redundancy");
    QTest::newRow("lab") << 1 << 2 << "dgx-h100" << 4 << "rack-48u-600x1200" << 1;
    QTest::newRow("a100 rows") << 3 << 7 << "dgx-a100" << 6 << "rack-48u-600x1200" << 1;
    QTest::newRow("b200 N+2") << 4 << 5 << "hgx-b200" << 3 << "rack-42u-600x1200" << 2;
    QTest::newRow("nvl72") << 2 << 4 << "gb200-nvl72" << 1 << "rack-mgx-nvl72" << 1;
    QTest::newRow("one rack N") << 1 << 1 << "dgx-h100" << 1 << "rack-42u-600x1200" << 0;
}

void TstBuilder::buildsWhatWasAsked() {
    QFETCH(int, rows);
    QFETCH(int, racks);
    QFETCH(QString, server);
    QFETCH(int, nodes);
    QFETCH(QString, rack_model);
    QFETCH(int, redundancy);
    HallParams p;
    p.rows = rows;
    p.racks_per_row = racks;
    p.server_model = server.toStdString();
    p.nodes_per_rack = nodes;
    p.rack_model = rack_model.toStdString();
    p.cooling_redundancy = redundancy;
    const Catalog& c = Catalog::builtin();
    const Scenario s = buildHall(p, c);

    const Diagnostics d = validateScenario(s, c);
    for (const auto& x : d) qWarning("%s", x.toString().c_str());
    QVERIFY(!hasErrors(d));  // no overlaps, inside the hall, breakers, feeds, cooling sources

    const ScenarioSummary sum = summarize(s, c);
    const ServerModel& sm = c.requireServer(p.server_model);
    QCOMPARE(sum.rows, rows);
    QCOMPARE(sum.racks, rows * racks);
    QCOMPARE(sum.nodes, rows * racks * nodes);
    QCOMPARE(sum.gpus, rows * racks * nodes * sm.gpu_count);
    QCOMPARE(sum.nameplate_it_power_w, rows * racks * nodes * sm.max_power_w);
    // Cooling sized N + redundancy: the load is carried after losing `redundancy` units.
    QVERIFY(sum.air_cooling_capacity_w >= sum.air_heat_w);
    if (redundancy >= 1) QVERIFY(sum.cooling_survives_any_single_failure());
    else QVERIFY(!sum.air_n_minus_1.survives || sum.cooling_units == 0);
    if (sum.air_heat_w > 0) {
        const double unit = c.coolingUnit(p.cooling_unit_model)->capacity_w;
        QCOMPARE(sum.cooling_units, int(std::ceil(sum.air_heat_w / unit - 1e-9)) + redundancy);
    }
    if (sm.liquid_fraction > 0) QVERIFY(sum.cdus > 0 && sum.liquid_cooling_capacity_w >= sum.liquid_heat_w);
    // Power sized: each side's UPS carries the whole load; every rack has A and B.
    double ups_a = 0;
    for (const auto& u : s.power.ups)
        if (u.feed == "util-a") ups_a += c.upsModel(u.model)->capacity_w * u.modules;
    QVERIFY(ups_a >= sum.nameplate_it_power_w);
    for (const auto& row : s.halls[0].rows)
        for (const auto& r : row.racks) {
            double a = 0;
            for (const auto& pdu : r.pdus)
                if (pdu.feed == "A") a += units::kContinuousLoadFraction * pdu.ratedPowerW();
            QVERIFY(a >= rackNameplatePowerW(r, c));  // side A alone carries the rack within 80 %
        }
    // Positions sit on whole millimetres and the file round-trips.
    QVERIFY(parseScenario(scenarioToJson(s)).scenario == s);
}

void TstBuilder::largeHallsBuildAndValidate_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("racks");
    QTest::addColumn<int>("gpus");
    QTest::newRow("10k GPUs") << 25 << 13 << 25 * 13 * 4 * 8;
    QTest::newRow("100k GPUs") << 125 << 25 << 125 * 25 * 4 * 8;
}

void TstBuilder::largeHallsBuildAndValidate() {
    QFETCH(int, rows);
    QFETCH(int, racks);
    QFETCH(int, gpus);
    HallParams p;
    p.rows = rows;
    p.racks_per_row = racks;
    QElapsedTimer t;
    t.start();
    const Scenario s = buildHall(p);
    const Diagnostics d = validateScenario(s, Catalog::builtin());
    QVERIFY(!hasErrors(d));
    QCOMPARE(summarize(s, Catalog::builtin()).gpus, gpus);
    qInfo("%d GPUs: built and validated in %lld ms", gpus, static_cast<long long>(t.elapsed()));
}

void TstBuilder::aislesAlternateColdAndHot() {
    HallParams p;
    p.rows = 4;
    p.containment = "none";
    const Scenario s = buildHall(p);
    const auto& rows = s.halls[0].rows;
    // Rows 1 and 2 face each other across a cold aisle; rows 2 and 3 turn their backs (hot aisle).
    QVERIFY(rows[0].racks[0].facing == Facing::North);
    QVERIFY(rows[1].racks[0].facing == Facing::South);
    QVERIFY(rows[2].racks[0].facing == Facing::North);
    QVERIFY(rows[3].racks[0].facing == Facing::South);
    const double gap01 = rows[1].racks[0].position_m.y_m - rows[0].racks[0].position_m.y_m - 1.2;
    QVERIFY(qAbs(gap01 - p.cold_aisle_m) < 1e-9);
    // Hot-aisle containment (the default for 40 kW racks) pairs the rows back to back: row 1 turns south.
    p.containment = "auto";
    const Scenario t = buildHall(p);
    QVERIFY(t.halls[0].rows[0].racks[0].facing == Facing::South);
    QVERIFY(t.halls[0].rows[1].racks[0].facing == Facing::North);
    QVERIFY(!t.halls[0].containments.empty());
    for (const auto& c : t.halls[0].containments) QCOMPARE(c.kind, std::string("hot"));
    QVERIFY(t.halls[0].ceiling_return.has_value());
}

void TstBuilder::badParametersNameTheField() {
    HallParams p;
    p.rows = 0;
    try {
        buildHall(p);
        QFAIL("rows = 0 accepted");
    } catch (const ModelError& e) {
        QVERIFY(QString(e.what()).contains("rows"));
    }
    p = HallParams{};
    p.server_model = "dgx-h900";
    QVERIFY_THROWS_EXCEPTION(ModelError, buildHall(p));
    p = HallParams{};
    p.nodes_per_rack = 7;  // 7 × 8U do not fit in 48U
    try {
        buildHall(p);
        QFAIL("7 DGX in a 48U rack accepted");
    } catch (const ModelError& e) {
        QVERIFY(QString(e.what()).contains("nodes_per_rack"));
    }
}

void TstBuilder::everyCoolingAndContainmentBuildsAValidHall_data() {
    QTest::addColumn<QString>("cooling");
    QTest::addColumn<QString>("containment");
    QTest::addColumn<QString>("server");
    QTest::addColumn<double>("raised_floor");
    QTest::addColumn<QString>("resolved");  // what auto becomes, as the description says
    QTest::newRow("auto slab") << "auto"
                               << "auto"
                               << "dgx-h100" << 0.0 << "perimeter cooling";
    QTest::newRow("perimeter hot") << "perimeter"
                                   << "hot"
                                   << "dgx-h100" << 0.0 << "hot-aisle containment";
    QTest::newRow("perimeter cold raised") << "perimeter"
                                           << "cold"
                                           << "dgx-h100" << 0.6 << "cold-aisle containment";
    QTest::newRow("inrow") << "inrow"
                           << "auto"
                           << "dgx-h100" << 0.0 << "hot-aisle containment";
    QTest::newRow("inrow cold") << "inrow"
                                << "cold"
                                << "hgx-b200" << 0.0 << "cold-aisle containment";
    QTest::newRow("rear-door") << "rear-door"
                               << "none"
                               << "dgx-h100" << 0.0 << "rear-door cooling";
    QTest::newRow("liquid") << "liquid"
                            << "auto"
                            << "gb200-nvl72" << 0.0 << "liquid cooling";
}

void TstBuilder::everyCoolingAndContainmentBuildsAValidHall() {
    QFETCH(QString, cooling);
    QFETCH(QString, containment);
    QFETCH(QString, server);
    QFETCH(double, raised_floor);
    QFETCH(QString, resolved);
    HallParams p;
    p.rows = 4;
    p.racks_per_row = 8;
    p.server_model = server.toStdString();
    if (server == "gb200-nvl72") p.rack_model = "rack-mgx-nvl72", p.supply_setpoint_c = 24;
    p.cooling = cooling.toStdString();
    p.containment = containment.toStdString();
    p.raised_floor_m = raised_floor;
    const Catalog& c = Catalog::builtin();
    const Scenario s = buildHall(p, c);
    const Diagnostics d = validateScenario(s, c);
    for (const auto& x : d) qWarning("%s", x.toString().c_str());
    QVERIFY(!hasErrors(d));
    for (const auto& x : d)
        QVERIFY2(x.message.find("no supply") == std::string::npos && x.message.find("no return path") == std::string::npos,
                 x.message.c_str());
    QVERIFY2(QString::fromStdString(s.description).contains(resolved), s.description.c_str());
    const Hall& h = s.halls[0];
    int inrow = 0, doors = 0;
    for (const auto& u : h.cooling_units) inrow += c.coolingUnit(u.model)->kind == "in-row" ? 1 : 0;
    for (const auto& row : h.rows)
        for (const auto& r : row.racks) doors += r.rear_door ? 1 : 0;
    if (cooling == "inrow") {
        QVERIFY(inrow > 0 && inrow == int(h.cooling_units.size()));
        QVERIFY(!s.plant.loops.empty());
        for (const auto& u : h.cooling_units) QCOMPARE(u.loop, s.plant.loops[0].id);
    }
    if (cooling == "rear-door") QCOMPARE(doors, 32);
    if (containment == "hot" || cooling == "inrow")
        QVERIFY(!h.containments.empty() && h.containments[0].kind == (containment == "cold" ? "cold" : "hot"));
    if (containment == "hot" && cooling == "perimeter") QVERIFY(h.ceiling_return.has_value());
    // Enough cooling for the air heat, in-row coolers included.
    const ScenarioSummary sum = summarize(s, c);
    if (cooling != "rear-door") QVERIFY(sum.air_cooling_capacity_w >= sum.air_heat_w);
    QVERIFY(parseScenario(scenarioToJson(s)).scenario == s);
}

void TstBuilder::fourHundredRacksMakeANearSquareHall() {
    // Issue 18: 20 × 20 DGX H100 used to make a hall 18 m wide and 219 m deep with the racks at one end.
    HallParams p;
    p.rows = 20;
    p.racks_per_row = 20;
    const Catalog& c = Catalog::builtin();
    const Scenario s = buildHall(p, c);
    QVERIFY(!hasErrors(validateScenario(s, c)));
    const Hall& h = s.halls[0];
    const double aspect = std::max(h.width_m, h.depth_m) / std::min(h.width_m, h.depth_m);
    qInfo("%.1f × %.1f m (aspect %.2f), %zu cooling units, %zu pods", h.width_m, h.depth_m, aspect, h.cooling_units.size(),
          h.containments.size());
    QVERIFY(aspect <= 2.0);
    // The racks fill the hall: their footprint is a fair share of the floor.
    QVERIFY(400 * 0.6 * 1.2 / (h.width_m * h.depth_m) > 0.2);
    QVERIFY(summarize(s, c).air_cooling_capacity_w >= summarize(s, c).air_heat_w);
}

void TstBuilder::perimeterUnitsStandOnEveryWallTheyNeed() {
    // The 32-rack DGX H100 slab hall: 12 CRAHs do not fit on the two walls at the aisles' ends.
    HallParams p;
    p.rows = 4;
    p.racks_per_row = 8;
    const Scenario s = buildHall(p);
    const Hall& h = s.halls[0];
    std::map<Facing, int> walls;
    for (const auto& u : h.cooling_units) ++walls[u.facing];
    QCOMPARE(int(h.cooling_units.size()), 12);
    QVERIFY(walls.size() >= 3);
    // The hall is no deeper than its rows need: the last row ends within a unit's zone of the north wall.
    double rows_end = 0;
    for (const auto& row : h.rows)
        for (const auto& r : row.racks) rows_end = std::max(rows_end, r.position_m.y_m + 0.6);
    QVERIFY2(h.depth_m - rows_end < 1.8 + 1.2 + 0.01, qPrintable(QString("%1 m behind the rows").arg(h.depth_m - rows_end)));
}

void TstBuilder::hundredThousandGpusMakeACampus() {
    HallParams p;
    p.gpus = 100000;
    p.racks_per_row = 20;
    p.topology = "none";
    QElapsedTimer t;
    t.start();
    const Catalog& c = Catalog::builtin();
    const Scenario s = buildHall(p, c);
    const Diagnostics d = validateScenario(s, c);
    QVERIFY(!hasErrors(d));
    const ScenarioSummary sum = summarize(s, c);
    qInfo("%d GPUs in %zu halls, %.1f MW nameplate, built and validated in %lld ms", sum.gpus, s.halls.size(),
          sum.nameplate_it_power_w / 1e6, static_cast<long long>(t.elapsed()));
    QVERIFY(sum.gpus >= 100000 && sum.gpus < 110000);
    QVERIFY(s.halls.size() >= 8);
    // Halls side by side on the site, not on top of each other; one power chain carries them all.
    for (std::size_t i = 1; i < s.halls.size(); ++i)
        QVERIFY(s.halls[i].site_position_m.x_m >= s.halls[i - 1].site_position_m.x_m + s.halls[i - 1].width_m);
    QCOMPARE(s.power.feeds.size(), std::size_t{2});
    QVERIFY(s.power.feeds[0].capacity_w >= sum.nameplate_it_power_w);
    // utility (MV) → a transformer bank per hall and side → the hall's UPS.
    QCOMPARE(s.power.transformers.size(), 2 * s.halls.size());
    for (const auto& u : s.power.ups) QVERIFY(u.feed.find("tx-") != std::string::npos);
}

void TstBuilder::coldContainmentOnASlabIsRefused() {
    HallParams p;
    p.containment = "cold";
    try {
        buildHall(p);
        QFAIL("cold containment on a slab with perimeter units accepted");
    } catch (const ModelError& e) {
        QVERIFY2(QString(e.what()).contains("containment") && QString(e.what()).contains("raised floor"), e.what());
    }
    p.cooling = "heat-pipes";
    QVERIFY_THROWS_EXCEPTION(ModelError, buildHall(p));
}

QTEST_GUILESS_MAIN(TstBuilder)
#include "tst_builder.moc"
