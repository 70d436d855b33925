// The engine's passes (sim/engine/passes.hpp) as units over a hand-built site, without an Engine (issue 39):
// the power chain conserves power and moves a failed side's load to the other, equipment follows the GPU power
// law and stops an unpowered node, the liquid pass shares heat over live CDUs and balances each loop, and an
// alert is raised once per excursion.
#include "engine/passes.hpp"

#include <clustertwin/sim/workload.hpp>

#include <QtTest>

#include <cmath>
#include <memory>

using namespace ct;
using namespace ct::sim::detail;

namespace {

class Constant final : public sim::Workload {
public:
    explicit Constant(double u) : u_(u) {}
    double gpuDemand(std::size_t, int, double) const override { return u_; }

private:
    double u_;
};

/// Two nodes of four GPUs in one rack, each on rack PDUs A and B; A: PDU → UPS → transformer → feed 0,
/// B: PDU → UPS → feed 1. UPS efficiency 95 % flat, transformer 98 %.
struct TwoSides {
    model::GpuModel gpu;
    model::ServerModel server;
    model::EfficiencyCurve psu, ups_curve;
    model::Node node_def[2];
    model::RackPdu rpdu_def[2];
    Site s;
    std::vector<model::Alert> out;
    Alerts alerts{out};

    TwoSides() {
        gpu.idle_power_w = 100;
        gpu.max_power_w = 700;
        gpu.power_exponent = 2;
        gpu.slowdown_temp_c = 85;
        gpu.shutdown_temp_c = 95;
        gpu.thermal_resistance_k_per_w = 0.05;
        gpu.thermal_time_constant_s = 30;
        server.cpu_count = 2;
        server.cpu_idle_power_w = 50;
        server.cpu_max_power_w = 300;
        server.nic_power_w = 100;
        server.other_power_w = 200;
        server.fan_max_power_w = 400;
        server.airflow_m3s = 0.5;
        server.psu_count = 4;
        server.psu_rating_w = 3000;
        psu.points = {{0.0, 0.90}, {1.0, 0.90}};
        ups_curve.points = {{0.0, 0.95}, {1.0, 0.95}};
        for (int i = 0; i < 2; ++i) {
            node_def[i].id = "n" + std::to_string(i);
            rpdu_def[i].id = i == 0 ? "rpdu-A" : "rpdu-B";
            rpdu_def[i].phases = 3;
            NodeRt n;
            n.node = &node_def[i];
            n.server = &server;
            n.gpu = &gpu;
            n.psu_curve = &psu;
            n.rack = 0;
            n.gpus.resize(4);
            n.feeds = {0, 1};
            n.levels = {{0, 1.0}};
            s.nodes.push_back(n);
        }
        RackRt rack;
        rack.nodes = {0, 1};
        rack.levels.resize(1);
        s.racks.push_back(rack);
        s.feeds = {ChainRt{"feed0", -1, 1e6}, ChainRt{"feed1", -1, 1e6}};
        ChainRt tx{"tx0", 0, 1e6};
        tx.efficiency = 0.98;
        s.txs = {tx};
        ChainRt ups0{"ups0", -1, 1e5, &ups_curve}, ups1{"ups1", 1, 1e5, &ups_curve};
        ups0.via = 0;
        s.ups = {ups0, ups1};
        s.pdus = {ChainRt{"pdu0", 0, 1e5}, ChainRt{"pdu1", 1, 1e5}};
        for (int i = 0; i < 2; ++i) {
            RackPduRt r;
            r.pdu = &rpdu_def[i];
            r.rack = 0;
            r.upstream = i;
            s.rpdus.push_back(r);
        }
    }
    void powerStep(double util) {
        const Constant w(util);
        feedsAlive(s);
        equipment(s, w, 0, alerts);
        powerChain(s);
    }
    double nodesAc() const { return s.nodes[0].power_ac_w + s.nodes[1].power_ac_w; }
};

}  // namespace

