// A campus's halls over ranks (issue 42, sim/hall_ranks.hpp): which rank steps which hall, and that a run
// spread over ranks gives the same frames as one process, to the bit, whatever the rank count. Here the ranks
// are threads of one process with an in-memory exchange, so the engine's side is checked without MPI (and
// leak-checked under ASan); tst_sweep starts the real thing under mpirun.
#include "sim_fixtures.hpp"
#include "thread_ranks.hpp"

#include <clustertwin/sim/hall_ranks.hpp>

#include <QtTest>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

using namespace ct;
using thread_ranks::Exchange;
using thread_ranks::SlabGroups;
using thread_ranks::ThreadRanks;

namespace {

/// Every number of a frame (its air fields aside) as exact text: equal texts, equal frames to the bit.
std::string digest(const model::Frame& f) {
    std::string s;
    auto add = [&](double v) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%a ", v);
        s += buf;
    };
    for (double v : {f.time_s, f.it_power_w, f.facility_power_w, f.cooling_power_w, f.pue, f.heat_in_w, f.heat_removed_w, f.liquid_heat_w,
                     f.rear_door_heat_w, f.max_inlet_c, f.rci_hi, f.rci_lo, f.rti, f.shi})
        add(v);
    s += f.max_inlet_rack + "\n";
    for (const auto& g : f.gpus)
        for (double v : {g.power_w, g.temp_c, g.throttle, g.utilization}) add(v);
    for (const auto& n : f.nodes)
        for (double v : {n.power_ac_w, n.fan_speed, n.airflow_m3s, n.inlet_c, n.exhaust_c}) add(v);
    for (const auto& r : f.racks) {
        for (double v :
             {r.power_w, r.airflow_m3s, r.inlet_mean_c, r.inlet_max_c, r.exhaust_c, r.capture_index, r.rear_door_w, r.recirculation})
            add(v);
        for (double v : r.inlet_c) add(v);
    }
    for (const auto& u : f.cooling_units)
        for (double v : {u.return_c, u.supply_c, u.load_w, u.airflow_m3s, u.fan_power_w}) add(v);
    for (const auto& x : f.sensors) {
        s += x.id + " ";
        add(x.temp_c);
    }
    for (const auto& a : f.alerts) s += a.kind + " " + a.entity + " " + a.message + "\n";
    return s;
}

struct Steps {
    std::vector<std::string> digests;
    std::vector<std::optional<model::AirField>> air;  ///< the first hall's field where asked for
    std::vector<std::size_t> other_halls;             ///< how many other halls' fields came with it
    std::vector<std::vector<float>> last_hall_temp;   ///< the last hall's temperature field where asked for
    sim::EngineStats stats;
};

Steps run(const fixtures::Loaded& l, const sim::EngineOptions& o, int steps, int field_step) {
    sim::Engine e(l.scenario, l.catalog, o);
    Steps out;
    out.digests.push_back(digest(e.frame()));
    for (int s = 1; s <= steps; ++s) {
        const model::Frame& f = e.step(s == field_step);
        out.digests.push_back(digest(f));
        out.air.push_back(f.air);
        out.other_halls.push_back(f.other_halls_air.size());
        out.last_hall_temp.push_back(f.other_halls_air.empty() ? std::vector<float>{} : f.other_halls_air.back().temp_c);
    }
    out.stats = e.stats();
    return out;
}

/// The same run on `ranks` thread-ranks at once.
std::vector<Steps> runSpread(const fixtures::Loaded& l, const sim::EngineOptions& o, int ranks, int steps, int field_step) {
    auto ex = std::make_shared<Exchange>(ranks);
    auto groups = std::make_shared<SlabGroups>();
    std::vector<std::string> failed;
    auto out = thread_ranks::onThreads<Steps>(
        ranks,
        [&](int r) {
            sim::EngineOptions x = o;
            x.hall_ranks = std::make_shared<ThreadRanks>(r, ranks, ex, groups);
            return run(l, x, steps, field_step);
        },
        failed);
    for (int r = 0; r < ranks; ++r)
        if (!failed[static_cast<std::size_t>(r)].empty()) qFatal("rank %d: %s", r, failed[static_cast<std::size_t>(r)].c_str());
    return out;
}

