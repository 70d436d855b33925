// Serving a model (issue 20): a decode step against its memory bound, the KV-cache hand-off against size /
// bandwidth + latency, throughput against the arrivals, disaggregation protecting decode from prefills, and a
// served job's pools in a coupled run.
#include <QJsonObject>
#include <QTemporaryDir>

#include "cli_run.hpp"
#include "sim_fixtures.hpp"

#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/inference.hpp>
#include <clustertwin/sim/jobs.hpp>
#include <clustertwin/sim/nccl.hpp>

#include <cmath>
#include <set>
#include "test_paths.hpp"

using namespace ct;
namespace net = ct::sim::net;

namespace {
bool within(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

/// Llama 3 70B's shape (80 layers, hidden 8,192, 64 heads, 8 K/V heads) served with prompts of 2,048 tokens.
model::InferenceSpec llama70b() {
    model::InferenceSpec s;
    s.model_params = 70e9;
    s.layers = 80;
    s.hidden_size = 8192;
    s.heads = 64;
    s.kv_heads = 8;
    s.prompt_tokens = 2048;
    s.tokens_per_request = 256;
    s.tensor_parallel = 8;
    s.efficiency = 0.5;
    return s;
}

const model::GpuModel& h100() { return model::Catalog::builtin().requireGpu("h100-sxm5-80gb"); }
}  // namespace

class TstInference : public QObject {
    Q_OBJECT
private slots:
    void decodeStepIsTheMemoryBound();
    void kvHandOffIsSizeOverBandwidthPlusLatency();
    void throughputFollowsTheArrivals();
    void disaggregationKeepsPrefillsOutOfDecode();
    void aServedJobDrivesItsPoolsInACoupledRun();
    void badServingLayoutsAreClearErrors();
    void theCliServesTheSameModel();
};

void TstInference::decodeStepIsTheMemoryBound() {
    // An 8B model on one H100, one request: every decode step reads the 16 GB of bf16 weights and the request's
    // KV cache; step = (W + context · kv) / (HBM bandwidth · memory efficiency) = its time per output token.
    model::InferenceSpec s;
    s.model_params = 8e9;
    s.layers = 32;
    s.hidden_size = 4096;
    s.heads = 32;
    s.kv_heads = 8;
    s.prompt_tokens = 1024;
    s.tokens_per_request = 129;
    s.tensor_parallel = 1;
    s.arrival_times_s = {0.0};
    const sim::InferenceHardware hw = sim::inferenceHardware(s, h100(), nullptr, nullptr, {});
    QCOMPARE(sim::kvBytesPerToken(s), 2.0 * 32 * 4096 * 8 / 32 * 2);
    const double kv = sim::kvBytesPerToken(s), bw = 3.35e12 * 0.8;
    const auto r = sim::simulateInference(s, 1, hw, 10.0);
    QCOMPARE(r.completed, 1);
    const double mean_context = 1024 + 64;  // the context grows from 1,024 to 1,152 tokens
    const double bound = (16e9 + mean_context * kv) / bw;
    qInfo("8B on one H100: %.3f ms per output token, memory bound %.3f ms", 1e3 * r.tpot_p50_s, 1e3 * bound);
    QVERIFY(within(r.tpot_p50_s, bound, 0.10));
    QVERIFY(within(r.ttft_p50_s, sim::prefillSeconds(s, hw), 1e-9));  // no queue
}

void TstInference::kvHandOffIsSizeOverBandwidthPlusLatency() {
    // Disaggregated on the SuperPOD: prefill instance = node 1's 8 GPUs, decode = node 2's; GPU k hands its 1/8
    // of the KV cache to GPU k of the other node over their rail's leaf (two 1 µs links at 50 GB/s).
    auto l = fixtures::sample("superpod-h100-su");
    net::ScenarioFabric f = net::buildScenarioFabric(l.scenario, l.catalog);
    std::vector<int> ranks;
    for (int n : {f.cabling_order[0], f.cabling_order[1]}) ranks.insert(ranks.end(), f.gpus_of_node[n].begin(), f.gpus_of_node[n].end());
    net::Router r(f.topology);
    model::InferenceSpec s = llama70b();
    s.serving = "disaggregated";
    s.prefill_gpus = 8;
    const auto hw = sim::inferenceHardware(s, h100(), &f.topology, &r, ranks);
    const double bytes = 2048 * sim::kvBytesPerToken(s) / 8;
    QVERIFY2(within(hw.kv_transfer_s, bytes / 50e9 + 2e-6, 1e-6), qPrintable(QString::number(hw.kv_transfer_s)));
    QVERIFY(hw.tp_decode_s > 0 && hw.tp_prefill_s > hw.tp_decode_s);  // all-reduces on NVLink
    // As NCCL runs them: a decode step's all-reduce of one token's activations (16 KB) is latency-bound, LL on
    // the 8 GPUs' NVLink: NCCL's base and 14 hops, 2 per layer.
    const net::JobComm comm = net::jobComm(f);
    const auto nccl = sim::inferenceHardware(s, h100(), &f.topology, &r, ranks, &comm);
    net::NcclChoice how;
    how.architecture = "hopper";
    const std::vector<int> first(ranks.begin(), ranks.begin() + 8);
    const auto one = net::runNcclCollective(f.topology, r, net::CollectiveOp::AllReduce, first, std::vector<int>(8, 0), 8192 * 2.0, how);
    QCOMPARE(one.protocol, std::string("LL"));
    QVERIFY(within(nccl.tp_decode_s, 2.0 * s.layers * one.time_s, 1e-9));
    qInfo("Llama 70B decode: TP all-reduces %.3f ms a token as NCCL runs them (%s/%s, %.1f us each), %.3f ms as plain rings",
          1e3 * nccl.tp_decode_s, one.algorithm.c_str(), one.protocol.c_str(), 1e6 * one.time_s, 1e3 * hw.tp_decode_s);
}

void TstInference::throughputFollowsTheArrivals() {
    // Below capacity every request is served: output tokens/s = arrivals/s · tokens per request.
    model::InferenceSpec s = llama70b();
    s.requests_per_s = 10;
    const auto hw = sim::inferenceHardware(s, h100(), nullptr, nullptr, {});
    const auto r = sim::simulateInference(s, 64, hw, 300.0, 3);
    qInfo("70B on 64 GPUs at 10 requests/s: %.0f tokens/s, TTFT p50 %.3f s, TPOT p50 %.2f ms, batch %.1f", r.tokens_per_s, r.ttft_p50_s,
          1e3 * r.tpot_p50_s, r.mean_batch);
    QVERIFY(within(r.tokens_per_s, r.arrived / 300.0 * 256, 0.03));
    QVERIFY(r.ttft_p50_s >= sim::prefillSeconds(s, hw) - 1e-12);
    QVERIFY(r.tpot_p50_s >= sim::decodeStepSeconds(s, hw, 1, 2048) * 0.99);
    // Overloaded (a tenth of the GPUs): the queue grows, first tokens wait.
    const auto over = sim::simulateInference(s, 8, hw, 300.0, 3);
    QVERIFY(over.completed < over.arrived);
    QVERIFY(over.ttft_p90_s > 10 * r.ttft_p90_s);
}

void TstInference::disaggregationKeepsPrefillsOutOfDecode() {
    // Long prompts: colocated, a decode batch waits while its instance prefills a newcomer (its tail time per
    // output token stretches); disaggregated, decode instances only decode (DistServe's argument).
    model::InferenceSpec s = llama70b();
    s.prompt_tokens = 8192;
    s.requests_per_s = 6;
    model::InferenceSpec d = s;
    d.serving = "disaggregated";
    d.prefill_gpus = 32;
    const auto hw = sim::inferenceHardware(s, h100(), nullptr, nullptr, {});
    const auto co = sim::simulateInference(s, 64, hw, 300.0, 5), dis = sim::simulateInference(d, 64, hw, 300.0, 5);
    qInfo("8k prompts: TPOT p99 colocated %.1f ms, disaggregated %.1f ms; prefill pool %.0f %% busy (%.1f kW), decode %.0f %% (%.1f kW)",
          1e3 * co.tpot_p99_s, 1e3 * dis.tpot_p99_s, 100 * dis.prefill_utilization, dis.prefill_power_w / 1e3, 100 * dis.decode_utilization,
          dis.decode_power_w / 1e3);
    QVERIFY(co.tpot_p99_s > 1.5 * dis.tpot_p99_s);
    QVERIFY(dis.prefill_power_w > 32 * h100().idle_power_w && dis.decode_power_w > 32 * h100().idle_power_w);
    QVERIFY(dis.prefill_power_w <= 32 * h100().max_power_w && dis.decode_power_w <= 32 * h100().max_power_w);
}

void TstInference::aServedJobDrivesItsPoolsInACoupledRun() {
    auto l = fixtures::sample("superpod-h100-su");
    model::Job j;
    j.id = "serve";
    j.kind = "inference";
    for (const auto& row : l.scenario.halls[0].rows)
        for (const auto& r : row.racks)
            for (const auto& n : r.nodes) j.nodes.push_back(n.id);
    model::InferenceSpec s = llama70b();
    s.prompt_tokens = 8192;
    s.requests_per_s = 8;
    s.serving = "disaggregated";
    s.prefill_gpus = 64;
    j.inference = s;
    l.scenario.jobs = {j};
    QVERIFY(!model::hasErrors(model::validateScenario(l.scenario, l.catalog)));
    sim::Engine e(l.scenario, l.catalog, fixtures::quickAir());
    const model::Frame& f = fixtures::runTo(e, 10);
    QVERIFY(f.jobs.at(0).utilization > 0 && f.jobs.at(0).mfu > 0);
    // The first 64 GPUs (8 nodes) prefill, the rest decode: two levels of demand.
    std::set<long> levels;
    for (const auto& g : f.gpus) levels.insert(std::lround(g.utilization * 1000));
    QCOMPARE(levels.size(), std::size_t(2));
}

void TstInference::badServingLayoutsAreClearErrors() {
    auto l = fixtures::sample("superpod-h100-su");
    model::Job j;
    j.id = "serve";
    j.kind = "inference";
    j.nodes = {l.scenario.halls[0].rows[0].racks[0].nodes[0].id};
    model::InferenceSpec s = llama70b();
    s.serving = "disaggregated";
    s.tensor_parallel = 3;
    j.inference = s;
    l.scenario.jobs = {j};
    std::set<std::string> at;
    for (const auto& d : model::validateScenario(l.scenario, l.catalog))
        if (d.severity == model::Severity::Error) at.insert(d.location);
    QVERIFY(at.count("/jobs/0/inference/prefill_gpus"));
    QVERIFY(at.count("/jobs/0/inference/tensor_parallel"));
    const auto hw = sim::inferenceHardware(s, h100(), nullptr, nullptr, {});
    QVERIFY_THROWS_EXCEPTION(ct::sim::SimError, sim::simulateInference(s, 8, hw, 10.0));
}

void TstInference::theCliServesTheSameModel() {
    // `clustertwin-cli inference` on the SuperPOD: the simulation above, from the command line, with the fabric.
    auto l = fixtures::sample("superpod-h100-su");
    model::Job j;
    j.id = "serve";
    j.kind = "inference";
    for (const auto& row : l.scenario.halls[0].rows)
        for (const auto& r : row.racks)
            for (const auto& n : r.nodes) j.nodes.push_back(n.id);
    model::InferenceSpec s = llama70b();
    s.requests_per_s = 10;
    s.serving = "disaggregated";
    s.prefill_gpus = 64;
    j.inference = s;
    l.scenario.jobs = {j};
    QTemporaryDir dir;
    const QString path = dir.filePath("serve.json");
    model::saveScenarioFile(l.scenario, path.toStdString());
    const auto r = cli({"inference", path, "--seconds", "120", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    net::ScenarioFabric f = net::buildScenarioFabric(l.scenario, l.catalog);
    std::vector<int> ranks;
    for (const auto& g : f.gpus_of_node) ranks.insert(ranks.end(), g.begin(), g.end());  // the job lists every node in scenario order
    net::Router router(f.topology);
    const net::JobComm comm = net::jobComm(f);
    const auto want = sim::simulateInference(s, 256, sim::inferenceHardware(s, h100(), &f.topology, &router, ranks, &comm), 120.0);
    QCOMPARE(r.json()["completed"].toInt(), want.completed);
    QVERIFY(within(r.json()["tokens_per_s"].toDouble(), want.tokens_per_s, 1e-9));
    QVERIFY(within(r.json()["tpot_s"].toObject()["p99"].toDouble(), want.tpot_p99_s, 1e-9));
    // A scenario without an inference job says so.
    QCOMPARE(cli({"inference", QString(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json"}).code, 2);
    // The shipped serving workload added to the sample: 16 prefill and 48 decode GPUs below their capacity, so
    // every request is served (those still in flight at the end aside) at the arrival rate's tokens.
    const auto w = cli({"inference", QString(CT_RESOURCE_DIR) + "/scenarios/superpod-h100-su.json", "--jobs",
                        QString(CT_RESOURCE_DIR) + "/jobs/llama3-70b-serving.json", "--seconds", "600", "--json"});
    QVERIFY2(w.code == 0 && w.err.isEmpty(), qPrintable(w.err));
    const QJsonObject o = w.json();
    QCOMPARE(o["prefill_instances"].toInt(), 2);
    QCOMPARE(o["decode_instances"].toInt(), 6);
    QVERIFY(o["requests"].toInt() - o["completed"].toInt() < 20);
    QVERIFY2(within(o["tokens_per_s"].toDouble(), 3.0 * 256, 0.05), qPrintable(QString::number(o["tokens_per_s"].toDouble())));
    QVERIFY(o["ttft_s"].toObject()["p99"].toDouble() < 5.0);  // no queue that grows
}

QTEST_GUILESS_MAIN(TstInference)
#include "tst_inference.moc"
