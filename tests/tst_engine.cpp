// The coupled engine against physics (issue 2): steady-state heat balance, rack exhaust, failures and
// recovery, throttling, liquid loops, determinism across thread counts.
#include "sim_fixtures.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace ct;

using fixtures::runTo;

class TstEngine : public QObject {
    Q_OBJECT
private slots:
    void heatInEqualsHeatRemovedAtSteadyState_data();
    void heatInEqualsHeatRemovedAtSteadyState();
    void rackExhaustIsIntakePlusPowerOverMassFlowCp();
    void failedCoolingUnitRaisesInletsThatRecoverAfterRestore();
    void raisingTheSetpointPastThrottlingLowersGpuPower();
    void liquidLoopCarriesItsShareWithTheRightDeltaT();
    void sameInputsGiveBitIdenticalFramesForOneAndTwoThreads();
    void aRunInsideAChunkGoesInlineOnItsThread();
    void gridTooFineForMemorySaysHowMuchItNeeds();
    void coolingThatCannotCarryTheLoadStillRunsAndSaysSo();
};

void TstEngine::heatInEqualsHeatRemovedAtSteadyState_data() {
    QTest::addColumn<QString>("which");
    QTest::newRow("lab-8node") << "lab-8node";
    QTest::newRow("generated B200 hall") << "generated";
}

void TstEngine::heatInEqualsHeatRemovedAtSteadyState() {
    QFETCH(QString, which);
    fixtures::Loaded l;
    if (which == "generated") {
        model::HallParams p;
        p.rows = 2;
        p.racks_per_row = 3;
        p.server_model = "hgx-b200";
        p.nodes_per_rack = 2;
        p.raised_floor_m = 0.6;
        l.scenario = model::buildHall(p);
        l.catalog = model::Catalog::builtin();
        model::Job j;
        j.id = "all";
        j.utilization = 0.7;
        for (const auto& row : l.scenario.halls[0].rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) j.nodes.push_back(n.id);
        l.scenario.jobs = {j};
    } else {
        l = fixtures::sample("lab-8node", 0.8);
    }
    sim::EngineOptions o;
    o.air = "quick";
    o.cell_m = 0.25;
    o.step_s = 2;
    sim::Engine e(l.scenario, l.catalog, o);
    const model::Frame& f = runTo(e, 1800);
    const double rel = std::fabs(f.heat_in_w - f.heat_removed_w) / f.heat_in_w;
    qInfo("%s: heat in %.1f W, removed %.1f W, error %.3f %%", qPrintable(which), f.heat_in_w, f.heat_removed_w, 100 * rel);
    QVERIFY(f.heat_in_w > 10000);
    QVERIFY2(rel < 0.01, "heat put in by racks and heat removed by units differ by more than 1 %");
    // All the IT power ends up as heat in the air (no liquid here).
    QVERIFY(std::fabs(f.heat_in_w - f.it_power_w) / f.it_power_w < 1e-9);
}

void TstEngine::rackExhaustIsIntakePlusPowerOverMassFlowCp() {
    auto l = fixtures::sample("lab-8node", 0.6);
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = runTo(e, 5);
    for (const auto& r : f.racks) {
        QVERIFY(r.airflow_m3s > 0);
        const double rho_cp = model::units::kAirDensityKgM3 * model::units::kAirCpJPerKgK;
        const double implied_w = (r.exhaust_c - r.inlet_mean_c) * rho_cp * r.airflow_m3s;
        QVERIFY2(std::fabs(implied_w - r.power_w) / r.power_w < 1e-6, qPrintable(QString::fromStdString(r.id)));
    }
    // And the air right behind the rack is that warm: the exhaust port cells carry the exhaust temperature.
    const auto& r0 = f.racks[0];
    QVERIFY(r0.exhaust_c > r0.inlet_mean_c + 5);
    // Each server's own exhaust (what its exhaust sensor reads, issue 44): its inlet plus its heat to air over
    // its airflow, and the rack's air-weighted mean of them is the rack's exhaust.
    const double rho_cp = model::units::kAirDensityKgM3 * model::units::kAirCpJPerKgK;
    std::map<std::string, std::pair<double, double>> per_rack;  // rack: Σq, Σq·exhaust
    std::map<std::string, std::string> rack_of;
    for (const auto& row : l.scenario.halls.front().rows)
        for (const auto& r : row.racks)
            for (const auto& n : r.nodes) rack_of[n.id] = r.id;
    for (const auto& n : f.nodes) {
        QVERIFY(n.airflow_m3s > 0);
        const double implied_w = (n.exhaust_c - n.inlet_c) * rho_cp * n.airflow_m3s;
        QVERIFY2(std::fabs(implied_w - (n.power_ac_w - n.heat_to_liquid_w)) < 1e-6 * n.power_ac_w,
                 qPrintable(QString::fromStdString(n.id)));
        QVERIFY(n.exhaust_c > n.inlet_c + 5);  // a DGX H100 under load: some 10 kW through ~0.5 m³/s
        auto& acc = per_rack[rack_of.at(n.id)];
        acc.first += n.airflow_m3s;
        acc.second += n.airflow_m3s * n.exhaust_c;
    }
    for (const auto& r : f.racks) {
        const auto& [q, qt] = per_rack.at(r.id);
        QVERIFY2(std::fabs(qt / q - r.exhaust_c) < 0.5,
                 qPrintable(QString("%1: %2 vs %3").arg(QString::fromStdString(r.id)).arg(qt / q).arg(r.exhaust_c)));
    }
}