/// Point sensors in every hall and a rack's strip in the last: readings that cross ranks.
void addSensors(fixtures::Loaded& l) {
    for (auto& h : l.scenario.halls) {
        model::Sensor p;
        p.id = h.id + "-probe";
        p.position_m = {h.width_m / 2, h.depth_m / 3};
        p.height_m = 1.5;
        h.sensors.push_back(p);
    }
    model::Sensor strip;
    strip.id = "strip";
    strip.rack = l.scenario.halls.back().rows.front().racks.front().id;
    strip.side = "rear";
    l.scenario.halls.back().sensors.push_back(strip);
    l.scenario.linkParents();
}

/// A generated site of `halls` halls of two rows of `racks` racks, with addSensors' sensors.
fixtures::Loaded generated(int halls, int racks) {
    model::HallParams p;
    p.halls = halls;
    p.rows = 2;
    p.racks_per_row = racks;
    fixtures::Loaded l{model::buildHall(p), model::Catalog::builtin()};
    addSensors(l);
    return l;
}

sim::EngineOptions latticeOneThread() {
    sim::EngineOptions o;
    o.air = "lbm";
    o.threads = 1;
    return o;
}

void checkAlike(const Steps& one, const std::vector<Steps>& spread, int field_step) {
    for (std::size_t r = 0; r < spread.size(); ++r) {
        const Steps& s = spread[r];
        QCOMPARE(s.digests.size(), one.digests.size());
        for (std::size_t k = 0; k < one.digests.size(); ++k)
            QVERIFY2(s.digests[k] == one.digests[k], qPrintable(QString("rank %1, step %2 differs").arg(r).arg(k)));
        // Rank 0's frame carries every hall's field, as one process's does; the others' carry none.
        const auto at = static_cast<std::size_t>(field_step - 1);
        QCOMPARE(s.air[at].has_value(), r == 0);
        QCOMPARE(s.other_halls[at], r == 0 ? one.other_halls[at] : 0u);
        if (r == 0) {
            const auto &a = *s.air[at], &b = *one.air[at];
            QCOMPARE(a.temp_c.size(), b.temp_c.size());
            QVERIFY(std::memcmp(a.temp_c.data(), b.temp_c.data(), a.temp_c.size() * sizeof(float)) == 0);
            QVERIFY(a.velocity_ms == b.velocity_ms);
            QVERIFY(a.supply_points_m == b.supply_points_m);
            const auto &c = s.last_hall_temp[at], &d = one.last_hall_temp[at];  // a hall other than the first, to the bit
            QCOMPARE(c.size(), d.size());
            QVERIFY(c.empty() || std::memcmp(c.data(), d.data(), c.size() * sizeof(float)) == 0);
        }
        QCOMPARE(s.stats.air_substeps, one.stats.air_substeps);
        QCOMPARE(s.stats.flow_solves, one.stats.flow_solves);
        QCOMPARE(s.stats.lattice_steps, one.stats.lattice_steps);
        QCOMPARE(s.stats.grid_cells, one.stats.grid_cells);
        QCOMPARE(s.stats.air_summary, one.stats.air_summary);
        QCOMPARE(s.stats.ranks, static_cast<int>(spread.size()));
    }
}

}  // namespace

class TstHallRanks : public QObject {
    Q_OBJECT
private slots:
    void hallsGoToTheLeastLoadedRank() {
        QCOMPARE(sim::assignHalls({5, 3, 3, 1}, 2), (std::vector<int>{0, 1, 1, 0}));  // 6 and 6
        QCOMPARE(sim::assignHalls({5, 3, 3, 1}, 1), (std::vector<int>{0, 0, 0, 0}));
        QCOMPARE(sim::assignHalls({4, 4}, 3), (std::vector<int>{0, 1}));              // rank 2 steps no hall
        QCOMPARE(sim::assignHalls({1, 9, 1, 1}, 2), (std::vector<int>{1, 0, 1, 1}));  // the big one alone
        QCOMPARE(sim::assignHalls({}, 4), std::vector<int>{});
    }

