// Driven inputs (issue 44): measured series in place of the model's own values, interpolated, with gaps, counted.
#include "sim_fixtures.hpp"

#include <clustertwin/sim/drive.hpp>

#include <cmath>
#include <tuple>

using namespace ct;

namespace {
const model::NodeFrame& nodeOf(const model::Frame& f, const std::string& id) {
    for (const auto& n : f.nodes)
        if (n.id == id) return n;
    qFatal("no node %s", id.c_str());
}
const model::CoolingUnitFrame& unitOf(const model::Frame& f, const std::string& id) {
    for (const auto& u : f.cooling_units)
        if (u.id == id) return u;
    qFatal("no unit %s", id.c_str());
}
sim::DriveSeries series(sim::DriveInput in, const char* entity, std::vector<double> t, std::vector<double> v, double gap = 0) {
    sim::DriveSeries s;
    s.input = in;
    s.entity = entity;
    s.t_s = std::move(t);
    s.values = std::move(v);
    s.max_gap_s = gap;
    return s;
}
}  // namespace

class TstDrive : public QObject {
    Q_OBJECT
private slots:
    void interpolatesBetweenSamplesAndStopsAtGaps();
    void everyInputHasOneRowAndAnId();
    void drivenNodePowerIsFollowedExactlyIncludingAStep();
    void aGapFallsBackOnTheModelAndIsCounted();
    void drivenUnitSupplyAndAirflowReplaceTheControl();
    void drivenFansHoldTheirSpeedWhateverTheLoad();
    void anEntityNotInTheScenarioIsRefused();
};

void TstDrive::interpolatesBetweenSamplesAndStopsAtGaps() {
    const std::vector<double> t{0, 60, 120, 600, 660}, v{10, 20, 30, 40, std::nan("")};
    std::size_t h = 0;
    QCOMPARE(sim::defaultMaxGapS(t), 180.0);  // median spacing 60 s
    QCOMPARE(*sim::driveValueAt(t, v, 180, 0, h), 10.0);
    QCOMPARE(*sim::driveValueAt(t, v, 180, 30, h), 15.0);
    QCOMPARE(*sim::driveValueAt(t, v, 180, 90, h), 25.0);
    QVERIFY(!sim::driveValueAt(t, v, 180, 300, h));          // 480 s between 120 and 600: a gap
    QCOMPARE(*sim::driveValueAt(t, v, 180, 600, h), 40.0);   // on a sample
    QVERIFY(!sim::driveValueAt(t, v, 180, 630, h));          // next to NaN
    QCOMPARE(*sim::driveValueAt(t, v, 180, -60, h), 10.0);   // half a gap before the first sample
    QVERIFY(!sim::driveValueAt(t, v, 180, -100, h));         // further out
    QCOMPARE(*sim::driveValueAt(t, v, 1000, 360, h), 35.0);  // a wider bridge spans it
    h = 3;                                                   // a hint past t is reset
    QCOMPARE(*sim::driveValueAt(t, v, 180, 60, h), 20.0);
}

void TstDrive::everyInputHasOneRowAndAnId() {
    for (auto in : {sim::DriveInput::NodePower, sim::DriveInput::GpuPower, sim::DriveInput::NodeFanSpeed, sim::DriveInput::NodeAirflow,
                    sim::DriveInput::UnitSupply, sim::DriveInput::UnitSetpoint, sim::DriveInput::UnitAirflow, sim::DriveInput::UnitFanSpeed,
                    sim::DriveInput::CduSupply, sim::DriveInput::JobUtilization}) {
        int rows = 0;
        for (const auto& r : sim::driveInputs()) rows += r.input == in ? 1 : 0;
        QCOMPARE(rows, 1);
        QCOMPARE(*sim::driveInputById(sim::driveInputInfo(in).id), in);
    }
    QVERIFY(!sim::driveInputById("node_voltage"));
}

void TstDrive::drivenNodePowerIsFollowedExactlyIncludingAStep() {
    auto l = fixtures::sample("lab-8node", 0.5);
    auto o = fixtures::quickAir();
    o.step_s = 10;
    // n0001 measured at 3 kW, then 9 kW from t = 300 s: a step (two samples at one time would not ascend; the
    // step is one sample interval wide).
    o.drive.push_back(series(sim::DriveInput::NodePower, "n0001", {0, 290, 300, 600}, {3000, 3000, 9000, 9000}));
    sim::Engine e(l.scenario, l.catalog, o);
    QCOMPARE(nodeOf(e.frame(), "n0001").power_ac_w, 3000.0);
    double gpu_before = 0, gpu_after = 0, fan_before = 0, fan_after = 0;
    for (int s = 1; s <= 60; ++s) {
        const auto& f = e.step();
        const double want = f.time_s < 295 ? 3000.0 : 9000.0;
        if (f.time_s <= 290 || f.time_s >= 300)
            QVERIFY2(std::abs(nodeOf(f, "n0001").power_ac_w - want) < 1e-9, qPrintable(QString::number(f.time_s)));
        double g = 0;
        for (const auto& x : f.gpus)
            if (x.id.rfind("n0001/", 0) == 0) g += x.power_w;
        if (s == 20) std::tie(gpu_before, fan_before) = std::pair{g, nodeOf(f, "n0001").fan_speed};
        if (s == 50) std::tie(gpu_after, fan_after) = std::pair{g, nodeOf(f, "n0001").fan_speed};
        // The other nodes run on the model: half load, never the measured value.
        QVERIFY(std::abs(nodeOf(f, "n0002").power_ac_w - 3000.0) > 1);
    }
    // The model finds the utilization that draws the measured power: the GPUs carry most of the 6 kW step, the
    // CPUs and the fans the rest, and the fans speed up with it.
    QVERIFY2(gpu_after > gpu_before + 3000, "the GPUs carry the step of the node's draw");
    QVERIFY2(fan_after > fan_before + 0.2, "the fans follow the measured load");
    const auto& c = e.driveCounts();
    QCOMPARE(c.size(), std::size_t(1));
    QCOMPARE(c[0].driven_steps, std::int64_t(60));
    QCOMPARE(c[0].model_steps, std::int64_t(0));
    QCOMPARE(c[0].samples, std::size_t(4));
}

