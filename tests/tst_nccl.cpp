// NCCL's algorithms, protocols and tuner on the fabric (issue 41; docs/network.md "Algorithms and protocols"):
// each algorithm against its alpha-beta formula, NCCL's ceilings and channel counts, NVLS inside a server against
// NCCL's model and its maintainers' figures, and a job's groups run together.
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/network.hpp>

#include <QTest>

#include <cmath>
#include "fabric_fixtures.hpp"
#include "test_paths.hpp"

using namespace ct::sim;
using namespace ct::sim::net;

using namespace fabric_fixtures;

namespace {
ScenarioFabric superpod() {
    auto rep = ct::model::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    return buildScenarioFabric(rep.scenario, rep.catalog);
}
}  // namespace

class TstNccl : public QObject {
    Q_OBJECT
private slots:
    void ncclAlgorithmsEqualTheirFormulas();
    void ncclPerChannelCeilings();
    void ncclTunerPicksAsNcclDoes();
    void insideOneServerAsNcclsModelAndItsMaintainersSay();
    void groupsRunAsEachAloneSharingLinks();
    void acrossServersNvlsTreeAndCollNet();
};

void TstNccl::ncclAlgorithmsEqualTheirFormulas() {
    // Eight servers of one GPU on one switch (50 GB/s, 1 µs host to host): each algorithm and protocol against its
    // alpha-beta formula with NCCL's constants (µs: base, hop over the network; efficiency), for every size.
    Topology t = star(8);
    Router r(t);
    std::vector<int> ranks, node_of;
    for (int i = 0; i < 8; ++i) {
        ranks.push_back(i);
        node_of.push_back(i);
    }
    const double B = 50 * GB;
    for (double S : {8.0, 4096.0, 1048576.0, 1073741824.0}) {
        auto run = [&](Algo a, Proto p) { return runNcclCollective(t, r, CollectiveOp::AllReduce, ranks, node_of, S, {a, p, 0}); };
        // Ring: 2(n − 1) steps of S/n at efficiency·B; a chunk crosses 2(n − 1) hops.
        const double ring_simple = 8.4e-6 + 14 * 14e-6 + 14 * (S / 8) / B;
        const double ring_ll = 6.6e-6 + 14 * 2.7e-6 + 14 * (S / 8) / (0.25 * B);
        const double ring_ll128 = 14e-6 + 14 * 4e-6 + 14 * (S / 8) / (0.7 * B);  // one GPU a node: 0.7
        // Double binary tree over 8 nodes: depth 3 in both; the busiest host link carries 4 halves (S/2) each way.
        const double tree_simple = 8.4e-6 + 2 * 3 * 14e-6 + 2 * S / (0.9 * B);
        const double tree_ll = 6.8e-6 + 2 * 3 * 5e-6 + 2 * S / (0.9 / 3.8 * B);
        const std::pair<CollectiveResult, double> cases[] = {{run(Algo::Ring, Proto::Simple), ring_simple},
                                                             {run(Algo::Ring, Proto::LL), ring_ll},
                                                             {run(Algo::Ring, Proto::LL128), ring_ll128},
                                                             {run(Algo::Tree, Proto::Simple), tree_simple},
                                                             {run(Algo::Tree, Proto::LL), tree_ll}};
        for (const auto& [got, want] : cases)
            QVERIFY2(within(got.time_s, want, 1e-6), qPrintable(QString("%1/%2 of %3 B: %4 s, formula %5 s")
                                                                    .arg(got.algorithm.c_str(), got.protocol.c_str())
                                                                    .arg(S)
                                                                    .arg(got.time_s, 0, 'g', 12)
                                                                    .arg(want, 0, 'g', 12)));
        // All-gather: n − 1 steps and hops.
        const auto ag = runNcclCollective(t, r, CollectiveOp::AllGather, ranks, node_of, S, {Algo::Ring, Proto::Simple, 0});
        QVERIFY(within(ag.time_s, 8.4e-6 + 7 * 14e-6 + 7 * (S / 8) / B, 1e-6));
        // Broadcast: pipelined along the ring from rank 0, every link carrying the buffer once; bus = algorithm bandwidth.
        const auto bc = runNcclCollective(t, r, CollectiveOp::Broadcast, ranks, node_of, S, {Algo::Ring, Proto::Simple, 0});
        QVERIFY2(within(bc.time_s, 8.4e-6 + 7 * 14e-6 + S / B, 1e-6), qPrintable(QString::number(bc.time_s, 'g', 12)));
        QCOMPARE(bc.busbw_Bps, bc.algbw_Bps);
        // Reduce: the same chain run towards rank 0 (NCCL's ring reduce), the same formula on this symmetric
        // switch; the link into the root carries the buffer, the one out of it nothing.
        const auto rd = runNcclCollective(t, r, CollectiveOp::Reduce, ranks, node_of, S, {Algo::Ring, Proto::Simple, 0});
        QVERIFY2(within(rd.time_s, 8.4e-6 + 7 * 14e-6 + S / B, 1e-6), qPrintable(QString::number(rd.time_s, 'g', 12)));
        QCOMPARE(rd.busbw_Bps, rd.algbw_Bps);
        double into_root = 0, out_of_root = 0;
        for (int a = 0; a < t.arcCount(); ++a) {
            if (t.arc(a).to == ranks.front()) into_root += rd.arc_bytes[static_cast<std::size_t>(a)];
            if (t.arc(a).from == ranks.front()) out_of_root += rd.arc_bytes[static_cast<std::size_t>(a)];
        }
        QVERIFY2(within(into_root, S, 1e-9) && out_of_root == 0, qPrintable(QString("%1 in, %2 out").arg(into_root).arg(out_of_root)));
        QCOMPARE(collectiveFromString("reduce"), CollectiveOp::Reduce);
    }
    // A path slower than the protocol's hop (40 µs host to host) sets the hop's latency.
    Topology slow = star(8, 50 * GB, 40e-6);
    Router rs(slow);
    const auto far = runNcclCollective(slow, rs, CollectiveOp::AllReduce, ranks, node_of, 8, {Algo::Ring, Proto::Simple, 0});
    QVERIFY(within(far.latency_s, 8.4e-6 + 14 * 40e-6, 1e-9));
    // Tree is all-reduce across nodes only.
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(t, r, CollectiveOp::AllGather, ranks, node_of, 8, {Algo::Tree, {}, 0}));
    QVERIFY_THROWS_EXCEPTION(SimError,
                             runNcclCollective(t, r, CollectiveOp::AllReduce, ranks, std::vector<int>(8, 0), 8, {Algo::Tree, {}, 0}));
    QCOMPARE(algoFromString("tree"), Algo::Tree);
    QCOMPARE(protoFromString("LL128"), Proto::LL128);
    QVERIFY_THROWS_EXCEPTION(SimError, protoFromString("ll64"));
}