    void spareRanksSplitTheLargestHalls() {
        using V = std::vector<std::vector<int>>;
        QCOMPARE(sim::assignHallRanks({5, 3, 3, 1}, {4, 4, 4, 4}, 2), (V{{0}, {1}, {1}, {0}}));  // no more ranks than halls
        QCOMPARE(sim::assignHallRanks({9, 1}, {4, 4}, 4), (V{{0, 1, 2}, {3}}));                  // 9/3 against 1/1
        QCOMPARE(sim::assignHallRanks({2, 6}, {4, 4}, 3), (V{{2}, {0, 1}}));                     // largest first
        QCOMPARE(sim::assignHallRanks({4, 4}, {1, 1}, 3), (V{{0}, {1}}));                        // quick air: rank 2 idle
        QCOMPARE(sim::assignHallRanks({8}, {2}, 4), (V{{0, 1}}));                                // two slabs at most
    }

    void hallsThatDoNotDivideAreShared() {
        using V = std::vector<std::vector<int>>;
        QCOMPARE(sim::assignHallRanks({4, 4, 4}, {4, 4, 4}, 2), (V{{0}, {1}, {0, 1}}));          // 6 and 6, not 8 and 4
        QCOMPARE(sim::assignHallRanks({4, 4, 4}, {1, 1, 1}, 2), (V{{0}, {1}, {0}}));             // quick air: whole
        QCOMPARE(sim::assignHallRanks({4, 4, 4}, {4, 4, 1}, 2), (V{{0}, {1}, {0}}));             // the smallest cannot split
        QCOMPARE(sim::assignHallRanks({9, 1, 1}, {4, 4, 4}, 2), (V{{0}, {1}, {1}}));             // sharing gains nothing
        QCOMPARE(sim::assignHallRanks({5, 3, 3, 1}, {4, 4, 4, 4}, 2), (V{{0}, {1}, {1}, {0}}));  // they divide
        // Six on four: two each over a pair of ranks; eight on three: two whole each and two over all three.
        QCOMPARE(sim::assignHallRanks({4, 4, 4, 4, 4, 4}, V::value_type(6, 4), 4), (V{{0}, {1}, {2}, {3}, {0, 1}, {2, 3}}));
        QCOMPARE(sim::assignHallRanks(std::vector<std::uint64_t>(8, 4), V::value_type(8, 4), 3),
                 (V{{0}, {1}, {2}, {0}, {1}, {2}, {0, 1, 2}, {0, 1, 2}}));
        // Unequal: the second odd one goes to the pair the first left with least; one large hall that sets the
        // busiest rank anyway keeps them whole.
        QCOMPARE(sim::assignHallRanks({6, 6, 6, 6, 4, 2}, V::value_type(6, 4), 4), (V{{0}, {1}, {2}, {3}, {0, 1}, {2, 3}}));
        QCOMPARE(sim::assignHallRanks({8, 6, 5, 5, 2, 1}, V::value_type(6, 4), 4), (V{{0}, {1}, {2}, {3}, {2}, {3}}));
    }

    void threeLatticeHallsOnTwoRanksAreOneProcessToTheBit() {
        // Three generated halls in lattice air on two ranks: one whole hall each, the third in two slabs, so each
        // rank steps a whole hall and a slab, in hall order. Every frame and the split hall's field are one
        // process's.
        const fixtures::Loaded l = generated(3, 3);
        const sim::EngineOptions o = latticeOneThread();
        const Steps one = run(l, o, 8, 8);
        const auto spread = runSpread(l, o, 2, 8, 8);
        checkAlike(one, spread, 8);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(spread[0].stats.hall_slabs, (std::vector<int>{1, 1, 2}));
        QCOMPARE(spread[1].stats.hall_ranks, (std::vector<int>{0, 1, 0}));
        QVERIFY(!one.last_hall_temp[7].empty());
    }

