// Network model against the SimGrid reference results (docs/reference/network.md), a brute-force
// max-min checker, conservation, the ring all-reduce formula, and link failures (issue 3).
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/network.hpp>

#include <QTest>

#include <cmath>
#include <random>
#include "test_paths.hpp"

using namespace ct::sim;
using namespace ct::sim::net;

namespace {
constexpr double GB = 1e9;
bool within(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

/// Hosts h0..h(n−1) on one switch, 50 GB/s links, 1 µs on the host's link only (the switch side 0).
Topology star(int n, double bw = 50 * GB, double lat = 1e-6) {
    Topology t;
    for (int i = 0; i < n; ++i) t.addNode("h" + std::to_string(i), NodeKind::Host);
    const int s = t.addNode("sw", NodeKind::Switch, 1);
    for (int i = 0; i < n; ++i) t.addLink(i, s, bw, lat / 2, LinkKind::InfiniBand);
    return t;
}

/// Every GPU of the first `nodes` servers of a fabric as ranks, node by node, and each rank's node.
void firstNodes(const ScenarioFabric& f, int nodes, std::vector<int>& ranks, std::vector<int>& node_of) {
    for (int n = 0; n < nodes; ++n)
        for (int g : f.gpus_of_node[static_cast<std::size_t>(n)]) {
            ranks.push_back(g);
            node_of.push_back(n);
        }
}
}  // namespace

class TstNetwork : public QObject {
    Q_OBJECT
private slots:
    void equalFlowsShareOneLink_data();
    void equalFlowsShareOneLink();
    void unequalSizesFinishByProgressiveFilling();
    void classicMaxMinThreeNodes();
    void ringAllReduceOnTheReferenceFatTree();
    void isolatedRingMatchesTheFormula();
    void bruteForceMaxMinPropertyOnRandomGraphs();
    void bytesSentEqualBytesDelivered();
    void failedLinkReroutesAndNoPathStalls();
    void impossibleParametersAreClearErrors();
    void scenarioFabricAndHierarchicalAllReduce();
    void channelsLoadEveryRail();
    void ncclAlgorithmsEqualTheirFormulas();
    void ncclTunerPicksAsNcclDoes();
    void ncclPerChannelCeilings();
    void groupsRunAsEachAloneSharingLinks();
    void upDownRoutesAreShortestPaths();
};

void TstNetwork::equalFlowsShareOneLink_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("rate");
    QTest::addColumn<double>("finish");
    QTest::newRow("1") << 1 << 50.0 << 0.020001;
    QTest::newRow("2") << 2 << 25.0 << 0.040001;
    QTest::newRow("4") << 4 << 12.5 << 0.080001;
    QTest::newRow("8") << 8 << 6.25 << 0.160001;
    QTest::newRow("16") << 16 << 3.125 << 0.320001;
}

void TstNetwork::equalFlowsShareOneLink() {
    QFETCH(int, n);
    QFETCH(double, rate);
    QFETCH(double, finish);
    // One 50 GB/s link with 1 µs between two nodes, n flows of 1 GB.
    Topology t;
    const int a = t.addNode("a", NodeKind::Host), b = t.addNode("b", NodeKind::Host);
    t.addLink(a, b, 50 * GB, 1e-6, LinkKind::InfiniBand);
    Router r(t);
    std::vector<Flow> flows(static_cast<std::size_t>(n), Flow{a, b, 1 * GB, 0.0, {}});
    simulateFlows(t, r, flows);
    for (const auto& f : flows) {
        QVERIFY2(within(f.rate_Bps / GB, rate, 0.01), qPrintable(QString::number(f.rate_Bps / GB)));
        QVERIFY2(within(f.finish_s, finish, 0.01), qPrintable(QString::number(f.finish_s, 'g', 10)));
    }
}

void TstNetwork::unequalSizesFinishByProgressiveFilling() {
    Topology t;
    const int a = t.addNode("a", NodeKind::Host), b = t.addNode("b", NodeKind::Host);
    t.addLink(a, b, 50 * GB, 1e-6, LinkKind::InfiniBand);
    Router r(t);
    std::vector<Flow> flows;
    for (double g : {1.0, 2.0, 3.0, 4.0}) flows.push_back({a, b, g * GB, 0.0, {}});
    simulateFlows(t, r, flows);
    const double want[] = {0.080001, 0.140001, 0.180001, 0.200001};
    for (int i = 0; i < 4; ++i) QVERIFY2(within(flows[i].finish_s, want[i], 0.01), qPrintable(QString::number(flows[i].finish_s, 'g', 10)));
}

