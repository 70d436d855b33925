#include "sim_fixtures.hpp"
// Room air model against physics (issue 2): 1D advection–diffusion vs its analytic solution, discrete
// divergence of the potential flow, conservation, and thread-count independence.
#include <clustertwin/sim/air/air_model.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <QTest>

#include <cmath>
#include <random>

using namespace ct::sim;

class TstAir : public QObject {
    Q_OBJECT
private slots:
    void advectionDiffusionMatchesTheAnalyticSolution();
    void potentialFlowIsDivergenceFree();
    void uniformAirStaysUniform();
    void multigridSolvesTheFlowInFewIterations();
    void resultsDoNotDependOnThreadCount();
    void badGridsAreRefused();
    // Issue 7: every backend against the CPU reference (a CUDA row skips without a device).
    void closedRoomConservesHeatOnEveryBackend_data();
    void closedRoomConservesHeatOnEveryBackend();
    void roomMatchesTheCpuReference_data();
    void roomMatchesTheCpuReference();
    void sampleRackInletsMatchTheCpu_data();
    void sampleRackInletsMatchTheCpu();
    void lbmHallOnCudaMatchesTheCpu();
    void cudaUnavailableSaysWhy();
    void tvdWithEddyDiffusivityAndWallsMatchesTheCpu_data();
    void tvdWithEddyDiffusivityAndWallsMatchesTheCpu();
    // Issue 14: the Capture Index tracer.
    void tracerFollowsTheHeatExactly_data();
    void tracerFollowsTheHeatExactly();
    // Issue 21: quick mode's longer sub-step, the fastest cells holding their air for it.
    void heldCellsConserveHeatAndKeepTheSteadyState_data();
    void heldCellsConserveHeatAndKeepTheSteadyState();
};

namespace {
/// C(x,t) for a step inflow C = 1 into C = 0 at velocity u with dispersion D, with a flux (third-type) inlet, u·C − D·∂C/∂x = u at x = 0 (Lindstrom et al. 1967; van Genuchten &
/// Alves 1982, solution A4): what injecting air at a port cell does.
double fluxInlet(double x, double t, double u, double D) {
    const double s = 2 * std::sqrt(D * t);
    return 0.5 * std::erfc((x - u * t) / s) + std::sqrt(u * u * t / (M_PI * D)) * std::exp(-(x - u * t) * (x - u * t) / (4 * D * t)) -
           0.5 * (1 + u * x / D + u * u * t / D) * std::exp(u * x / D) * std::erfc((x + u * t) / s);
}

/// A room with two racks (sink in front, source behind) and a cooling unit (sink on top, source at the front).
void buildRoom(AirModel& a) {
    a.addSolidBox(2.0, 2.0, 0, 2.6, 3.2, 2.0);
    a.addSolidBox(3.0, 2.0, 0, 3.6, 3.2, 2.0);
    a.addSolidBox(0.0, 1.0, 0, 0.9, 3.5, 1.8);
    auto cells = [&](double x0, double x1, double y, double z0, double z1) {
        std::vector<int> c;
        for (double x = x0 + 0.05; x < x1; x += 0.1)
            for (double z = z0 + 0.05; z < z1; z += 0.1) {
                int i, j, k;
                a.cellOf(x, y, z, i, j, k);
                if (std::find(c.begin(), c.end(), a.index(i, j, k)) == c.end()) c.push_back(a.index(i, j, k));
            }
        return c;
    };
    for (double x0 : {2.0, 3.0}) {
        const int in = a.addPort(cells(x0, x0 + 0.6, 3.25, 0, 2.0), false);
        const int out = a.addPort(cells(x0, x0 + 0.6, 1.95, 0, 2.0), true);
        a.setPortFlow(in, 0.8);
        a.setPortFlow(out, 0.8);
        a.setPortTemperature(out, 35);
    }
    std::vector<int> supply;
    for (double y = 1.05; y < 3.5; y += 0.1)
        for (double z = 0.05; z < 0.9; z += 0.1) {
            int i, j, k;
            a.cellOf(0.95, y, z, i, j, k);
            supply.push_back(a.index(i, j, k));
        }
    std::vector<int> ret;
    for (double y = 1.05; y < 3.5; y += 0.1)
        for (double x = 0.05; x < 0.9; x += 0.1) {
            int i, j, k;
            a.cellOf(x, y, 1.85, i, j, k);
            ret.push_back(a.index(i, j, k));
        }
    const int s = a.addPort(supply, true), r = a.addPort(ret, false);
    a.setPortFlow(s, 1.6);
    a.setPortFlow(r, 1.6);
    a.setPortTemperature(s, 18);
}
}  // namespace

