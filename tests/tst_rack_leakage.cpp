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

#include <algorithm>
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
    void theGapUnderTheRackFeedsItsLowestServers();
    void gapsBetweenCabinetsPassAir();
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
    // No blanking: 32 empty U open, the sides: 0.6 m less 2 × 20 mm of panel less the 482.6 mm flanges, over 48 U,
    // and the 25 mm under the cabinet over its 0.6 m.
    r.blanking = "none";
    const double sides = (0.6 - 0.04 - 0.4826) * 48 * 0.04445, under = 0.025 * 0.6;
    QVERIFY(std::fabs(model::rackOpenArea(r, l.catalog) - (32 * kUOpening + sides + under)) < 1e-9);
    // Full blanking: 1/16 in of each empty U's 1.75 in left open between the panels, the sides sealed; two bands
    // (U 9, and U 18–48), and the gap under the rack, a 25 mm channel 1.2 m long: 1/√(0.5 + 1 + 0.04 · 1.2 / 0.05).
    r.blanking = "full";
    auto bands = model::rackOpenings(r, l.catalog);
    QCOMPARE(bands.size(), std::size_t(3));
    QVERIFY(std::fabs(bands[0].z0_m - 8 * 0.04445) < 1e-9 && std::fabs(bands[0].z1_m - 9 * 0.04445) < 1e-9);
    QVERIFY(std::fabs(bands[1].z0_m - 17 * 0.04445) < 1e-9 && std::fabs(bands[1].z1_m - 48 * 0.04445) < 1e-9);
    QCOMPARE(bands[0].discharge, 0.61);
    QVERIFY(bands[2].z0_m == 0 && std::fabs(bands[2].z1_m - 0.025) < 1e-12 && std::fabs(bands[2].area_m2 - under) < 1e-12);
    QVERIFY(std::fabs(bands[2].discharge - 1 / std::sqrt(2.46)) < 1e-12);
    QVERIFY(std::fabs(model::rackOpenArea(r, l.catalog) - (32 * kUOpening * 0.036 + under)) < 1e-9);
    // A measured clearance of the rack's own: 50 mm, a shorter channel for its height (1/√(0.5 + 1 + 0.48)).
    r.floor_gap_m = 0.05;
    bands = model::rackOpenings(r, l.catalog);
    QVERIFY(std::fabs(bands[2].area_m2 - 0.03) < 1e-12 && std::fabs(bands[2].discharge - 1 / std::sqrt(1.98)) < 1e-12);
    r.floor_gap_m = 0.0;
    QCOMPARE(model::rackOpenings(r, l.catalog).size(), std::size_t(2));
    r.floor_gap_m.reset();
    // Sealed: as full, with the gap under the rack closed.
    r.blanking = "sealed";
    QCOMPARE(model::rackOpenings(r, l.catalog).size(), std::size_t(2));
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
    // A clearance the validation refuses.
    l.scenario.halls[0].rows[0].racks[0].floor_gap_m = -0.01;
    const auto diags = model::validateScenario(l.scenario, l.catalog);
    QVERIFY(std::any_of(diags.begin(), diags.end(), [](const model::Diagnostic& d) {
        return d.severity == model::Severity::Error && d.location.find("/floor_gap_m") != std::string::npos;
    }));
    // A fixed share (the rack's own, or a blanking's measured one) is used as it is: no openings.
    r.recirculation_fraction = 0.1;
    QVERIFY(model::rackOpenings(r, cat).empty());
    QCOMPARE(*model::fixedRecirculation(r, cat), 0.1);
}

