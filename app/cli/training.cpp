#include "training.hpp"

#include "job_input.hpp"

#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/training.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace ct::cli {

namespace m = ct::model;
using json = nlohmann::ordered_json;

const char* kTrainingHelp = R"(Usage: clustertwin-cli training SCENARIO [--jobs FILE] [--job ID] [--json]

One step of a training job on the scenario's fabric, without the air model: its parallel layout (TP, CP, PP, DP,
EP over its GPUs in cabling order), the 1F1B pipeline and its bubble, the traffic of each kind on the critical
path (TP, CP, EP, stage sends) and the data-parallel reduction with what compute hides of it, each kind of
collective as NCCL runs it (algorithm, protocol and channels as NCCL's tuner picks them), the step time, MFU
and TFLOP/s per GPU, and where one GPU's compute goes kernel by kernel: each operator timed from its FLOPs and
bytes against the GPU's peaks and the shares of them the catalog says its kernels reach (a job's `efficiency`
and `attention_efficiency` override those and are named; warnings on stderr name what the model was not
checked on). The same model `simulate` couples to power and heat (docs/workloads.md).
  --job ID    the training job (the first one with a training spec)
  --jobs FILE more jobs, as in a scenario's "jobs" (e.g. resources/jobs/*.json); theirs come first
  --json      the result as JSON
)";

namespace {

json opsJson(const sim::TrainingStep& st) {
    json ops = json::array();
    for (const sim::OpTime& o : st.ops)
        ops.push_back({{"name", o.name},
                       {"kind", o.kind},
                       {"seconds", o.seconds},
                       {"share", st.compute_full_s > 0 ? o.seconds / st.compute_full_s : 0.0},
                       {"achieved", o.achieved},
                       {"flops", o.flops},
                       {"bytes", o.bytes},
                       {"kernels", o.kernels}});
    return ops;
}

json collectivesJson(const sim::TrainingStep& st) {
    json out = json::array();
    for (const sim::StepCollective& c : st.collectives)
        out.push_back({{"what", c.what},
                       {"bytes", c.bytes},
                       {"groups", c.groups},
                       {"ranks", c.ranks},
                       {"algorithm", c.algorithm},
                       {"protocol", c.protocol},
                       {"channels", c.channels},
                       {"seconds", c.seconds},
                       {"latency_s", c.latency_s}});
    return out;
}

/// Each kind of collective once, as it ran.
void printCollectives(const sim::TrainingStep& st) {
    if (st.collectives.empty()) return;
    std::printf("  collectives (one run each, every group at once), as NCCL runs them:\n");
    for (const sim::StepCollective& c : st.collectives)
        std::printf("    %-18s %10.3f MB per rank, %5d groups of %4d: %-8s %-6s %2d channel%s %9.3f ms (latency %.1f us)\n", c.what.c_str(),
                    c.bytes / 1e6, c.groups, c.ranks, c.algorithm.c_str(), c.protocol.c_str(), c.channels, c.channels == 1 ? ", " : "s,",
                    1e3 * c.seconds, 1e6 * c.latency_s);
}

/// Where one GPU's compute in a step goes, kernel by kernel, at full clock.
void printOps(const sim::TrainingStep& st) {
    if (st.ops.empty() || st.compute_full_s <= 0) return;
    if (st.slowest_chip < 1)
        std::printf(
            "  compute %.4f s a step at full clock (the slowest stage, at the pace of the slowest chip: %.3f of the median's), "
            "by kernel:\n",
            st.compute_full_s, st.slowest_chip);
    else std::printf("  compute %.4f s a step at full clock (the slowest stage), by kernel:\n", st.compute_full_s);
    for (const sim::OpTime& o : st.ops) {
        const char* of = o.kind == "memory" ? "of HBM bandwidth" : "of peak";
        std::printf("    %-30s %9.4f s %5.1f %%  %-9s at %3.0f %% %s\n", o.name.c_str(), o.seconds, 100 * o.seconds / st.compute_full_s,
                    o.kind.c_str(), 100 * o.achieved, of);
    }
}

}  // namespace

int cmdTraining(const Args& a) {
    const std::optional<JobInput> in = loadJob(a, "training", "training");
    if (!in) return 2;
    const m::Job* job = &in->job();
    // The job's GPUs in cabling order; without a network, every transfer is free (an empty topology).
    sim::net::ScenarioFabric f;
    std::vector<int> ranks;
    if (in->rep.scenario.network.topology != "none") {
        f = sim::net::buildScenarioFabric(in->rep.scenario, in->rep.catalog);
        ranks = jobRanks(f, *job, true);
    } else {
        std::cerr << "clustertwin-cli training: " << a.positional()[0] << " has no network: every transfer is taken as free\n";
        ranks.assign(static_cast<std::size_t>(in->gpus), 0);
    }
    sim::net::Router router(f.topology);
    const sim::net::JobComm comm = sim::net::jobComm(f);
    const sim::TrainingStep st = sim::trainingStep(f.topology, router, *job->training, ranks, sim::gpuRoofline(*in->gpu), 1.0,
                                                   f.topology.nodeCount() > 0 ? &comm : nullptr);
    const auto& L = st.layout;
    if (a.flag("json")) {
        std::cout << json{{"job", job->id},
                          {"gpus", ranks.size()},
                          {"layout",
                           {{"tp", L.tp}, {"cp", L.cp}, {"pp", L.pp}, {"dp", L.dp}, {"ep", L.ep}, {"micro_batches", L.micro_batches}}},
                          {"step_s", st.step_s},
                          {"compute_s", st.compute_s},
                          {"bubble_s", st.bubble_s},
                          {"tp_s", st.tp_s},
                          {"cp_s", st.cp_s},
                          {"ep_s", st.ep_s},
                          {"pp_s", st.pp_s},
                          {"dp_s", st.dp_s},
                          {"dp_exposed_s", st.dp_exposed_s},
                          {"mfu", st.mfu},
                          {"hardware_tflops_per_gpu", st.hardware_tflops},
                          {"optimizer_s", st.optimizer_s},
                          {"slowest_chip", st.slowest_chip},
                          {"ops", opsJson(st)},
                          {"collectives", collectivesJson(st)},
                          {"overrides", st.overrides},
                          {"warnings", st.warnings},
                          {"stalled", st.stalled}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf("job %s on %zu GPUs: TP %d x CP %d x PP %d x DP %d (EP %d), %d micro-batches per replica\n", job->id.c_str(),
                    ranks.size(), L.tp, L.cp, L.pp, L.dp, L.ep, L.micro_batches);
        std::printf(
            "  step %.4f s: compute %.4f s, bubble %.4f s; on the critical path TP %.4f s, CP %.4f s, EP %.4f s, stage sends %.4f s;\n"
            "  data-parallel reduction %.4f s, %.4f s of it exposed\n",
            st.step_s, st.compute_s, st.bubble_s, st.tp_s, st.cp_s, st.ep_s, st.pp_s, st.dp_s, st.dp_exposed_s);
        std::printf("  MFU %.1f %%, %.0f TFLOP/s per GPU (with recomputation)\n", 100 * st.mfu, st.hardware_tflops);
        for (const std::string& o : st.overrides) std::printf("  the job's %s\n", o.c_str());
        printCollectives(st);
        printOps(st);
    }
    for (const std::string& w : st.warnings) std::cerr << "clustertwin-cli training: warning: " << w << "\n";
    if (st.stalled) std::cerr << "clustertwin-cli training: some of the job's GPUs have no route to each other; it cannot run\n";
    return st.stalled ? 1 : 0;
}

}  // namespace ct::cli
