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
#include "fabric_fixtures.hpp"
#include "test_paths.hpp"

using namespace ct::sim;
using namespace ct::sim::net;

using namespace fabric_fixtures;

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
    void recomputingTouchedPartsEqualsTheWhole();
    void failedLinkReroutesAndNoPathStalls();
    void impossibleParametersAreClearErrors();
    void scenarioFabricAndHierarchicalAllReduce();
    void channelsLoadEveryRail();
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
        // A flow weighted k gets what its k copies get together (the NCCL model merges a channel's equal
        // transfers so): each flow repeated 1–3 times, against the same flows once with those weights.
        std::vector<std::vector<int>> copies;
        std::vector<double> weights;
        for (int f = 0; f < F; ++f) {
            weights.push_back(1 + static_cast<double>(rng() % 3));
            for (int k = 0; k < weights.back(); ++k) copies.push_back(paths[f]);
        }
        const auto apart = maxMinRates(copies, cap);
        const auto together = maxMinRates(paths, cap, &weights);
        std::size_t c = 0;
        for (int f = 0; f < F; ++f) {
            double sum = 0;
            for (int k = 0; k < weights[f]; ++k) sum += apart[c++];
            QVERIFY2(std::fabs(together[f] - sum) <= 1e-9 * sum,
                     qPrintable(QString("trial %1 flow %2: %3 vs %4").arg(trial).arg(f).arg(together[f]).arg(sum)));
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

namespace {
/// The flow simulation as it was before it recomputed only the parts a change touched: every active flow's rate
/// from scratch at every start and end of a flow. Finish times and each arc's bytes.
std::pair<std::vector<double>, std::vector<double>> everyFlowEveryTime(const Topology& t, Router& r, const std::vector<Flow>& flows) {
    std::vector<double> cap, arc_bytes(static_cast<std::size_t>(t.arcCount()), 0.0), finish(flows.size(), 0.0), left(flows.size());
    for (int a = 0; a < t.arcCount(); ++a) cap.push_back(t.arc(a).capacity_Bps);
    std::vector<std::pair<double, int>> arrivals;
    for (std::size_t f = 0; f < flows.size(); ++f) arrivals.emplace_back(flows[f].start_s + r.latency(flows[f].path), static_cast<int>(f));
    std::sort(arrivals.begin(), arrivals.end());
    std::size_t next = 0;
    std::vector<int> active;
    double now = 0;
    while (next < arrivals.size() || !active.empty()) {
        if (active.empty()) now = std::max(now, arrivals[next].first);
        for (; next < arrivals.size() && arrivals[next].first <= now; ++next) {
            active.push_back(arrivals[next].second);
            left[static_cast<std::size_t>(arrivals[next].second)] = flows[static_cast<std::size_t>(arrivals[next].second)].bytes;
        }
        std::vector<std::vector<int>> paths;
        std::vector<double> weights;
        for (int f : active) {
            paths.push_back(flows[static_cast<std::size_t>(f)].path);
            weights.push_back(flows[static_cast<std::size_t>(f)].weight);
        }
        const auto rate = maxMinRates(paths, cap, &weights);
        double dt = next < arrivals.size() ? arrivals[next].first - now : 1e300;
        for (std::size_t i = 0; i < active.size(); ++i) dt = std::min(dt, left[static_cast<std::size_t>(active[i])] / rate[i]);
        now += dt;
        std::vector<int> still;
        for (std::size_t i = 0; i < active.size(); ++i) {
            const auto f = static_cast<std::size_t>(active[i]);
            left[f] -= std::min(left[f], rate[i] * dt);
            if (left[f] <= 1e-9 * flows[f].bytes + 1e-6) {
                finish[f] = now;
                for (int a : flows[f].path) arc_bytes[static_cast<std::size_t>(a)] += flows[f].bytes - left[f];
            } else {
                still.push_back(active[i]);
            }
        }
        active.swap(still);
    }
    return {finish, arc_bytes};
}
}  // namespace

void TstNetwork::recomputingTouchedPartsEqualsTheWhole() {
    // Flows inside one leaf (parts of their own), across the spines (one big part), weighted, starting at a few
    // times so that parts merge as flows join them and split as flows end.
    Topology t = smallFatTree(4, 4, 2, 50 * GB, 1e-6);
    Router r(t);
    auto host = [&](int i) {
        std::string id = "h";  // appended: GCC 12's -Wrestrict misfires on "h" + std::string
        id += std::to_string(i);
        return t.find(id);
    };
    std::mt19937 rng(41);
    std::vector<Flow> flows;
    for (int i = 0; i < 300; ++i) {
        const int a = static_cast<int>(rng() % 16);
        const int b =
            i % 3 == 0 ? (a / 4) * 4 + (a % 4 + 1 + static_cast<int>(rng() % 3)) % 4 : static_cast<int>((a + 1 + rng() % 15) % 16);
        Flow f{host(a), host(b), 1e6 * (1 + rng() % 500), 1e-3 * (rng() % 8), {}};
        f.weight = 1 + static_cast<double>(rng() % 3);
        f.path = r.route(f.src, f.dst);
        flows.push_back(f);
    }
    const auto [finish, arc_bytes] = everyFlowEveryTime(t, r, flows);
    const FlowSimResult res = simulateFlows(t, r, flows);
    QVERIFY(res.rate_recomputations > 100);
    for (std::size_t f = 0; f < flows.size(); ++f)
        QVERIFY2(within(flows[f].finish_s, finish[f], 1e-12),
                 qPrintable(QString("flow %1: %2 vs %3").arg(f).arg(flows[f].finish_s).arg(finish[f])));
    for (std::size_t a = 0; a < arc_bytes.size(); ++a) QVERIFY(within(res.arc_bytes[a], arc_bytes[a], 1e-12));
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