void TstDrive::aGapFallsBackOnTheModelAndIsCounted() {
    auto l = fixtures::sample("lab-8node", 0.5);
    auto o = fixtures::quickAir();
    o.step_s = 10;
    // Samples every 60 s, none between 300 and 900 s: the model runs n0001 there.
    std::vector<double> t, v;
    for (double x = 0; x <= 1200; x += 60)
        if (x <= 300 || x >= 900) {
            t.push_back(x);
            v.push_back(5000);
        }
    o.drive.push_back(series(sim::DriveInput::NodePower, "n0001", t, v));
    sim::Engine e(l.scenario, l.catalog, o);
    double model_w = 0;
    for (int s = 1; s <= 120; ++s) {
        const auto& f = e.step();
        const double p = nodeOf(f, "n0001").power_ac_w;
        if (f.time_s <= 300 || f.time_s >= 900) QCOMPARE(p, 5000.0);
        else {
            QVERIFY(std::abs(p - 5000.0) > 1);
            model_w = nodeOf(f, "n0002").power_ac_w;
            QCOMPARE(p, model_w);  // the same as its undriven twin
        }
    }
    const auto& c = e.driveCounts()[0];
    // Steps at 310 … 890 s ran on the model (59), the other 61 on the measurement; one gap met.
    QCOMPARE(c.model_steps, std::int64_t(59));
    QCOMPARE(c.driven_steps, std::int64_t(61));
    QCOMPARE(c.gaps, std::int64_t(1));
}

void TstDrive::drivenUnitSupplyAndAirflowReplaceTheControl() {
    auto l = fixtures::sample("lab-8node", 0.6);
    auto o = fixtures::quickAir();
    o.step_s = 10;
    o.drive.push_back(series(sim::DriveInput::UnitSupply, "crah-01", {0, 3600}, {21.5, 21.5}));
    o.drive.push_back(series(sim::DriveInput::UnitAirflow, "crah-01", {0, 3600}, {2.5, 2.5}));
    o.drive.push_back(series(sim::DriveInput::UnitFanSpeed, "crah-02", {0, 3600}, {0.5, 0.5}));
    sim::Engine e(l.scenario, l.catalog, o);
    const double rated = l.catalog.coolingUnit(l.scenario.halls[0].cooling_units[1].model)->airflow_m3s;
    for (int s = 0; s < 30; ++s) e.step();
    const auto& f = e.frame();
    QCOMPARE(unitOf(f, "crah-01").supply_c, 21.5);
    QCOMPARE(unitOf(f, "crah-01").airflow_m3s, 2.5);
    QCOMPARE(unitOf(f, "crah-02").airflow_m3s, 0.5 * rated);
    QVERIFY(unitOf(f, "crah-02").supply_c < 21.4);  // undriven: its setpoint
}

void TstDrive::drivenFansHoldTheirSpeedWhateverTheLoad() {
    auto l = fixtures::sample("lab-8node", 0.2);
    auto o = fixtures::quickAir();
    o.step_s = 10;
    o.drive.push_back(series(sim::DriveInput::NodeFanSpeed, "n0003", {0, 3600}, {0.55, 0.55}));
    o.drive.push_back(series(sim::DriveInput::JobUtilization, "test-job", {0, 300, 310, 3600}, {0.2, 0.2, 1.0, 1.0}, 4000));
    sim::Engine e(l.scenario, l.catalog, o);
    for (int s = 0; s < 20; ++s) e.step();
    const double low_speed_other = nodeOf(e.frame(), "n0004").fan_speed;
    QCOMPARE(nodeOf(e.frame(), "n0003").fan_speed, 0.55);
    for (int s = 0; s < 20; ++s) e.step();
    QCOMPARE(nodeOf(e.frame(), "n0003").fan_speed, 0.55);
    QVERIFY2(nodeOf(e.frame(), "n0004").fan_speed > low_speed_other + 0.2, "the undriven node's fans follow the job's load");
}

void TstDrive::anEntityNotInTheScenarioIsRefused() {
    auto l = fixtures::sample("lab-8node", 0.5);
    auto o = fixtures::quickAir();
    o.drive.push_back(series(sim::DriveInput::GpuPower, "n0001/gpu9", {0}, {300}));
    try {
        sim::Engine e(l.scenario, l.catalog, o);
        QFAIL("accepted a GPU the node does not have");
    } catch (const sim::SimError& err) {
        QVERIFY2(std::string(err.what()).find("n0001/gpu9 is no gpu") != std::string::npos, err.what());
    }
}

QTEST_GUILESS_MAIN(TstDrive)
#include "tst_drive.moc"