void TstAir::advectionDiffusionMatchesTheAnalyticSolution() {
    ThreadPool pool(1);
    const double h = 0.1, u = 0.2, kappa = 0.02, A = h * h;
    AirModel a({20.0, h, h, h, kappa}, pool);
    QCOMPARE(a.nx(), 200);
    const int in = a.addPort({a.index(0, 0, 0)}, true);
    const int out = a.addPort({a.index(a.nx() - 1, 0, 0)}, false);
    a.setPortFlow(in, u * A);
    a.setPortFlow(out, u * A);
    a.setPortTemperature(in, 1.0);
    a.fill(0.0);
    a.solveFlow(1e-10);
    // Every interior face carries the same flux: uniform velocity u.
    for (int i = 1; i < a.nx(); ++i) QVERIFY(std::fabs(a.fluxX()[i] - u * A) < 1e-9);
    const double t_end = 40.0;
    const double dt = a.stableDt();
    const int n = a.advance(t_end, nullptr);
    const double dt_used = t_end / n;
    QVERIFY(dt_used <= dt);
    // First-order upwind adds numerical dispersion u·h/2·(1 − Co) (its modified equation); the analytic
    // solution is compared with D = κ + that.
    const double co = u * dt_used / h;
    const double D = kappa + u * h / 2 * (1 - co);
    // Air injected into cell 0 enters through the inlet boundary at its west face: x = (i + ½)·h.
    double worst = 0;
    for (int i = 1; i < 150; ++i) {
        const double x = (i + 0.5) * h;
        worst = std::max(worst, std::fabs(a.temperature(a.index(i, 0, 0)) - fluxInlet(x, t_end, u, D)));
    }
    qInfo("1D advection-diffusion: max |T - analytic| = %.4f (Co = %.3f, D = %.4f m2/s)", worst, co, D);
    QVERIFY2(worst < 0.005, "profile deviates from the analytic solution by more than 0.005");
}

void TstAir::potentialFlowIsDivergenceFree() {
    ThreadPool pool(2);
    AirModel a({6.0, 5.0, 3.0, 0.1, 0.01}, pool);
    buildRoom(a);
    const FlowSolveStats st = a.solveFlow(1e-8);
    qInfo("flow: %d iterations, residual %.2e, max divergence error %.2e", st.iterations, st.relative_residual, st.max_divergence_error);
    QVERIFY(st.relative_residual <= 1e-8);
    QVERIFY(st.max_divergence_error < 1e-5);
    double worst = 0;
    for (std::size_t c = 0; c < a.cellCount(); ++c)
        if (!a.solid(static_cast<int>(c))) worst = std::max(worst, std::fabs(a.divergenceError(static_cast<int>(c))));
    QVERIFY(worst < 1e-6);  // m³/s per cell, against port flows of ~0.01 m³/s per cell
    // No flow through the walls.
    for (int k = 0; k < a.nz(); ++k)
        for (int j = 0; j < a.ny(); ++j) {
            QCOMPARE(a.fluxX()[0 + (a.nx() + 1) * (j + a.ny() * k)], 0.f);
            QCOMPARE(a.fluxX()[a.nx() + (a.nx() + 1) * (j + a.ny() * k)], 0.f);
        }
}

