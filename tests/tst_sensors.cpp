// Issue 44: sensors in the scenario — on a rack's front or rear at a height, or at a point of the room. They are
// saved and read back, checked (the rack, the side, the point, the height, the id), read the air they sit in
// (the front the air arriving at the rack, the rear what its servers blow out, linear between the rack's levels),
// are recorded in runs like any metric, and measured telemetry maps onto them by id, so score pairs them.
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"
#include "sim_fixtures.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/engine.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

using namespace ct;

namespace {
model::Sensor rackSensor(const char* id, const char* rack, const char* side, double h) {
    model::Sensor x;
    x.id = id;
    x.rack = rack;
    x.side = side;
    x.height_m = h;
    return x;
}
model::Sensor pointSensor(const char* id, double x_m, double y_m, double h) {
    model::Sensor x;
    x.id = id;
    x.position_m = {x_m, y_m};
    x.height_m = h;
    return x;
}
bool hasError(const model::Diagnostics& d, const std::string& pointer) {
    for (const auto& x : d)
        if (x.severity == model::Severity::Error && x.location == pointer) return true;
    return false;
}
}  // namespace

class TstSensors : public QObject {
    Q_OBJECT
private slots:
    void sensorsAreSavedReadBackAndChecked();
    void sensorsReadTheAirTheyAreIn();
    void sensorsAreRecordedAndScoredById();

private:
    QTemporaryDir tmp_;
};

void TstSensors::sensorsAreSavedReadBackAndChecked() {
    auto l = fixtures::sample("lab-8node");
    auto& h = l.scenario.halls.front();
    h.sensors = {rackSensor("r01-01-front-top", "r01-01", "front", 1.8), rackSensor("r01-01-rear", "r01-01", "rear", 1.0),
                 pointSensor("room-1", 1.5, 1.0, 1.2)};
    h.sensors[0].name = "Front, top";
    const std::string file = tmp_.filePath("with-sensors.json").toStdString();
    model::saveScenarioFile(l.scenario, file);
    const auto back = model::loadScenarioFile(file);
    QCOMPARE(back.scenario.halls.front().sensors.size(), std::size_t(3));
    for (std::size_t i = 0; i < 3; ++i) {
        auto a = h.sensors[i], b = back.scenario.halls.front().sensors[i];
        a.hall_id = b.hall_id;
        QVERIFY2(a == b, h.sensors[i].id.c_str());
    }
    QVERIFY(!model::hasErrors(model::validateScenario(back.scenario, l.catalog)));
    // What cannot be: a rack of another hall, a side that is neither, a point outside, a height above the
    // ceiling, an id another entity has.
    h.sensors = {rackSensor("a", "nope", "front", 1.0), rackSensor("b", "r01-01", "top", 1.0), pointSensor("c", 9.0, 1.0, 1.0),
                 pointSensor("d", 1.0, 1.0, 7.5), pointSensor("n0001", 1.0, 1.0, 1.0)};
    const auto d = model::validateScenario(l.scenario, l.catalog);
    QVERIFY(hasError(d, "/halls/0/sensors/0/rack"));
    QVERIFY(hasError(d, "/halls/0/sensors/1/side"));
    QVERIFY(hasError(d, "/halls/0/sensors/2/position_m"));
    QVERIFY(hasError(d, "/halls/0/sensors/3/height_m"));
    bool dup = false;
    for (const auto& x : d) dup = dup || (x.severity == model::Severity::Error && x.message.find("n0001") != std::string::npos);
    QVERIFY2(dup, "a sensor with a node's id");
}

void TstSensors::sensorsReadTheAirTheyAreIn() {
    auto l = fixtures::sample("lab-8node", 0.8);
    // The rack's level heights, from a first frame.
    {
        sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
        const auto& f = fixtures::runTo(e, 10);
        QVERIFY(f.racks.front().level_height_m.size() >= 3);
    }
    sim::Engine probe(l.scenario, l.catalog, fixtures::quickAir());
    const auto levels = fixtures::runTo(probe, 10).racks.front().level_height_m;
    const double z1 = levels[1], z2 = levels[2];
    auto& h = l.scenario.halls.front();
    h.sensors = {rackSensor("f1", "r01-01", "front", z1),
                 rackSensor("f2", "r01-01", "front", z2),
                 rackSensor("fm", "r01-01", "front", (z1 + z2) / 2),
                 rackSensor("r1", "r01-01", "rear", z1),
                 pointSensor("room", 1.5, 1.0, 1.2),
                 pointSensor("inside", 3.3, 2.4, 1.0)};
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = fixtures::runTo(e, 600);
    QCOMPARE(f.sensors.size(), std::size_t(6));
    auto read = [&](const char* id) {
        for (const auto& s : f.sensors)
            if (s.id == id) return s.temp_c;
        return std::nan("");
    };
    // The front reads the room's air before the rack's own recirculation: at most the servers' inlet there.
    const auto& rack = f.racks.front();
    QVERIFY2(read("f1") <= rack.inlet_c[1] + 1e-9 && read("f1") > rack.inlet_c[1] - 3, qPrintable(QString::number(read("f1"))));
    // Linear between levels.
    QVERIFY(std::abs(read("fm") - (read("f1") + read("f2")) / 2) < 1e-9);
    // The rear, what 80 % loaded DGX H100s blow out: well above the front.
    QVERIFY2(read("r1") > read("f1") + 5, qPrintable(QString("%1 vs %2").arg(read("r1")).arg(read("f1"))));
    // The room's air at a point: between the coldest supply and the hottest exhaust; inside a rack, nothing.
    double lo = 1e9, hi = -1e9;
    for (const auto& u : f.cooling_units) lo = std::min(lo, u.supply_c);
    for (const auto& r : f.racks) hi = std::max(hi, r.exhaust_c);
    QVERIFY2(read("room") >= lo - 0.01 && read("room") <= hi + 0.01, qPrintable(QString::number(read("room"))));
    QVERIFY(std::isnan(read("inside")));
}

