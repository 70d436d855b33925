#pragma once
// Serving a model (docs/workloads.md): requests arrive, are prefilled (compute-bound), hand their KV cache to a
// decode instance over the fabric when prefill and decode are disaggregated, and decode in continuous batches
// whose steps read the weights and the batch's KV cache from HBM. A discrete-event simulation of the instances.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/network.hpp>

#include <cstdint>
#include <vector>

namespace ct::sim::net {
struct JobComm;
}  // namespace ct::sim::net

namespace ct::sim {

/// What the instances run on: the GPU's figures and the traffic measured on the fabric.
struct InferenceHardware {
    double peak_flops = 0;  ///< per GPU, BF16 dense
    double hbm_Bps = 0;     ///< per GPU
    double idle_w = 0, max_w = 0, power_exponent = 1;
    double kv_transfer_s = 0;  ///< one request's KV cache from a prefill to a decode instance (disaggregated)
    double tp_decode_s = 0;    ///< a decode step's tensor-parallel all-reduces (2 per layer)
    double tp_prefill_s = 0;   ///< a prefill's tensor-parallel all-reduces (2 per layer)
};

/// The GPU's figures and, on a fabric, the transfers timed there between the job's GPUs (`ranks`, in job order:
/// the prefill pool first); the tensor-parallel all-reduces as NCCL runs them with `comm` (nccl.hpp: a decode
/// step's are latency-bound, NCCL's LL protocol). Without a fabric every transfer is free.
InferenceHardware inferenceHardware(const model::InferenceSpec& s, const model::GpuModel& gpu, const net::Topology* t, net::Router* r,
                                    const std::vector<int>& ranks, const net::JobComm* comm = nullptr);

/// KV cache bytes per token: K and V of every layer, hidden · kv_heads / heads wide, in bf16.
double kvBytesPerToken(const model::InferenceSpec& s);
/// One decode step of `batch` requests holding `context_tokens` tokens in all: reading the weights and their KV
/// cache, (W + context · kv) / (TP · HBM bandwidth · memory_efficiency), or the batch's 2 · N FLOPs per token if
/// that takes longer, plus the step's tensor-parallel all-reduces.
double decodeStepSeconds(const model::InferenceSpec& s, const InferenceHardware& hw, int batch, double context_tokens);
/// One request's prefill: 2 · N · P plus causal attention 2 · layers · hidden · P² FLOPs on TP GPUs, or reading the
/// weights if that takes longer, plus its all-reduces.
double prefillSeconds(const model::InferenceSpec& s, const InferenceHardware& hw);

struct InferenceResult {
    double duration_s = 0;
    int prefill_instances = 0, decode_instances = 0;  ///< colocated: all instances in both
    int arrived = 0, completed = 0;
    double tokens_per_s = 0;                                 ///< output tokens produced per second
    double ttft_p50_s = 0, ttft_p90_s = 0, ttft_p99_s = 0;   ///< arrival to first token (queue + prefill)
    double tpot_p50_s = 0, tpot_p90_s = 0, tpot_p99_s = 0;   ///< time per output token after the first
    double prefill_utilization = 0, decode_utilization = 0;  ///< busy share of the pool's GPUs (kernels running)
    double prefill_activity = 0, decode_activity = 0;        ///< what their power follows (compute share, or 0.6 of it streaming HBM)
    double prefill_power_w = 0, decode_power_w = 0;          ///< the pools' GPUs (colocated: all in prefill_*)
    double mean_batch = 0;                                   ///< requests per decode step
};

/// Simulates `duration_s` of serving on `gpus` GPUs. Throws SimError for a layout that does not fit.
InferenceResult simulateInference(const model::InferenceSpec& s, int gpus, const InferenceHardware& hw, double duration_s,
                                  std::uint64_t seed = 1);

}  // namespace ct::sim
