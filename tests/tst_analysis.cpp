// Derived figures: nameplate power, N-1 cooling (max-flow) on hand-worked cases (issue 8).
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>

#include <QTest>

#include <cmath>
#include "test_paths.hpp"

using namespace ct::model;

class TstAnalysis : public QObject {
    Q_OBJECT
private slots:
    void unservedLoadMatchesHandWorkedCases();
    void superpodHas256GpusAndItsNameplate();
    void gb200NeedsItsCdusAndSurvivesOneLoss();
    void losingACrahInTheLabIsSurvivable();
    void durationsParse();
    void utilizationProfilesFollowTheirKind();
};

void TstAnalysis::unservedLoadMatchesHandWorkedCases() {
    // Two units of 100 serving one load of 150: all carried; losing one leaves 50.
    QCOMPARE(unservedLoad({100, 100}, {150}, {{0, 1}}), 0.0);
    QCOMPARE(unservedLoad({100, 0}, {150}, {{0, 1}}), 50.0);
    // Units dedicated to loads: unit 0 → load 0 only, unit 1 → loads 0 and 1.
    // Loads 80 and 90, capacities 100 and 100: load 1 takes 90 of unit 1; load 0 takes 80 of unit 0.
    QCOMPARE(unservedLoad({100, 100}, {80, 90}, {{0, 1}, {1}}), 0.0);
    // Capacities 50 and 100: load 1 takes 90 of unit 1, load 0 gets 50 + the 10 left: 20 not carried.
    QCOMPARE(unservedLoad({50, 100}, {80, 90}, {{0, 1}, {1}}), 20.0);
    // A load with no unit at all is not carried.
    QCOMPARE(unservedLoad({100}, {30, 40}, {{0}, {}}), 40.0);
}

void TstAnalysis::superpodHas256GpusAndItsNameplate() {
    const auto rep = loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    QVERIFY(!hasErrors(rep.diagnostics));
    const ScenarioSummary s = summarize(rep.scenario, rep.catalog);
    QCOMPARE(s.gpus, 256);
    QCOMPARE(s.nodes, 32);
    QCOMPARE(s.nameplate_it_power_w, 32 * 10200.0);
    QCOMPARE(rep.scenario.network.topology, std::string("rail-optimized"));
}

void TstAnalysis::gb200NeedsItsCdusAndSurvivesOneLoss() {
    const auto rep = loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/gb200-nvl72-liquid.json");
    QVERIFY(!hasErrors(rep.diagnostics));
    const ScenarioSummary s = summarize(rep.scenario, rep.catalog);
    QCOMPARE(s.gpus, 576);
    QCOMPARE(s.liquid_heat_w, 8 * 120000.0 * 0.85);
    QVERIFY(s.liquid_n_minus_1.survives);
    // Two of three CDUs lost: 750 kW left for 816 kW.
    Scenario sc = rep.scenario;
    sc.halls[0].cdus.resize(1);
    const ScenarioSummary one = summarize(sc, rep.catalog);
    QVERIFY(!one.liquid_n_minus_1.survives);
    QCOMPARE(one.liquid_n_minus_1.worst_unit, std::string("cdu-01"));
    QCOMPARE(one.liquid_n_minus_1.worst_shortfall_w, 816000.0);
}

void TstAnalysis::losingACrahInTheLabIsSurvivable() {
    const auto rep = loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    const ScenarioSummary s = summarize(rep.scenario, rep.catalog);
    QCOMPARE(s.cooling_units, 2);
    QCOMPARE(s.nameplate_it_power_w, 8 * 10200.0);
    QVERIFY(s.air_n_minus_1.survives);  // 120 kW left for 81.6 kW
    // With the 60 kW CRAC instead, losing one unit leaves 60 kW for 81.6 kW.
    Scenario sc = rep.scenario;
    for (auto& u : sc.halls[0].cooling_units) u.model = "crac-dx-60kw";
    const ScenarioSummary weak = summarize(sc, rep.catalog);
    QVERIFY(!weak.air_n_minus_1.survives);
    QVERIFY(qAbs(weak.air_n_minus_1.worst_shortfall_w - 21600.0) < 1e-6);
}

void TstAnalysis::durationsParse() {
    QCOMPARE(parseDurationS("90"), 90.0);
    QCOMPARE(parseDurationS("1h"), 3600.0);
    QCOMPARE(parseDurationS("1h30m"), 5400.0);
    QCOMPARE(parseDurationS("500ms"), 0.5);
    QVERIFY_THROWS_EXCEPTION(ModelError, parseDurationS("1 fortnight"));
    QVERIFY_THROWS_EXCEPTION(ModelError, parseDurationS(""));
}

void TstAnalysis::utilizationProfilesFollowTheirKind() {
    UtilizationProfile c;
    c.level = 0.4;
    QCOMPARE(c.valueAt(123), 0.4);
    UtilizationProfile steps;
    steps.kind = "steps";
    steps.points = {{0, 0.2}, {600, 0.9}, {1200, 0.1}};
    QCOMPARE(steps.valueAt(300), 0.2);
    QCOMPARE(steps.valueAt(600), 0.9);
    QCOMPARE(steps.valueAt(5000), 0.1);
    UtilizationProfile list = steps;
    list.kind = "list";
    QVERIFY(std::fabs(list.valueAt(300) - 0.55) < 1e-12);  // halfway between 0.2 and 0.9
    UtilizationProfile d;
    d.kind = "diurnal";
    d.mean = 0.5;
    d.amplitude = 0.3;
    d.period_s = 86400;
    QVERIFY(std::fabs(d.valueAt(21600) - 0.8) < 1e-12);  // a quarter period: the peak
    QVERIFY(std::fabs(d.valueAt(64800) - 0.2) < 1e-12);
    d.amplitude = 0.9;
    QCOMPARE(d.valueAt(21600), 1.0);  // clamped
    // Profiles survive a save.
    auto lr = loadScenarioFile(std::string(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    Job j;
    j.id = "j";
    j.nodes = {"n0001"};
    j.profile = list;
    lr.scenario.jobs = {j};
    const auto again = parseScenario(scenarioToJson(lr.scenario));
    QVERIFY(again.diagnostics.empty());
    QVERIFY(again.scenario == lr.scenario);
}

QTEST_GUILESS_MAIN(TstAnalysis)
#include "tst_analysis.moc"