void TstAir::multigridSolvesTheFlowInFewIterations() {
    // The flow solve's CG is preconditioned by a multigrid V-cycle (flow_multigrid.hpp): from a cold start it
    // converges in a few dozen iterations whatever the cell size (Jacobi needed hundreds, more on finer grids),
    // to the same divergence-free flow.
    int iterations[2] = {0, 0};
    for (int pass = 0; pass < 2; ++pass) {
        ThreadPool pool(2);
        AirModel a({6.0, 5.0, 3.0, pass == 0 ? 0.2 : 0.1, 0.01}, pool);
        buildRoom(a);
        const FlowSolveStats st = a.solveFlow(1e-8);
        iterations[pass] = st.iterations;
        QVERIFY(st.relative_residual <= 1e-8);
        QVERIFY(st.max_divergence_error < 1e-5);
    }
    qInfo("flow solve to 1e-8 from rest: %d iterations at 0.2 m, %d at 0.1 m", iterations[0], iterations[1]);
    QVERIFY(iterations[1] <= 40);
    QVERIFY2(iterations[1] <= 1.6 * iterations[0], "the iteration count grows with the grid: the coarse levels do not work");
}

void TstAir::uniformAirStaysUniform() {
    ThreadPool pool(2);
    AirModel a({6.0, 5.0, 3.0, 0.2, 0.01}, pool);
    buildRoom(a);
    a.solveFlow(1e-8);
    a.fill(22.0);
    for (int p = 0; p < 6; ++p) a.setPortTemperature(p, 22.0);  // every source blows room-temperature air
    a.advance(30.0, nullptr);
    for (std::size_t c = 0; c < a.cellCount(); ++c)
        if (!a.solid(static_cast<int>(c))) QVERIFY(std::fabs(a.temperature(static_cast<int>(c)) - 22.0) < 1e-3);
}

void TstAir::resultsDoNotDependOnThreadCount() {
    // Upwind, and TVD with the tracer and an eddy diffusivity: the TVD step splits the planes into chunks by
    // the pool's size and each chunk works out the faces below its first plane again (air_tvd.cpp).
    for (bool tvd : {false, true}) {
        std::vector<float> result[3], tracer[3];
        for (int threads : {1, 2, 3}) {
            ThreadPool pool(threads);
            AirGridSpec spec{6.0, 5.0, 3.0, 0.1, 0.01};
            spec.tvd = tvd;
            spec.min_parallel_cells = 1;
            AirModel a(spec, pool);
            buildRoom(a);
            a.solveFlow(1e-8);
            a.fill(20.0);
            if (tvd) {
                a.enableTracer(1.0);
                std::vector<float> kt(a.cellCount());
                for (std::size_t c = 0; c < kt.size(); ++c) kt[c] = 0.001f * static_cast<float>(c % 7);
                a.setEddyDiffusivity(kt);
            }
            a.advance(20.0, nullptr);
            result[threads - 1] = a.temperatures();
            tracer[threads - 1] = a.tracer();
        }
        QVERIFY(result[0] == result[1]);  // bit for bit
        QVERIFY(result[0] == result[2]);
        QVERIFY(tracer[0] == tracer[1]);
        QVERIFY(tracer[0] == tracer[2]);
    }
}

void TstAir::badGridsAreRefused() {
    ThreadPool pool(1);
    QVERIFY_THROWS_EXCEPTION(SimError, AirModel({10, 10, 3, 0.01, 0.01}, pool));
    QVERIFY_THROWS_EXCEPTION(SimError, AirModel({0, 10, 3, 0.25, 0.01}, pool));
    AirModel a({4, 4, 3, 0.25, 0.01}, pool);
    a.addSolidBox(0, 0, 0, 1, 1, 1);
    QVERIFY_THROWS_EXCEPTION(SimError, a.addPort({a.index(0, 0, 0)}, true));  // a solid cell
    QVERIFY(airModelBytes({20, 12, 4, 0.1, 0.01}) > 960000ull * 70);
}