void TstEngine::failedCoolingUnitRaisesInletsThatRecoverAfterRestore() {
    // Two 60 kW units for 81.6 kW of DGX at full load: one alone cannot hold the setpoint.
    auto l = fixtures::sample("lab-8node", 1.0, R"({"cooling_units": [{"id": "crah-cw-120kw", "capacity_w": 60000}]})");
    sim::EngineOptions o;
    o.air = "quick";
    o.step_s = 2;
    sim::Engine e(l.scenario, l.catalog, o);
    e.addEvents({fixtures::event(1200, "cooling_unit_fail", "crah-01"), fixtures::event(2400, "cooling_unit_restore", "crah-01")});
    const double before = fixtures::meanInlet(runTo(e, 1190));
    const double during = fixtures::meanInlet(runTo(e, 2390));
    const double after = fixtures::meanInlet(runTo(e, 4200));
    qInfo("mean rack inlet: before %.2f, with crah-01 failed %.2f, after restore %.2f °C", before, during, after);
    QVERIFY2(during > before + 2.0, "losing a unit did not raise the inlets");
    QVERIFY2(std::fabs(after - before) < 0.5, "inlets did not recover after the restore");
}

void TstEngine::raisingTheSetpointPastThrottlingLowersGpuPower() {
    // A GPU with a poor cooler: at 18 °C supply it stays below its 87 °C slowdown, at 27 °C it does not.
    auto l = fixtures::sample("lab-8node", 1.0, R"({"gpus": [{"id": "h100-sxm5-80gb", "thermal_resistance_k_per_w": 0.09}]})");
    for (auto& u : l.scenario.halls[0].cooling_units) u.supply_setpoint_c = 16;
    sim::EngineOptions o;
    o.air = "quick";
    o.step_s = 2;
    sim::Engine e(l.scenario, l.catalog, o);
    e.addEvents({fixtures::event(900, "setpoint_change", "crah-01", 27.0), fixtures::event(900, "setpoint_change", "crah-02", 27.0)});
    const model::Frame& cool = runTo(e, 890);
    double throttle_cool = 1;
    for (const auto& g : cool.gpus) throttle_cool = std::min(throttle_cool, g.throttle);
    const double p_cool = fixtures::meanGpuPower(cool);
    const model::Frame& warm = runTo(e, 2400);
    double throttle_warm = 1;
    for (const auto& g : warm.gpus) throttle_warm = std::min(throttle_warm, g.throttle);
    const double p_warm = fixtures::meanGpuPower(warm);
    qInfo("GPU power %.1f W at 16 °C supply (min throttle %.2f), %.1f W at 27 °C (min throttle %.2f)", p_cool, throttle_cool, p_warm,
          throttle_warm);
    QCOMPARE(throttle_cool, 1.0);
    QVERIFY(throttle_warm < 1.0);
    QVERIFY2(p_warm < p_cool - 20, "throttling did not lower GPU power");
}

void TstEngine::liquidLoopCarriesItsShareWithTheRightDeltaT() {
    auto l = fixtures::sample("gb200-nvl72-liquid", 0.9);
    sim::EngineOptions o;
    o.air = "quick";
    o.step_s = 5;
    sim::Engine e(l.scenario, l.catalog, o);
    const model::Frame& f = runTo(e, 300);
    double dc = 0, liquid = 0;
    for (const auto& n : f.nodes) {
        dc += n.power_dc_w;
        liquid += n.heat_to_liquid_w;
    }
    QVERIFY(std::fabs(liquid / dc - 0.85) < 1e-9);  // the capture fraction
    double cdu_load = 0;
    const auto* m = l.catalog.cdu("cdu-coolit-chx750");
    const double mcp = model::units::lpmToM3s(m->coolant_flow_lpm) * model::units::kWaterDensityKgM3 * model::units::kWaterCpJPerKgK;
    for (const auto& c : f.cdus) {
        cdu_load += c.load_w;
        QVERIFY(std::fabs((c.return_c - c.supply_c) - c.load_w / mcp) < 1e-9);  // loop ΔT = P / (ṁ c_p)
        QVERIFY(!c.over_capacity);
    }
    QVERIFY(std::fabs(cdu_load - liquid) / liquid < 1e-9);
    // Losing two of three CDUs: 750 kW left for ~800 kW of liquid heat; the supply warms and it says so.
    e.addEvents({fixtures::event(300, "cdu_fail", "cdu-01"), fixtures::event(300, "cdu_fail", "cdu-02")});
    const model::Frame& g = runTo(e, 320);
    QVERIFY(g.cdus[2].over_capacity);
    QVERIFY(g.cdus[2].supply_c > l.scenario.halls[0].cdus[2].supply_temp_c);
}

