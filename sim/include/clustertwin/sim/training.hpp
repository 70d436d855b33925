#pragma once
// A training step on the simulated fabric (docs/workloads.md): the parallel layout of a job's GPUs (TP, CP,
// PP, DP, EP), its compute, a 1F1B pipeline whose slots carry each micro-batch's traffic, and the
// data-parallel gradient reduction partly hidden behind compute.
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/network.hpp>

#include <vector>

namespace ct::sim {

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

struct TrainingStep {
    TrainingLayout layout;
    double model_flops = 0;      ///< per step: (6 · active params + 6 · layers · hidden · seq) · tokens (causal attention)
    double hardware_flops = 0;   ///< with the recomputed forward
    double attention_flops = 0;  ///< the part of hardware_flops in attention (its own kernel efficiency)
    double compute_s = 0;        ///< one GPU's compute in a step (no bubble)
    double slot_s = 0;           ///< one micro-batch's forward and backward on one stage, with its exposed traffic
    double comm_mb_s = 0;        ///< the traffic in one slot (TP, CP, EP, stage sends)
    double pipeline_slots = 1;   ///< m + (p − 1)/v slots make the pipeline
    double bubble_s = 0;         ///< (p − 1)/v slots of the 1F1B pipeline
    double tp_s = 0, cp_s = 0, ep_s = 0, pp_s = 0;  ///< per step, on the critical path (every slot carries its share)
    double dp_s = 0;                                ///< the data-parallel reduction's duration
    double dp_exposed_s = 0;                        ///< the part compute does not hide: max(0, dp − overlap · compute)
    double step_s = 0;
    double mfu = 0;                 ///< model FLOPs / (step · GPUs · peak)
    double hardware_tflops = 0;     ///< hardware FLOPs per GPU and second, /1e12
    bool stalled = false;           ///< some transfer has no route
    std::vector<double> arc_bytes;  ///< bytes per arc in one step
};

/// The same step with the GPUs at another clock factor: compute scales, the traffic stays.
TrainingStep retimed(const TrainingStep& at_full_clock, const model::TrainingSpec& spec, double throttle, double peak_flops);

/// One step of `spec` on `ranks` (host node indices, in cabling order) of the fabric; `peak_flops` per GPU,
/// `throttle` the mean clock factor of the job's GPUs. Every collective of one kind runs in all its groups at
/// once, as synchronous SPMD training does. An empty topology makes every transfer free. Throws SimError as
/// trainingLayout.
TrainingStep trainingStep(const net::Topology& t, net::Router& r, const model::TrainingSpec& spec, const std::vector<int>& ranks,
                          double peak_flops, double throttle = 1.0);

}  // namespace ct::sim