    void aHallSplitInSlabsIsOneProcessToTheBit() {
        // A generated hall in lattice air on 2 and 3 ranks: its lattice in slabs, its heat on every rank from
        // the gathered flow; then two equal halls on 3 ranks (the first in two slabs). Every frame and field is one
        // process's.
        const fixtures::Loaded l = generated(1, 3);
        const sim::EngineOptions o = latticeOneThread();
        const Steps one = run(l, o, 12, 12);
        QVERIFY(one.stats.lattice_steps > 0);
        for (int ranks : {2, 3}) {
            const auto spread = runSpread(l, o, ranks, 12, 12);
            checkAlike(one, spread, 12);
            if (QTest::currentTestFailed()) return;
            QCOMPARE(spread[0].stats.hall_slabs, std::vector<int>{ranks});
            // One hall and no other: all that crossed between ranks was its slabs' rows and gathers.
            QVERIFY(spread[0].stats.exchanged_bytes > 0 && spread[1].stats.exchanged_bytes > 0);
        }
        const fixtures::Loaded two = generated(2, 4);
        const Steps whole = run(two, o, 8, 8);
        const auto spread = runSpread(two, o, 3, 8, 8);
        checkAlike(whole, spread, 8);
        QCOMPARE(spread[2].stats.hall_slabs, (std::vector<int>{2, 1}));
        QCOMPARE(spread[2].stats.hall_ranks, (std::vector<int>{0, 2}));
    }

    void aCampusOverRanksIsOneProcessToTheBit() {
        // The campus sample (three halls of different sizes) with a probe in each hall, quick air: on 2 ranks
        // and on 4 (one with no hall), every frame equals one process's, and rank 0 gets every hall's field.
        fixtures::Loaded l = fixtures::sample("campus-3-halls");
        addSensors(l);
        sim::EngineOptions o = fixtures::quickAir();
        o.threads = 1;
        o.step_s = 10;
        const Steps one = run(l, o, 12, 6);
        QCOMPARE(one.stats.hall_ranks, (std::vector<int>{0, 0, 0}));
        QCOMPARE(one.other_halls[5], 2u);
        for (int ranks : {2, 4}) {
            const auto spread = runSpread(l, o, ranks, 12, 6);
            checkAlike(one, spread, 6);
            if (QTest::currentTestFailed()) return;
            QCOMPARE(spread[0].stats.hall_ranks.size(), 3u);
        }
        const auto two = runSpread(l, o, 2, 1, 1);
        QCOMPARE(two[1].stats.hall_ranks, two[0].stats.hall_ranks);
        QVERIFY(two[0].stats.hall_ranks != (std::vector<int>{0, 0, 0}));  // both ranks step a hall
    }

    void twoLatticeHallsOverRanksAreOneProcessToTheBit() {
        // A generated two-hall site in lattice air: each rank steps one hall's lattice.
        const fixtures::Loaded l = generated(2, 3);
        const sim::EngineOptions o = latticeOneThread();
        const Steps one = run(l, o, 20, 20);
        const auto spread = runSpread(l, o, 2, 20, 20);
        checkAlike(one, spread, 20);
        QCOMPARE(spread[0].stats.hall_ranks, (std::vector<int>{0, 1}));
        QVERIFY(one.stats.lattice_steps > 0);
    }

    void aHallThatFailsIsNamedOnEveryRank() {
        // The campus at 0.4 m: a hall's jets outrun its lattice. Every rank stops at the same step with the hall
        // and the rank that stepped it, rather than one rank failing and the others waiting for it.
        const fixtures::Loaded l = fixtures::sample("campus-3-halls");
        sim::EngineOptions o;
        o.air = "lbm";
        o.cell_m = 0.4;
        o.threads = 1;
        auto ex = std::make_shared<Exchange>(2);
        auto groups = std::make_shared<SlabGroups>();
        std::vector<std::string> said(2);
        std::vector<std::thread> threads;
        for (int r = 0; r < 2; ++r)
            threads.emplace_back([&, r] {
                try {
                    sim::EngineOptions x = o;
                    x.hall_ranks = std::make_shared<ThreadRanks>(r, 2, ex, groups);
                    sim::Engine e(l.scenario, l.catalog, x);
                    for (int s = 0; s < 60; ++s) e.step();
                } catch (const sim::SimError& e) {
                    said[static_cast<std::size_t>(r)] = e.what();
                }
            });
        for (auto& t : threads) t.join();
        QVERIFY2(said[0].rfind("hall hall1 (rank ", 0) == 0, said[0].c_str());
        QVERIFY2(said[0].find("Mach") != std::string::npos, said[0].c_str());
        QCOMPARE(said[1], said[0]);
    }
};

QTEST_MAIN(TstHallRanks)
#include "tst_hall_ranks.moc"