namespace {
void backendRows() {
    QTest::addColumn<QString>("backend");
    QTest::newRow("cpu") << "cpu";
    QTest::newRow("cuda") << "cuda";
}
/// The backend of a row; QSKIPs (from the test function, via the macro below) when it cannot run here.
#define CT_BACKEND_OR_SKIP(var)                                              \
    QFETCH(QString, backend);                                                \
    Backend var = Backend::Cpu;                                              \
    try {                                                                    \
        var = chooseBackend(backend.toStdString());                          \
    } catch (const SimError& e) {                                            \
        QSKIP(qPrintable(QString("no %1 here: %2").arg(backend, e.what()))); \
    }
}  // namespace

void TstAir::closedRoomConservesHeatOnEveryBackend_data() { backendRows(); }

void TstAir::closedRoomConservesHeatOnEveryBackend() {
    CT_BACKEND_OR_SKIP(b);
    ThreadPool pool(2);
    AirGridSpec spec{4.0, 3.0, 2.5, 0.1, 0.05};
    spec.backend = b;
    AirModel a(spec, pool);
    QVERIFY(a.backend() == b);
    a.addSolidBox(1, 1, 0, 2, 2, 1.5);
    a.solveFlow();
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> dist(15, 40);
    for (std::size_t c = 0; c < a.cellCount(); ++c) a.setTemperature(static_cast<int>(c), dist(rng));
    const double before = a.heatContent();
    a.advance(60.0, nullptr);
    const double after = a.heatContent();
    QVERIFY2(std::fabs(after - before) / before < 1e-5, "diffusion alone changed the heat content of a closed room");
}

void TstAir::roomMatchesTheCpuReference_data() { backendRows(); }

void TstAir::roomMatchesTheCpuReference() {
    CT_BACKEND_OR_SKIP(b);
    // The same room with racks and a unit, 20 s of flow, heat and the Capture Index tracer, with a sub-step long
    // enough that the fastest cells hold their air (the quick mode), on the CPU and on the row's backend. Stated
    // tolerance: 0.01 K per cell, 0.001 of tracer (float sums in another order; ports add atomically on the GPU).
    std::vector<float> result[2], tracer[2];
    FlowSolveStats st[2];
    std::size_t held[2] = {};
    for (int pass = 0; pass < 2; ++pass) {
        ThreadPool pool(2);
        AirGridSpec spec{6.0, 5.0, 3.0, 0.1, 0.01};
        spec.substep_s = 0.1;
        spec.backend = pass == 0 ? Backend::Cpu : b;
        AirModel a(spec, pool);
        buildRoom(a);
        st[pass] = a.solveFlow(1e-8);
        a.fill(20.0);
        a.enableTracer(0.5);
        a.setPortTracer(4, 1.0);
        a.advance(20.0, nullptr);
        result[pass] = a.temperatures();
        tracer[pass] = a.tracer();
        held[pass] = a.heldCells();
    }
    QVERIFY(st[1].max_divergence_error < 1e-5);
    QVERIFY2(held[0] > 0 && held[1] == held[0], qPrintable(QString("held cells: %1 on the CPU, %2 here").arg(held[0]).arg(held[1])));
    float worst = 0, tworst = 0;
    for (std::size_t c = 0; c < result[0].size(); ++c) {
        worst = std::max(worst, std::fabs(result[0][c] - result[1][c]));
        tworst = std::max(tworst, std::fabs(tracer[0][c] - tracer[1][c]));
    }
    QVERIFY2(worst <= 0.01f, qPrintable(QString("largest difference %1 K").arg(worst)));
    QVERIFY2(tworst <= 1e-3f, qPrintable(QString("largest tracer difference %1").arg(tworst)));
}

