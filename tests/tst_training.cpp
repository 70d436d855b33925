// Training parallelism on the simulated fabric (issue 20): the 1F1B bubble, stage-to-stage sends, all-to-all
// against its alpha-beta formula, the layout's placement, and published runs — Llama 3 405B (Meta, 2024) and
// Megatron-LM's GPT 1T (Narayanan et al., SC21) — within the tolerances the issue states.
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

#include "cli_run.hpp"
#include "sim_fixtures.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/fabric.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/jobs.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/training.hpp>

#include <cmath>
#include <random>
#include <set>
#include "test_paths.hpp"

using namespace ct;
using namespace ct::sim;

namespace {
constexpr double GB = 1e9;
bool within(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

std::vector<int> packedRanks(const net::ScenarioFabric& f) {
    std::vector<int> ranks;
    for (int n : f.cabling_order) ranks.insert(ranks.end(), f.gpus_of_node[n].begin(), f.gpus_of_node[n].end());
    return ranks;
}

/// A generated hall of `gpus` GPUs of `server`, its fabric with `link_gbps` NICs.
struct Cluster {
    model::Scenario scenario;
    net::ScenarioFabric fabric;
    std::vector<int> ranks;
};
Cluster cluster(int gpus, const char* server, double link_gbps) {
    model::HallParams p;
    p.gpus = gpus;
    p.server_model = server;
    p.topology = "rail-optimized";
    p.link_speed_gbps = link_gbps;
    Cluster c{model::buildHall(p), {}, {}};
    c.fabric = net::buildScenarioFabric(c.scenario, model::Catalog::builtin());
    c.ranks = packedRanks(c.fabric);
    c.ranks.resize(static_cast<std::size_t>(gpus));
    return c;
}

/// A GPU of the catalog, as the training model sees it.
GpuRoofline catalogGpu(const char* id) { return gpuRoofline(*model::Catalog::builtin().gpu(id)); }

/// A GPU whose every kernel reaches `share` of a `peak` FLOP/s: memory-bound kernels free, no waves, no gaps.
GpuRoofline flatGpu(double peak, double share) {
    GpuRoofline g;
    g.gpu = "flat test GPU";
    g.architecture = "hopper";
    g.peak_flops = peak;
    g.matmul = g.attention = g.memory = share;
    g.matmul_sustained = true;  // every chip the median one: chip_spread 0 (said in a warning)
    g.memory_bw = 1e30;
    return g;
}

/// A shipped workload (resources/jobs): its one job, checked to load without findings.
model::Job shippedJob(const char* name) {
    const auto r = model::loadJobsFile(std::string(CT_RESOURCE_DIR) + "/jobs/" + name);
    for (const auto& d : r.diagnostics) qWarning("%s: %s", name, d.toString().c_str());
    if (!r.diagnostics.empty() || r.jobs.size() != 1) qFatal("%s: expected one job and no findings", name);
    return r.jobs[0];
}
}  // namespace

class TstTraining : public QObject {
    Q_OBJECT
private slots:
    void bubbleIsTheOneF1BFormula();
    void stageSendsTakeSizeOverBandwidthPlusLatency();
    void allToAllMatchesAlphaBeta();
    void layoutFollowsTheHierarchy();
    void collectivesRunAsNcclDoes();
    void computeIsEachKernelsRoofline();
    void memoryBoundKernelsAndTheOptimizer();
    void overridesAndWarningsAreNamed();
    void aSynchronousStepGoesAtItsSlowestChip();
    void publishedRunsFromRooflines();
    void badLayoutsAreClearErrors();
    void theModelShapeRoundTripsAndIsChecked();
    void theCliRunsTheSameStep();
};

void TstTraining::bubbleIsTheOneF1BFormula() {
    // No fabric (every transfer free): the pipeline is (m + p − 1) slots, (p − 1) of them idle.
    net::Topology none;
    net::Router r(none);
    for (int p : {2, 4, 8})
        for (int m : {1, 4, 16, 64}) {
            model::TrainingSpec t;
            t.model_params = 7e9;
            t.layers = 32;
            t.hidden_size = 4096;
            t.seq_len = 4096;
            t.tensor_parallel = 8;
            t.pipeline_parallel = p;
            t.tokens_per_step = 4096.0 * m * 2;  // DP 2
            const auto st = trainingStep(none, r, t, std::vector<int>(static_cast<std::size_t>(8 * p * 2), 0), flatGpu(989e12, 0.4));
            QCOMPARE(st.layout.micro_batches, m);
            const double share = st.bubble_s / st.step_s, want = (p - 1.0) / (m + p - 1.0);
            QVERIFY2(std::fabs(share - want) < 1e-6, qPrintable(QString("p %1 m %2: %3 vs %4").arg(p).arg(m).arg(share).arg(want)));
        }
    // Interleaved: the bubble shrinks by the number of model chunks.
    model::TrainingSpec t;
    t.model_params = 7e9;
    t.layers = 32;
    t.hidden_size = 4096;
    t.seq_len = 4096;
    t.tensor_parallel = 8;
    t.pipeline_parallel = 4;
    t.virtual_stages = 2;
    t.tokens_per_step = 4096.0 * 8;
    const auto st = trainingStep(none, r, t, std::vector<int>(32, 0), flatGpu(989e12, 0.4));
    QVERIFY(std::fabs(st.bubble_s / st.step_s - 1.5 / 9.5) < 1e-6);
}

void TstTraining::stageSendsTakeSizeOverBandwidthPlusLatency() {
    // Two nodes, TP 8 in each, PP 2: every GPU sends its 1/8 shard of a micro-batch's activations to the same
    // GPU of the other node, on its own rail's leaf (two 1 µs links at 50 GB/s), nothing else on the fabric.
    auto l = fixtures::sample("superpod-h100-su");
    const net::ScenarioFabric f = net::buildScenarioFabric(l.scenario, l.catalog);
    std::vector<int> ranks = packedRanks(f);
    ranks.resize(16);
    net::ScenarioFabric copy = f;
    net::Router r(copy.topology);
    model::TrainingSpec t;
    t.model_params = 1e9;
    t.layers = 16;
    t.hidden_size = 4096;
    t.seq_len = 4096;
    t.tensor_parallel = 8;
    t.pipeline_parallel = 2;
    t.tokens_per_step = 4096.0 * 4;
    const auto st = trainingStep(copy.topology, r, t, ranks, catalogGpu("h100-sxm5-80gb"));
    const double shard = 4096.0 * 4096 * 2 / 8;  // bytes one GPU sends per micro-batch and direction
    const double one = shard / (50 * GB) + 2e-6;
    QVERIFY2(within(st.pp_s / st.pipeline_slots, 2 * one, 1e-6),
             qPrintable(QString("%1 vs %2").arg(st.pp_s / st.pipeline_slots).arg(2 * one)));
}

void TstTraining::allToAllMatchesAlphaBeta() {
    // n hosts on one switch (B = 50 GB/s, α = 1 µs a path): pairwise exchange = (n − 1)(S/n / B + α).
    for (int n : {2, 4, 8, 16}) {
        net::Topology t;
        for (int i = 0; i < n; ++i) t.addNode("h" + std::to_string(i), net::NodeKind::Host);
        const int sw = t.addNode("sw", net::NodeKind::Switch, 1);
        for (int i = 0; i < n; ++i) t.addLink(i, sw, 50 * GB, 0.5e-6, net::LinkKind::InfiniBand);
        net::Router r(t);
        std::vector<int> g;
        for (int i = 0; i < n; ++i) g.push_back(i);
        const double S = 64e6;
        const double want = (n - 1) * (S / n / (50 * GB) + 1e-6);
        QVERIFY(within(net::runCollective(t, r, net::CollectiveOp::AllToAll, g, S).time_s, want, 1e-9));
        QVERIFY(within(net::runGroupedCollective(t, r, net::CollectiveOp::AllToAll, {g}, S).time_s, want, 1e-9));
    }
}

void TstTraining::layoutFollowsTheHierarchy() {
    // 256 GPUs of 32 nodes: TP 8 fills a node, PP stages are on different nodes, DP rings stay on one rail.
    const Cluster c = cluster(256, "dgx-h100", 400);
    const auto& topo = c.fabric.topology;
    auto nodeOf = [&](int rank) {
        const std::string& id = topo.node(c.ranks[rank]).id;
        return id.substr(0, id.rfind('/'));
    };
    auto gpuOf = [&](int rank) {
        const std::string& id = topo.node(c.ranks[rank]).id;
        return id.substr(id.rfind('/'));
    };
    for (const char* order : {"tp-cp-dp-pp", "tp-cp-pp-dp"}) {
        model::TrainingSpec t;
        t.model_params = 1e9;
        t.tokens_per_step = 1e6;
        t.tensor_parallel = 8;
        t.pipeline_parallel = 4;
        t.rank_order = order;
        const TrainingLayout L = trainingLayout(t, 256);
        QCOMPARE(L.dp, 8);
        for (int d = 0; d < L.dp; ++d)
            for (int p = 0; p < L.pp; ++p) {
                std::set<std::string> nodes;
                for (int k = 0; k < 8; ++k) nodes.insert(nodeOf(L.rank(k, 0, d, p)));
                QCOMPARE(nodes.size(), std::size_t(1));                                            // TP inside the NVLink domain
                if (p > 0) QVERIFY(nodeOf(L.rank(0, 0, d, p)) != nodeOf(L.rank(0, 0, d, p - 1)));  // PP across nodes
                if (d > 0) QCOMPARE(gpuOf(L.rank(3, 0, d, p)), gpuOf(L.rank(3, 0, d - 1, p)));     // DP on one rail
            }
    }
}

void TstTraining::collectivesRunAsNcclDoes() {
    // 256 GPUs, TP 8 × PP 2 × DP 16: every server's tensor-parallel all-reduce runs as NCCL runs it inside one DGX
    // H100 (the tuner's pick, NVLS, a head per GPU, with its latency), all 32 at once as fast as one alone (each on
    // its own NVSwitch); without the servers known, plain rings as before.
    const Cluster c = cluster(256, "dgx-h100", 400);
    model::TrainingSpec t;
    t.model_params = 8e9;
    t.layers = 32;
    t.hidden_size = 4096;
    t.seq_len = 4096;
    t.tokens_per_step = 4096.0 * 64;
    t.tensor_parallel = 8;
    t.pipeline_parallel = 2;
    net::Router r(c.fabric.topology);
    const net::JobComm comm = net::jobComm(c.fabric);
    const GpuRoofline gpu = catalogGpu("h100-sxm5-80gb");
    const TrainingStep st = trainingStep(c.fabric.topology, r, t, c.ranks, gpu, 1.0, &comm);
    QCOMPARE(st.collectives.size(), std::size_t(2));
    const StepCollective& tp = st.collectives[0];
    QCOMPARE(tp.what, std::string("TP all-reduce"));
    QCOMPARE(tp.groups, 32);
    const std::vector<int> server(c.ranks.begin(), c.ranks.begin() + 8);
    net::NcclChoice how;
    how.architecture = "hopper";
    const auto alone =
        net::runNcclCollective(c.fabric.topology, r, net::CollectiveOp::AllReduce, server, std::vector<int>(8, 0), tp.bytes, how);
    QCOMPARE(tp.algorithm + "/" + tp.protocol, std::string("nvls/Simple"));
    QCOMPARE(alone.algorithm, tp.algorithm);
    QCOMPARE(tp.channels, 8);
    QVERIFY2(within(tp.seconds, alone.time_s, 1e-9), qPrintable(QString("%1 vs %2").arg(tp.seconds).arg(alone.time_s)));
    QCOMPARE(tp.latency_s, 25e-6);  // NVLS: one NVLink hop of NCCL's
    QCOMPARE(st.collectives[1].what, std::string("DP all-reduce"));
    QCOMPARE(st.collectives[1].ranks, 16);
    // Plain rings: no algorithm named.
    const TrainingStep plain = trainingStep(c.fabric.topology, r, t, c.ranks, gpu);
    QVERIFY(plain.collectives[0].algorithm.empty() && plain.collectives[0].seconds > 0);
}

namespace {
/// A small dense model: 6 layers, hidden 1,024, 16 heads and 4 K/V heads, SwiGLU of 4,096, sequences of 2,048,
/// TP 2 × PP 2, 4 micro-batches of one sequence.
model::TrainingSpec smallModel() {
    model::TrainingSpec t;
    t.model_params = 1e9;
    t.layers = 6;
    t.hidden_size = 1024;
    t.heads = 16;
    t.kv_heads = 4;
    t.ffn_hidden_size = 4096;
    t.mlp = "swiglu";
    t.seq_len = 2048;
    t.tensor_parallel = 2;
    t.pipeline_parallel = 2;
    t.tokens_per_step = 2048.0 * 4;
    t.zero_stage = 1;
    return t;
}
TrainingStep stepOn(const model::TrainingSpec& t, const GpuRoofline& g) {
    net::Topology none;
    net::Router r(none);
    return trainingStep(none, r, t, std::vector<int>(4, 0), g);
}
double opSeconds(const TrainingStep& st, const std::string& name) {
    for (const OpTime& o : st.ops)
        if (o.name == name) return o.seconds;
    return -1;
}
}  // namespace

void TstTraining::computeIsEachKernelsRoofline() {
    // With memory free, each matmul runs at the matmul share and attention at its own: a layer's forward does
    // 2 · b · (h · qkv + h · h + 3 · h · f) / TP matmul FLOPs, its backward twice that, recomputation another
    // forward; flash attention 2 · b · s · h / TP forward and 2.5 times that backward. 3 layers a stage, 4 micro-batches.
    GpuRoofline g = flatGpu(1e15, 0.8);
    g.attention = 0.4;
    for (double recompute : {0.0, 1.0}) {
        model::TrainingSpec t = smallModel();
        t.recompute = recompute;
        const TrainingStep st = stepOn(t, g);
        const double b = 2048, h = 1024, qkv = 1024 * 1.5, f = 4096, tp = 2;
        const double mm = 2 * b * (h * qkv + h * h + 3 * h * f) / tp * (1 + recompute + 2);
        const double att = 2 * b * 2048 * h / tp * (1 + recompute + 2.5);
        const double want = 4 * 3 * (mm / (1e15 * 0.8) + att / (1e15 * 0.4));
        QVERIFY2(within(st.compute_full_s, want, 1e-12), qPrintable(QString("%1 vs %2").arg(st.compute_full_s).arg(want)));
        double sum = 0;
        for (const OpTime& o : st.ops) sum += o.seconds;
        QVERIFY(within(sum, st.compute_full_s, 1e-12));
        QVERIFY(within(opSeconds(st, "MLP gate and up"), 4 * 3 * 2 * b * 2 * f * h / tp * (1 + recompute + 2) / (1e15 * 0.8), 1e-12));
        QVERIFY(st.overrides.empty());
        QCOMPARE(st.warnings.size(), std::size_t(1));
        QVERIFY(QString::fromStdString(st.warnings[0]).contains("no measured chip-to-chip spread for the flat test GPU"));
    }
    // Whole layers per stage: 5 layers on 2 stages take as long as 6 (the slowest stage has 3).
    model::TrainingSpec five = smallModel();
    five.layers = 5;
    QCOMPARE(stepOn(five, g).compute_full_s, stepOn(smallModel(), g).compute_full_s);
    // Without ffn_hidden_size, the MLP is what the parameters leave: 6 layers of 4 · h² + 3 · h · f each.
    model::TrainingSpec derived = smallModel();
    derived.ffn_hidden_size = 0;
    derived.model_params = 6 * (1024.0 * 1536 + 1024.0 * 1024 + 3 * 1024.0 * 4096);
    QVERIFY(within(stepOn(derived, g).compute_full_s, stepOn(smallModel(), g).compute_full_s, 1e-12));
    // Waves: 128 × 256 tiles, either way round, over the SMs.
    QCOMPARE(matmulWaveShare(128, 256, 4), 0.25);
    QCOMPARE(matmulWaveShare(512, 256, 4), 1.0);
    QCOMPARE(matmulWaveShare(640, 256, 4), 5.0 / 8);
    QCOMPARE(matmulWaveShare(256, 128, 4), 0.25);
    QCOMPARE(matmulWaveShare(256, 256, 4), 0.5);
    QCOMPARE(matmulWaveShare(8192, 16384, 0), 1.0);
}

void TstTraining::memoryBoundKernelsAndTheOptimizer() {
    // With compute free, elementwise kernels take their bytes over the achieved bandwidth: the two norms of a
    // layer read and write a hidden-sized activation forward (4 e) and read two, write one backward (6 e), e =
    // b · h / TP · 2 bytes; Adam moves 30 bytes per parameter of the GPU's shard (ZeRO-1: / DP).
    GpuRoofline g = flatGpu(1e30, 1.0);
    g.memory_bw = 2e12;
    g.memory = 0.5;
    const TrainingStep st = stepOn(smallModel(), g);
    const double e = 2048.0 * 1024 / 2 * 2, bw = 2e12 * 0.5;
    QVERIFY(within(opSeconds(st, "norms"), 4 * 3 * 2 * (2 * e + 3 * e) / bw, 1e-12));
    QVERIFY(within(opSeconds(st, "residual adds"), 4 * 3 * 2 * (3 * e + 3 * e) / bw, 1e-12));
    const double act = 2048.0 * 4096 / 2 * 2;  // SwiGLU: reads gate and up, writes one; back: reads three, writes two
    QVERIFY(within(opSeconds(st, "MLP activation"), 4 * 3 * (3 * act + 5 * act) / bw, 1e-12));
    QVERIFY(within(st.optimizer_s, 30 * 1e9 / (2 * 2) / bw, 1e-12));
    QVERIFY(within(opSeconds(st, "optimizer (Adam)"), st.optimizer_s, 1e-12));
    // The optimizer runs once a step, after the pipeline: step = slots · slot + optimizer.
    QVERIFY(within(st.step_s, st.pipeline_slots * st.slot_s + st.optimizer_s, 1e-12));
    // The head: the output layer on the last stage sets the pace once it outweighs a layer (here 128k words).
    model::TrainingSpec big = smallModel();
    big.vocab_size = 128000;
    QVERIFY(opSeconds(stepOn(big, g), "output layer") > 0);
    big.vocab_size = 1000;  // a small head on a stage with fewer layers (2 and 3 of 5): off the critical path
    big.layers = 5;
    QCOMPARE(opSeconds(stepOn(big, g), "output layer"), 0.0);
}

void TstTraining::overridesAndWarningsAreNamed() {
    const GpuRoofline h100 = catalogGpu("h100-sxm5-80gb");
    model::TrainingSpec t = smallModel();
    TrainingStep st = stepOn(t, h100);
    QVERIFY2(st.overrides.empty() && st.warnings.empty(), qPrintable(QString::fromStdString(st.warnings.empty() ? "" : st.warnings[0])));
    for (const OpTime& o : st.ops)
        if (o.kind == "matmul") QVERIFY2(o.achieved > 0 && o.achieved <= 0.763 + 1e-9, o.name.c_str());
    // The job's efficiency replaces the GPU's matmul share, and says so; memory-bound kernels stay.
    t.efficiency = 0.5;
    st = stepOn(t, h100);
    QCOMPARE(st.overrides.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(st.overrides[0]).contains("efficiency 0.50 replaces the NVIDIA H100 SXM5 80GB's matmul share"));
    QVERIFY(opSeconds(st, "norms") > 0);
    // A GPU with no measured shares: stand-ins, each named.
    st = stepOn(smallModel(), catalogGpu("t4-pcie-16gb"));
    QString all;
    for (const auto& w : st.warnings) all += QString::fromStdString(w) + "\n";
    QVERIFY2(all.contains("no measured matmul share for the NVIDIA T4") && all.contains("no measured attention share") &&
                 all.contains("no published training run on turing"),
             qPrintable(all));
    // No model shape: 6 · N per token at the matmul share, said.
    model::TrainingSpec flat;
    flat.model_params = 7e9;
    flat.tokens_per_step = 1e6;
    flat.tensor_parallel = 4;
    st = stepOn(flat, h100);
    QVERIFY(within(st.compute_full_s, 6 * 7e9 * 1e6 / 4 / (989e12 * 0.763) / slowestChipShare(0.0119, 4), 1e-12));
    QVERIFY(!st.warnings.empty() && QString::fromStdString(st.warnings[0]).contains("no model shape"));
}

void TstTraining::aSynchronousStepGoesAtItsSlowestChip() {
    // The slowest of n chips, their rates normal with relative σ: 1 − σ · E[max of n standard normals]; exactly
    // 1/√π for two and 1.42360 for eight (order statistics tables); a Monte Carlo draw for 1,024.
    QCOMPARE(slowestChipShare(0.02, 1), 1.0);
    QCOMPARE(slowestChipShare(0, 8192), 1.0);
    QVERIFY(std::fabs((1 - slowestChipShare(0.01, 2)) / 0.01 - 1 / std::sqrt(M_PI)) < 1e-6);
    QVERIFY(std::fabs((1 - slowestChipShare(0.01, 8)) / 0.01 - 1.42360) < 1e-5);
    std::mt19937 rng(7);
    std::normal_distribution<double> chip(1.0, 0.02);
    double sum = 0, sum2 = 0;
    const int trials = 2000;
    for (int k = 0; k < trials; ++k) {
        double slowest = 2;
        for (int c = 0; c < 1024; ++c) slowest = std::min(slowest, chip(rng));
        sum += slowest;
        sum2 += slowest * slowest;
    }
    const double mean = sum / trials, se = std::sqrt((sum2 / trials - mean * mean) / trials);
    QVERIFY2(std::fabs(slowestChipShare(0.02, 1024) - mean) < 4 * se + 0.002 * 0.02,
             qPrintable(QString("%1 vs %2 ± %3").arg(slowestChipShare(0.02, 1024)).arg(mean).arg(se)));
    QVERIFY(slowestChipShare(0.0119, 16384) < slowestChipShare(0.0119, 8192));
    // Every kernel goes at that pace: compute and the kernels' sum slow by it, their achieved shares drop by it.
    GpuRoofline g = flatGpu(1e15, 0.8);
    const TrainingStep median = stepOn(smallModel(), g);
    g.chip_spread = 0.02;
    const TrainingStep st = stepOn(smallModel(), g);
    const double pace = slowestChipShare(0.02, 4);
    QCOMPARE(st.slowest_chip, pace);
    QVERIFY(within(st.compute_full_s, median.compute_full_s / pace, 1e-12));
    QVERIFY(within(opSeconds(st, "MLP gate and up"), opSeconds(median, "MLP gate and up") / pace, 1e-12));
    QVERIFY(within(st.ops[0].achieved, median.ops[0].achieved * pace, 1e-12));
    QVERIFY(st.warnings.empty());
    // The catalog: the H100's sustained share and spread; the A100's burst share, said, and no spread, said.
    const GpuRoofline h100 = catalogGpu("h100-sxm5-80gb"), a100 = catalogGpu("a100-sxm4-80gb");
    QVERIFY(h100.matmul_sustained && h100.matmul == 0.763 && h100.chip_spread == 0.0119);
    QVERIFY(!a100.matmul_sustained && a100.chip_spread == 0);
    QString all;
    for (const auto& w : stepOn(smallModel(), a100).warnings) all += QString::fromStdString(w) + "\n";
    QVERIFY2(all.contains("A100 SXM4 80GB's matmul share is a boost-clock burst") && all.contains("no measured chip-to-chip spread"),
             qPrintable(all));
}

void TstTraining::publishedRunsFromRooflines() {
    // The published runs as shipped in resources/jobs, with no efficiency factor: each kernel at the share of
    // peak its microbenchmarks reach (the catalog: the H100's sustained matmul at the power cap, MSMF, at the pace
    // of the job's slowest chip; the A100's boost-clock burst, MAMF; FlashAttention-2), on generated rail-optimized fabrics
    // with the servers' own NICs (400 Gb/s for the DGX H100, 200 Gb/s HDR for the DGX A100).
    // Llama 3 405B (The Llama 3 Herd of Models, 2024, table 4 and section 3): 126 layers, hidden 16,384, 128 heads
    // with 8 K/V heads, SwiGLU of 53,248, 128,256 words, 16M tokens per step, micro-batches of one sequence,
    // ranks ordered TP, CP, PP, DP, FSDP; 4 model chunks per pipeline rank and FSDP hidden up to 90 % (assumed).
    // GPT 1T (Narayanan et al., SC21, table 1): 128 layers, hidden 25,600, 160 heads, sequences of 2,048, 3,072
    // per batch, TP 8 PP 64 DP 6, full recomputation, 163 TFLOP/s per GPU counted with it (52 % of 312).
    // The rooflines bound the 8k-sequence runs from above (their kernels reached about 0.8 of the
    // microbenchmarks) and fall short on long context (its attention beat FlashAttention-2): docs/workloads.md.
    struct Case {
        const char* file;
        const char* server;
        const char* gpu;
        int cp, seq;
        double published;  // Llama: MFU; GPT 1T: TFLOP/s with recomputation over the A100's 312
    };
    for (const Case k : {Case{"llama3-405b-8k-gpus.json", "dgx-h100", "h100-sxm5-80gb", 1, 8192, 0.43},
                         Case{"llama3-405b-16k-gpus.json", "dgx-h100", "h100-sxm5-80gb", 1, 8192, 0.41},
                         Case{"llama3-405b-long-context.json", "dgx-h100", "h100-sxm5-80gb", 16, 131072, 0.38},
                         Case{"megatron-gpt-1t.json", "dgx-a100", "a100-sxm4-80gb", 1, 2048, 163.0 / 312}}) {
        const model::Job job = shippedJob(k.file);
        const model::TrainingSpec& t = *job.training;
        QCOMPARE(t.context_parallel, k.cp);
        QCOMPARE(t.seq_len, k.seq);
        QCOMPARE(t.efficiency, 0.0);  // no factor: the catalog's kernels
        Cluster c = cluster(job.gpus, k.server, 0);
        net::Router r(c.fabric.topology);
        const GpuRoofline gpu = catalogGpu(k.gpu);
        const net::JobComm comm = net::jobComm(c.fabric);
        const TrainingStep st = trainingStep(c.fabric.topology, r, t, c.ranks, gpu, 1.0, &comm);
        const bool gpt = std::string(k.server) == "dgx-a100";
        const double got = gpt ? st.hardware_tflops * 1e12 / gpu.peak_flops : st.mfu;
        qInfo(
            "%s on %d GPUs: DP %d, %d micro-batches; step %.2f s (compute %.2f, bubble %.2f, TP %.2f, CP %.2f, PP %.2f, DP %.2f of "
            "which %.2f exposed); %s %.1f %% (published %.1f %%); largest kernel %s %.0f %%",
            k.file, job.gpus, st.layout.dp, st.layout.micro_batches, st.step_s, st.compute_s, st.bubble_s, st.tp_s, st.cp_s, st.pp_s,
            st.dp_s, st.dp_exposed_s, gpt ? "HFU" : "MFU", 100 * got, 100 * k.published, st.ops[0].name.c_str(),
            100 * st.ops[0].seconds / st.compute_full_s);
        QVERIFY(!st.stalled);
        QVERIFY(st.overrides.empty());
        // The A100's share is a boost-clock burst and its chips' spread is not published: both said.
        QCOMPARE(st.warnings.size(), std::size_t(gpt ? 2 : 0));
        if (gpt)
            QVERIFY(QString::fromStdString(st.warnings[0]).contains("boost-clock burst") &&
                    QString::fromStdString(st.warnings[1]).contains("no measured chip-to-chip spread"));
        else QVERIFY(st.slowest_chip < 1 - 3.5 * 0.0119 && st.slowest_chip > 1 - 4.5 * 0.0119);  // the slowest of 8k-16k
        if (gpt) QCOMPARE(st.layout.dp, 6);
        QVERIFY2(std::fabs(got - k.published) <= 0.15, qPrintable(QString("%1 vs %2").arg(got).arg(k.published)));
    }
}

void TstTraining::theModelShapeRoundTripsAndIsChecked() {
    // ffn_hidden_size, vocab_size and mlp are saved and read back; an efficiency left at 0 (the GPU's shares) is
    // not written; bad values are refused at their JSON pointer.
    auto l = fixtures::sample("superpod-h100-su");
    model::Job j;
    j.id = "llm";
    j.gpus = 64;
    model::TrainingSpec t = smallModel();
    t.tensor_parallel = 8;
    t.pipeline_parallel = 1;
    t.tokens_per_step = 2048.0 * 64;
    t.vocab_size = 32000;
    j.training = t;
    l.scenario.jobs = {j};
    QTemporaryDir dir;
    const std::string path = dir.filePath("llm.json").toStdString();
    model::saveScenarioFile(l.scenario, path);
    QFile f(QString::fromStdString(path));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(!text.contains("\"efficiency\""));
    const auto back = model::loadAndValidate(path);
    for (const auto& d : back.diagnostics) QVERIFY2(d.severity != model::Severity::Error, d.toString().c_str());
    QVERIFY(back.scenario.jobs.at(0).training == t);
    l.scenario.jobs[0].training->mlp = "relu";
    l.scenario.jobs[0].training->ffn_hidden_size = -1;
    l.scenario.jobs[0].training->efficiency = 1.5;
    std::set<std::string> at;
    for (const auto& d : model::validateScenario(l.scenario, l.catalog))
        if (d.severity == model::Severity::Error) at.insert(d.location);
    QVERIFY(at.count("/jobs/0/training/mlp") && at.count("/jobs/0/training/ffn_hidden_size") && at.count("/jobs/0/training/efficiency"));
}

void TstTraining::badLayoutsAreClearErrors() {
    model::TrainingSpec t;
    t.model_params = 1e9;
    t.tokens_per_step = 1e6;
    t.tensor_parallel = 8;
    t.pipeline_parallel = 3;
    QVERIFY_THROWS_EXCEPTION(SimError, trainingLayout(t, 64));
    t.pipeline_parallel = 2;
    t.expert_parallel = 3;
    QVERIFY_THROWS_EXCEPTION(SimError, trainingLayout(t, 64));
    // The validator says the same at the field, with what would divide.
    auto l = fixtures::sample("superpod-h100-su");
    model::Job j;
    j.id = "bad";
    j.nodes = {l.scenario.halls[0].rows[0].racks[0].nodes[0].id, l.scenario.halls[0].rows[0].racks[0].nodes[1].id};
    t.expert_parallel = 1;
    t.micro_batch = 3;
    t.layers = 2;
    t.hidden_size = 1024;
    t.seq_len = 1000;
    t.virtual_stages = 4;
    j.training = t;
    l.scenario.jobs = {j};
    std::set<std::string> at;
    for (const auto& d : model::validateScenario(l.scenario, l.catalog))
        if (d.severity == model::Severity::Error) at.insert(d.location);
    QVERIFY(at.count("/jobs/0/training/pipeline_parallel"));  // PP × v = 8 > 2 layers
    QVERIFY(at.count("/jobs/0/training/tokens_per_step"));    // 1000 sequences are no whole number of micro-batches of 3
}

void TstTraining::theCliRunsTheSameStep() {
    // `clustertwin-cli training` on a generated cluster: the step the job model computes, from the command line.
    Cluster c = cluster(512, "dgx-h100", 400);
    model::Job j;
    j.id = "llm";
    j.gpus = 512;
    model::TrainingSpec t;
    t.model_params = 70e9;
    t.layers = 80;
    t.hidden_size = 8192;
    t.seq_len = 4096;
    t.tokens_per_step = 4096.0 * 256;
    t.tensor_parallel = 8;
    t.pipeline_parallel = 4;
    t.virtual_stages = 2;
    j.training = t;
    c.scenario.jobs = {j};
    QTemporaryDir dir;
    const QString path = dir.filePath("llm.json");
    model::saveScenarioFile(c.scenario, path.toStdString());
    const auto r = cli({"training", path, "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    net::Router router(c.fabric.topology);
    const net::JobComm comm = net::jobComm(c.fabric);
    const TrainingStep st = trainingStep(c.fabric.topology, router, t, c.ranks, catalogGpu("h100-sxm5-80gb"), 1.0, &comm);
    QCOMPARE(r.json()["layout"].toObject()["dp"].toInt(), 16);
    // Each kind of collective as it ran: TP all-reduce in the servers, the DP all-reduce across them.
    const QJsonArray ran = r.json()["collectives"].toArray();
    QCOMPARE(ran.size(), 2);
    QCOMPARE(ran[0].toObject()["what"].toString(), QString("TP all-reduce"));
    QCOMPARE(ran[0].toObject()["algorithm"].toString(), QString("nvls"));  // NVLink SHARP inside each DGX H100
    QCOMPARE(ran[1].toObject()["what"].toString(), QString("DP all-reduce"));
    QCOMPARE(ran[1].toObject()["groups"].toInt(), 32);
    QVERIFY(within(r.json()["step_s"].toDouble(), st.step_s, 1e-9));
    QVERIFY(within(r.json()["mfu"].toDouble(), st.mfu, 1e-9));
    QVERIFY(within(r.json()["slowest_chip"].toDouble(), st.slowest_chip, 1e-12));
    QVERIFY(st.slowest_chip < 1);  // the job's H100s at their slowest one's pace

    // A shipped workload added to a generated 16k-GPU cluster, all from the command line.
    const QString hall = dir.filePath("c16k.json");
    auto g = cli({"generate", "--gpus", "16384", "--topology", "rail-optimized", "-q", "-o", hall});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    const auto l = cli({"training", hall, "--jobs", QString(CT_RESOURCE_DIR) + "/jobs/llama3-405b-16k-gpus.json", "--json"});
    QVERIFY2(l.code == 0 && l.err.isEmpty(), qPrintable(l.err));
    QCOMPARE(l.json()["job"].toString(), QString("llama3-405b"));
    QCOMPARE(l.json()["layout"].toObject()["dp"].toInt(), 128);
    QVERIFY2(std::fabs(l.json()["mfu"].toDouble() - 0.41) <= 0.15, qPrintable(QString::number(l.json()["mfu"].toDouble())));
    QVERIFY(l.json()["ops"].toArray().size() >= 8);  // where the compute goes, kernel by kernel
    QCOMPARE(l.json()["ops"].toArray()[0].toObject()["name"].toString(), QString("MLP gate and up"));
    // A bad jobs file: its own name and the pointer in it.
    const QString bad = dir.filePath("bad-jobs.json");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"jobs": [{"id": "x", "kind": "training", "gpus": 64, "training": {"model_params": 7e9, "tokens_per_step": 1e6, "tensor_parallel": 3}}]})");
    f.close();
    const auto b = cli({"training", hall, "--jobs", bad});
    QCOMPARE(b.code, 2);
    QVERIFY2(b.err.contains("bad-jobs.json: error: /jobs/0/training/tensor_parallel"), qPrintable(b.err));
}

QTEST_GUILESS_MAIN(TstTraining)
#include "tst_training.moc"