void TstNetwork::classicMaxMinThreeNodes() {
    Topology t;
    const int A = t.addNode("A", NodeKind::Switch), B = t.addNode("B", NodeKind::Switch), C = t.addNode("C", NodeKind::Switch);
    t.addLink(A, B, 12.5 * GB, 0, LinkKind::InfiniBand);
    t.addLink(B, C, 5 * GB, 0, LinkKind::InfiniBand);
    Router r(t);
    std::vector<Flow> flows{{A, C, 10 * GB, 0, {}}, {A, B, 10 * GB, 0, {}}, {B, C, 10 * GB, 0, {}}};
    // Rates at the start.
    std::vector<std::vector<int>> paths;
    for (auto& f : flows) paths.push_back(r.route(f.src, f.dst));
    std::vector<double> cap;
    for (int a = 0; a < t.arcCount(); ++a) cap.push_back(t.arc(a).capacity_Bps);
    const auto rates = maxMinRates(paths, cap);
    QVERIFY(within(rates[0] / GB, 2.5, 0.01));
    QVERIFY(within(rates[1] / GB, 10.0, 0.01));
    QVERIFY(within(rates[2] / GB, 2.5, 0.01));
    simulateFlows(t, r, flows);
    QVERIFY(within(flows[0].finish_s, 4.0, 0.01));
    QVERIFY(within(flows[1].finish_s, 1.0, 0.01));
    QVERIFY(within(flows[2].finish_s, 4.0, 0.01));
}

void TstNetwork::ringAllReduceOnTheReferenceFatTree() {
    Topology t = smallFatTree(4, 4, 2, 50 * GB, 1e-6);
    Router r(t);
    std::vector<int> ranks;
    for (int h = 0; h < 16; ++h) ranks.push_back(t.find("h" + std::to_string(h)));
    const CollectiveResult res = runCollective(t, r, CollectiveOp::AllReduce, ranks, std::pow(2.0, 30));
    qInfo("ring all-reduce: %.9f s (reference 0.040385318), bus bandwidth %.2f GB/s", res.time_s, res.busbw_Bps / GB);
    QVERIFY(within(res.time_s, 0.040385318, 0.01));
    QVERIFY(within(res.busbw_Bps / GB, 49.85, 0.01));
    // Every host up and down link carries 30 chunks of 64 MiB.
    for (int h = 0; h < 16; ++h)
        for (int a : t.out(ranks[h])) {
            QVERIFY(within(res.arc_bytes[a], 2.013e9, 0.01));
            QVERIFY(within(res.arc_bytes[a ^ 1], 2.013e9, 0.01));
        }
    QCOMPARE(res.stalled_pairs, 0);
}

void TstNetwork::isolatedRingMatchesTheFormula() {
    for (int n : {2, 5, 8}) {
        Topology t = star(n);
        Router r(t);
        std::vector<int> ranks;
        for (int i = 0; i < n; ++i) ranks.push_back(i);
        const double S = 3e9, B = 50 * GB, L = 1e-6;  // two half-links of 0.5 µs per hop
        const auto res = runCollective(t, r, CollectiveOp::AllReduce, ranks, S);
        const double want = 2.0 * (n - 1) / n * S / B + 2.0 * (n - 1) * L;
        QVERIFY2(within(res.time_s, want, 1e-6), qPrintable(QString("n=%1 got %2 want %3").arg(n).arg(res.time_s).arg(want)));
    }
}