namespace {
/// A sample's rack inlets (hottest level) and air field after `seconds` of a run on a backend.
struct RunEnd {
    std::vector<double> inlets;
    std::vector<float> field;
};
RunEnd runSample(const fixtures::Loaded& l, const char* air, const std::string& backend, int seconds) {
    ct::sim::EngineOptions o;
    o.air = air;
    o.threads = 2;
    o.backend = backend;
    ct::sim::Engine e(l.scenario, l.catalog, o);
    for (int s = 1; s < seconds; ++s) e.step();
    const auto& f = e.step(true);
    RunEnd out;
    for (const auto& r : f.racks) out.inlets.push_back(r.inlet_max_c);
    if (f.air) out.field = f.air->temp_c;
    return out;
}
/// Largest |a − b| over pairs where a is a number (solid cells are NaN in both).
template <class T>
double largestDifference(const std::vector<T>& a, const std::vector<T>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (!std::isnan(a[i])) worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    return worst;
}
}  // namespace

void TstAir::sampleRackInletsMatchTheCpu_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("sample");
    for (const char* b : {"cpu", "cuda"})
        for (const char* s : {"lab-8node", "superpod-h100-su", "gb200-nvl72-liquid", "campus-3-halls"})  // three halls side by side on CUDA
            QTest::newRow(qPrintable(QString("%1 %2").arg(b, s))) << QString(b) << QString(s);
}

void TstAir::sampleRackInletsMatchTheCpu() {
    CT_BACKEND_OR_SKIP(b);
    Q_UNUSED(b);
    QFETCH(QString, sample);
    const auto l = fixtures::sample(qPrintable(sample), 0.9);
    // Rack inlets after two simulated minutes: within 0.05 K of the CPU (stated tolerance); fields within 0.1 K.
    const RunEnd cpu = runSample(l, "quick", "cpu", 120), other = runSample(l, "quick", backend.toStdString(), 120);
    QCOMPARE(cpu.inlets.size(), other.inlets.size());
    QCOMPARE(cpu.field.size(), other.field.size());
    const double worst = largestDifference(cpu.inlets, other.inlets), fworst = largestDifference(cpu.field, other.field);
    QVERIFY2(worst <= 0.05, qPrintable(QString("rack inlet differs by %1 K").arg(worst)));
    QVERIFY2(fworst <= 0.1, qPrintable(QString("air field differs by %1 K").arg(fworst)));
}

void TstAir::lbmHallOnCudaMatchesTheCpu() {
    // The lattice air in a whole run on the device: lab-8node for one simulated minute, the lattice and the TVD
    // transport with its eddy diffusivity on CUDA against the CPU. Stated tolerance: rack inlets within 0.2 K (the
    // lattice's float sums run in another order on the GPU and the LES flow amplifies the difference somewhat).
    try {
        chooseBackend("cuda");
    } catch (const SimError& e) {
        QSKIP(qPrintable(QString("no cuda here: %1").arg(e.what())));
    }
    const auto l = fixtures::sample("lab-8node", 0.9);
    const RunEnd cpu = runSample(l, "lbm", "cpu", 60), gpu = runSample(l, "lbm", "cuda", 60);
    QCOMPARE(cpu.inlets.size(), gpu.inlets.size());
    QVERIFY(!cpu.inlets.empty());
    for (double t : gpu.inlets) QVERIFY(std::isfinite(t));
    const double worst = largestDifference(cpu.inlets, gpu.inlets);
    QVERIFY2(worst <= 0.2, qPrintable(QString("rack inlet differs by %1 K").arg(worst)));
}

void TstAir::tvdWithEddyDiffusivityAndWallsMatchesTheCpu_data() { backendRows(); }