void TstNccl::ncclPerChannelCeilings() {
    // NCCL's measured ceilings for Hopper over 2 nodes (tuning.cc): LL128 ring 36.7 GB/s a channel, tree 41.4 GB/s
    // a channel (its algorithm gets half), LL 39 GB/s in all. The superpod's 2 × 8 rails carry more: the ceilings
    // set the bandwidth part exactly.
    auto rep = ct::model::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    const ScenarioFabric f = buildScenarioFabric(rep.scenario, rep.catalog);
    QCOMPARE(f.gpu_architecture, std::string("hopper"));
    const ChannelCaps caps = channelCaps("hopper", 2);
    QCOMPARE(caps.ring_ll128, 36.7e9);
    QCOMPARE(caps.tree, 41.4e9);
    QCOMPARE(caps.ll, 39.0e9);
    QCOMPARE(channelCaps("ampere", 1).tree, 24.0e9);
    QCOMPARE(channelCaps("blackwell", 5).tree, 72.0e9);
    QCOMPARE(channelCaps("ada", 2).tree, 0.0);  // NCCL has no row: no ceiling
    Router r(f.topology);
    std::vector<int> ranks, node_of;
    firstNodes(f, 2, ranks, node_of);
    const double S = std::pow(2.0, 30);
    NcclChoice how{Algo::Ring, Proto::LL128, 8, "hopper"};
    const auto ring = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how);
    QVERIFY(within(ring.time_s - ring.latency_s, S * (2.0 * 15 / 16) / (8 * 36.7e9), 1e-9));
    how.algo = Algo::Tree;
    how.proto = Proto::Simple;
    const auto tree = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how);
    QVERIFY(within(tree.time_s - tree.latency_s, 2 * S / (8 * 41.4e9), 1e-9));
    how.proto = Proto::LL;
    const auto ll = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how);
    QVERIFY(within(ll.time_s - ll.latency_s, 2 * S / 39e9, 1e-9));
    // Without the architecture the fabric alone sets them, faster.
    const auto free = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, {Algo::Ring, Proto::LL128, 8});
    QVERIFY(free.time_s < ring.time_s);
    // The tuner sees the ceilings: at 128 MiB LL128's ring is capped below Simple's, so Simple runs (the ring's
    // protocol; over all algorithms NVLS-tree wins there, acrossServersNvlsTreeAndCollNet).
    const auto tuned =
        runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 128 * std::pow(2.0, 20), {Algo::Ring, {}, 0, "hopper"});
    QCOMPARE(tuned.algorithm + "/" + tuned.protocol, std::string("ring/Simple"));
    QCOMPARE(
        runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 128 * std::pow(2.0, 20), {{}, {}, 0, "hopper"}).algorithm,
        std::string("nvlstree"));
    const auto untuned = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 128 * std::pow(2.0, 20), {});
    QCOMPARE(untuned.algorithm + "/" + untuned.protocol, std::string("ring/LL128"));
}

