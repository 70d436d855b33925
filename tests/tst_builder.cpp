// Hall builder invariants: counts as asked, no overlaps, valid, power and cooling sized (issue 8).
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/model/validate.hpp>

#include <QElapsedTimer>
#include <QTest>

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
    const Scenario s = buildHall(p);
    const auto& rows = s.halls[0].rows;
    // Rows 1 and 2 face each other across a cold aisle; rows 2 and 3 turn their backs (hot aisle).
    QVERIFY(rows[0].racks[0].facing == Facing::North);
    QVERIFY(rows[1].racks[0].facing == Facing::South);
    QVERIFY(rows[2].racks[0].facing == Facing::North);
    QVERIFY(rows[3].racks[0].facing == Facing::South);
    const double gap01 = rows[1].racks[0].position_m.y_m - rows[0].racks[0].position_m.y_m - 1.2;
    QVERIFY(qAbs(gap01 - p.cold_aisle_m) < 1e-9);
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

QTEST_GUILESS_MAIN(TstBuilder)
#include "tst_builder.moc"