void TstNetwork::bruteForceMaxMinPropertyOnRandomGraphs() {
    std::mt19937 rng(12345);
    for (int trial = 0; trial < 60; ++trial) {
        Topology t;
        const int nodes = 4 + static_cast<int>(rng() % 6);
        for (int i = 0; i < nodes; ++i) t.addNode("s" + std::to_string(i), NodeKind::Switch);
        for (int i = 1; i < nodes; ++i) t.addLink(i, static_cast<int>(rng() % i), 1 + rng() % 20, 0, LinkKind::InfiniBand);
        for (int e = 0; e < nodes; ++e) {
            const int a = static_cast<int>(rng() % nodes), b = static_cast<int>(rng() % nodes);
            if (a != b) t.addLink(a, b, 1 + rng() % 20, 0, LinkKind::InfiniBand);
        }
        Router r(t);
        std::vector<std::vector<int>> paths;
        const int F = 2 + static_cast<int>(rng() % 12);
        for (int f = 0; f < F; ++f) {
            const int a = static_cast<int>(rng() % nodes);
            int b = static_cast<int>(rng() % nodes);
            if (a == b) b = (b + 1) % nodes;
            paths.push_back(r.route(a, b));
            QVERIFY(!paths.back().empty());
        }
        std::vector<double> cap;
        for (int a = 0; a < t.arcCount(); ++a) cap.push_back(t.arc(a).capacity_Bps);
        const auto rate = maxMinRates(paths, cap);
        std::vector<double> load(cap.size(), 0.0);
        for (int f = 0; f < F; ++f)
            for (int a : paths[f]) load[a] += rate[f];
        for (std::size_t a = 0; a < cap.size(); ++a) QVERIFY(load[a] <= cap[a] * (1 + 1e-9));  // feasible
        // Max-min: every flow crosses a saturated arc on which no other flow gets more than it.
        for (int f = 0; f < F; ++f) {
            bool has_bottleneck = false;
            for (int a : paths[f]) {
                if (load[a] < cap[a] * (1 - 1e-9)) continue;
                bool f_is_max = true;
                for (int g = 0; g < F; ++g)
                    if (std::find(paths[g].begin(), paths[g].end(), a) != paths[g].end() && rate[g] > rate[f] * (1 + 1e-9))
                        f_is_max = false;
                has_bottleneck = has_bottleneck || f_is_max;
            }
            QVERIFY2(has_bottleneck, qPrintable(QString("trial %1 flow %2 has no bottleneck").arg(trial).arg(f)));
        }
    }
}

void TstNetwork::bytesSentEqualBytesDelivered() {
    Topology t = smallFatTree(4, 4, 2, 50 * GB, 1e-6);
    Router r(t);
    std::mt19937 rng(3);
    std::vector<Flow> flows;
    for (int i = 0; i < 200; ++i) {
        const int a = static_cast<int>(rng() % 16), b = static_cast<int>((a + 1 + rng() % 15) % 16);
        flows.push_back(
            {t.find("h" + std::to_string(a)), t.find("h" + std::to_string(b)), 1e6 * (1 + rng() % 1000), 1e-4 * (rng() % 50), {}});
    }
    const FlowSimResult res = simulateFlows(t, r, flows);
    QVERIFY(res.rate_recomputations > 1);
    QVERIFY(within(res.bytes_delivered, res.bytes_sent, 1e-9));
    double on_host_uplinks = 0;
    for (int h = 0; h < 16; ++h)
        for (int a : t.out(h)) on_host_uplinks += res.arc_bytes[a];
    QVERIFY(within(on_host_uplinks, res.bytes_sent, 1e-9));  // every byte leaves its host once
    for (const auto& f : flows) QVERIFY(std::isfinite(f.finish_s) && f.finish_s >= f.start_s);
}

void TstNetwork::failedLinkReroutesAndNoPathStalls() {
    Topology t = smallFatTree(4, 4, 2, 50 * GB, 1e-6);
    Router r(t);
    const int h0 = t.find("h0"), h4 = t.find("h4");
    const auto before = r.route(h0, h4);
    QCOMPARE(before.size(), std::size_t(4));  // host → leaf → spine → leaf → host
    const int spine_cable = t.arc(before[1]).cable;
    t.setCableFailed(spine_cable, true);
    const auto after = r.route(h0, h4);
    QCOMPARE(after.size(), std::size_t(4));
    QVERIFY(t.arc(after[1]).cable != spine_cable);  // through the other spine
    // Cut h4 off entirely: no path, the flow stalls, the collective says so.
    t.setCableFailed(t.arc(t.out(h4)[0]).cable, true);
    QVERIFY(r.route(h0, h4).empty());
    std::vector<Flow> flows{{h0, h4, 1 * GB, 0, {}}};
    const auto res = simulateFlows(t, r, flows);
    QCOMPARE(res.stalled, 1);
    QVERIFY(flows[0].stalled);
    std::vector<int> ranks;
    for (int h = 0; h < 16; ++h) ranks.push_back(h);
    QVERIFY(runCollective(t, r, CollectiveOp::AllReduce, ranks, 1e9).stalled_pairs > 0);
}

void TstNetwork::impossibleParametersAreClearErrors() {
    ClusterParams p;
    p.nodes = 600;
    p.gpus_per_node = 8;
    p.radix = 16;
    p.levels = 2;
    try {
        buildCluster(p);
        QFAIL("a radix-16 two-level tree for 4800 GPUs was accepted");
    } catch (const SimError& e) {
        QVERIFY2(QString(e.what()).contains("radix 16"), e.what());
    }
    p.radix = 7;
    QVERIFY_THROWS_EXCEPTION(SimError, buildCluster(p));
    Topology t = star(4);
    Router r(t);
    QVERIFY_THROWS_EXCEPTION(SimError, runCollective(t, r, CollectiveOp::AllReduce, {0, 1}, 0));
    QVERIFY_THROWS_EXCEPTION(SimError, runCollective(t, r, CollectiveOp::AllReduce, {}, 1e6));
    QVERIFY_THROWS_EXCEPTION(SimError, collectiveFromString("broadcast-everything"));
}

