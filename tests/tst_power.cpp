// Power chain against hand calculation (issue 2): PSU and UPS losses from their efficiency curves, breaker
// utilization and phase currents, and a feed failure moving the load to the other side.
#include "sim_fixtures.hpp"

#include <cmath>

using namespace ct;

using fixtures::runTo;

class TstPower : public QObject {
    Q_OBJECT
private slots:
    void gpuAndNodePowerFollowTheCatalog();
    void psuLossesMatchTheEfficiencyCurve();
    void upsLossesMatchTheEfficiencyCurve();
    void breakerUtilizationAndPhaseCurrents();
    void feedFailureMovesTheLoadToTheOtherSide();
    void losingBothFeedsUnpowersTheNodes();
    void pueIsFacilityOverIt();
};

void TstPower::gpuAndNodePowerFollowTheCatalog() {
    // At utilization u a GPU draws P_idle + (P_max − P_idle)·u (α = 1): H100 at 0.5 → 70 + 630·0.5 = 385 W.
    auto l = fixtures::sample("lab-8node", 0.5);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = e.step();
    for (const auto& g : f.gpus) {
        QCOMPARE(g.utilization, 0.5);
        QVERIFY(std::fabs(g.power_w - 385.0) < 1e-9);
    }
    // Node DC: 8 GPUs + 2 CPUs (100 + 250·0.5) + NICs 500 + other 2200·(0.5 + 0.25) + fans 1200·s³.
    const auto& n = f.nodes[0];
    const double fans = 1200 * std::pow(n.fan_speed, 3);
    QVERIFY(std::fabs(n.power_dc_w - (8 * 385.0 + 2 * 225.0 + 500 + 1650 + fans)) < 1e-6);
    QVERIFY(std::fabs(n.fan_power_w - fans) < 1e-9);
}

void TstPower::psuLossesMatchTheEfficiencyCurve() {
    auto l = fixtures::sample("lab-8node", 0.5);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = e.step();
    const auto& sm = l.catalog.requireServer("dgx-h100");
    const auto* curve = l.catalog.curve(sm.psu_curve);
    for (const auto& n : f.nodes) {
        // Six 3.3 kW PSUs share the load: fraction = DC / 19.8 kW; η interpolated between 20 % (0.94) and 50 % (0.96).
        const double frac = n.power_dc_w / (6 * 3300.0);
        QVERIFY(frac > 0.2 && frac < 0.5);
        const double eta = 0.94 + (frac - 0.2) / 0.3 * 0.02;
        QVERIFY(std::fabs(curve->efficiencyAt(frac) - eta) < 1e-12);
        QVERIFY(std::fabs(n.power_ac_w - n.power_dc_w / eta) < 1e-6);
        QVERIFY(std::fabs(n.psu_loss_w - (n.power_ac_w - n.power_dc_w)) < 1e-9);
    }
}

void TstPower::upsLossesMatchTheEfficiencyCurve() {
    auto l = fixtures::sample("lab-8node", 0.9);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = e.step();
    double it = 0;
    for (const auto& n : f.nodes) it += n.power_ac_w;
    QVERIFY(std::fabs(it - f.it_power_w) < 1e-6);
    for (const auto& u : f.ups) {
        // Each side carries half the IT load on one 500 kW module: load fraction ~ 0.07, below the curve's first
        // point (10 % → 0.86), so η = 0.86 and loss = P (1/0.86 − 1).
        QVERIFY(std::fabs(u.load_w - it / 2) < 1e-6);
        QVERIFY(u.load_w / 500000 < 0.1);
        QVERIFY(std::fabs(u.loss_w - u.load_w * (1 / 0.86 - 1)) < 1e-6);
    }
    QVERIFY(std::fabs(f.ups_loss_w - it * (1 / 0.86 - 1)) < 1e-6);
}

