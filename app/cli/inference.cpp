#include "inference.hpp"

#include "job_input.hpp"

#include <clustertwin/sim/inference.hpp>
#include <clustertwin/sim/nccl.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <optional>

namespace ct::cli {

namespace m = ct::model;
using json = nlohmann::ordered_json;

const char* kInferenceHelp = R"(Usage: clustertwin-cli inference SCENARIO [--jobs FILE] [--job ID] [--seconds N] [--seed S] [--json]

Serves the job's model on its GPUs for N simulated seconds (no air grid): requests arrive (Poisson, evenly, or
the spec's arrival_times_s), are prefilled on an instance of tensor_parallel GPUs, hand their KV cache to a
decode instance over the scenario's fabric when serving is "disaggregated" (prefill_gpus prefill, the rest
decode), and decode in continuous batches of up to max_batch whose steps read the weights and the batch's KV
cache from HBM. Prints output tokens/s, time to first token and time per output token (p50, p90, p99), and each
pool's GPU utilization and power. The job's inference spec needs layers, hidden_size and prompt_tokens.
  --job ID       the inference job (the first one with an inference spec)
  --jobs FILE    more jobs, as in a scenario's "jobs" (e.g. resources/jobs/*.json); theirs come first
  --seconds N    simulated seconds (600)
  --seed S       random seed for Poisson arrivals (1)
  --json         the result as JSON
)";

int cmdInference(const Args& a) {
    const double seconds = a.getDouble("seconds", 600);
    if (!(seconds > 0)) throw UsageError("--seconds must be > 0");
    const std::optional<JobInput> in = loadJob(a, "inference", "inference");
    if (!in) return 2;
    const m::Job* job = &in->job();
    const m::InferenceSpec& spec = *job->inference;
    if (spec.layers <= 0 || spec.hidden_size <= 0 || spec.prompt_tokens <= 0) {
        std::cerr << "clustertwin-cli inference: job " << job->id << " needs layers, hidden_size and prompt_tokens in its inference spec\n";
        return 2;
    }
    const m::GpuModel* gpu = in->gpu;
    const int gpus = in->gpus;
    // The job's GPUs in its node order (the prefill pool first), on the fabric when there is one.
    std::optional<sim::net::ScenarioFabric> fabric;
    std::vector<int> ranks;
    if (in->rep.scenario.network.topology != "none") {
        fabric = sim::net::buildScenarioFabric(in->rep.scenario, in->rep.catalog);
        ranks = jobRanks(*fabric, *job, false);
    }
    std::optional<sim::net::Router> router;
    if (fabric) router.emplace(fabric->topology);
    std::optional<sim::net::JobComm> comm;
    if (fabric) comm = sim::net::jobComm(*fabric);
    const sim::InferenceHardware hw = sim::inferenceHardware(spec, *gpu, fabric ? &fabric->topology : nullptr, router ? &*router : nullptr,
                                                             ranks, comm ? &*comm : nullptr);
    const sim::InferenceResult r = sim::simulateInference(spec, gpus, hw, seconds, static_cast<std::uint64_t>(a.getInt("seed", 1)));
    if (a.flag("json")) {
        std::cout << json{{"job", job->id},
                          {"serving", spec.serving},
                          {"gpus", gpus},
                          {"seconds", seconds},
                          {"prefill_instances", r.prefill_instances},
                          {"decode_instances", r.decode_instances},
                          {"requests", r.arrived},
                          {"completed", r.completed},
                          {"tokens_per_s", r.tokens_per_s},
                          {"ttft_s", {{"p50", r.ttft_p50_s}, {"p90", r.ttft_p90_s}, {"p99", r.ttft_p99_s}}},
                          {"tpot_s", {{"p50", r.tpot_p50_s}, {"p90", r.tpot_p90_s}, {"p99", r.tpot_p99_s}}},
                          {"prefill_s", sim::prefillSeconds(spec, hw)},
                          {"kv_transfer_s", hw.kv_transfer_s},
                          {"decode_step_s", sim::decodeStepSeconds(spec, hw, 1, spec.prompt_tokens)},
                          {"mean_batch", r.mean_batch},
                          {"prefill_utilization", r.prefill_utilization},
                          {"decode_utilization", r.decode_utilization},
                          {"prefill_power_w", r.prefill_power_w},
                          {"decode_power_w", r.decode_power_w}}
                         .dump(2)
                  << "\n";
    } else {
        if (spec.serving == "disaggregated")
            std::printf("job %s: disaggregated serving on %d GPUs (%d prefill and %d decode instances of %d GPUs), %.0f s\n",
                        job->id.c_str(), gpus, r.prefill_instances, r.decode_instances, spec.tensor_parallel, seconds);
        else
            std::printf("job %s: colocated serving on %d GPUs (%d instances of %d GPUs), %.0f s\n", job->id.c_str(), gpus,
                        r.prefill_instances, spec.tensor_parallel, seconds);
        std::printf("  %d requests, %d completed; %.0f output tokens/s; mean decode batch %.1f\n", r.arrived, r.completed, r.tokens_per_s,
                    r.mean_batch);
        std::printf("  time to first token p50 %.3f s, p90 %.3f s, p99 %.3f s\n", r.ttft_p50_s, r.ttft_p90_s, r.ttft_p99_s);
        std::printf("  time per output token p50 %.1f ms, p90 %.1f ms, p99 %.1f ms\n", 1e3 * r.tpot_p50_s, 1e3 * r.tpot_p90_s,
                    1e3 * r.tpot_p99_s);
        std::printf("  prefill %.3f s a request, KV transfer %.4f s, decode step at batch 1 %.2f ms\n", sim::prefillSeconds(spec, hw),
                    hw.kv_transfer_s, 1e3 * sim::decodeStepSeconds(spec, hw, 1, spec.prompt_tokens));
        if (r.decode_instances > 0 && spec.serving == "disaggregated")
            std::printf("  prefill pool: %.0f %% busy, %.1f kW; decode pool: %.0f %% busy, %.1f kW\n", 100 * r.prefill_utilization,
                        r.prefill_power_w / 1e3, 100 * r.decode_utilization, r.decode_power_w / 1e3);
        else std::printf("  GPUs %.0f %% busy, %.1f kW\n", 100 * r.prefill_utilization, r.prefill_power_w / 1e3);
    }
    return 0;
}

}  // namespace ct::cli
