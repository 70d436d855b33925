// One lattice split into slabs over ranks (issue 42, sim/air/lattice.hpp): the slabs' fields equal the whole
// lattice's to the bit (a cell's update is the same arithmetic on the same numbers), on walls and periodic axes,
// with solids, ports and a moving lid across the slabs' edges; a failure stops every slab at once; and the lattice
// air of a room split in slabs is the whole room's. Ranks are threads here (thread_ranks.hpp); tst_sweep runs
// a hall split over mpirun's ranks. The cuda rows run the slabs on a device (skipped without one).
#include "thread_ranks.hpp"

#include <clustertwin/sim/air/air_model.hpp>
#include <clustertwin/sim/air/lattice.hpp>
#include <clustertwin/sim/air/lbm_air.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

Q_DECLARE_METATYPE(ct::sim::Backend)

using namespace ct::sim;

namespace {

struct Box {
    int ny = 16;
    bool periodic_x = false, periodic_y = false, periodic_z = false;
    Backend backend = Backend::Cpu;
    int stream_stores = -1;
};

struct Fields {
    std::vector<float> u, nu;
    std::vector<double> rho;
    double mass = 0, speed = 0;
    std::int64_t steps = 0;
};

/// A box with a solid block, two ports and a wide source that cross the slabs' edges, buoyancy from a hot
/// spot, LES and, without a periodic z, a moving lid; 150 steps, the step rescaled, 150 more.
Fields runBox(const Box& b, LatticeSlabs* slabs) {
    ThreadPool pool(1);
    LatticeSpec spec;
    spec.nx = 20;
    spec.ny = b.ny;
    spec.nz = 12;
    spec.periodic_x = b.periodic_x;
    spec.periodic_y = b.periodic_y;
    spec.periodic_z = b.periodic_z;
    spec.tau = 0.52;
    spec.smagorinsky_cs = 0.12;
    spec.min_parallel_cells = 0;
    spec.slabs = slabs;
    spec.backend = b.backend;
    spec.stream_stores = b.stream_stores;
    Lattice l(spec, pool);
    for (int k = 0; k < 6; ++k)
        for (int j = 5; j < 11; ++j) l.setSolid(l.index(10, j, k), true);
    std::vector<float> temp(l.cellCount(), 20.f);
    for (int k = 0; k < 3; ++k)
        for (int j = 6; j < 10; ++j) temp[static_cast<std::size_t>(l.index(5, j, k))] = 40.f;
    l.setBuoyancy(temp.data(), 1e-4, 20);
    if (!b.periodic_z) l.setWallVelocity(GridFace::ZHigh, 0.03, 0.01, 0);
    if (b.periodic_x) l.setBodyForce(2e-6, 0, 0);
    const int in = l.addPort({l.index(9, 7, 2), l.index(9, 8, 2)}, false);
    const int out = l.addPort({l.index(11, 7, 2), l.index(11, 8, 2)}, true, 1, 0, 0);
    std::vector<int> wide;
    for (int j = 2; j < b.ny - 2; ++j) wide.push_back(l.index(15, j, 8));
    const int up = l.addPort(wide, true, 0, 0.3, 1);
    const int down = l.addPort({l.index(17, 1, 9), l.index(17, 2, 9)}, false);
    l.reset();
    l.setPortFlow(in, 0.03);
    l.setPortFlow(out, 0.03, 0.06);
    l.setPortFlow(up, 0.02, 0.01);
    l.setPortFlow(down, 0.02);
    l.setSampling(true);
    l.step(150);
    l.rescaleTime(0.8, 0.515);
    l.setSampling(true);
    l.step(100);
    l.step(50);
    Fields f;
    f.u = l.meanVelocity();
    f.nu = l.meanEddyViscosity();
    std::vector<int> all(l.cellCount());
    for (std::size_t c = 0; c < all.size(); ++c) all[c] = static_cast<int>(c);
    f.rho = l.densities(all);
    f.mass = l.totalMass();
    f.speed = l.maxSpeed();
    f.steps = l.steps();
    return f;
}

/// `body(slabs)` on `count` thread-ranks at once; each rank's result, or the test fails with a rank's error.
template <class T>
std::vector<T> onSlabs(int count, const std::function<T(LatticeSlabs*)>& body) {
    thread_ranks::SlabGroups groups;
    std::vector<int> members;
    for (int r = 0; r < count; ++r) members.push_back(r);
    std::vector<std::string> failed;
    auto out = thread_ranks::onThreads<T>(
        count, [&](int r) { return body(groups.join(members, r).get()); }, failed);
    for (int r = 0; r < count; ++r)
        if (!failed[static_cast<std::size_t>(r)].empty()) qFatal("slab %d: %s", r, failed[static_cast<std::size_t>(r)].c_str());
    return out;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct Projected {
    std::vector<float> fx, fy, fz;
    int iterations = 0;
    double residual = 0;
};

/// A room of nx × ny × nz cells of 0.25 m with a solid block and three ports across the rows, given face fluxes
/// that carry none of the ports' air and do not balance (a pattern of every face), projected twice (the second
/// warm-started from the first, with other flows), its heat's rows split over `slabs` (the flow's CG with them).
Projected projectRoom(int ny, LatticeSlabs* slabs, int nx = 12, int nz = 6) {
    ThreadPool pool(2);
    AirGridSpec g;
    g.width_m = 0.25 * nx;
    g.depth_m = 0.25 * ny;
    g.height_m = 0.25 * nz;
    g.tvd = true;
    g.min_parallel_cells = 1;  // the pool's chunks as a large hall's
    AirModel air(g, pool);
    air.addSolidBox(g.width_m / 3, 0.25, 0.25, g.width_m * 0.6, g.depth_m - 0.5, g.height_m * 2 / 3);
    auto cells = [&](int i, int j0, int j1, int k) {
        std::vector<int> c;
        for (int j = j0; j < j1; ++j) c.push_back(air.index(i, j, k));
        return c;
    };
    const int supply = air.addPort(cells(0, 0, ny, 1), true), back = air.addPort(cells(air.nx() - 1, 1, ny - 1, 2), false);
    const int low = air.addPort(cells(2, ny / 2, ny, 0), false);
    if (slabs) air.splitRows(slabs);
    Projected out;
    for (int pass = 0; pass < 2; ++pass) {
        air.setPortFlow(supply, 0.6 + 0.1 * pass);
        air.setPortFlow(back, 0.45);
        air.setPortFlow(low, 0.15 + 0.1 * pass);
        std::vector<float> fx = air.fluxX(), fy = air.fluxY(), fz = air.fluxZ();
        std::size_t e = 0;
        for (auto* f : {&fx, &fy, &fz})
            for (float& v : *f) v = 0.01f * static_cast<float>(static_cast<int>((e++ * 2654435761u) % 97) - 48) / (pass + 1.0f);
        const FlowSolveStats st = air.setFluxes(std::move(fx), std::move(fy), std::move(fz), 1e-6);
        out.iterations += st.iterations;
        out.residual = st.relative_residual;
    }
    out.fx = air.fluxX();
    out.fy = air.fluxY();
    out.fz = air.fluxZ();
    return out;
}

}  // namespace

class TstSlabs : public QObject {
    Q_OBJECT
private slots:
    void rowsSplitEvenly() {
        QCOMPARE(slabRows(16, 3, 0), std::make_pair(0, 6));
        QCOMPARE(slabRows(16, 3, 1), std::make_pair(6, 5));
        QCOMPARE(slabRows(16, 3, 2), std::make_pair(11, 5));
        QCOMPARE(slabRows(7, 7, 6), std::make_pair(6, 1));
        QCOMPARE(slabRows(8, 1, 0), std::make_pair(0, 8));
    }