void TstAir::tvdWithEddyDiffusivityAndWallsMatchesTheCpu() {
    CT_BACKEND_OR_SKIP(b);
    // The step the lattice air uses: van Leer TVD on the flow, a varying eddy diffusivity, two fixed-temperature
    // walls. On the CPU and on the row's backend, 20 s: fields within 0.01 K per cell (float sums in another
    // order; walls and ports add atomically on the GPU), wall heat flows within 0.1 %. Then, on the row's backend,
    // a closed room with the same walls and diffusivity: its heat content changes by exactly what the walls
    // report, step by step (to 1e-4 of the change).
    std::vector<float> result[2];
    double wall_flow[2][2] = {};
    for (int pass = 0; pass < 2; ++pass) {
        ThreadPool pool(2);
        AirGridSpec spec{6.0, 5.0, 3.0, 0.1, 2e-5};
        spec.tvd = true;
        spec.backend = pass == 0 ? Backend::Cpu : b;
        AirModel a(spec, pool);
        QVERIFY(a.backend() == spec.backend);
        buildRoom(a);
        a.solveFlow(1e-8);
        std::vector<float> kt(a.cellCount());
        for (std::size_t c = 0; c < kt.size(); ++c)
            kt[c] = static_cast<float>(0.002 + 0.004 * (1 + std::sin(0.37 * static_cast<double>(c))));
        a.setEddyDiffusivity(kt);
        a.setWallTemperature(GridFace::ZHigh, 30.0);
        a.setWallTemperature(GridFace::XHigh, 12.0);
        a.fill(20.0);
        a.advance(20.0, nullptr);
        result[pass] = a.temperatures();
        wall_flow[pass][0] = a.wallHeatFlow(GridFace::ZHigh);
        wall_flow[pass][1] = a.wallHeatFlow(GridFace::XHigh);
    }
    float worst = 0;
    for (std::size_t c = 0; c < result[0].size(); ++c) worst = std::max(worst, std::fabs(result[0][c] - result[1][c]));
    QVERIFY2(worst <= 0.01f, qPrintable(QString("largest difference %1 K").arg(worst)));
    for (int w = 0; w < 2; ++w) {
        QVERIFY(std::fabs(wall_flow[0][w]) > 0);
        QVERIFY2(std::fabs(wall_flow[1][w] - wall_flow[0][w]) <= 1e-3 * std::fabs(wall_flow[0][w]),
                 qPrintable(QString("wall %1: %2 vs the CPU's %3 m³K/s").arg(w).arg(wall_flow[1][w]).arg(wall_flow[0][w])));
    }

    ThreadPool pool(2);
    AirGridSpec spec{4.0, 3.0, 2.5, 0.1, 2e-5};
    spec.tvd = true;
    spec.backend = b;
    AirModel a(spec, pool);
    a.addSolidBox(1, 1, 0, 2, 2, 1.5);
    a.solveFlow();
    a.setEddyDiffusivity(std::vector<float>(a.cellCount(), 0.01f));
    a.setWallTemperature(GridFace::ZHigh, 30.0);
    a.setWallTemperature(GridFace::XLow, 12.0);
    a.fill(20.0);
    const double before = a.heatContent();
    double through_walls = 0;
    for (int s = 0; s < 40; ++s) {
        a.step(0.5);
        for (GridFace f : {GridFace::ZHigh, GridFace::XLow}) through_walls += 0.5 * a.wallHeatFlow(f);
    }
    const double change = a.heatContent() - before;
    QVERIFY2(std::fabs(change) > 0.1, "the walls moved no heat");
    QVERIFY2(std::fabs(change - through_walls) <= 1e-4 * std::fabs(change) + 1e-3,
             qPrintable(QString("heat content changed by %1, the walls report %2 (m³K)").arg(change).arg(through_walls)));
}

void TstAir::cudaUnavailableSaysWhy() {
    const auto all = listBackends();
    if (all[1].available) QSKIP("a CUDA device is present: nothing to refuse");
    const auto l = fixtures::sample("lab-8node");
    ct::sim::EngineOptions o;
    o.air = "quick";
    o.backend = "cuda";
    try {
        ct::sim::Engine e(l.scenario, l.catalog, o);
        QFAIL("asking for CUDA without a device must fail");
    } catch (const SimError& e) {
        QVERIFY2(std::string(e.what()).find("CUDA") != std::string::npos, e.what());
    }
    ThreadPool pool(1);
    AirGridSpec spec{4.0, 3.0, 2.5, 0.25, 0.05};
    spec.backend = Backend::Cuda;
    QVERIFY_THROWS_EXCEPTION(SimError, AirModel(spec, pool));
}

