// Issue 44: air through a rack's openings, driven by the pressure across it (models.md §3), in place of a fixed
// share per blanking. What is open follows from the rack itself: every empty U a 450 × 44.45 mm opening (EIA-310)
// times the blanking's open share, and open sides the gaps between the rails' flanges and the cabinet. The
// servers draw through their face and, in parallel, through the openings from the back (an orifice, C_d = 0.61),
// the back's path helped by the pressure between the aisles off the rack's back and front (lattice air).
// Checked: the open areas against hand-computed ones, the share growing with the open area, the servers breathing
// what comes back, a fixed recirculation still used as it is, and in the lattice a rack whose exhaust blows
// against a wall close behind it taking back more of its own air than one with room.
#include <QTest>

#include "sim_fixtures.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/engine.hpp>

#include <cmath>
#include <vector>

using namespace ct;
using fixtures::requireValid;
using fixtures::runTo;
using fixtures::supplyMean;

namespace {

constexpr double kRhoCp = model::units::kAirDensityKgM3 * model::units::kAirCpJPerKgK;
constexpr double kUOpening = 0.450 * 0.04445;  // m², one empty U between the rails

/// Rows of four racks (rack-48u-600x1200), two DGX H100 in each (U 1–8 and 10–17: 32 U empty), at `util`; with
/// two rows, their fronts facing each other in a sealed cold aisle on a raised floor, so every rack's front has
/// supply air.
fixtures::Loaded hall(int rows = 2, double util = 0.8) {
    model::HallParams p;
    p.rows = rows;
    p.racks_per_row = 4;
    p.nodes_per_rack = 2;
    p.raised_floor_m = rows == 2 ? 0.6 : 0;  // the sealed cold aisle fed through its tiles
    p.topology = "none";
    p.containment = "none";
    fixtures::Loaded l = fixtures::built(p, util);
    if (rows == 2) {
        model::Containment c;
        c.id = "pod1";
        c.kind = "cold";
        c.rows = {"row01", "row02"};
        c.leakage_fraction = 0.0;
        l.scenario.halls[0].containments = {c};
    }
    return l;
}

sim::EngineOptions options(const char* solver) {
    sim::EngineOptions o;
    o.air = solver;
    o.cell_m = 0.25;
    o.step_s = 2;
    o.threads = 2;
    return o;
}

}  // namespace

class TstRackLeakage : public QObject {
    Q_OBJECT
private slots:
    void openAreaFollowsTheRackAndItsBlanking();
    void quickModeLeaksInProportionToTheOpenArea();
    void fixedRecirculationIsUsedAsItIs();
    void latticeBackPressureDrivesMoreBack();
};

void TstRackLeakage::openAreaFollowsTheRackAndItsBlanking() {
    auto l = hall();
    model::Rack r = l.scenario.halls[0].rows[0].racks[0];
    QCOMPARE(r.nodes.size(), std::size_t(2));
    QCOMPARE(r.nodes[1].u_position, 10);
    QVERIFY(model::rackOpenings(r, l.catalog).empty());  // no blanking said: sealed
    QCOMPARE(r.model, std::string("rack-48u-600x1200"));
    // No blanking: 32 empty U open, and the sides: 0.6 m less 2 × 20 mm of panel less the 482.6 mm flanges, over 48 U.
    r.blanking = "none";
    const double sides = (0.6 - 0.04 - 0.4826) * 48 * 0.04445;
    QVERIFY(std::fabs(model::rackOpenArea(r, l.catalog) - (32 * kUOpening + sides)) < 1e-9);
    // Full blanking: 1/16 in of each empty U's 1.75 in left open between the panels, the sides sealed; two bands
    // (U 9, and U 18–48).
    r.blanking = "full";
    const auto bands = model::rackOpenings(r, l.catalog);
    QCOMPARE(bands.size(), std::size_t(2));
    QVERIFY(std::fabs(bands[0].z0_m - 8 * 0.04445) < 1e-9 && std::fabs(bands[0].z1_m - 9 * 0.04445) < 1e-9);
    QVERIFY(std::fabs(bands[1].z0_m - 17 * 0.04445) < 1e-9 && std::fabs(bands[1].z1_m - 48 * 0.04445) < 1e-9);
    QVERIFY(std::fabs(model::rackOpenArea(r, l.catalog) - 32 * kUOpening * 0.036) < 1e-9);
    // A chassis's empty slots are open too: one sled of three in U 20 leaves two thirds of that U.
    auto cat = l.catalog;
    model::ServerModel sled = *cat.server("dgx-h100");
    sled.id = "sled";
    sled.height_u = 1;
    sled.slot_count = 3;
    cat.servers.push_back(sled);
    model::Node n = r.nodes[0];
    n.id = "s1";
    n.model = "sled";
    n.u_position = 20;
    n.slot = 2;
    r.nodes.push_back(n);
    QVERIFY(std::fabs(model::rackOpenArea(r, cat) - (31 + 2.0 / 3.0) * kUOpening * 0.036) < 1e-9);
    // A fixed share (the rack's own, or a blanking's measured one) is used as it is: no openings.
    r.recirculation_fraction = 0.1;
    QVERIFY(model::rackOpenings(r, cat).empty());
    QCOMPARE(*model::fixedRecirculation(r, cat), 0.1);
}