    void slabsAreTheWholeLatticeToTheBit_data() {
        QTest::addColumn<Backend>("backend");
        QTest::addColumn<int>("slabs");
        QTest::addColumn<bool>("px");
        QTest::addColumn<bool>("py");
        QTest::addColumn<bool>("pz");
        // On a device (one GPU a rank; here the thread-ranks share one) against the whole lattice on the device:
        // the same kernel on the same numbers, after the edge rows went through the host.
        for (const Backend be : {Backend::Cpu, Backend::Cuda}) {
            const char* on = be == Backend::Cpu ? "cpu" : "cuda";
            QTest::addRow("%s: 2 slabs, walls, a lid", on) << be << 2 << false << false << false;
            QTest::addRow("%s: 3 slabs of 6, 5 and 5 rows", on) << be << 3 << false << false << false;
            QTest::addRow("%s: 2 slabs, periodic y (each both neighbours)", on) << be << 2 << false << true << false;
            QTest::addRow("%s: 4 slabs, periodic x, y and z", on) << be << 4 << true << true << true;
            QTest::addRow("%s: 16 slabs of one row", on) << be << 16 << false << false << false;
        }
    }

    void slabsAreTheWholeLatticeToTheBit() {
        QFETCH(Backend, backend);
        QFETCH(int, slabs);
        QFETCH(bool, px);
        QFETCH(bool, py);
        QFETCH(bool, pz);
        if (backend == Backend::Cuda) {
            try {
                chooseBackend("cuda");
            } catch (const SimError& e) {
                QSKIP(qPrintable(QString("no CUDA device: ") + e.what()));
            }
        }
        const Box box{16, px, py, pz, backend};
        const Fields whole = runBox(box, nullptr);
        QVERIFY(whole.speed > 1e-3);  // the air moves
        const auto parts = onSlabs<Fields>(slabs, [&](LatticeSlabs* s) { return runBox(box, s); });
        for (std::size_t r = 0; r < parts.size(); ++r) {
            const Fields& f = parts[r];
            QVERIFY2(sameBits(f.u, whole.u), qPrintable(QString("slab %1: mean velocity differs").arg(r)));
            QVERIFY2(sameBits(f.nu, whole.nu), qPrintable(QString("slab %1: eddy viscosity differs").arg(r)));
            QVERIFY2(f.rho == whole.rho, qPrintable(QString("slab %1: densities differ").arg(r)));
            QCOMPARE(f.speed, whole.speed);
            QCOMPARE(f.steps, whole.steps);
            // Summed slab by slab: another order of the same sum.
            QVERIFY(std::fabs(f.mass - whole.mass) <= 1e-12 * whole.mass);
        }
    }