void TstAir::tracerFollowsTheHeatExactly_data() {
    QTest::addColumn<bool>("tvd");
    QTest::addColumn<QString>("backend");
    for (const char* b : {"cpu", "cuda"}) {
        QTest::newRow(qPrintable(QString("upwind %1").arg(b))) << false << QString(b);
        QTest::newRow(qPrintable(QString("tvd %1").arg(b))) << true << QString(b);
    }
}

void TstAir::tracerFollowsTheHeatExactly() {
    // The tracer obeys the temperature's equation (same flow, diffusivity and scheme). In buildRoom the unit
    // supplies 18 °C and both racks exhaust 35 °C; with the tracer 1 at the supply, 0 at the exhausts and the room
    // starting at 18 °C and 1, T = 35 − 17·c holds in every cell at every time (both schemes are invariant under
    // that affine map), and at steady state the tracer balances: supplied = taken in by racks + returned.
    QFETCH(bool, tvd);
    CT_BACKEND_OR_SKIP(b);
    ThreadPool pool(2);
    AirGridSpec spec{6.0, 5.0, 3.0, 0.2, 0.01};
    spec.tvd = tvd;
    spec.backend = b;
    AirModel a(spec, pool);
    buildRoom(a);
    a.solveFlow(1e-9);
    a.fill(18.0);
    a.enableTracer(1.0);
    QVERIFY(a.tracerEnabled());
    a.setPortTracer(4, 1.0);  // the unit's supply; rack exhausts (1, 3) stay 0
    a.advance(40.0, nullptr);
    const std::vector<float> t = a.temperatures(), c = a.tracer();
    float worst = 0, cmin = 1, cmax = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (a.solid(static_cast<int>(i))) continue;
        worst = std::max(worst, std::fabs(t[i] - (35.f - 17.f * c[i])));
        cmin = std::min(cmin, c[i]);
        cmax = std::max(cmax, c[i]);
    }
    QVERIFY2(worst < 2e-3f, qPrintable(QString("T and 35 − 17·c differ by %1 K").arg(worst)));
    QVERIFY2(cmin > 0.f && cmax <= 1.f + 1e-6f, qPrintable(QString("tracer outside (0, 1]: %1..%2").arg(cmin).arg(cmax)));
    QVERIFY2(cmin < 0.9f, "the racks' exhaust never reached the room");
    a.advance(600.0, nullptr);
    const double supplied = a.portFlow(4) * 1.0;
    const double taken = a.portFlow(0) * a.portMeanTracer(0) + a.portFlow(2) * a.portMeanTracer(2) + a.portFlow(5) * a.portMeanTracer(5);
    QVERIFY2(std::fabs(taken - supplied) / supplied < 0.01,
             qPrintable(QString("tracer supplied %1, taken out %2 (m³/s)").arg(supplied).arg(taken)));
    // Racks breathe part of their own exhaust in this room: a Capture Index strictly between 0 and 1.
    for (int in : {0, 2}) QVERIFY(a.portMeanTracer(in) > 0.05 && a.portMeanTracer(in) < 0.999);
}

void TstAir::heldCellsConserveHeatAndKeepTheSteadyState_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("tvd");
    for (const char* b : {"cpu", "cuda"}) {
        QTest::newRow(qPrintable(QString("%1 upwind").arg(b))) << b << false;
        // The lattice air's transport: van Leer TVD, an eddy diffusivity and a fixed-temperature wall.
        QTest::newRow(qPrintable(QString("%1 tvd").arg(b))) << b << true;
    }
}

