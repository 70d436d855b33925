#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/inference.hpp>
#include <clustertwin/sim/nccl.hpp>

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
                                    const std::vector<int>& ranks, const net::JobComm* comm) {
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
            const double bytes = tokens * s.hidden_size * 2.0;
            if (!comm) return net::runGroupedCollective(*t, *r, net::CollectiveOp::AllReduce, {first}, bytes).time_s;
            net::NcclChoice how;
            how.architecture = comm->architecture;
            return net::runGroupedNcclCollective(*t, *r, net::CollectiveOp::AllReduce, {first}, comm->server_of_host, bytes, how).time_s;
        };
        hw.tp_decode_s = 2.0 * s.layers * allreduce(1);
        if (s.prompt_tokens > 0) hw.tp_prefill_s = 2.0 * s.layers * allreduce(s.prompt_tokens);
    }
    if (s.serving == "disaggregated" && s.prefill_gpus > 0 && s.prefill_gpus + tp <= static_cast<int>(ranks.size()) &&
        s.prompt_tokens > 0) {
        // Each prefill GPU sends its 1/TP share of the request's KV cache to the same rank of a decode instance.
        std::vector<std::tuple<int, int, double>> x;
        const double bytes = s.prompt_tokens * kvBytesPerToken(s) / tp;
        x.reserve(static_cast<std::size_t>(tp));
        const auto decode0 = static_cast<std::size_t>(s.prefill_gpus);
        for (int k = 0; k < tp; ++k) x.emplace_back(ranks[k], ranks[decode0 + static_cast<std::size_t>(k)], bytes);
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

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * (v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    return i + 1 < v.size() ? v[i] + (pos - i) * (v[i + 1] - v[i]) : v[i];
}

/// The serving of one inference spec as a discrete-event simulation: requests arrive, instances prefill them
/// and decode them in batches (on the same instances, or prefill and decode pools with the KV cache sent
/// between them), until T.
class ServingSim {
public:
    ServingSim(const model::InferenceSpec& s, int gpus, const InferenceHardware& hw, double T)
        : s_(s), hw_(hw), T_(T), tp_(std::max(1, s.tensor_parallel)), disagg_(s.serving == "disaggregated") {
        if (gpus < tp_ || gpus % tp_)
            throw SimError("inference: " + std::to_string(gpus) + " GPUs do not make instances of " + std::to_string(tp_));
        if (!(hw.peak_flops > 0) || !(hw.hbm_Bps > 0)) throw SimError("inference: the GPU's peak FLOP/s and memory bandwidth are needed");
        n_ = gpus / tp_;
        np_ = disagg_ ? s.prefill_gpus / tp_ : n_;
        if (disagg_ && (np_ < 1 || np_ >= n_)) throw SimError("inference: disaggregated serving needs prefill and decode instances");
        inst_.resize(static_cast<std::size_t>(n_));
        for (int i = 0; i < n_; ++i) {
            inst_[i].prefill_pool = !disagg_ || i < np_;
            inst_[i].decode_pool = !disagg_ || i >= np_;
        }
        out_tokens_ = std::max(1, static_cast<int>(std::lround(s.tokens_per_request)));
        prefill_s_ = prefillSeconds(s, hw);
        const double P = s.prompt_tokens;
        const double compute = (2.0 * s.model_params * P + 2.0 * s.layers * s.hidden_size * P * P) / (tp_ * hw.peak_flops * s.efficiency);
        prefill_intensity_ =
            prefill_s_ > 0 ? std::clamp(std::max(compute, 0.6 * (prefill_s_ - hw.tp_prefill_s - compute)) / prefill_s_, 0.0, 1.0) : 0.0;
    }

    InferenceResult run(std::uint64_t seed) {
        arrivals(seed);
        while (!ev_.empty()) {
            const auto [t, kind, k] = ev_.top();
            ev_.pop();
            if (t > T_) break;
            if (kind == Arrive) prefill_q_.push_back(k);
            else if (kind == KvDone) decode_q_.push_back(k);
            else done(k, t);
            for (int i = 0; i < n_; ++i) start(i, t);
        }
        return results();
    }

private:
    struct Request {
        double arrival = 0, first_token = -1, finish = -1;
        int tokens = 0;  ///< produced by decode (the first comes from prefill)
    };
    struct Instance {
        bool prefill_pool = true, decode_pool = true;
        bool busy = false;
        int prefilling = -1;      ///< request being prefilled, or −1 for a decode step
        std::vector<int> active;  ///< requests in its decode batch
        double busy_s = 0;
        double activity_s = 0;  ///< busy time weighted by how hard the GPUs work (for power)
    };
    enum Kind { Arrive = 0, KvDone = 1, Done = 2 };
    using Ev = std::tuple<double, int, int>;  // time, kind, index (request or instance)

    /// How hard a busy GPU works, for its power: the share of the kernel time its tensor cores compute, or, for
    /// memory-bound work, 60 % of the dynamic power range while it streams HBM (our estimate: HBM traffic and the
    /// SMs waiting on it).
    double intensity(int batch, double context, double dt) const {
        const double compute = 2.0 * s_.model_params * batch / (tp_ * hw_.peak_flops * s_.efficiency);
        const double memory =
            (s_.model_params * s_.bytes_per_param + context * kvBytesPerToken(s_)) / (tp_ * hw_.hbm_Bps * s_.memory_efficiency);
        return dt > 0 ? std::clamp(std::max(compute, 0.6 * memory) / dt, 0.0, 1.0) : 0.0;
    }

    void arrivals(std::uint64_t seed) {
        if (!s_.arrival_times_s.empty()) {
            for (double a : s_.arrival_times_s)
                if (a < T_) req_.push_back({a});
        } else if (s_.requests_per_s > 0) {
            std::mt19937_64 rng(seed);
            std::exponential_distribution<double> gap(s_.requests_per_s);
            const bool uniform = s_.arrivals == "uniform";
            for (double a = uniform ? 0.5 / s_.requests_per_s : gap(rng); a < T_; a += uniform ? 1.0 / s_.requests_per_s : gap(rng))
                req_.push_back({a});
        }
        for (std::size_t i = 0; i < req_.size(); ++i) ev_.emplace(req_[i].arrival, Arrive, static_cast<int>(i));
    }

    void finish(int r, double t) {
        req_[r].finish = t;
        ++completed_;
        ttft_.push_back(req_[r].first_token - req_[r].arrival);
        if (out_tokens_ > 1) tpot_.push_back((t - req_[r].first_token) / (out_tokens_ - 1));
    }

    /// Busy from t for dt at this intensity (only what falls before T counts).
    void occupy(Instance& x, double t, double dt, double work) {
        x.busy = true;
        x.busy_s += std::max(0.0, std::min(t + dt, T_) - t);
        x.activity_s += std::max(0.0, std::min(t + dt, T_) - t) * work;
    }

    /// Gives idle instance i its next piece of work: a prefill, else a decode step of its batch.
    void start(int i, double t) {
        Instance& x = inst_[i];
        if (x.busy) return;
        if (x.prefill_pool && !prefill_q_.empty() && (disagg_ || static_cast<int>(x.active.size()) < s_.max_batch)) {
            x.prefilling = prefill_q_.front();
            prefill_q_.pop_front();
            occupy(x, t, prefill_s_, prefill_intensity_);
            ev_.emplace(t + prefill_s_, Done, i);
            return;
        }
        if (!x.decode_pool) return;
        while (static_cast<int>(x.active.size()) < s_.max_batch && !decode_q_.empty()) {
            x.active.push_back(decode_q_.front());
            decode_q_.pop_front();
        }
        if (x.active.empty()) return;
        double context = 0;
        for (int r : x.active) context += s_.prompt_tokens + req_[r].tokens;
        const int batch = static_cast<int>(x.active.size());
        const double dt = decodeStepSeconds(s_, hw_, batch, context);
        x.prefilling = -1;
        occupy(x, t, dt, intensity(batch, context, dt));
        batch_sum_ += batch;
        steps_ += 1;
        ev_.emplace(t + dt, Done, i);
    }

    /// Instance k finished its prefill (the request's first token) or its decode step (a token for each).
    void done(int k, double t) {
        Instance& x = inst_[k];
        x.busy = false;
        if (x.prefilling >= 0) {
            const int r = x.prefilling;
            x.prefilling = -1;
            req_[r].first_token = t;
            produced_ += 1;
            if (out_tokens_ <= 1) finish(r, t);
            else if (disagg_) ev_.emplace(t + hw_.kv_transfer_s, KvDone, r);
            else if (static_cast<int>(x.active.size()) < s_.max_batch) x.active.push_back(r);  // its KV cache is here
            else decode_q_.push_back(r);
            return;
        }
        std::vector<int> still;
        for (int r : x.active) {
            ++req_[r].tokens;
            produced_ += 1;
            if (req_[r].tokens >= out_tokens_ - 1) finish(r, t);
            else still.push_back(r);
        }
        x.active.swap(still);
    }

    InferenceResult results() const {
        InferenceResult res;
        res.duration_s = T_;
        res.prefill_instances = np_;
        res.decode_instances = disagg_ ? n_ - np_ : n_;
        res.arrived = static_cast<int>(req_.size());
        res.completed = completed_;
        res.tokens_per_s = T_ > 0 ? produced_ / T_ : 0;
        res.ttft_p50_s = percentile(ttft_, 0.5);
        res.ttft_p90_s = percentile(ttft_, 0.9);
        res.ttft_p99_s = percentile(ttft_, 0.99);
        res.tpot_p50_s = percentile(tpot_, 0.5);
        res.tpot_p90_s = percentile(tpot_, 0.9);
        res.tpot_p99_s = percentile(tpot_, 0.99);
        res.mean_batch = steps_ > 0 ? batch_sum_ / steps_ : 0;
        double pre = 0, dec = 0, pre_a = 0, dec_a = 0;
        for (const Instance& x : inst_) {
            (x.prefill_pool ? pre : dec) += x.busy_s;
            (x.prefill_pool ? pre_a : dec_a) += x.activity_s;
        }
        res.prefill_utilization = T_ > 0 ? pre / (np_ * T_) : 0;
        res.decode_utilization = disagg_ && T_ > 0 ? dec / ((n_ - np_) * T_) : res.prefill_utilization;
        res.prefill_activity = T_ > 0 ? pre_a / (np_ * T_) : 0;
        res.decode_activity = disagg_ && T_ > 0 ? dec_a / ((n_ - np_) * T_) : res.prefill_activity;
        auto power = [&](double u, int g) {
            return g * (hw_.idle_w + (hw_.max_w - hw_.idle_w) * std::pow(std::clamp(u, 0.0, 1.0), hw_.power_exponent));
        };
        res.prefill_power_w = power(res.prefill_activity, np_ * tp_);
        res.decode_power_w = disagg_ ? power(res.decode_activity, (n_ - np_) * tp_) : 0;
        return res;
    }

    const model::InferenceSpec& s_;
    const InferenceHardware& hw_;
    const double T_;
    const int tp_;
    const bool disagg_;
    int n_ = 0, np_ = 0;  ///< instances, of which prefill instances
    int out_tokens_ = 1;
    double prefill_s_ = 0, prefill_intensity_ = 0;
    std::vector<Instance> inst_;
    std::vector<Request> req_;
    std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> ev_;
    std::deque<int> prefill_q_, decode_q_;
    double produced_ = 0, batch_sum_ = 0, steps_ = 0;
    int completed_ = 0;
    std::vector<double> ttft_, tpot_;
};

}  // namespace

InferenceResult simulateInference(const model::InferenceSpec& s, int gpus, const InferenceHardware& hw, double T, std::uint64_t seed) {
    return ServingSim(s, gpus, hw, T).run(seed);
}

}  // namespace ct::sim