    void streamedStoresGiveThePlainNumbers_data() {
        QTest::addColumn<int>("slabs");
        QTest::addColumn<bool>("periodic");
        QTest::addRow("2 slabs, walls, a lid") << 2 << false;
        QTest::addRow("2 slabs, periodic x, y and z") << 2 << true;
        QTest::addRow("3 slabs") << 3 << false;
    }

    void streamedStoresGiveThePlainNumbers() {
        // The rows' stores past the caches (a lattice larger than they hold; forced here) write whole 64-byte lines
        // from the first cell where every direction's line starts, plain stores before it and after the last
        // whole block, each cell counted once in the sums. Every cell of a streaming lattice goes through the same
        // instructions, so its slabs are the whole lattice to the bit (the choice is made for the whole box). Against
        // plain stores the arithmetic is the same but compiled apart: to the bit in the release build, and within
        // rounding wherever a compiler rounds the two differently (the sanitizers' -O2 build does).
        QFETCH(int, slabs);
        QFETCH(bool, periodic);
        Box plain{16, periodic, periodic, periodic};
        plain.stream_stores = 0;
        Box streamed = plain;
        streamed.stream_stores = 1;
        const Fields want = runBox(plain, nullptr), whole = runBox(streamed, nullptr);
        QVERIFY(want.speed > 1e-3);
        float worst = 0;
        for (std::size_t c = 0; c < want.u.size(); ++c) worst = std::max(worst, std::fabs(whole.u[c] - want.u[c]));
        qInfo("streamed against plain: mean velocity %s, largest difference %g of a fastest %g",
              sameBits(whole.u, want.u) ? "the same bits" : "differs", static_cast<double>(worst), want.speed);
        QVERIFY(worst <= 1e-4 * want.speed);
        QVERIFY(std::fabs(whole.mass - want.mass) <= 1e-9 * want.mass);
        for (const Fields& f : onSlabs<Fields>(slabs, [&](LatticeSlabs* s) { return runBox(streamed, s); })) {
            QVERIFY(sameBits(f.u, whole.u));
            QVERIFY(sameBits(f.nu, whole.nu));
            QVERIFY(f.rho == whole.rho);
            QCOMPARE(f.speed, whole.speed);
            QCOMPARE(f.steps, whole.steps);
            QVERIFY(std::fabs(f.mass - whole.mass) <= 1e-12 * whole.mass);  // slab by slab: another order of the sum
        }
    }

