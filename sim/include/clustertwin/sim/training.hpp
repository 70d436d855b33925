#pragma once
// A training step on the simulated fabric (docs/workloads.md): the parallel layout of a job's GPUs (TP, CP,
// PP, DP, EP), its compute, a 1F1B pipeline whose slots carry each micro-batch's traffic, and the
// data-parallel gradient reduction partly hidden behind compute.
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/network.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ct::model {
struct GpuModel;
class Catalog;
}  // namespace ct::model
namespace ct::sim::net {
struct JobComm;
}  // namespace ct::sim::net

namespace ct::sim {

/// What one GPU's kernels achieve (docs/workloads.md "Compute"): its peaks and the catalog's measured shares
/// of them, or a job's overrides. A share of 0 is unknown: the model then takes a stated stand-in and warns.
struct GpuRoofline {
    std::string gpu;                ///< its name, for the warnings
    std::string architecture;       ///< as the catalog says ("hopper", ...)
    double peak_flops = 0;          ///< dense BF16, FLOP/s
    double memory_bw = 0;           ///< HBM, bytes/s (0: memory-bound kernels are free)
    double matmul = 0;              ///< the best large matmul's share of peak
    bool matmul_sustained = false;  ///< held at the power cap (else a boost-clock burst: a long run gets less)
    double chip_spread = 0;         ///< σ of chips' sustained rate over the median chip's (0 = unknown)
    double attention = 0;           ///< flash attention's share of peak (forward and backward)
    double memory = 0;              ///< elementwise kernels' share of HBM bandwidth
    int sms = 0;                    ///< a matmul's 128 × 256 tiles run in waves of this many (0: no waves)
    double kernel_gap_s = 0;        ///< between two dependent kernels (launch, ramp and tail)
};

/// The catalog's figures for one GPU model.
GpuRoofline gpuRoofline(const model::GpuModel& g);

/// The expected speed of the slowest of `chips` chips over the median chip's, chips' rates drawn from a normal
/// distribution of relative σ `spread`: 1 − spread · E[the largest of n standard normal draws], that expectation
/// integrated numerically from the order statistic's density. 1 for one chip or no spread.
double slowestChipShare(double spread, double chips);

/// One kind of kernel in a training step on one GPU, summed over the step.
struct OpTime {
    std::string name;     ///< "QKV projection", "attention", "MLP activation", ...
    std::string kind;     ///< "matmul", "attention" or "memory"
    double flops = 0;     ///< executed, per step
    double bytes = 0;     ///< moved to and from HBM, per step
    double seconds = 0;   ///< per step at full clock
    double achieved = 0;  ///< share of peak FLOP/s (matmul, attention) or of bandwidth (memory) over its time
    double kernels = 0;   ///< launches per step
};

/// Where each rank sits in the layout: rank = tp + T·(cp + C·(dp + D·pp)) for "tp-cp-dp-pp", with pp and dp
/// swapped for "tp-cp-pp-dp". Ranks are the job's GPUs in cabling order, so TP fills the NVLink domain first.
struct TrainingLayout {
    int tp = 1, cp = 1, pp = 1, dp = 1, ep = 1;
    int micro_batches = 1;    ///< per data-parallel replica and step
    double micro_tokens = 0;  ///< tokens of one micro-batch on one rank (micro_batch · seq_len / CP)
    bool dp_outer = false;    ///< "tp-cp-pp-dp"
    int rank(int tp_i, int cp_i, int dp_i, int pp_i) const;
};

/// Throws SimError when the GPUs do not split as the spec asks.
TrainingLayout trainingLayout(const model::TrainingSpec& t, int gpus);

/// One kind of a step's collectives as it ran once, for the summary: "TP all-reduce", what NCCL would run it as
/// (empty algorithm: a plain ring at the fabric's latency) and its time.
struct StepCollective {
    std::string what;  ///< "TP all-reduce", "CP all-gather", "EP all-to-all", "DP all-reduce", ...
    double bytes = 0;  ///< per rank
    int groups = 0, ranks = 0;
    std::string algorithm, protocol;
    int channels = 1;
    double seconds = 0;  ///< one run, every group at once
    double latency_s = 0;
};

/// The collectives one line each, as the app and the run's metadata show them: "TP all-reduce: nvls/Simple, 16
/// channels, 1.012 ms (8 groups of 8)"; a plain ring (no fabric known to NCCL's model) says "ring".
std::string describeCollectives(const std::vector<StepCollective>& collectives);

struct TrainingStep {
    TrainingLayout layout;
    double model_flops = 0;              ///< per step: (6 · active params + 6 · layers · hidden · seq) · tokens (causal attention)
    double hardware_flops = 0;           ///< with the recomputed forward
    double attention_flops = 0;          ///< the part of hardware_flops in attention (information: trainingCompute times the kernels)
    double compute_s = 0;                ///< one GPU's compute in a step (no bubble)
    double compute_full_s = 0;           ///< the same at full clock: Σ ops (micro-batches on the slowest stage, optimizer)
    double optimizer_s = 0;              ///< the optimizer's step (once per step, after the pipeline), at full clock
    std::vector<OpTime> ops;             ///< where compute_full_s goes, largest first
    double slowest_chip = 1;             ///< the job's slowest chip's speed over the median's (ops and compute at its pace)
    std::string gpu;                     ///< whose kernels (the GPU model's name)
    std::vector<std::string> overrides;  ///< the job's efficiency keys that replaced the GPU's shares
    std::vector<std::string> warnings;   ///< where the prediction leaves what the model was checked on
    double slot_s = 0;                   ///< one micro-batch's forward and backward on one stage, with its exposed traffic
    double comm_mb_s = 0;                ///< the traffic in one slot (TP, CP, EP, stage sends)
    double pipeline_slots = 1;           ///< m + (p − 1)/v slots make the pipeline
    double bubble_s = 0;                 ///< (p − 1)/v slots of the 1F1B pipeline
    double tp_s = 0, cp_s = 0, ep_s = 0, pp_s = 0;  ///< per step, on the critical path (every slot carries its share)
    double dp_s = 0;                                ///< the data-parallel reduction's duration
    double dp_exposed_s = 0;                        ///< the part compute does not hide: max(0, dp − overlap · compute)
    double step_s = 0;
    double mfu = 0;                           ///< model FLOPs / (step · GPUs · peak)
    double hardware_tflops = 0;               ///< hardware FLOPs per GPU and second, /1e12
    bool stalled = false;                     ///< some transfer has no route
    std::vector<double> arc_bytes;            ///< bytes per arc in one step
    std::vector<StepCollective> collectives;  ///< each kind once, as it ran
};

/// The useful share of the work a matmul's M × N output tiles (128 × 256, either way round) take in their
/// waves on `sms` SMs: a last partial wave leaves SMs idle, edge tiles compute padding (1 when sms is 0).
double matmulWaveShare(double M, double N, int sms);

/// One GPU's compute in a step, kernel by kernel (training_compute.cpp): fills compute_full_s, optimizer_s,
/// ops, overrides and warnings of `out`, whose layout and FLOPs are set.
void trainingCompute(const model::TrainingSpec& spec, const GpuRoofline& gpu, TrainingStep& out);

/// A job's compute alone, as `training` and the app explain it (no fabric: every transfer free): on its nodes'
/// GPUs, or on `gpus` of the scenario's first GPU model when it is placed when it runs. nullopt for a job without
/// a training spec or GPUs. Throws SimError as trainingLayout.
std::optional<TrainingStep> jobCompute(const model::Scenario& s, const model::Catalog& c, const model::Job& j);

/// The same step with the GPUs at another clock factor: compute scales, the traffic stays.
TrainingStep retimed(const TrainingStep& at_full_clock, const model::TrainingSpec& spec, double throttle, double peak_flops);

/// One step of `spec` on `ranks` (host node indices, in cabling order) of the fabric on `gpu`s, `throttle`
/// the mean clock factor of the job's GPUs. Every collective of one kind runs in all its groups at once, as
/// synchronous SPMD training does; as NCCL runs them with `comm`. An empty topology makes every transfer free.
/// Throws SimError as trainingLayout.
TrainingStep trainingStep(const net::Topology& t, net::Router& r, const model::TrainingSpec& spec, const std::vector<int>& ranks,
                          const GpuRoofline& gpu, double throttle = 1.0, const net::JobComm* comm = nullptr);

}  // namespace ct::sim