void TstAir::heldCellsConserveHeatAndKeepTheSteadyState() {
    CT_BACKEND_OR_SKIP(b);
    QFETCH(bool, tvd);
    // buildRoom at 0.1 m twice: the strict explicit limit, and a sub-step four times longer where the cells
    // faster than it hold their air for it. The held room must conserve its heat exactly (the change of its
    // content is what the ports brought in minus what they took out, plus what the wall gave, sub-step by
    // sub-step) and reach the same steady state; only the transient through the held cells is slower.
    std::vector<float> steady[2];
    std::vector<double> steady_in[2];  // the racks' intakes and the unit's return
    double strict_dt = 0;
    for (int pass = 0; pass < 2; ++pass) {
        ThreadPool pool(2);
        AirGridSpec spec{6.0, 5.0, 3.0, 0.1, 0.001};  // advection sets the limit, as in halls at 0.25 m
        spec.substep_s = pass == 0 ? 0.0 : 4 * strict_dt;
        spec.backend = b;
        spec.tvd = tvd;
        AirModel a(spec, pool);
        buildRoom(a);
        a.solveFlow(1e-9);
        a.fill(18.0);
        if (tvd) {
            std::vector<float> kt(a.cellCount());
            for (std::size_t c = 0; c < kt.size(); ++c) kt[c] = 0.002f * static_cast<float>(c % 7);
            a.setEddyDiffusivity(kt);
            a.setWallTemperature(GridFace::ZLow, 24.0);
        }
        if (pass == 0) {
            strict_dt = a.stableDt();
            QCOMPARE(a.heldCells(), std::size_t{0});
        } else {
            QCOMPARE(a.stableDt(), spec.substep_s);
            const std::size_t fluid = a.cellCount() - a.solidCount();
            QVERIFY2(a.heldCells() > 0 && a.heldCells() < fluid / 4,
                     qPrintable(QString("%1 of %2 fluid cells held").arg(a.heldCells()).arg(fluid)));
        }
        double ports_in = 0;  // Σ dt·(what sources blow in − what sinks take + what the wall gave), m³·K
        double last_dt = 0;
        auto wall = [&] { return tvd && last_dt > 0 ? last_dt * a.wallHeatFlow(GridFace::ZLow) : 0.0; };
        const double before = a.heatContent();
        const int n = a.advance(30.0, [&](double dt) {
            ports_in += wall();  // the sub-step before
            for (int p = 0; p < 6; ++p) {
                const bool source = p == 1 || p == 3 || p == 4;
                ports_in += dt * a.portFlow(p) * (source ? (p == 4 ? 18.0 : 35.0) : -a.portMeanTemperature(p));
            }
            last_dt = dt;
        });
        ports_in += wall();
        QCOMPARE(n, pass == 0 ? static_cast<int>(std::ceil(30.0 / strict_dt - 1e-9))
                              : static_cast<int>(std::ceil(30.0 / (4 * strict_dt) - 1e-9)));
        const double gained = a.heatContent() - before;
        QVERIFY2(
            std::fabs(gained - ports_in) <= 1e-4 * std::fabs(ports_in),
            qPrintable(
                QString("pass %1: heat content rose by %2, the ports and wall brought %3 (m³·K)").arg(pass).arg(gained).arg(ports_in)));
        a.advance(1800.0, nullptr);
        steady[pass] = a.temperatures();
        for (int p : {0, 2, 5}) steady_in[pass].push_back(a.portMeanTemperature(p));
    }
    float worst = 0;
    for (std::size_t c = 0; c < steady[0].size(); ++c) worst = std::max(worst, std::fabs(steady[0][c] - steady[1][c]));
    // Float steps stall where an update is below half an ulp, sooner with a longer step in the slowest cells:
    // the fields agree to 0.01 K, what the ports take in to 0.005 K.
    QVERIFY2(worst < 0.01f, qPrintable(QString("steady states differ by up to %1 K").arg(worst)));
    for (std::size_t p = 0; p < steady_in[0].size(); ++p)
        QVERIFY2(std::fabs(steady_in[0][p] - steady_in[1][p]) < 5e-3,
                 qPrintable(QString("intake %1: %2 against %3 °C").arg(p).arg(steady_in[1][p]).arg(steady_in[0][p])));
}

QTEST_GUILESS_MAIN(TstAir)
#include "tst_air.moc"