void TstPower::breakerUtilizationAndPhaseCurrents() {
    auto l = fixtures::sample("lab-8node", 1.0);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = e.step();
    for (const auto& p : f.rack_pdus) {
        // I = P / (V · pf) per phase; utilization = the highest phase against the 100 A breaker.
        double total = 0, imax = 0;
        for (double i : p.phase_current_a) {
            total += i * 230 * 0.95;
            imax = std::max(imax, i);
        }
        QVERIFY(std::fabs(total - p.load_w) < 1e-6);
        QVERIFY(std::fabs(p.breaker_utilization - imax / 100.0) < 1e-12);
        // 4 DGX with 3 PSUs per side each, spread over the phases: balanced.
        QVERIFY(p.phase_imbalance < 1e-9);
        QVERIFY(p.breaker_utilization < 0.8);
    }
}

void TstPower::feedFailureMovesTheLoadToTheOtherSide() {
    auto l = fixtures::sample("lab-8node", 0.8);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    e.addEvents({fixtures::event(10, "feed_fail", "util-a"), fixtures::event(20, "feed_restore", "util-a")});
    const model::Frame& before = runTo(e, 9);
    const double a_before = before.rack_pdus[0].load_w, b_before = before.rack_pdus[1].load_w, it_before = before.it_power_w;
    QVERIFY(std::fabs(a_before - b_before) < 1e-6);
    const model::Frame& during = runTo(e, 11);
    QVERIFY(!during.rack_pdus[0].alive);
    QCOMPARE(during.rack_pdus[0].load_w, 0.0);
    // Side B carries the whole rack: its 4 nodes on 3 of their 6 PSUs, each PSU now at twice the load fraction
    // (the Titanium curve falls above 50 %, so the AC power rises a little).
    const auto* curve = l.catalog.curve("psu-80plus-titanium-230v");
    double rack0 = 0;
    for (int n = 0; n < 4; ++n) {
        const auto& node = during.nodes[n];
        const double eta = curve->efficiencyAt(node.power_dc_w / (3 * 3300.0));
        QVERIFY(std::fabs(node.power_ac_w - node.power_dc_w / eta) < 1e-6);
        rack0 += node.power_ac_w;
    }
    QVERIFY(std::fabs(during.rack_pdus[1].load_w - rack0) < 1e-6);
    QVERIFY(during.rack_pdus[1].load_w > a_before + b_before);
    QVERIFY(std::fabs(during.it_power_w - it_before) / it_before < 0.05);
    for (const auto& n : during.nodes) QVERIFY(n.powered);
    QCOMPARE(during.ups[0].load_w, 0.0);
    const model::Frame& after = runTo(e, 21);
    QVERIFY(after.rack_pdus[0].alive);
    QVERIFY(std::fabs(after.rack_pdus[0].load_w - after.rack_pdus[1].load_w) < 1e-6);
}

void TstPower::losingBothFeedsUnpowersTheNodes() {
    auto l = fixtures::sample("lab-8node", 0.8);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    e.addEvents({fixtures::event(5, "feed_fail", "util-a"), fixtures::event(5, "feed_fail", "util-b")});
    runTo(e, 5);
    const model::Frame& f = e.step();  // the step starting at t = 5 applies the failures
    bool alert = false;
    for (const auto& a : f.alerts) alert = alert || a.kind == "node_unpowered";
    QVERIFY(alert);
    for (const auto& n : f.nodes) QVERIFY(!n.powered);
    QCOMPARE(f.it_power_w, 0.0);
    for (const auto& g : f.gpus) QCOMPARE(g.power_w, 0.0);
}

void TstPower::pueIsFacilityOverIt() {
    auto l = fixtures::sample("lab-8node", 0.8);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = runTo(e, 120);
    double fans = 0, removed = 0;
    for (const auto& u : f.cooling_units) {
        fans += u.fan_power_w;
        removed += u.load_w;
    }
    const double cooling = fans + removed / l.scenario.plant.chiller_cop + l.scenario.plant.pump_power_w;
    QVERIFY(std::fabs(f.cooling_power_w - cooling) < 1e-6);
    QVERIFY(std::fabs(f.facility_power_w - (f.it_power_w + f.ups_loss_w + cooling)) < 1e-6);
    QVERIFY(std::fabs(f.pue - f.facility_power_w / f.it_power_w) < 1e-12);
    QVERIFY(f.pue > 1.05 && f.pue < 2.0);
}

QTEST_GUILESS_MAIN(TstPower)
#include "tst_power.moc"