void TstNccl::ncclTunerPicksAsNcclDoes() {
    auto rep = ct::model::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    const ScenarioFabric f = buildScenarioFabric(rep.scenario, rep.catalog);
    Router r(f.topology);
    std::vector<int> ranks, node_of;
    firstNodes(f, 2, ranks, node_of);
    // NCCL's tuner: latency-bound sizes go by the tree and LL (log-depth, the cheapest hops), bandwidth-bound ones by
    // the ring and Simple (every byte of the tree goes up and down: half the ring's algorithm bandwidth); what it
    // picks is then run exactly as if forced.
    const char* expect[][2] = {{"tree", "LL"}, {"tree", "LL"}, {"tree", "LL128"}, {"ring", "Simple"}};
    int i = 0;
    for (double S : {8.0, 4096.0, 16777216.0, 8589934592.0}) {
        const auto tuned = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, {});
        QVERIFY(tuned.tuned);
        qInfo("2 x DGX H100 all-reduce of %.0f B: %s/%s, %.2f us, busbw %.1f GB/s", S, tuned.algorithm.c_str(), tuned.protocol.c_str(),
              tuned.time_s * 1e6, tuned.busbw_Bps / GB);
        QCOMPARE(tuned.algorithm, std::string(expect[i][0]));
        QCOMPARE(tuned.protocol, std::string(expect[i][1]));
        ++i;
        const auto forced = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S,
                                              {algoFromString(tuned.algorithm), protoFromString(tuned.protocol), 0});
        QVERIFY(!forced.tuned);
        QCOMPARE(forced.time_s, tuned.time_s);
    }
    const double S = 8 * std::pow(2.0, 30);
    const auto plain = runChannelCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, 8);
    const auto simple = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, {Algo::Ring, Proto::Simple, 8});
    QCOMPARE(simple.channels, 8);
    QCOMPARE(simple.arc_bytes, plain.arc_bytes);
    const auto ll128 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, {Algo::Ring, Proto::LL128, 8});
    for (std::size_t a = 0; a < plain.arc_bytes.size(); ++a)
        QVERIFY(within(ll128.arc_bytes[a], plain.arc_bytes[a] / 0.92, 1e-12) || plain.arc_bytes[a] == 0);
    // A small message runs on fewer channels, as NCCL sets them: one fewer while the bytes are under channels ×
    // threads × bytes a thread (Simple 512 × 64 B = 32 KiB a channel; LL on a ring 512 × 8 B × 16 ranks = 64 KiB;
    // LL128 640 × 8 B = 5 KiB; tree LL 4 KiB); all-gather counts a rank's part.
    struct Case {
        CollectiveOp op;
        Algo a;
        Proto p;
        double bytes;
        int channels;
    };
    for (const Case& c :
         {Case{CollectiveOp::AllReduce, Algo::Ring, Proto::Simple, 8, 1},
          Case{CollectiveOp::AllReduce, Algo::Ring, Proto::Simple, 65536, 2},
          Case{CollectiveOp::AllReduce, Algo::Ring, Proto::Simple, 200000, 6},
          Case{CollectiveOp::AllReduce, Algo::Ring, Proto::Simple, 262144, 8},
          Case{CollectiveOp::AllReduce, Algo::Ring, Proto::LL, 131071, 1}, Case{CollectiveOp::AllReduce, Algo::Ring, Proto::LL, 1048576, 8},
          Case{CollectiveOp::AllReduce, Algo::Ring, Proto::LL128, 8192, 1},
          Case{CollectiveOp::AllReduce, Algo::Ring, Proto::LL128, 40960, 8}, Case{CollectiveOp::AllReduce, Algo::Tree, Proto::LL, 8192, 2},
          Case{CollectiveOp::AllGather, Algo::Ring, Proto::Simple, 16 * 65536.0, 2}}) {
        const auto res = runNcclCollective(f.topology, r, c.op, ranks, node_of, c.bytes, {c.a, c.p, 8});
        QVERIFY2(res.channels == c.channels, qPrintable(QString("%1 %2/%3 of %4 B: %5 channels, NCCL takes %6")
                                                            .arg(toString(c.op), toString(c.a), toString(c.p))
                                                            .arg(c.bytes)
                                                            .arg(res.channels)
                                                            .arg(c.channels)));
    }
    // On fewer channels, fewer rails: the 64 KiB ring at Simple crosses two NICs a node, not eight.
    const auto two = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 65536, {Algo::Ring, Proto::Simple, 8});
    int nics = 0;
    for (int a = 0; a < f.topology.arcCount(); ++a)
        if (two.arc_bytes[static_cast<std::size_t>(a)] > 0 && f.topology.node(f.topology.arc(a).from).kind == NodeKind::Host &&
            f.topology.node(f.topology.arc(a).to).kind == NodeKind::Switch)
            ++nics;
    QCOMPARE(nics, 2 * 2);  // two per node, two nodes
}