void TstNetwork::scenarioFabricAndHierarchicalAllReduce() {
    auto rep = ct::model::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    const ScenarioFabric f = buildScenarioFabric(rep.scenario, rep.catalog);
    QCOMPARE(f.gpus_of_node.size(), std::size_t(32));
    QCOMPARE(static_cast<int>(f.topology.hosts().size()), 256);
    Router r(f.topology);
    std::vector<int> ranks, node_of;
    firstNodes(f, 32, ranks, node_of);
    const double S = std::pow(2.0, 30);
    const auto flat = runCollective(f.topology, r, CollectiveOp::AllReduce, ranks, S);
    const auto hier = runCollective(f.topology, r, CollectiveOp::HierarchicalAllReduce, ranks, S, node_of);
    qInfo("256 GPUs, 1 GiB: flat ring %.2f ms (busbw %.1f GB/s), hierarchical %.2f ms (busbw %.1f GB/s)", 1e3 * flat.time_s,
          flat.busbw_Bps / GB, 1e3 * hier.time_s, hier.busbw_Bps / GB);
    QVERIFY(hier.time_s < flat.time_s);
    // The flat ring is limited by the 400 Gb/s NICs: bus bandwidth at most 50 GB/s.
    QVERIFY(flat.busbw_Bps <= 50 * GB * 1.0001);
}

// Issue 41: NCCL runs a ring collective as one channel per rail, so two DGX H100 use all 8 NICs, not one.
void TstNetwork::channelsLoadEveryRail() {
    auto rep = ct::model::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json");
    const ScenarioFabric f = buildScenarioFabric(rep.scenario, rep.catalog);
    const Topology& t = f.topology;
    Router r(t);
    auto ranksOf = [&](int nodes) {
        std::pair<std::vector<int>, std::vector<int>> rk;
        for (int n = 0; n < nodes; ++n)
            for (int g = 0; g < 8; ++g) {
                rk.first.push_back(f.gpus_of_node[n][g]);
                rk.second.push_back(n);
            }
        return rk;
    };
    // Bytes each GPU's NIC sent into the fabric, and bytes on links between switches.
    auto nicBytes = [&](const CollectiveResult& c, const std::vector<int>& ranks) {
        std::vector<double> out;
        for (int h : ranks)
            for (int a = 0; a < t.arcCount(); ++a)
                if (t.arc(a).from == h && t.node(t.arc(a).to).kind == NodeKind::Switch) out.push_back(c.arc_bytes[a]);
        return out;
    };
    auto switchBytes = [&](const CollectiveResult& c) {
        double b = 0;
        for (int a = 0; a < t.arcCount(); ++a)
            if (t.node(t.arc(a).from).kind == NodeKind::Switch && t.node(t.arc(a).to).kind == NodeKind::Switch) b += c.arc_bytes[a];
        return b;
    };
    const double S = 8 * std::pow(2.0, 30);
    const auto [ranks, node_of] = ranksOf(2);
    QCOMPARE(defaultChannels(node_of), 8);
    const auto one = runCollective(t, r, CollectiveOp::AllReduce, ranks, S);
    const auto eight = runChannelCollective(t, r, CollectiveOp::AllReduce, ranks, node_of, S, 8);
    qInfo("2 x DGX H100, 8 GiB all-reduce: one ring busbw %.1f GB/s, 8 channels %.1f GB/s", one.busbw_Bps / GB, eight.busbw_Bps / GB);
    // One ring leaves each node through one NIC; eight channels through all 16, evenly, and stay on their rails.
    const auto nic1 = nicBytes(one, ranks), nic8 = nicBytes(eight, ranks);
    QCOMPARE(nic8.size(), std::size_t(16));
    QCOMPARE(std::count_if(nic1.begin(), nic1.end(), [](double b) { return b > 0; }), std::ptrdiff_t(2));
    for (double b : nic8) QVERIFY2(within(b, nic8.front(), 1e-9) && b > 0, qPrintable(QString::number(b)));
    QCOMPARE(switchBytes(eight), 0.0);
    // Each NIC moves 2(n−1)/n · S / 8; at 50 GB/s the bus bandwidth is 8 × 50 GB/s (NVLink's 450 GB/s a GPU is not
    // the bound), one ring's 50 GB/s.
    QVERIFY(within(eight.busbw_Bps, 400 * GB, 0.01));
    QVERIFY(within(one.busbw_Bps, 50 * GB, 0.01));
    // One channel is the single ring, to the last digit; all-gather and reduce-scatter take half the steps.
    QCOMPARE(runChannelCollective(t, r, CollectiveOp::AllReduce, ranks, node_of, S, 1).time_s, one.time_s);
    const auto ag = runChannelCollective(t, r, CollectiveOp::AllGather, ranks, node_of, S, 8);
    QCOMPARE(ag.steps, 15);
    QVERIFY(within(ag.busbw_Bps, 400 * GB, 0.01));
    // Inside one node the rings are NVLink's either way.
    const auto [r1, n1] = ranksOf(1);
    const auto in1 = runCollective(t, r, CollectiveOp::AllReduce, r1, S);
    const auto in8 = runChannelCollective(t, r, CollectiveOp::AllReduce, r1, n1, S, 8);
    QVERIFY(within(in8.busbw_Bps, in1.busbw_Bps, 0.01));
    // A node that comes back in the ring order: channels cannot follow rails; the default is one ring.
    std::vector<int> mixed = ranks, mixed_of = node_of;
    std::swap(mixed[7], mixed[8]);
    std::swap(mixed_of[7], mixed_of[8]);
    QCOMPARE(defaultChannels(mixed_of), 1);
    QVERIFY_THROWS_EXCEPTION(SimError, runChannelCollective(t, r, CollectiveOp::AllReduce, mixed, mixed_of, S, 8));
    QVERIFY_THROWS_EXCEPTION(SimError, runChannelCollective(t, r, CollectiveOp::AllReduce, ranks, node_of, S, 0));
}