class TstEnginePasses : public QObject {
    Q_OBJECT
private slots:
    void gpuPowerFollowsItsLaw() {
        TwoSides t;
        t.powerStep(0.5);
        const NodeRt& n = t.s.nodes[0];
        // P = P_idle + (P_max − P_idle)·u^α with α = 2.
        for (const GpuRt& g : n.gpus) QCOMPARE(g.power_w, 100 + 600 * 0.25);
        const double gpu_w = 4 * 250.0, cpu_w = 2 * (50 + 250 * 0.5), other_w = 100 + 200 * 0.75;
        const double load = (gpu_w + cpu_w) / (4 * 700.0 + 2 * 300.0);
        const double fan = 0.3 + 0.7 * load;  // the inlet is below 25 °C
        QVERIFY(std::fabs(n.fan_speed - fan) < 1e-12);
        QVERIFY(std::fabs(n.power_dc_w - (gpu_w + cpu_w + other_w + 400 * fan * fan * fan)) < 1e-9);
        QVERIFY(std::fabs(n.power_ac_w - n.power_dc_w / 0.9) < 1e-9);  // the PSU curve's 90 %
        QCOMPARE(n.heat_air_w, n.power_ac_w);                          // an air-cooled node puts all of it into the room
    }

    void powerChainConservesPower() {
        TwoSides t;
        t.powerStep(0.8);
        const Site& s = t.s;
        // Both sides live: each rack PDU carries half of every node, spread over its three phases.
        QVERIFY(std::fabs(s.rpdus[0].load_w - t.nodesAc() / 2) < 1e-9);
        QVERIFY(std::fabs(s.rpdus[1].load_w - t.nodesAc() / 2) < 1e-9);
        const auto& ph = s.rpdus[0].phase_w;
        QVERIFY(std::fabs(ph[0] + ph[1] + ph[2] - s.rpdus[0].load_w) < 1e-9);
        QVERIFY(ph[0] > 0 && ph[1] > 0 && ph[2] > 0);
        // UPS loss at 95 %, transformer at 98 %, and what each feed carries is everything below it.
        QVERIFY(std::fabs(s.ups[0].loss_w - s.ups[0].load_w * (1 / 0.95 - 1)) < 1e-9);
        QVERIFY(std::fabs(s.txs[0].load_w - (s.ups[0].load_w + s.ups[0].loss_w)) < 1e-9);
        QVERIFY(std::fabs(s.txs[0].loss_w - s.txs[0].load_w * (1 / 0.98 - 1)) < 1e-9);
        const double feeds = s.feeds[0].load_w + s.feeds[1].load_w;
        const double losses = s.ups[0].loss_w + s.ups[1].loss_w + s.txs[0].loss_w;
        QVERIFY(std::fabs(feeds - (t.nodesAc() + losses)) < 1e-6 * feeds);
    }

    void aFailedSideMovesItsLoad() {
        TwoSides t;
        t.powerStep(0.8);
        const double before = t.nodesAc();
        t.s.ups[0].failed = true;  // side A goes dark below its UPS
        t.powerStep(0.8);
        const Site& s = t.s;
        QVERIFY(!s.pdus[0].alive && !s.rpdus[0].alive && s.rpdus[1].alive);
        QCOMPARE(s.nodes[0].live_feeds, 1);
        QVERIFY(s.nodes[0].powered);
        QCOMPARE(s.rpdus[0].load_w, 0.0);
        QCOMPARE(s.feeds[0].load_w, 0.0);
        // Side B carries both nodes whole; on half their PSUs each runs at twice the load fraction (flat curve:
        // the same draw).
        QVERIFY(std::fabs(s.rpdus[1].load_w - t.nodesAc()) < 1e-9);
        QVERIFY(std::fabs(t.nodesAc() - before) < 1e-9);
        QVERIFY(t.out.empty());  // still powered: no alert
        // Both sides down: the nodes stop, draw nothing, and each says so once.
        t.s.ups[1].failed = true;
        t.powerStep(0.8);
        QVERIFY(!s.nodes[0].powered && !s.nodes[1].powered);
        QCOMPARE(t.nodesAc(), 0.0);
        QCOMPARE(s.nodes[0].gpus[0].power_w, 0.0);
        QCOMPARE(t.out.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(t.out[0].kind), QString("node_unpowered"));
        t.powerStep(0.8);
        QCOMPARE(t.out.size(), std::size_t(2));
    }

