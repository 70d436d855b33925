// Validation of a training job's parallel layout (docs/workloads.md). Private to the model library.
#include "json_util.hpp"
#include "validate_parts.hpp"

#include <cmath>

namespace ct::model::detail {

void checkTraining(const TrainingSpec& t, const std::string& p, int gpus, int gpn, Diagnostics& d) {
    auto err = [&](const std::string& at, std::string m) { d.push_back({Severity::Error, at, std::move(m)}); };
    auto positive = [&](const std::string& at, double v) {
        if (!(v > 0)) err(at, "must be > 0");
    };
    positive(p + "/model_params", t.model_params);
    positive(p + "/tokens_per_step", t.tokens_per_step);
    for (const auto& [key, v] :
         {std::pair{"tensor_parallel", t.tensor_parallel}, std::pair{"pipeline_parallel", t.pipeline_parallel},
          std::pair{"context_parallel", t.context_parallel}, std::pair{"expert_parallel", t.expert_parallel},
          std::pair{"micro_batch", t.micro_batch}, std::pair{"virtual_stages", t.virtual_stages}, std::pair{"top_k", t.top_k}})
        if (v < 1) err(p + "/" + key, "must be >= 1");
    if (t.efficiency < 0 || t.efficiency > 1) err(p + "/efficiency", "must be within 0..1 (0 = the GPU's matmul share from the catalog)");
    if (t.attention_efficiency < 0 || t.attention_efficiency > 1)
        err(p + "/attention_efficiency", "must be within 0..1 (0 = the GPU's attention share from the catalog)");
    if (t.ffn_hidden_size < 0) err(p + "/ffn_hidden_size", "must be >= 0 (0 = what the parameters leave)");
    if (t.vocab_size < 0) err(p + "/vocab_size", "must be >= 0");
    if (t.mlp != "gelu" && t.mlp != "swiglu") err(p + "/mlp", "must be 'gelu' or 'swiglu', got '" + t.mlp + "'");
    if (t.comm_overlap < 0 || t.comm_overlap > 1) err(p + "/comm_overlap", "must be within 0..1");
    if (t.recompute < 0 || t.recompute > 1) err(p + "/recompute", "must be within 0..1 (1 = full activation recomputation)");
    positive(p + "/bytes_per_param", t.bytes_per_param);
    if (t.hidden_size < 0 || t.layers < 0 || t.seq_len < 0 || t.heads < 0 || t.kv_heads < 0 || t.experts < 0)
        err(p, "hidden_size, layers, seq_len, heads, kv_heads and experts must be >= 0");
    if (t.checkpoint_interval_s < 0) err(p + "/checkpoint_interval_s", "must be >= 0 (0 = Young/Daly's optimum)");
    if (t.checkpoint_bytes < 0) err(p + "/checkpoint_bytes", "must be >= 0 (0 = 14 bytes per parameter)");
    positive(p + "/storage_gbytes_per_s", t.storage_gbytes_per_s);
    if (t.detection_s < 0) err(p + "/detection_s", "must be >= 0");
    if (t.restart_s < 0) err(p + "/restart_s", "must be >= 0");
    if (t.zero_stage < 0 || t.zero_stage > 3) err(p + "/zero_stage", "must be 0, 1, 2 or 3");
    if (t.rank_order != "tp-cp-dp-pp" && t.rank_order != "tp-cp-pp-dp")
        err(p + "/rank_order", "must be 'tp-cp-dp-pp' (Megatron) or 'tp-cp-pp-dp' (Llama 3), got '" + t.rank_order + "'");
    if (t.active_params < 0 || t.active_params > t.model_params) err(p + "/active_params", "must be within 0..model_params");
    if (t.kv_heads > 0 && t.heads > 0 && t.heads % t.kv_heads != 0) err(p + "/kv_heads", "must divide heads");
    if (t.expert_parallel > 1 && t.experts == 0) err(p + "/expert_parallel", "needs experts (a mixture-of-experts model)");
    if (t.experts > 0 && t.expert_parallel > t.experts) err(p + "/expert_parallel", "cannot exceed the number of experts");
    if (t.virtual_stages > 1 && t.pipeline_parallel == 1) err(p + "/virtual_stages", "needs pipeline_parallel > 1");
    const bool shaped = t.hidden_size > 0 && t.layers > 0;
    if ((t.seq_len > 0 || t.context_parallel > 1 || t.expert_parallel > 1) && !shaped)
        err(p, "seq_len, context_parallel and expert_parallel need hidden_size and layers");
    if (t.pipeline_parallel > 1 && t.layers > 0 && t.layers < t.pipeline_parallel * t.virtual_stages)
        err(p + "/pipeline_parallel", "PP x virtual stages = " + std::to_string(t.pipeline_parallel * t.virtual_stages) + " exceeds the " +
                                          std::to_string(t.layers) + " layers");
    if (t.seq_len > 0 && t.context_parallel > 1 && t.seq_len % t.context_parallel != 0) err(p + "/context_parallel", "must divide seq_len");
    if (gpus <= 0 || t.tensor_parallel < 1 || t.pipeline_parallel < 1 || t.context_parallel < 1 || t.expert_parallel < 1) return;
    if (gpn > 0 && gpn % t.tensor_parallel != 0 && t.tensor_parallel % gpn != 0)
        err(p + "/tensor_parallel", "must divide the " + std::to_string(gpn) + " GPUs of a node (or be a multiple of it)");
    const long long tcp = static_cast<long long>(t.tensor_parallel) * t.context_parallel * t.pipeline_parallel;
    if (gpus % tcp != 0) {
        err(p + "/pipeline_parallel",
            "TP x CP x PP = " + std::to_string(tcp) + " does not divide the job's " + std::to_string(gpus) + " GPUs");
        return;
    }
    const long long dp = gpus / tcp;
    if (dp % t.expert_parallel != 0)
        err(p + "/expert_parallel", "must divide the data-parallel size " + std::to_string(dp) + " (GPUs / (TP x CP x PP))");
    if (t.seq_len > 0) {
        const double seqs = t.tokens_per_step / t.seq_len, per_replica = seqs / static_cast<double>(dp);
        if (per_replica < t.micro_batch || std::abs(per_replica / t.micro_batch - std::round(per_replica / t.micro_batch)) > 1e-9)
            err(p + "/tokens_per_step", "the global batch of " + std::to_string(seqs) + " sequences of " + std::to_string(t.seq_len) +
                                            " tokens must split into whole micro-batches of " + std::to_string(t.micro_batch) + " over " +
                                            std::to_string(dp) + " data-parallel replicas");
    }
}

void checkInference(const InferenceSpec& i, const std::string& p, int gpus, Diagnostics& d) {
    auto err = [&](const std::string& at, std::string m) { d.push_back({Severity::Error, at, std::move(m)}); };
    if (!(i.model_params > 0)) err(p + "/model_params", "must be > 0");
    if (!(i.requests_per_s >= 0)) err(p + "/requests_per_s", "must be >= 0");
    if (!(i.tokens_per_request > 0)) err(p + "/tokens_per_request", "must be > 0");
    if (!(i.efficiency > 0 && i.efficiency <= 1)) err(p + "/efficiency", "must be within (0, 1]");
    if (!(i.memory_efficiency > 0 && i.memory_efficiency <= 1)) err(p + "/memory_efficiency", "must be within (0, 1]");
    if (!(i.prompt_tokens >= 0)) err(p + "/prompt_tokens", "must be >= 0");
    if (!(i.bytes_per_param > 0)) err(p + "/bytes_per_param", "must be > 0");
    if (i.serving != "colocated" && i.serving != "disaggregated") err(p + "/serving", "must be 'colocated' or 'disaggregated'");
    if (i.arrivals != "poisson" && i.arrivals != "uniform") err(p + "/arrivals", "must be 'poisson' or 'uniform'");
    for (std::size_t k = 1; k < i.arrival_times_s.size(); ++k)
        if (i.arrival_times_s[k] < i.arrival_times_s[k - 1]) err(p + "/arrival_times_s/" + std::to_string(k), "times must not decrease");
    if (i.tensor_parallel < 1) err(p + "/tensor_parallel", "must be >= 1");
    if (i.max_batch < 1) err(p + "/max_batch", "must be >= 1");
    if (i.layers < 0 || i.hidden_size < 0 || i.heads < 0 || i.kv_heads < 0) err(p, "layers, hidden_size, heads and kv_heads must be >= 0");
    if (i.kv_heads > 0 && i.heads > 0 && i.heads % i.kv_heads != 0) err(p + "/kv_heads", "must divide heads");
    if (gpus <= 0 || i.tensor_parallel < 1) return;
    if (gpus % i.tensor_parallel != 0)
        err(p + "/tensor_parallel",
            "must divide the job's " + std::to_string(gpus) + " GPUs (instances of " + std::to_string(i.tensor_parallel) + ")");
    if (i.serving == "disaggregated") {
        if (i.prefill_gpus <= 0 || i.prefill_gpus >= gpus)
            err(p + "/prefill_gpus",
                "disaggregated serving needs a prefill pool of 1.." + std::to_string(gpus - 1) + " GPUs, the rest decoding");
        else if (i.prefill_gpus % i.tensor_parallel != 0)
            err(p + "/prefill_gpus", "must be a whole number of instances of " + std::to_string(i.tensor_parallel) + " GPUs");
    }
}

}  // namespace ct::model::detail