void TstRackLeakage::quickModeLeaksInProportionToTheOpenArea() {
    // Without the aisles' pressure the servers draw through their face F and the openings C_d·A in parallel: a
    // level's share back is C_d·A/(F + C_d·A), nearly proportional to the open area while it is small. Rack 1
    // has twice the open share of rack 2 (3.6 % of each empty U, the gap under both sealed); rack 0 is sealed.
    auto l = hall();
    model::BlankingModel twice = *l.catalog.blanking("sealed");
    twice.id = "twice";
    twice.open_share = 2 * 0.036;
    l.catalog.blankings.push_back(twice);
    auto& racks = l.scenario.halls[0].rows[0].racks;
    racks[1].blanking = "twice";
    racks[2].blanking = "sealed";
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

void TstRackLeakage::theGapUnderTheRackFeedsItsLowestServers() {
    // Rack 1 is blanked with the gap under it open (25 mm, the catalog's), rack 2 has the same blanking on a
    // rack whose measured clearance is 0, rack 3 is sealed: 2 and 3 take back exactly the same, rack 1 more, all
    // of it at its lowest level (0–0.25 m): that level's share C_d·A/(F + C_d·A) with C_d·A = 0.6376 · 0.015 m²
    // and F = 0.45 · 0.25 m² is 0.07835, and the level carries 0.25/0.3556 of the lower DGX's air (U 1–8), half
    // the rack's: 0.0275 more on the rack.
    auto l = hall();
    auto& racks = l.scenario.halls[0].rows[0].racks;
    racks[1].blanking = "full";
    racks[2].blanking = "full";
    racks[2].floor_gap_m = 0.0;
    racks[3].blanking = "sealed";
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 900);
    qInfo("recirculation: open under %.4f, no gap %.4f, sealed %.4f", f.racks[1].recirculation, f.racks[2].recirculation,
          f.racks[3].recirculation);
    QVERIFY(std::fabs(f.racks[2].recirculation - f.racks[3].recirculation) < 1e-12);
    const double more = f.racks[1].recirculation - f.racks[3].recirculation;
    QVERIFY2(std::fabs(more - 0.0275) < 0.001, "the gap under the rack: its lowest level's share on the level's air");
    QVERIFY(f.racks[1].inlet_mean_c > f.racks[3].inlet_mean_c + 0.05);
}

void TstRackLeakage::gapsBetweenCabinetsPassAir() {
    // Row 1's racks 2–4 moved 20 mm along the row: a 20 mm gap between racks 1 and 2, as high as the racks
    // (2.258 m) and as deep (1.2 m), a slot whose discharge coefficient is 1/√(0.5 + 1 + 0.04 · 1.2 / 0.04).
    // Each rack beside it takes half its area; narrower than the 0.25 m grid, the grid closes it.
    auto l = hall();
    auto& row = l.scenario.halls[0].rows[0];
    const bool ns = row.racks[0].facing == model::Facing::North || row.racks[0].facing == model::Facing::South;
    for (std::size_t i = 1; i < row.racks.size(); ++i) (ns ? row.racks[i].position_m.x_m : row.racks[i].position_m.y_m) += 0.02;
    const auto gaps = model::cabinetGaps(row, l.catalog);
    QCOMPARE(gaps.size(), std::size_t(1));
    QVERIFY(std::fabs(gaps[0].width_m - 0.02) < 1e-9 && std::fabs(gaps[0].height_m - 2.258) < 1e-9 &&
            std::fabs(gaps[0].depth_m - 1.2) < 1e-9);
    QCOMPARE(std::min(gaps[0].a, gaps[0].b) * 10 + std::max(gaps[0].a, gaps[0].b), std::size_t(1));
    QVERIFY(model::cabinetGaps(l.scenario.halls[0].rows[1], l.catalog).empty());  // the other row stands closed
    for (auto& r : row.racks) {
        r.blanking = "full";
        r.floor_gap_m = 0.0;
    }
    const auto bands = model::rackOpenings(row.racks[0], l.catalog, gaps);
    QCOMPARE(bands.size(), std::size_t(3));
    QVERIFY(std::fabs(bands[2].area_m2 - 0.5 * 0.02 * 2.258) < 1e-12 && std::fabs(bands[2].discharge - 1 / std::sqrt(2.7)) < 1e-12);
    row.racks[0].blanking = "sealed";
    QCOMPARE(model::rackOpenings(row.racks[0], l.catalog, gaps).size(), std::size_t(2));
    // Quick air: racks 1 and 2 (beside the gap) blanked "full", racks 3 and 4 "sealed" (the same, the gaps
    // closed); no floor gaps. Racks 1 and 4 end the row, 2 and 3 stand inside it, so each pair differs only by
    // the gap: the orifice area C_d·A = 0.6086 · 0.0226 m² per rack spread over the servers' faces (F = 0.1125 m²
    // a level, about four levels) takes back 0.02–0.035 of the rack's air, the same on both sides of it.
    row.racks[0].blanking = "full";
    row.racks[2].blanking = "sealed";
    row.racks[3].blanking = "sealed";
    requireValid(l);
    sim::Engine e(l.scenario, l.catalog, options("quick"));
    const model::Frame& f = runTo(e, 900);
    const double end = f.racks[0].recirculation - f.racks[3].recirculation, inner = f.racks[1].recirculation - f.racks[2].recirculation;
    qInfo("recirculation %.4f %.4f %.4f %.4f: the gap adds %.4f at the row's end, %.4f inside it", f.racks[0].recirculation,
          f.racks[1].recirculation, f.racks[2].recirculation, f.racks[3].recirculation, end, inner);
    QVERIFY(end > 0.02 && end < 0.035);
    QVERIFY(std::fabs(end - inner) < 0.05 * end);
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