    void liquidSharesHeatOverLiveCdus() {
        model::CduModel cm;
        cm.capacity_w = 100e3;
        cm.coolant_flow_lpm = 150;
        model::Cdu c0, c1;
        c0.id = "cdu0";
        c1.id = "cdu1";
        Site s;
        RackRt r;
        r.cdus = {0, 1};
        r.heat_liquid_w = 120e3;
        s.racks.push_back(r);
        for (const model::Cdu* c : {&c0, &c1}) {
            CduRt cr;
            cr.cdu = c;
            cr.model = &cm;
            cr.setpoint_c = 30;
            s.cdus.push_back(cr);
        }
        std::vector<model::Alert> out;
        Alerts alerts(out);
        liquid(s, alerts);
        const double mdot_cp = 150.0 / 60000.0 * model::units::kWaterDensityKgM3 * model::units::kWaterCpJPerKgK;  // W/K
        for (const CduRt& c : s.cdus) {
            QCOMPARE(c.load_w, 60e3);
            QCOMPARE(c.supply_c, 30.0);
            QVERIFY(std::fabs((c.return_c - c.supply_c) * mdot_cp - 60e3) < 1e-6);  // the loop's energy balance
        }
        QVERIFY(out.empty());
        // One fails: the other carries all 120 kW, 20 kW over its capacity, which warms its supply.
        s.cdus[1].failed = true;
        liquid(s, alerts);
        const CduRt& c = s.cdus[0];
        QCOMPARE(c.load_w, 120e3);
        QVERIFY(c.over_capacity);
        QVERIFY(std::fabs((c.supply_c - 30) * mdot_cp - 20e3) < 1e-6);
        QVERIFY(std::fabs((c.return_c - c.supply_c) * mdot_cp - 120e3) < 1e-6);
        QCOMPARE(s.cdus[1].load_w, 0.0);
        QCOMPARE(out.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(out[0].kind), QString("cooling_short"));
        QCOMPARE(QString::fromStdString(out[0].entity), QString("cdu0"));
        liquid(s, alerts);  // still short: not raised again
        QCOMPARE(out.size(), std::size_t(1));
    }

    void anAlertIsRaisedOncePerExcursion() {
        std::vector<model::Alert> out;
        Alerts a(out);
        a.t = 10;
        a.set("inlet_high", "r1", "hot", true, 30, 27);
        a.set("inlet_high", "r1", "hot", true, 31, 27);
        a.set("inlet_high", "r2", "hot", true);
        QCOMPARE(out.size(), std::size_t(2));
        QCOMPARE(out[0].time_s, 10.0);
        QCOMPARE(out[0].value, 30.0);
        QVERIFY(a.active("inlet_high", "r1"));
        a.t = 20;
        a.set("inlet_high", "r1", "", false);
        QVERIFY(!a.active("inlet_high", "r1"));
        a.set("inlet_high", "r1", "hot again", true);
        QCOMPARE(out.size(), std::size_t(3));
        QCOMPARE(out[2].time_s, 20.0);
        // onChange builds no message while nothing changes.
        bool raised = false;
        int built = 0;
        auto msg = [&] {
            ++built;
            return std::string("m");
        };
        a.onChange(raised, "throttling", "g", false, msg);
        a.onChange(raised, "throttling", "g", true, msg);
        a.onChange(raised, "throttling", "g", true, msg);
        QCOMPARE(built, 1);
        QVERIFY(raised);
        QCOMPARE(out.size(), std::size_t(4));
    }

    void gpuTemperaturesLagTowardTheirTarget() {
        TwoSides t;
        t.powerStep(1.0);
        t.s.racks[0].levels[0].inlet_c = 24;
        NodeRt& n = t.s.nodes[0];
        for (GpuRt& g : n.gpus) g.temp_c = 24;
        QVERIFY(!nodeTemperatures(t.s, 0, 30));
        QCOMPARE(n.inlet_c, 24.0);
        // One time constant: 1 − 1/e of the way to inlet + P·R/√(fan speed).
        const double target = 24 + 700 * 0.05 / std::sqrt(n.fan_speed);
        QVERIFY(std::fabs(n.gpus[0].temp_c - (24 + (target - 24) * (1 - std::exp(-1.0)))) < 1e-9);
        // Past shutdown: flagged, and gpuAlerts shuts it down and says so once.
        n.gpus[1].temp_c = 200;
        QVERIFY(nodeTemperatures(t.s, 0, 30));
        std::vector<model::GpuFrame> frame(8);
        gpuAlerts(t.s, frame, {0, 4}, t.alerts);
        QVERIFY(n.gpus[1].shutdown && frame[1].failed && !frame[0].failed);
        QCOMPARE(t.out.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(t.out[0].kind), QString("gpu_shutdown"));
    }
};

QTEST_GUILESS_MAIN(TstEnginePasses)
#include "tst_engine_passes.moc"