void TstNccl::groupsRunAsEachAloneSharingLinks() {
    // One group runs exactly as the collective alone, for every op and size, the tuner's pick included.
    auto rep = ct::model::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    const ScenarioFabric f = buildScenarioFabric(rep.scenario, rep.catalog);
    Router r(f.topology);
    const std::vector<int> server = serverOfHost(f);
    std::vector<int> ranks, node_of;
    firstNodes(f, 2, ranks, node_of);
    NcclChoice how;
    how.architecture = f.gpu_architecture;
    for (CollectiveOp op : {CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::ReduceScatter, CollectiveOp::Broadcast,
                            CollectiveOp::Reduce, CollectiveOp::AllToAll})
        for (double S : {8.0, 65536.0, 16777216.0, 1073741824.0}) {
            const auto one = runNcclCollective(f.topology, r, op, ranks, node_of, S, how);
            const auto grouped = runGroupedNcclCollective(f.topology, r, op, {ranks}, server, S, how);
            QVERIFY2(grouped.algorithm == one.algorithm && grouped.protocol == one.protocol && grouped.channels == one.channels &&
                         within(grouped.time_s, one.time_s, 1e-9) && within(grouped.latency_s, one.latency_s, 1e-12),
                     qPrintable(QString("%1 of %2 B: %3/%4/%5 %6 s alone, %7/%8/%9 %10 s grouped")
                                    .arg(toString(op))
                                    .arg(S)
                                    .arg(one.algorithm.c_str(), one.protocol.c_str())
                                    .arg(one.channels)
                                    .arg(one.time_s, 0, 'g', 12)
                                    .arg(grouped.algorithm.c_str(), grouped.protocol.c_str())
                                    .arg(grouped.channels)
                                    .arg(grouped.time_s, 0, 'g', 12)));
        }
    // Every server's GPUs as one group (tensor parallelism): NVLink links are the server's own, so all together
    // take as long as one alone.
    std::vector<std::vector<int>> tp(f.gpus_of_node.begin(), f.gpus_of_node.begin() + 4);
    const double S = 268435456;
    const auto alone = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, tp[0], std::vector<int>(8, 0), S, how);
    const auto together = runGroupedNcclCollective(f.topology, r, CollectiveOp::AllReduce, tp, server, S, how);
    QVERIFY2(within(together.time_s, alone.time_s, 1e-9), qPrintable(QString("%1 vs %2").arg(together.time_s).arg(alone.time_s)));
    // Groups through one shared link share it: hosts 0, 1 on one switch, 2, 3 on another, one 50 GB/s link
    // between; rings {0, 2} and {1, 3} both cross it, so together their bandwidth part takes twice as long.
    Topology t;
    for (int i = 0; i < 4; ++i) t.addNode("h" + std::to_string(i), NodeKind::Host);
    const int a = t.addNode("a", NodeKind::Switch, 1), b = t.addNode("b", NodeKind::Switch, 1);
    for (int i = 0; i < 4; ++i) t.addLink(i, i < 2 ? a : b, 100 * GB, 0.5e-6, LinkKind::InfiniBand);
    t.addLink(a, b, 50 * GB, 0.5e-6, LinkKind::InfiniBand);
    Router rt(t);
    const std::vector<int> own = {0, 1, 2, 3, -1, -1};
    NcclChoice ring;
    ring.algo = Algo::Ring;
    ring.proto = Proto::Simple;
    const auto single = runGroupedNcclCollective(t, rt, CollectiveOp::AllReduce, {{0, 2}}, own, S, ring);
    const auto pair = runGroupedNcclCollective(t, rt, CollectiveOp::AllReduce, {{0, 2}, {1, 3}}, own, S, ring);
    QVERIFY(within(single.time_s - single.latency_s, S / (50 * GB), 1e-9));
    QVERIFY(within(pair.time_s - pair.latency_s, 2 * S / (50 * GB), 1e-9));
    QCOMPARE(pair.latency_s, single.latency_s);
    QVERIFY_THROWS_EXCEPTION(SimError, runGroupedNcclCollective(t, rt, CollectiveOp::AllReduce, {{0, 2}, {1}}, own, S, ring));
    QVERIFY_THROWS_EXCEPTION(SimError, runGroupedNcclCollective(t, rt, CollectiveOp::AllReduce, {{0, 4}}, own, S, ring));
    QCOMPARE(runGroupedNcclCollective(t, rt, CollectiveOp::AllReduce, {{0}, {1}}, own, S, ring).time_s, 0.0);
}