void TstEngine::sameInputsGiveBitIdenticalFramesForOneAndTwoThreads() {
    auto l = fixtures::sample("lab-8node", 0.7);
    std::vector<float> air[2];
    std::vector<double> gpu_t[2];
    for (int threads : {1, 2}) {
        sim::EngineOptions o;
        o.air = "quick";
        o.threads = threads;
        sim::Engine e(l.scenario, l.catalog, o);
        e.addEvents({fixtures::event(30, "cooling_unit_fail", "crah-02")});
        for (int s = 0; s < 60; ++s) e.step(false);
        const model::Frame& f = e.step(true);
        air[threads - 1] = f.air->temp_c;
        for (const auto& g : f.gpus) gpu_t[threads - 1].push_back(g.temp_c);
    }
    QCOMPARE(air[0].size(), air[1].size());
    QVERIFY(std::memcmp(air[0].data(), air[1].data(), air[0].size() * sizeof(float)) == 0);
    QVERIFY(gpu_t[0] == gpu_t[1]);
}

// Halls side by side (engine_air.cpp): each on a chunk of the pool, its own loops then run every chunk in turn on
// that chunk's thread, where a second run on the busy pool used to be undefined (run was not reentrant).
void TstEngine::aRunInsideAChunkGoesInlineOnItsThread() {
    sim::ThreadPool pool(2);
    QCOMPARE(pool.width(), 2);
    QVERIFY(!pool.inside());
    std::mutex m;
    std::set<std::thread::id> outer_threads;
    std::vector<std::vector<std::size_t>> inner(8);  // per outer chunk: the inner chunks in the order they ran
    std::vector<int> width(8, 0), foreign(8, 0);
    pool.run(8, [&](std::size_t c) {
        const auto me = std::this_thread::get_id();
        {
            std::lock_guard<std::mutex> lk(m);
            outer_threads.insert(me);
        }
        width[c] = pool.width();
        pool.run(5, [&](std::size_t q) {
            inner[c].push_back(q);
            if (std::this_thread::get_id() != me) foreign[c] = 1;
        });
    });
    for (std::size_t c = 0; c < 8; ++c) {
        QCOMPARE(inner[c], (std::vector<std::size_t>{0, 1, 2, 3, 4}));
        QCOMPARE(width[c], 1);
        QCOMPARE(foreign[c], 0);
    }
    QVERIFY(!pool.inside());  // the caller's mark is gone when the run returns
    QCOMPARE(pool.width(), 2);
    // Another pool inside a chunk still spreads over its own threads.
    sim::ThreadPool other(2);
    std::vector<int> other_width(2, 0);
    pool.run(2, [&](std::size_t c) { other_width[c] = other.width(); });
    QCOMPARE(other_width, (std::vector<int>{2, 2}));
    qInfo("outer chunks ran on %d thread(s)", int(outer_threads.size()));
}

void TstEngine::gridTooFineForMemorySaysHowMuchItNeeds() {
    auto l = fixtures::sample("lab-8node");
    sim::EngineOptions o;
    o.air = "quick";
    o.cell_m = 0.1;
    o.max_grid_bytes = 1 << 20;
    try {
        sim::Engine e(l.scenario, l.catalog, o);
        QFAIL("a grid larger than the memory limit was accepted");
    } catch (const sim::SimError& err) {
        QVERIFY2(QString(err.what()).contains("needs") && QString(err.what()).contains("GiB"), err.what());
    }
}

void TstEngine::coolingThatCannotCarryTheLoadStillRunsAndSaysSo() {
    auto l = fixtures::sample("lab-8node", 1.0, R"({"cooling_units": [{"id": "crah-cw-120kw", "capacity_w": 20000}]})");
    sim::EngineOptions o;
    o.air = "quick";
    o.step_s = 5;
    sim::Engine e(l.scenario, l.catalog, o);
    bool said = false;
    while (e.timeS() < 600) {
        for (const auto& a : e.step().alerts) said = said || a.kind == "cooling_short";
    }
    QVERIFY(said);
    const model::Frame& f = e.frame();
    QVERIFY(f.cooling_units[0].over_capacity);
    QVERIFY(f.cooling_units[0].supply_c > 18);
    QVERIFY(f.heat_removed_w <= 2 * 20000 * 1.0001);
}

QTEST_GUILESS_MAIN(TstEngine)
#include "tst_engine.moc"
