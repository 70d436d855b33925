#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/inference.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <queue>
#include <random>

namespace ct::sim {

double kvBytesPerToken(const model::InferenceSpec& s) {
    const double kv_share = s.heads > 0 && s.kv_heads > 0 ? static_cast<double>(s.kv_heads) / s.heads : 1.0;
    return 2.0 * s.layers * s.hidden_size * kv_share * 2.0;
}

InferenceHardware inferenceHardware(const model::InferenceSpec& s, const model::GpuModel& g, const net::Topology* t, net::Router* r,
                                    const std::vector<int>& ranks) {
    InferenceHardware hw;
    hw.peak_flops = g.peak_bf16_tflops * 1e12;
    hw.hbm_Bps = g.memory_bandwidth_tbs * 1e12;
    hw.idle_w = g.idle_power_w;
    hw.max_w = g.max_power_w;
    hw.power_exponent = g.power_exponent;
    const int tp = std::max(1, s.tensor_parallel);
    if (!t || !r || t->nodeCount() == 0 || static_cast<int>(ranks.size()) < tp || s.layers <= 0 || s.hidden_size <= 0) return hw;
    const std::vector<int> first(ranks.begin(), ranks.begin() + tp);
    if (tp > 1) {
        // Two all-reduces per layer (attention and MLP outputs) of the tokens' activations over the instance.
        auto allreduce = [&](double tokens) {
            return net::runGroupedCollective(*t, *r, net::CollectiveOp::AllReduce, {first}, tokens * s.hidden_size * 2.0).time_s;
        };
        hw.tp_decode_s = 2.0 * s.layers * allreduce(1);
        if (s.prompt_tokens > 0) hw.tp_prefill_s = 2.0 * s.layers * allreduce(s.prompt_tokens);
    }
    if (s.serving == "disaggregated" && s.prefill_gpus > 0 && s.prefill_gpus + tp <= static_cast<int>(ranks.size()) && s.prompt_tokens > 0) {
        // Each prefill GPU sends its 1/TP share of the request's KV cache to the same rank of a decode instance.
        std::vector<std::tuple<int, int, double>> x;
        const double bytes = s.prompt_tokens * kvBytesPerToken(s) / tp;
        for (int k = 0; k < tp; ++k) x.emplace_back(ranks[k], ranks[static_cast<std::size_t>(s.prefill_gpus + k)], bytes);
        hw.kv_transfer_s = net::runTransfers(*t, *r, x).time_s;
    }
    return hw;
}

double decodeStepSeconds(const model::InferenceSpec& s, const InferenceHardware& hw, int batch, double context_tokens) {
    const double tp = std::max(1, s.tensor_parallel);
    const double bytes = s.model_params * s.bytes_per_param + context_tokens * kvBytesPerToken(s);
    const double memory = bytes / (tp * hw.hbm_Bps * s.memory_efficiency);
    const double compute = 2.0 * s.model_params * batch / (tp * hw.peak_flops * s.efficiency);
    return std::max(memory, compute) + hw.tp_decode_s;
}

double prefillSeconds(const model::InferenceSpec& s, const InferenceHardware& hw) {
    const double tp = std::max(1, s.tensor_parallel), P = s.prompt_tokens;
    const double flops = 2.0 * s.model_params * P + 2.0 * s.layers * s.hidden_size * P * P;
    const double compute = flops / (tp * hw.peak_flops * s.efficiency);
    const double memory = s.model_params * s.bytes_per_param / (tp * hw.hbm_Bps * s.memory_efficiency);
    return std::max(compute, memory) + hw.tp_prefill_s;
}

namespace {

struct Request {
    double arrival = 0, first_token = -1, finish = -1;
    int tokens = 0;  ///< produced by decode (the first comes from prefill)
};

struct Instance {
    bool prefill_pool = true, decode_pool = true;
    bool busy = false;
    int prefilling = -1;          ///< request being prefilled, or −1 for a decode step
    std::vector<int> active;      ///< requests in its decode batch
    double busy_s = 0;
    double activity_s = 0;        ///< busy time weighted by how hard the GPUs work (for power)
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * (v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    return i + 1 < v.size() ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

} // namespace

InferenceResult simulateInference(const model::InferenceSpec& s, int gpus, const InferenceHardware& hw, double T, std::uint64_t seed) {
    InferenceResult res;
    res.duration_s = T;
    const int tp = std::max(1, s.tensor_parallel);
    if (gpus < tp || gpus % tp) throw SimError("inference: " + std::to_string(gpus) + " GPUs do not make instances of " + std::to_string(tp));
    if (!(hw.peak_flops > 0) || !(hw.hbm_Bps > 0)) throw SimError("inference: the GPU's peak FLOP/s and memory bandwidth are needed");
    const bool disagg = s.serving == "disaggregated";
    const int n = gpus / tp, np = disagg ? s.prefill_gpus / tp : n;
    if (disagg && (np < 1 || np >= n)) throw SimError("inference: disaggregated serving needs prefill and decode instances");
    std::vector<Instance> inst(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        inst[i].prefill_pool = !disagg || i < np;
        inst[i].decode_pool = !disagg || i >= np;
    }
    res.prefill_instances = np;
    res.decode_instances = disagg ? n - np : n;
    const int out_tokens = std::max(1, static_cast<int>(std::lround(s.tokens_per_request)));
    const double prefill_s = prefillSeconds(s, hw);
    // How hard a busy GPU works, for its power: the share of the kernel time its tensor cores compute, or, for
    // memory-bound work, 60 % of the dynamic power range while it streams HBM (our estimate: HBM traffic and the
    // SMs waiting on it).
    const double tp_d = tp;
    auto intensity = [&](int batch, double context, double dt) {
        const double compute = 2.0 * s.model_params * batch / (tp_d * hw.peak_flops * s.efficiency);
        const double memory = (s.model_params * s.bytes_per_param + context * kvBytesPerToken(s)) / (tp_d * hw.hbm_Bps * s.memory_efficiency);
        return dt > 0 ? std::clamp(std::max(compute, 0.6 * memory) / dt, 0.0, 1.0) : 0.0;
    };
    const double prefill_intensity = [&] {
        const double P = s.prompt_tokens;
        const double compute = (2.0 * s.model_params * P + 2.0 * s.layers * s.hidden_size * P * P) / (tp_d * hw.peak_flops * s.efficiency);
        return prefill_s > 0 ? std::clamp(std::max(compute, 0.6 * (prefill_s - hw.tp_prefill_s - compute)) / prefill_s, 0.0, 1.0) : 0.0;
    }();

    // Arrivals.
    std::vector<Request> req;
    if (!s.arrival_times_s.empty()) {
        for (double a : s.arrival_times_s)
            if (a < T) req.push_back({a});
    } else if (s.requests_per_s > 0) {
        std::mt19937_64 rng(seed);
        std::exponential_distribution<double> gap(s.requests_per_s);
        for (double a = s.arrivals == "uniform" ? 0.5 / s.requests_per_s : gap(rng); a < T;
             a += s.arrivals == "uniform" ? 1.0 / s.requests_per_s : gap(rng))
            req.push_back({a});
    }
    res.arrived = static_cast<int>(req.size());
    enum Kind { Arrive = 0, KvDone = 1, Done = 2 };
    using Ev = std::tuple<double, int, int>;  // time, kind, index (request or instance)
    std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> ev;
    for (std::size_t i = 0; i < req.size(); ++i) ev.emplace(req[i].arrival, Arrive, static_cast<int>(i));
    std::deque<int> prefill_q, decode_q;
    double produced = 0, batch_sum = 0, steps = 0;
    std::vector<double> ttft, tpot;
    auto finish = [&](int r, double t) {
        req[r].finish = t;
        ++res.completed;
        ttft.push_back(req[r].first_token - req[r].arrival);
        if (out_tokens > 1) tpot.push_back((t - req[r].first_token) / (out_tokens - 1));
    };
    auto start = [&](int i, double t) {  // give an idle instance its next piece of work
        Instance& x = inst[i];
        if (x.busy) return;
        if (x.prefill_pool && !prefill_q.empty() && (disagg || static_cast<int>(x.active.size()) < s.max_batch)) {
            x.prefilling = prefill_q.front();
            prefill_q.pop_front();
            x.busy = true;
            x.busy_s += std::max(0.0, std::min(t + prefill_s, T) - t);
            x.activity_s += std::max(0.0, std::min(t + prefill_s, T) - t) * prefill_intensity;
            ev.emplace(t + prefill_s, Done, i);
            return;
        }
        if (!x.decode_pool) return;
        while (static_cast<int>(x.active.size()) < s.max_batch && !decode_q.empty()) {
            x.active.push_back(decode_q.front());
            decode_q.pop_front();
        }
        if (x.active.empty()) return;
        double context = 0;
        for (int r : x.active) context += s.prompt_tokens + req[r].tokens;
        const double dt = decodeStepSeconds(s, hw, static_cast<int>(x.active.size()), context);
        x.prefilling = -1;
        x.busy = true;
        x.busy_s += std::max(0.0, std::min(t + dt, T) - t);
        x.activity_s += std::max(0.0, std::min(t + dt, T) - t) * intensity(static_cast<int>(x.active.size()), context, dt);
        batch_sum += static_cast<double>(x.active.size());
        steps += 1;
        ev.emplace(t + dt, Done, i);
    };
    auto kickAll = [&](double t) {
        for (int i = 0; i < n; ++i) start(i, t);
    };
    while (!ev.empty()) {
        const auto [t, kind, k] = ev.top();
        ev.pop();
        if (t > T) break;
        if (kind == Arrive) {
            prefill_q.push_back(k);
        } else if (kind == KvDone) {
            decode_q.push_back(k);
        } else {
            Instance& x = inst[k];
            x.busy = false;
            if (x.prefilling >= 0) {
                const int r = x.prefilling;
                x.prefilling = -1;
                req[r].first_token = t;
                produced += 1;
                if (out_tokens <= 1) finish(r, t);
                else if (disagg) ev.emplace(t + hw.kv_transfer_s, KvDone, r);
                else if (static_cast<int>(x.active.size()) < s.max_batch) x.active.push_back(r);  // its KV cache is here
                else decode_q.push_back(r);
            } else {
                std::vector<int> still;
                for (int r : x.active) {
                    ++req[r].tokens;
                    produced += 1;
                    if (req[r].tokens >= out_tokens - 1) finish(r, t);
                    else still.push_back(r);
                }
                x.active.swap(still);
            }
        }
        kickAll(t);
    }
    res.tokens_per_s = T > 0 ? produced / T : 0;
    res.ttft_p50_s = percentile(ttft, 0.5);
    res.ttft_p90_s = percentile(ttft, 0.9);
    res.ttft_p99_s = percentile(ttft, 0.99);
    res.tpot_p50_s = percentile(tpot, 0.5);
    res.tpot_p90_s = percentile(tpot, 0.9);
    res.tpot_p99_s = percentile(tpot, 0.99);
    res.mean_batch = steps > 0 ? batch_sum / steps : 0;
    double pre = 0, dec = 0, pre_a = 0, dec_a = 0;
    for (int i = 0; i < n; ++i) {
        (inst[i].prefill_pool ? pre : dec) += inst[i].busy_s;
        (inst[i].prefill_pool ? pre_a : dec_a) += inst[i].activity_s;
    }
    res.prefill_utilization = T > 0 ? pre / (np * T) : 0;
    res.decode_utilization = disagg && T > 0 ? dec / ((n - np) * T) : res.prefill_utilization;
    res.prefill_activity = T > 0 ? pre_a / (np * T) : 0;
    res.decode_activity = disagg && T > 0 ? dec_a / ((n - np) * T) : res.prefill_activity;
    auto power = [&](double u, int g) { return g * (hw.idle_w + (hw.max_w - hw.idle_w) * std::pow(std::clamp(u, 0.0, 1.0), hw.power_exponent)); };
    res.prefill_power_w = power(res.prefill_activity, np * tp);
    res.decode_power_w = disagg ? power(res.decode_activity, (n - np) * tp) : 0;
    return res;
}

} // namespace ct::sim
