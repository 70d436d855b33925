// Failures and checkpoints of training jobs (issue 20): the time accounting closes, the failure process is the
// catalog's Poisson rates, goodput follows the checkpoint/restart formula, and a Llama 3 405B-sized job over 54
// days gives interruptions and goodput of the order Meta reports (419 interruptions, above 90 % effective time).
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/reliability.hpp>

#include <QFile>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.hpp"

#include <cmath>
#include "test_paths.hpp"

using namespace ct;
using ct::sim::SimError;

namespace {
/// A job of every GPU of a generated rail-optimized cluster of `gpus` H100s.
struct Setup {
    model::Scenario scenario;
    model::Job job;
};
Setup cluster(int gpus) {
    model::HallParams p;
    p.gpus = gpus;
    p.topology = "rail-optimized";
    Setup s{model::buildHall(p), {}};
    s.job.id = "llm";
    for (const auto& h : s.scenario.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) s.job.nodes.push_back(n.id);
    model::TrainingSpec t;
    t.model_params = 405e9;
    t.tokens_per_step = 16.0 * 1024 * 1024;
    // A checkpoint policy of Llama 3's scale: every 10 min to a 2 TB/s file system (Meta's Tectonic sustains
    // 2 TB/s, the paper says); 2 min to detect a stopped job, 8 min to restart it.
    t.checkpoint_interval_s = 600;
    t.storage_gbytes_per_s = 2000;
    t.detection_s = 120;
    t.restart_s = 480;
    s.job.training = t;
    s.scenario.jobs = {s.job};
    return s;
}
}  // namespace

class TstReliability : public QObject {
    Q_OBJECT
private slots:
    void timeAddsUpAndSeedsRepeat();
    void failuresArePoissonAtTheCatalogRates();
    void goodputFollowsTheCheckpointFormula();
    void youngDalyIntervalWhenNoneIsGiven();
    void llama3FiftyFourDaysOfTheRightOrder();
    void theCliRunsTheSameHistory();
};

void TstReliability::timeAddsUpAndSeedsRepeat() {
    const Setup s = cluster(1024);
    QVERIFY(!model::hasErrors(model::validateScenario(s.scenario, model::Catalog::builtin())));
    const auto comp = sim::jobComponents(s.scenario, model::Catalog::builtin(), s.job);
    QCOMPARE(comp.count.at("gpu"), 1024.0);
    QCOMPARE(comp.count.at("node"), 128.0);
    QVERIFY(comp.count.at("switch") > 0 && comp.count.at("cable") >= 1024);  // every NIC port is cabled
    sim::ReliabilityOptions o;
    o.duration_s = 30 * 86400.0;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
        o.seed = seed;
        const auto r = sim::simulateReliability(comp, model::Catalog::builtin(), *s.job.training, o);
        QVERIFY(std::fabs(r.useful_s + r.lost_s + r.checkpoint_s + r.down_s - o.duration_s) < 1e-6 * o.duration_s);
        const auto again = sim::simulateReliability(comp, model::Catalog::builtin(), *s.job.training, o);
        QCOMPARE(again.interruptions, r.interruptions);
        QCOMPARE(again.useful_s, r.useful_s);
        int sum = 0;
        for (const auto& [k, n] : r.by_kind) sum += n;
        QCOMPARE(sum, r.interruptions);
    }
}

void TstReliability::failuresArePoissonAtTheCatalogRates() {
    const Setup s = cluster(2048);
    const auto& cat = model::Catalog::builtin();
    const auto comp = sim::jobComponents(s.scenario, cat, s.job);
    double rate = 0;  // per day
    for (const auto& [k, n] : comp.count) rate += n * cat.failureRate(k)->per_1000_device_days / 1000;
    sim::ReliabilityOptions o;
    o.duration_s = 100 * 86400.0;
    const int runs = 40;
    double mean = 0;
    for (int i = 0; i < runs; ++i) {
        o.seed = 100 + static_cast<std::uint64_t>(i);
        mean += sim::simulateReliability(comp, cat, *s.job.training, o).interruptions / static_cast<double>(runs);
    }
    const double want = rate * 100, sigma = std::sqrt(want / runs);
    qInfo("2,048 GPUs over 100 days: %.1f interruptions on average (expected %.1f, sigma of the mean %.1f)", mean, want, sigma);
    QVERIFY(std::fabs(mean - want) < 4 * sigma);
}

void TstReliability::goodputFollowsTheCheckpointFormula() {
    // When checkpoints, detection and restart are short against the MTBF M, goodput = 1 − w/τ − (τ/2 + D)/M to
    // first order (w the write time, τ the interval, D the time down).
    const Setup s = cluster(4096);
    const auto& cat = model::Catalog::builtin();
    const auto comp = sim::jobComponents(s.scenario, cat, s.job);
    sim::ReliabilityOptions o;
    o.duration_s = 200 * 86400.0;
    double mean = 0;
    sim::ReliabilityResult r;
    for (int i = 0; i < 10; ++i) {
        o.seed = 7 + static_cast<std::uint64_t>(i);
        r = sim::simulateReliability(comp, cat, *s.job.training, o);
        mean += r.goodput / 10;
    }
    const auto& t = *s.job.training;
    const double D = t.detection_s + t.restart_s + r.checkpoint_read_s, tau = r.checkpoint_interval_s, w = r.checkpoint_write_s;
    const double want = 1 - w / (tau + w) - (tau / 2 + D) / r.mtbf_s;
    qInfo("4,096 GPUs: MTBF %.1f h, goodput %.4f (first-order formula %.4f)", r.mtbf_s / 3600, mean, want);
    QVERIFY(std::fabs(mean - want) < 0.005);
    // No failures at all (a catalog whose rates are zero): only the checkpoints cost time.
    model::Catalog none = cat;
    for (auto& f : none.failure_rates) f.per_1000_device_days = 0;
    o.duration_s = 86400.0;
    const auto quiet = sim::simulateReliability(comp, none, t, o);
    QCOMPARE(quiet.interruptions, 0);
    QVERIFY(std::fabs(quiet.goodput - (1 - quiet.checkpoint_s / o.duration_s)) < 1e-12);
    QVERIFY(std::fabs(quiet.checkpoint_s / o.duration_s - w / (tau + w)) < 1e-4);
}

