// Catalog integrity: every entry has a source and sane figures that add up; published values kept (issue 8).
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/model/validate.hpp>

#include <QTest>
#include "test_paths.hpp"

using namespace ct::model;

class TstCatalog : public QObject {
    Q_OBJECT
private slots:
    void builtinCatalogPassesItsIntegrityCheck();
    void catalogHoldsTheRequiredEquipment();
    void publishedFiguresAreKept();
    void efficiencyCurveInterpolatesAndClamps();
    void integrityCheckCatchesBrokenEntries();
    void scenarioOverridesAndAddsEntries();
};

void TstCatalog::builtinCatalogPassesItsIntegrityCheck() {
    const Catalog& c = Catalog::builtin();
    const Diagnostics d = c.check();
    for (const auto& x : d) qWarning("%s", x.toString().c_str());
    QVERIFY(d.empty());
    auto sourced = [](const auto& list) {
        for (const auto& e : list)
            if (e.source.size() < 20) return false;
        return true;
    };
    QVERIFY(sourced(c.gpus) && sourced(c.servers) && sourced(c.racks) && sourced(c.cooling_units) && sourced(c.cdus) &&
            sourced(c.switches) && sourced(c.ups) && sourced(c.efficiency_curves));
}

void TstCatalog::catalogHoldsTheRequiredEquipment() {
    const Catalog& c = Catalog::builtin();
    for (const char* g : {"a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "b200-sxm-180gb", "gb200-blackwell-186gb"})
        QVERIFY2(c.gpu(g), g);
    for (const char* s : {"dgx-a100", "dgx-h100", "hgx-b200", "gb200-nvl72"}) QVERIFY2(c.server(s), s);
    QVERIFY(!c.cooling_units.empty());
    QVERIFY(!c.cdus.empty());
    const SwitchModel* sw = c.switchModel("ib-ndr-qm9700");
    QVERIFY(sw);
    QCOMPARE(sw->ports, 64);
    QVERIFY(!c.ups.empty());
    QVERIFY(c.curve("psu-80plus-titanium-230v"));
}

void TstCatalog::publishedFiguresAreKept() {
    const Catalog& c = Catalog::builtin();
    const ServerModel& dgx = c.requireServer("dgx-h100");
    QCOMPARE(dgx.max_power_w, 10200.0);  // DGX H100 user guide
    QCOMPARE(dgx.gpu_count, 8);
    QVERIFY(qAbs(units::m3sToCfm(dgx.airflow_m3s) - 1105.0) < 0.01);  // 1,105 CFM
    QCOMPARE(c.requireGpu("h100-sxm5-80gb").max_power_w, 700.0);
    QCOMPARE(c.requireGpu("a100-sxm4-80gb").idle_power_w, 88.0);  // RAPS selene
    QCOMPARE(c.requireGpu("a100-sxm4-80gb").max_power_w, 400.0);
    QCOMPARE(c.requireServer("gb200-nvl72").gpu_count, 72);
    QCOMPARE(c.requireServer("gb200-nvl72").max_power_w, 120000.0);
}

void TstCatalog::efficiencyCurveInterpolatesAndClamps() {
    const EfficiencyCurve* t = Catalog::builtin().curve("psu-80plus-titanium-230v");
    QVERIFY(t);
    QCOMPARE(t->efficiencyAt(0.5), 0.96);
    QVERIFY(qAbs(t->efficiencyAt(0.35) - 0.95) < 1e-12);  // halfway between 0.94 @ 20 % and 0.96 @ 50 %
    QCOMPARE(t->efficiencyAt(0.0), 0.90);                 // clamped below the first point
    QCOMPARE(t->efficiencyAt(2.0), 0.91);                 // and above the last
    EfficiencyCurve empty;
    QVERIFY_THROWS_EXCEPTION(ModelError, empty.efficiencyAt(0.5));
}

void TstCatalog::integrityCheckCatchesBrokenEntries() {
    Catalog c = Catalog::builtin();
    Diagnostics d;
    c.merge(R"({"servers": [{"id": "dgx-h100", "max_power_w": 9000, "source": ""}],
               "gpus": [{"id": "toy", "name": "Toy", "max_power_w": 100, "idle_power_w": 200, "source": "made up for a test"}]})",
            "", d);
    QVERIFY(d.empty());
    const Diagnostics problems = c.check();
    auto has = [&](const char* loc) {
        return std::any_of(problems.begin(), problems.end(), [&](const Diagnostic& x) { return x.location == loc; });
    };
    QVERIFY(has("servers/dgx-h100/source"));
    QVERIFY(has("servers/dgx-h100/max_power_w"));  // components no longer add up
    QVERIFY(has("gpus/toy/idle_power_w"));
    // A negative CPU count or CPU power is refused (issue 44: lab-8node simulated at half its idle power).
    Catalog neg = Catalog::builtin();
    neg.merge(R"({"servers": [{"id": "dgx-h100", "cpu_count": -2}, {"id": "dgx-a100", "cpu_idle_power_w": -50}]})", "", d);
    QVERIFY(d.empty());
    const Diagnostics bad = neg.check();
    auto hasIn = [&](const char* loc) {
        return std::any_of(bad.begin(), bad.end(), [&](const Diagnostic& x) { return x.location == loc && x.severity == Severity::Error; });
    };
    QVERIFY(hasIn("servers/dgx-h100/cpu_count"));
    QVERIFY(hasIn("servers/dgx-a100/cpu_idle_power_w"));
}

void TstCatalog::scenarioOverridesAndAddsEntries() {
    auto lr = loadScenarioFile(std::string(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    lr.scenario.catalog_json = R"({"gpus": [{"id": "h100-sxm5-80gb", "max_power_w": 600}],
        "servers": [{"id": "dgx-h100", "max_power_w": 9400}]})";
    Diagnostics d;
    const Catalog c = effectiveCatalog(lr.scenario, Catalog::builtin(), d);
    for (const auto& x : d) qWarning("%s", x.toString().c_str());
    QVERIFY(d.empty());
    QCOMPARE(c.requireGpu("h100-sxm5-80gb").max_power_w, 600.0);
    QCOMPARE(c.requireServer("dgx-h100").max_power_w, 9400.0);
    QCOMPARE(c.requireServer("dgx-h100").gpu_count, 8);  // fields not overridden stay
    QCOMPARE(Catalog::builtin().requireServer("dgx-h100").max_power_w, 10200.0);
}

QTEST_GUILESS_MAIN(TstCatalog)
#include "tst_catalog.moc"