void TstNccl::insideOneServerAsNcclsModelAndItsMaintainersSay() {
    // One DGX H100, 8 GPUs, 8 GiB all-reduce. NCCL's maintainers (nccl-tests issue #212, 2024): NVLink's 450 GB/s
    // line rate is ~370 GB/s to NCCL's kernels ("BusBw ... with NCCL_ALGO=RING"); NVLS reaches a peak bus bandwidth
    // of ~480 GB/s, algorithm bandwidth ~275 GB/s. NCCL's own model: 18 links × 20.6 GB/s; NVLS 8 heads at 40 GB/s
    // (its search table within 370.8 / 8) × 0.85.
    const ScenarioFabric f = superpod();
    Router r(f.topology);
    std::vector<int> ranks, node_of;
    firstNodes(f, 1, ranks, node_of);
    const double S = 8 * std::pow(2.0, 30);
    NcclChoice how;
    how.architecture = "hopper";
    how.algo = Algo::Ring;
    const auto ring = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how);
    QCOMPARE(ring.protocol, std::string("Simple"));
    const double ring_bus = S * 2 * 7 / 8 / (ring.time_s - ring.latency_s);  // the bandwidth part
    QVERIFY2(within(ring_bus, 18 * 20.6e9, 1e-6), qPrintable(QString::number(ring_bus / 1e9)));
    how.algo = Algo::Nvls;
    const auto nvls = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how);
    QVERIFY2(within(nvls.algbw_Bps, 8 * 40e9 * 0.85, 0.001), qPrintable(QString::number(nvls.algbw_Bps / 1e9)));
    QVERIFY(within(nvls.time_s, S / (272e9) + 25e-6, 1e-9));
    QVERIFY2(within(nvls.busbw_Bps, 480e9, 0.10) && within(nvls.algbw_Bps, 275e9, 0.10), qPrintable(QString::number(nvls.busbw_Bps / 1e9)));
    QVERIFY(within(ring.busbw_Bps, 370e9, 0.10));
    QCOMPARE(nvls.channels, 8);
    // The tuner picks NVLS for large all-reduces inside the server and names it; the buffer crosses every GPU's
    // NVLink once each way.
    const auto tuned = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, {{}, {}, 0, "hopper"});
    QCOMPARE(tuned.algorithm, std::string("nvls"));
    double on_links = 0;
    for (double b : tuned.arc_bytes) on_links += b;
    QVERIFY(within(on_links, 2 * 8 * S, 1e-12));
    // Small messages go by the ring's cheap LL hops (NVLS pays 25 µs).
    QCOMPARE(runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 8, {{}, {}, 0, "hopper"}).protocol,
             std::string("LL"));
    // No NVLS across servers, for other ops, on Ampere or with a protocol other than Simple.
    std::vector<int> two, two_of;
    firstNodes(f, 2, two, two_of);
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, two, two_of, S, how));
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllGather, ranks, node_of, S, how));
    how.architecture = "ampere";
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how));
    how.architecture = "hopper";
    how.proto = Proto::LL;
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, how));
    QCOMPARE(algoFromString("nvls"), Algo::Nvls);
    // Without an architecture NCCL has a row for, NVLink runs at its line rate and nothing is NVLS.
    const auto bare = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, S, {});
    QCOMPARE(bare.algorithm, std::string("ring"));
    QVERIFY(within(S * 2 * 7 / 8 / (bare.time_s - bare.latency_s), 450e9, 1e-6));
    QCOMPARE(nvlinkShare("ampere"), 0.8);
    QCOMPARE(nvlsEfficiency("blackwell"), 0.74);
}