void TstRackLeakage::quickModeLeaksInProportionToTheOpenArea() {
    // Without the aisles' pressure the servers draw through their face F and the openings C_d·A in parallel: a
    // level's share back is C_d·A/(F + C_d·A), nearly proportional to the open area while it is small. Rack 1
    // has twice the open share of rack 2 (3.6 % of each empty U); rack 0 is sealed.
    auto l = hall();
    model::BlankingModel twice = *l.catalog.blanking("full");
    twice.id = "twice";
    twice.open_share = 2 * 0.036;
    l.catalog.blankings.push_back(twice);
    auto& racks = l.scenario.halls[0].rows[0].racks;
    racks[1].blanking = "twice";
    racks[2].blanking = "full";
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 900);
    const double r1 = f.racks[1].recirculation, r2 = f.racks[2].recirculation;
    qInfo("recirculation: sealed %.4f, full %.4f, twice %.4f", f.racks[0].recirculation, r2, r1);
    QCOMPARE(f.racks[0].recirculation, 0.0);
    QVERIFY(r2 > 0.005 && r2 < 0.2);
    QVERIFY2(r1 / r2 < 2.0 && r1 / r2 > 1.8, "parallel paths: twice the opening, a little under twice the share");
    // What comes back warms the servers: their front has supply air, so they breathe the supply plus
    // Σ q·f/(1 − f)·ΔT / Σ q over the levels, at least g(f̄)·ΔT for the rack's mean share f̄ (g = f/(1 − f) is convex).
    const double sup = supplyMean(f);
    qInfo("sealed rack: inlet %.3f °C, supply %.3f", f.racks[0].inlet_mean_c, sup);
    QVERIFY(std::fabs(f.racks[0].inlet_mean_c - sup) < 0.2);
    for (int i : {1, 2}) {
        const model::RackFrame& r = f.racks[static_cast<std::size_t>(i)];
        const double rise = r.heat_to_air_w / (kRhoCp * r.airflow_m3s), g = r.recirculation / (1 - r.recirculation);
        qInfo("rack %s: inlet %.3f °C, supply %.3f, rise %.2f K, g(f) ΔT %.3f K", r.id.c_str(), r.inlet_mean_c, sup, rise, g * rise);
        QVERIFY(r.inlet_mean_c - sup >= g * rise - 0.01);
        QVERIFY(r.inlet_mean_c - sup <= 1.25 * g * rise);
    }
}

void TstRackLeakage::fixedRecirculationIsUsedAsItIs() {
    auto l = hall();
    auto& racks = l.scenario.halls[0].rows[0].racks;
    racks[1].blanking = "none";
    racks[1].recirculation_fraction = 0.2;
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 300);
    QVERIFY(std::fabs(f.racks[1].recirculation - 0.2) < 1e-12);
}

void TstRackLeakage::latticeBackPressureDrivesMoreBack() {
    // One row in an open room, every rack fully blanked. With 2 m behind the racks their exhaust spreads freely
    // and the share that comes back is about the servers' suction alone (quick mode's C_d·A/A_face); with the
    // wall 0.3 m behind, the exhaust stagnates against it, the pressure behind the racks rises, and more comes
    // back, most in the middle of the row (its ends vent sideways).
    auto share = [](const char* solver, double gap) {
        auto l = hall(1);
        auto& h = l.scenario.halls[0];
        for (auto& r : h.rows[0].racks) {
            r.blanking = "full";
            r.position_m.y_m = r.facing == model::Facing::North ? 0.6 + gap : h.depth_m - 0.6 - gap;
        }
        requireValid(l);
        sim::Engine e(l.scenario, l.catalog, options(solver));
        const model::Frame& f = runTo(e, 240);
        std::vector<double> out;
        for (const auto& r : f.racks) out.push_back(r.recirculation);
        qInfo("%s, %.1f m behind: recirculation %.4f %.4f %.4f %.4f", solver, gap, out[0], out[1], out[2], out[3]);
        return out;
    };
    const auto quick = share("quick", 2.0), room = share("lbm", 2.0), wall = share("lbm", 0.3);
    for (std::size_t i = 0; i < 4; ++i) {
        QVERIFY(room[i] > 0.8 * quick[i] && room[i] < 1.6 * quick[i]);
        QVERIFY(wall[i] > 1.5 * room[i]);
    }
    QVERIFY(wall[1] > wall[0] && wall[2] > wall[3]);
}

QTEST_GUILESS_MAIN(TstRackLeakage)
#include "tst_rack_leakage.moc"