void TstNetwork::ncclAlgorithmsEqualTheirFormulas() {
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

void TstNetwork::ncclPerChannelCeilings() {
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
    // The tuner sees the ceilings: at 128 MiB LL128's ring is capped below Simple's, so Simple runs.
    const auto tuned =
        runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 128 * std::pow(2.0, 20), {{}, {}, 0, "hopper"});
    QCOMPARE(tuned.algorithm + "/" + tuned.protocol, std::string("ring/Simple"));
    const auto untuned = runNcclCollective(f.topology, r, CollectiveOp::AllReduce, ranks, node_of, 128 * std::pow(2.0, 20), {});
    QCOMPARE(untuned.algorithm + "/" + untuned.protocol, std::string("ring/LL128"));
}

void TstNetwork::groupsRunAsEachAloneSharingLinks() {
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

void TstNetwork::ncclTunerPicksAsNcclDoes() {
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

void TstNetwork::upDownRoutesAreShortestPaths() {
    // A 3-level rail-optimized cluster; the up/down router must find paths as short as a full search.
    ClusterParams p;
    p.nodes = 30;  // 120 GPUs; radix 8 in 3 levels connects at most 128
    p.gpus_per_node = 4;
    p.radix = 8;
    p.levels = 3;
    Topology layered = buildCluster(p);
    Topology plain = buildCluster(p);
    plain.setLayered(false);
    Router fast(layered), slow(plain);
    std::mt19937 rng(5);
    const auto hosts = layered.hosts();
    auto cost = [](const Topology& t, const std::vector<int>& path) {
        double c = 0;
        for (int a : path) c += t.arc(a).latency_s * 1e9 * 1024 + 1;
        return c;
    };
    for (int i = 0; i < 500; ++i) {
        const int a = hosts[rng() % hosts.size()], b = hosts[rng() % hosts.size()];
        if (a == b) continue;
        const auto pf = fast.route(a, b), ps = slow.route(a, b);
        QVERIFY(!pf.empty());
        QCOMPARE(cost(layered, pf), cost(plain, ps));
        QCOMPARE(layered.arc(pf.front()).from, a);
        QCOMPARE(layered.arc(pf.back()).to, b);
    }
    // With a failed link, routes avoid it.
    const int h = hosts[0], far = hosts[hosts.size() - 1];
    const auto path = fast.route(h, far);
    layered.setCableFailed(layered.arc(path[2]).cable, true);
    const auto again = fast.route(h, far);
    QVERIFY(!again.empty());
    for (int a : again) QVERIFY(layered.arcUp(a));
}

QTEST_GUILESS_MAIN(TstNetwork)
#include "tst_network.moc"