void TstNccl::acrossServersNvlsTreeAndCollNet() {
    // NVLS inside every DGX H100 and NCCL's double binary tree between them (NVLSTree, NCCL's pick for large
    // all-reduces on two servers), and CollNet's chain over switches that reduce in the network (SHARP), on the
    // SuperPOD sample: 8 rails of 400 Gb/s (50 GB/s a GPU's NIC) to Quantum-2 leaves, NVLink at NCCL's 370.8 GB/s.
    const ScenarioFabric f = superpod();
    QVERIFY(f.in_network_reduction);  // the catalog's QM9700: SHARPv3
    Router r(f.topology);
    const double S = 8 * std::pow(2.0, 30);
    std::vector<int> two, two_of, four, four_of, eight, eight_of;
    firstNodes(f, 2, two, two_of);
    firstNodes(f, 4, four, four_of);
    firstNodes(f, 8, eight, eight_of);
    NcclChoice how;
    how.architecture = "hopper";
    how.algo = Algo::NvlsTree;
    // Two servers: a GPU heads an eighth of the buffer, both trees carry half of it each way, so each NIC moves an
    // eighth each way (S / 400 GB/s) and NVLS inside the servers binds (S / 272 GB/s). Latency: NVLS's 25 µs and
    // 2 · log2(2) network hops of 14 µs (the leaf's 2 µs path is shorter).
    const auto t2 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, two, two_of, S, how);
    QCOMPARE(t2.algorithm, std::string("nvlstree"));
    QCOMPARE(t2.channels, 8);
    QVERIFY2(within(t2.time_s, S / 272e9 + 25e-6 + 2 * 14e-6, 1e-9), qPrintable(QString::number(t2.time_s * 1e3)));
    // Four servers: every server has three tree edges (one tree's inner node, the other's leaf, or a root with
    // two children and a leaf), so a NIC moves 1.5 eighths each way: S / 266.7 GB/s, the network binds; the trees
    // are two deep.
    const auto t4 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, four, four_of, S, how);
    QVERIFY(within(t4.latency_s, 25e-6 + 2 * 2 * 14e-6, 1e-9));
    QVERIFY2(within(t4.time_s - t4.latency_s, 1.5 * S / 8 / 50e9, 1e-4), qPrintable(QString::number(t4.time_s * 1e3)));
    // The tuner takes NVLS-tree on two servers and the ring beyond (its model halves NVLS-tree's network
    // bandwidth past two servers: NCCL's bwInter / 2), as users see: NVIDIA/nccl issue #1221, 8 × 400 Gb/s H100
    // servers, NVLS on or off changed the bus bandwidth on 2 servers (330 → 430 GB/s) and not on 4 or more.
    NcclChoice tuned;
    tuned.architecture = "hopper";
    QCOMPARE(runNcclCollective(f.topology, r, CollectiveOp::AllReduce, two, two_of, S, tuned).algorithm, std::string("nvlstree"));
    QCOMPARE(runNcclCollective(f.topology, r, CollectiveOp::AllReduce, four, four_of, S, tuned).algorithm, std::string("ring"));
    // At scale: NVIDIA's GTC 2024 figures as NCCL's maintainer quotes them (NVIDIA/nccl issue #1649, 2025-03-20):
    // multi-node all-reduce bus bandwidth about 370-380 GB/s with NVLS-tree and about 380 GB/s with the ring.
    const auto nt8 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, eight, eight_of, S, how);
    QVERIFY2(within(nt8.busbw_Bps, 375e9, 0.10), qPrintable(QString::number(nt8.busbw_Bps / 1e9)));
    NcclChoice ring = tuned;
    ring.algo = Algo::Ring;
    const auto ring8 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, eight, eight_of, S, ring);
    QVERIFY2(within(ring8.busbw_Bps, 380e9, 0.10), qPrintable(QString::number(ring8.busbw_Bps / 1e9)));
    // Not on Ampere, not inside one server, not for other ops, Simple only.
    std::vector<int> one, one_of;
    firstNodes(f, 1, one, one_of);
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, one, one_of, S, how));
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllGather, two, two_of, S, how));
    how.proto = Proto::LL;
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, two, two_of, S, how));
    how.proto.reset();
    how.architecture = "ampere";
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, two, two_of, S, how));

    // CollNet chain on eight servers: each channel's eighth climbs a chain of the 8 GPUs to the rail's GPU and
    // comes back down, so a GPU sends 14 eighths over its NVLink (1.75 S at 370.8 GB/s); the leaf's SHARP tree moves
    // an eighth each way on each NIC (S / 400 GB/s). Latency: 2 · 7 NVLink hops of 2.8 µs and a 30 µs network hop.
    how.architecture = "hopper";
    how.algo = Algo::CollNet;
    QVERIFY_THROWS_EXCEPTION(SimError, runNcclCollective(f.topology, r, CollectiveOp::AllReduce, eight, eight_of, S, how));  // not enabled
    how.in_network_reduction = true;
    const auto c8 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, eight, eight_of, S, how);
    QCOMPARE(c8.algorithm, std::string("collnet"));
    QVERIFY(within(c8.latency_s, 2 * 7 * 2.8e-6 + 30e-6, 1e-9));
    QVERIFY2(within(c8.time_s - c8.latency_s, 1.75 * S / (18 * 20.6e9), 1e-4), qPrintable(QString::number(c8.time_s * 1e3)));
    // The switches carry the eighth once each way whatever the server count: a NIC's bytes do not grow with it.
    double nic8 = 0;
    for (int a = 0; a < f.topology.arcCount(); ++a)
        if (f.topology.arc(a).kind != LinkKind::NvLink) nic8 = std::max(nic8, c8.arc_bytes[static_cast<std::size_t>(a)]);
    QVERIFY(within(nic8, S / 8, 1e-12));
    // The tuner never takes it by itself (NCCL runs CollNet only with NCCL_COLLNET_ENABLE=1).
    tuned.in_network_reduction = true;
    QVERIFY(runNcclCollective(f.topology, r, CollectiveOp::AllReduce, eight, eight_of, S, tuned).algorithm != "collnet");
    // Groups run together as each alone: two pairs of servers' NVLS-trees on separate rails' NICs.
    std::vector<int> host_server(static_cast<std::size_t>(f.topology.nodeCount()), -1);
    for (std::size_t i = 0; i < eight.size(); ++i) host_server[static_cast<std::size_t>(eight[i])] = eight_of[i];
    NcclChoice grouped;
    grouped.architecture = "hopper";
    grouped.algo = Algo::NvlsTree;
    const std::vector<std::vector<int>> pairs = {std::vector<int>(eight.begin(), eight.begin() + 16),
                                                 std::vector<int>(eight.begin() + 16, eight.begin() + 32)};
    const auto g = runGroupedNcclCollective(f.topology, r, CollectiveOp::AllReduce, pairs, host_server, S, grouped);
    QCOMPARE(g.algorithm, std::string("nvlstree"));
    QVERIFY2(within(g.time_s, t2.time_s, 1e-9), qPrintable(QString::number(g.time_s * 1e3)));
    // A second group whose servers' GPUs take turns in it cannot run the tree the first group's shape chose: said.
    std::vector<int> turns;
    for (int g = 0; g < 8; ++g)
        for (int k = 2; k < 4; ++k) turns.push_back(f.gpus_of_node[static_cast<std::size_t>(k)][static_cast<std::size_t>(g)]);
    QVERIFY_THROWS_EXCEPTION(SimError,
                             runGroupedNcclCollective(f.topology, r, CollectiveOp::AllReduce, {pairs[0], turns}, host_server, S, grouped));
    // And two groups of four servers' CollNet: each rail's reduction tree is its leaf, whose links no other
    // server uses, so together they take one group's time.
    grouped.algo = Algo::CollNet;
    grouped.in_network_reduction = true;
    const std::vector<std::vector<int>> halves = {std::vector<int>(eight.begin(), eight.begin() + 32),
                                                  std::vector<int>(eight.begin() + 32, eight.end())};
    const auto gc = runGroupedNcclCollective(f.topology, r, CollectiveOp::AllReduce, halves, host_server, S, grouped);
    const auto c4 = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, four, four_of, S, how);
    QCOMPARE(gc.algorithm, std::string("collnet"));
    QVERIFY2(within(gc.time_s, c4.time_s, 1e-9), qPrintable(QString::number(gc.time_s * 1e3)));
}

QTEST_GUILESS_MAIN(TstNccl)
#include "tst_nccl.moc"