void TstSensors::sensorsAreRecordedAndScoredById() {
    auto l = fixtures::sample("lab-8node");
    l.scenario.halls.front().sensors = {rackSensor("s-front", "r01-01", "front", 1.0), rackSensor("s-rear", "r01-02", "rear", 1.0)};
    const QString scen = tmp_.filePath("lab-sensors.json"), run = tmp_.filePath("run.sqlite");
    model::saveScenarioFile(l.scenario, scen.toStdString());
    CliRun r =
        cli({"simulate", scen, "--air", "quick", "--duration", "10m", "--record-every", "60s", "--field-every", "0", "--out", run, "-q"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const auto rows = queryRows(run, "temp_c");
    QVERIFY(std::any_of(rows.begin(), rows.end(), [](const QueryRow& x) { return x.entity == "s-front"; }));
    QVERIFY(std::any_of(rows.begin(), rows.end(), [](const QueryRow& x) { return x.entity == "s-rear"; }));
    // "Measured": the sensors read 0.3 K warmer than the twin says, at 2026-01-01T00:00:00Z + t.
    // As a long CSV imported into `db`: the sensors, and with `gpu_power` the GPUs' power (inputs to drive a run).
    auto measured = [&](const QString& name, bool gpu_power) {
        std::ofstream out(tmp_.filePath(name + ".csv").toStdString());
        out << "time,entity,metric,value,unit\n";
        out.precision(10);
        for (const auto& x : rows)
            if (x.entity.rfind("s-", 0) == 0) out << 1767225600 + x.t << "," << x.entity << ",temp_c," << x.value + 0.3 << ",degC\n";
        if (gpu_power)
            for (const auto& x : queryRows(run, "power_w"))
                if (x.entity.find("/gpu") != std::string::npos)
                    out << 1767225600 + x.t << "," << x.entity << ",power_w," << x.value << ",W\n";
        out.close();
        const QString db = tmp_.filePath(name + ".sqlite");
        return cli({"import", tmp_.filePath(name + ".csv"), "--db", db, "-q"}).code == 0 ? db : QString();
    };
    const QString db = measured("sensors", false);
    QVERIFY(!db.isEmpty());
    r = cli({"score", "--run", run, "--measured", db, "--origin", "2026-01-01T00:00:00Z", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject j = r.json();
    QCOMPARE(j["paired_series"].toInt(), 2);
    bool kind = false;
    for (const auto& k : j["kinds"].toArray()) {
        const QJsonObject o = k.toObject();
        if (o["kind"].toString() != "sensor") continue;
        kind = true;
        const double bias = o["twin"].toObject()["bias"].toDouble();
        QVERIFY2(std::abs(bias + 0.3) < 1e-6, qPrintable(QString::number(bias)));  // the twin reads 0.3 K low
    }
    QVERIFY2(kind, qPrintable(r.out.left(400)));
    // Calibration scores sensors too: their offset is found (it was refused as "the twin has no temp_c of s-front"),
    // the runs driven by the GPUs' measured power.
    const QString db2 = measured("hall", true);
    QVERIFY(!db2.isEmpty());
    const QString params = tmp_.filePath("offset.json"), fitted = tmp_.filePath("fitted.json");
    std::ofstream(params.toStdString()) << R"({"parameters": [{"name": "sensor_offset", "target": "*"}]})";
    r = cli({"calibrate", scen, "--measured", db2, "--params", params, "--metric", "temp_c", "--train", "0..6m", "--validate", "6m..10m",
             "--air", "quick", "-o", fitted, "--json", "-q"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const double offset = r.json()["parameters"].toArray()[0].toObject()["value"].toDouble();
    QVERIFY2(std::abs(offset - 0.3) < 0.01, qPrintable(QString::number(offset)));
}

QTEST_GUILESS_MAIN(TstSensors)
#include "tst_sensors.moc"