    void aFailingSlabStopsEverySlabAtTheSamePoint() {
        // A force far beyond what the lattice carries, one step a batch: every slab throws the words of the
        // slab that failed first, which names the cell and step the whole lattice names.
        auto fail = [](LatticeSlabs* s) -> std::string {
            ThreadPool pool(1);
            LatticeSpec spec;
            spec.nx = spec.ny = spec.nz = 8;
            spec.periodic_x = true;
            spec.tau = 0.5001;
            spec.slabs = s;
            Lattice l(spec, pool);
            std::vector<float> temp(l.cellCount(), 20.f);
            for (int k = 0; k < 8; ++k) temp[static_cast<std::size_t>(l.index(3, 6, k))] = 3000.f;  // in the upper slab
            l.setBuoyancy(temp.data(), 1e-3, 20);
            l.reset();
            try {
                for (int i = 0; i < 1000; ++i) l.step(1);
            } catch (const LatticeUnstable& e) {
                return std::to_string(e.i) + " " + std::to_string(e.j) + " " + std::to_string(e.k) + " " + std::to_string(e.step) + " " +
                       e.what();
            }
            return "no failure";
        };
        const std::string whole = fail(nullptr);
        QVERIFY2(whole != "no failure", "the whole lattice did not fail");
        const auto parts = onSlabs<std::string>(2, fail);
        for (const auto& p : parts) {
            QVERIFY2(p.rfind(whole.substr(0, whole.find(':')), 0) == 0, qPrintable(QString::fromStdString(p + "\nwhole: " + whole)));
            QVERIFY2(p.find("(slab 1 of 2, rows 4–7)") != std::string::npos, p.c_str());
        }
        QCOMPARE(parts[0], parts[1]);
    }

    void aFlowProjectionSplitInRowsIsOneProcessToTheBit_data() {
        QTest::addColumn<int>("ny");
        QTest::addColumn<int>("slabs");
        QTest::addColumn<int>("nx");
        QTest::addColumn<int>("nz");
        QTest::addRow("2 slabs of 14 rows") << 14 << 2 << 12 << 6;
        QTest::addRow("3 slabs, 13 rows (6, 4 and 3)") << 13 << 3 << 12 << 6;
        QTest::addRow("4 slabs, 17 rows") << 17 << 4 << 12 << 6;
        QTest::addRow("7 slabs, 13 rows: the last one row") << 13 << 7 << 12 << 6;
        QTest::addRow("9 slabs, 13 rows: fewer pairs than slabs, solved whole on each") << 13 << 9 << 12 << 6;
        QTest::addRow("2 slabs of a 4 x 5 x 3 room: one multigrid level, solved whole on each") << 5 << 2 << 4 << 3;
    }

    void aFlowProjectionSplitInRowsIsOneProcessToTheBit() {
        // The lattice's flux projection (AirModel::setFluxes: CG with a multigrid V-cycle) on a hall split by rows:
        // each rank iterates on its own pairs of rows, with one-row halos, the coarse levels whole and the dot
        // products from every row's sum; the fluxes are one process's to the bit, on every rank.
        QFETCH(int, ny);
        QFETCH(int, slabs);
        QFETCH(int, nx);
        QFETCH(int, nz);
        const Projected one = projectRoom(ny, nullptr, nx, nz);
        QVERIFY(one.iterations > 2);
        QVERIFY(one.residual <= 1e-6);
        const auto parts = onSlabs<Projected>(slabs, [&](LatticeSlabs* s) { return projectRoom(ny, s, nx, nz); });
        for (int r = 0; r < slabs; ++r) {
            const Projected& p = parts[static_cast<std::size_t>(r)];
            QCOMPARE(p.iterations, one.iterations);
            QVERIFY2(sameBits(p.fx, one.fx) && sameBits(p.fy, one.fy) && sameBits(p.fz, one.fz), qPrintable(QString("rank %1").arg(r)));
        }
    }

    void refusesWhatItCannotSplit() {
        ThreadPool pool(1);
        const auto msgs = onSlabs<std::string>(3, [&](LatticeSlabs* s) -> std::string {
            LatticeSpec spec;
            spec.nx = spec.nz = 4;
            spec.ny = 2;  // three slabs, two rows
            spec.slabs = s;
            try {
                Lattice l(spec, pool);
            } catch (const SimError& e) {
                return e.what();
            }
            return "built";
        });
        for (const auto& m : msgs) QVERIFY2(m.find("2 rows along y cannot split into 3 slabs") != std::string::npos, m.c_str());
        const auto other = onSlabs<std::string>(2, [&](LatticeSlabs* s) -> std::string {
            LatticeSpec spec;
            spec.nx = spec.ny = spec.nz = 4;
            spec.slabs = s;
            Lattice l(spec, pool);
            double rho, ux, uy, uz;
            try {
                l.moments(l.index(1, s->index() == 0 ? 3 : 0, 1), rho, ux, uy, uz);
            } catch (const SimError& e) {
                return e.what();
            }
            return "read";
        });
        for (const auto& m : other) QVERIFY2(m.find("lies in another slab") != std::string::npos, m.c_str());
    }
};

QTEST_GUILESS_MAIN(TstSlabs)
#include "tst_slabs.moc"