void TstReliability::youngDalyIntervalWhenNoneIsGiven() {
    Setup s = cluster(1024);
    s.job.training->checkpoint_interval_s = 0;
    const auto& cat = model::Catalog::builtin();
    const auto comp = sim::jobComponents(s.scenario, cat, s.job);
    const auto r = sim::simulateReliability(comp, cat, *s.job.training, {});
    QVERIFY(std::fabs(r.checkpoint_interval_s - std::sqrt(2 * r.checkpoint_write_s * r.mtbf_s)) < 1e-9 * r.checkpoint_interval_s);
    QVERIFY(std::fabs(r.checkpoint_write_s - 14 * 405e9 / 2000e9) < 1e-12);
    // A catalog without a rate the job needs is an error, not a silent zero.
    model::Catalog lacking = cat;
    lacking.failure_rates.erase(lacking.failure_rates.begin());
    const sim::ReliabilityOptions defaults;
    QVERIFY_THROWS_EXCEPTION(SimError, sim::simulateReliability(comp, lacking, *s.job.training, defaults));
}

void TstReliability::llama3FiftyFourDaysOfTheRightOrder() {
    // Meta's 54-day Llama 3 405B run on 16,384 H100: 419 unexpected interruptions (about one every 3 h), 78 % of
    // them hardware, GPU-related ones (faulty GPU, HBM3, SRAM, system processor, thermal, SDC) 64 %; effective
    // training time above 90 %. The catalog's rates are RSC-1's fleet rate (Kokolis et al.), 1.7 times the Llama
    // run's, split by the Llama table's causes: the interruptions must be within a factor of 2, goodput above
    // 80 % (1 − 1.7 × the losses that leave Llama above 90 %), the GPU share within 50–75 %.
    // The shipped workload (resources/jobs/llama3-405b-16k-gpus.json: every 10 min to a 2 TB/s file system, as
    // Meta's Tectonic sustains; 2 min to detect a stopped job, 8 min to restart it) on a generated 16k cluster,
    // from the command line.
    QTemporaryDir dir;
    const QString hall = dir.filePath("c16k.json");
    const auto g = cli({"generate", "--gpus", "16384", "--topology", "rail-optimized", "-q", "-o", hall});
    QVERIFY2(g.code == 0, qPrintable(g.err));
    const auto r = cli({"reliability", hall, "--jobs", QString(CT_RESOURCE_DIR) + "/jobs/llama3-405b-16k-gpus.json", "--json"});
    QVERIFY2(r.code == 0 && r.err.isEmpty(), qPrintable(r.err));
    const QJsonObject o = r.json();
    QCOMPARE(o["components"].toObject()["gpu"].toInt(), 16384);
    const int n = o["interruptions"].toInt();
    const QJsonObject by = o["by_kind"].toObject();
    const double gpu_share = by["gpu"].toInt() + by["hbm"].toInt() + by["nvlink"].toInt();
    const double goodput = o["goodput"].toDouble();
    qInfo("16,384 GPUs, 54 days: %d interruptions (Meta: 419), one every %.2f h, GPU-related %.0f %% (64 %%), goodput %.1f %% (> 90 %%)", n,
          54 * 24.0 / n, 100 * gpu_share / n, 100 * goodput);
    QVERIFY(n > 419 / 2 && n < 419 * 2);
    QVERIFY(goodput > 0.8 && goodput < 0.95);
    QVERIFY(gpu_share / n > 0.5 && gpu_share / n < 0.75);
}

void TstReliability::theCliRunsTheSameHistory() {
    // `clustertwin-cli reliability`: the same seed gives the same history as the model called directly.
    const Setup s = cluster(2048);
    QTemporaryDir dir;
    const QString path = dir.filePath("job.json");
    model::saveScenarioFile(s.scenario, path.toStdString());
    const auto r = cli({"reliability", path, "--days", "30", "--seed", "7", "--json", "--events", dir.filePath("events.csv")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const auto& cat = model::Catalog::builtin();
    sim::ReliabilityOptions o;
    o.duration_s = 30 * 86400.0;
    o.seed = 7;
    const auto want = sim::simulateReliability(sim::jobComponents(s.scenario, cat, s.job), cat, *s.job.training, o);
    QCOMPARE(r.json()["interruptions"].toInt(), want.interruptions);
    QVERIFY(std::fabs(r.json()["goodput"].toDouble() - want.goodput) < 1e-12);
    QFile events(dir.filePath("events.csv"));
    QVERIFY(events.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(events.readAll()).count('\n'), want.interruptions + 1);  // a header and one line each
}

QTEST_GUILESS_MAIN(TstReliability)
#include "tst_reliability.moc"
