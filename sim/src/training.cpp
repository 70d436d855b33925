#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/training.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::sim {

int TrainingLayout::rank(int t_i, int c_i, int d_i, int p_i) const {
    return dp_outer ? t_i + tp * (c_i + cp * (p_i + pp * d_i)) : t_i + tp * (c_i + cp * (d_i + dp * p_i));
}

TrainingLayout trainingLayout(const model::TrainingSpec& t, int gpus) {
    TrainingLayout l;
    l.tp = std::max(1, t.tensor_parallel);
    l.cp = std::max(1, t.context_parallel);
    l.pp = std::max(1, t.pipeline_parallel);
    l.ep = std::max(1, t.expert_parallel);
    l.dp_outer = t.rank_order == "tp-cp-pp-dp";
    const long long tcp = static_cast<long long>(l.tp) * l.cp * l.pp;
    if (gpus <= 0 || gpus % tcp != 0)
        throw SimError("training: TP x CP x PP = " + std::to_string(tcp) + " does not divide the job's " + std::to_string(gpus) + " GPUs");
    l.dp = static_cast<int>(gpus / tcp);
    if (l.dp % l.ep != 0) throw SimError("training: EP " + std::to_string(l.ep) + " does not divide DP " + std::to_string(l.dp));
    if (t.seq_len > 0) {
        const double seqs = t.tokens_per_step / t.seq_len;
        l.micro_batches = std::max(1, static_cast<int>(std::lround(seqs / l.dp / std::max(1, t.micro_batch))));
        l.micro_tokens = static_cast<double>(std::max(1, t.micro_batch)) * t.seq_len / l.cp;
    } else {
        l.micro_batches = 1;  // issue 3's shape: the replica's whole batch at once
        l.micro_tokens = t.tokens_per_step / l.dp / l.cp;
    }
    return l;
}

namespace {

using Groups = std::vector<std::vector<int>>;

/// Accumulates collectives' arc bytes, scaled by how often they run in a step.
struct Tally {
    std::vector<double>& arc;
    bool& stalled;
    double run(const net::CollectiveResult& r, double times) {
        stalled = stalled || r.stalled_pairs > 0;
        for (std::size_t a = 0; a < arc.size() && a < r.arc_bytes.size(); ++a) arc[a] += r.arc_bytes[a] * times;
        return r.time_s;
    }
};

}  // namespace

TrainingStep retimed(const TrainingStep& base, const model::TrainingSpec& s, double throttle, double peak) {
    TrainingStep out = base;
    const double m = base.layout.micro_batches;
    const double G = static_cast<double>(base.layout.tp) * base.layout.cp * base.layout.pp * base.layout.dp;
    const double clock = std::max(throttle, 1e-3);
    out.compute_s = base.compute_full_s / clock;
    const double optimizer = base.optimizer_s / clock;
    out.slot_s = (out.compute_s - optimizer) / m + base.comm_mb_s;
    out.bubble_s = (out.pipeline_slots - m) * out.slot_s;
    out.dp_exposed_s = std::max(0.0, base.dp_s - s.comm_overlap * out.compute_s);
    out.step_s = out.pipeline_slots * out.slot_s + out.dp_exposed_s + optimizer;
    out.mfu = out.step_s > 0 ? out.model_flops / (out.step_s * G * peak) : 0;
    out.hardware_tflops = out.step_s > 0 ? out.hardware_flops / (out.step_s * G) / 1e12 : 0;
    return out;
}

namespace {

/// The communication of one training step on the fabric, by kind of parallelism: per micro-batch on one stage
/// (tensor, context, expert, pipeline) and per step (data-parallel gradients). Each runs its collectives once
/// and tallies their bytes by how often they run in a step.
class StepComm {
public:
    StepComm(const net::Topology& topo, net::Router& router, const model::TrainingSpec& s, const TrainingLayout& L,
             const std::vector<int>& ranks, Tally& tally, const net::JobComm* comm)
        : topo_(topo),
          router_(router),
          s_(s),
          L_(L),
          ranks_(ranks),
          tally_(tally),
          layers_per_stage_(static_cast<double>(s.layers) / L.pp),
          act_(L.micro_tokens * s.hidden_size * 2.0),
          passes_(1.0 + s.recompute),
          per_step_(L.micro_batches),
          comm_(comm) {
        if (comm_) how_.architecture = comm_->architecture;
    }

    std::vector<StepCollective> ran;  ///< each kind once, as it ran

    /// Two all-reduces per layer in each forward (attention, MLP), two in the backward.
    double tensor() {
        if (L_.tp <= 1) return 0;
        Groups g;
        for (int p = 0; p < L_.pp; ++p)
            for (int d = 0; d < L_.dp; ++d)
                for (int c = 0; c < L_.cp; ++c) {
                    g.emplace_back();
                    for (int t = 0; t < L_.tp; ++t) g.back().push_back(at(t, c, d, p));
                }
        const double n = (2.0 * passes_ + 2.0) * layers_per_stage_;
        return n * tally_.run(collective("TP all-reduce", net::CollectiveOp::AllReduce, g, act_), n * per_step_);
    }

    /// Ring attention: K and V of the whole sequence gathered in each forward, their gradients reduce-scattered
    /// in the backward; GQA shrinks them by kv_heads / heads; each TP rank holds 1/TP of the heads.
    double context() {
        if (L_.cp <= 1) return 0;
        Groups g;
        for (int p = 0; p < L_.pp; ++p)
            for (int d = 0; d < L_.dp; ++d)
                for (int t = 0; t < L_.tp; ++t) {
                    g.emplace_back();
                    for (int c = 0; c < L_.cp; ++c) g.back().push_back(at(t, c, d, p));
                }
        const double kv_share = s_.heads > 0 && s_.kv_heads > 0 ? static_cast<double>(s_.kv_heads) / s_.heads : 1.0;
        const double kv = 2.0 * act_ * L_.cp * kv_share / L_.tp;
        const double ag =
            tally_.run(collective("CP all-gather", net::CollectiveOp::AllGather, g, kv), passes_ * layers_per_stage_ * per_step_);
        const double rs =
            tally_.run(collective("CP reduce-scatter", net::CollectiveOp::ReduceScatter, g, kv), layers_per_stage_ * per_step_);
        return layers_per_stage_ * (passes_ * ag + rs);
    }

    /// Tokens to their experts and back (dispatch, combine) in each forward and backward; each TP rank moves its
    /// 1/TP share of the hidden state, top_k copies of it.
    double expert() {
        if (L_.ep <= 1 || s_.experts <= 0) return 0;
        Groups g;
        for (int p = 0; p < L_.pp; ++p)
            for (int blk = 0; blk < L_.dp / L_.ep; ++blk)
                for (int c = 0; c < L_.cp; ++c)
                    for (int t = 0; t < L_.tp; ++t) {
                        g.emplace_back();
                        for (int e = 0; e < L_.ep; ++e) g.back().push_back(at(t, c, blk * L_.ep + e, p));
                    }
        const double bytes = act_ * s_.top_k / L_.tp;
        const double n = 2.0 * (passes_ + 1.0) * layers_per_stage_;
        return n * tally_.run(collective("EP all-to-all", net::CollectiveOp::AllToAll, g, bytes), n * per_step_);
    }

    /// Stage k sends its activations to k + 1 in the forward, k + 1 the gradients back in the backward, each TP
    /// rank its 1/TP shard (sequence parallel); all stage boundaries at once. Both directions carry
    /// virtual_stages chunk boundaries per micro-batch on an interleaved schedule.
    double pipeline() {
        if (L_.pp <= 1) return 0;
        std::vector<std::tuple<int, int, double>> fwd, bwd;
        for (int p = 0; p + 1 < L_.pp; ++p)
            for (int d = 0; d < L_.dp; ++d)
                for (int c = 0; c < L_.cp; ++c)
                    for (int t = 0; t < L_.tp; ++t) {
                        fwd.emplace_back(at(t, c, d, p), at(t, c, d, p + 1), act_ / L_.tp);
                        bwd.emplace_back(at(t, c, d, p + 1), at(t, c, d, p), act_ / L_.tp);
                    }
        const double v = std::max(1, s_.virtual_stages);
        return v * (tally_.run(net::runTransfers(topo_, router_, fwd), v * per_step_) +
                    tally_.run(net::runTransfers(topo_, router_, bwd), v * per_step_));
    }

    /// Gradients of each rank's parameter shard, reduced over the data-parallel (and context-parallel) replicas;
    /// with ZeRO-3 (FSDP) parameters all-gathered for the forward and again for the backward, gradients
    /// reduce-scattered.
    double data() {
        if (L_.dp * L_.cp <= 1) return 0;
        Groups g;
        for (int p = 0; p < L_.pp; ++p)
            for (int t = 0; t < L_.tp; ++t) {
                g.emplace_back();
                for (int d = 0; d < L_.dp; ++d)
                    for (int c = 0; c < L_.cp; ++c) g.back().push_back(at(t, c, d, p));
            }
        const double grads = s_.bytes_per_param * s_.model_params / (static_cast<double>(L_.tp) * L_.pp);
        if (s_.zero_stage >= 3)
            return tally_.run(collective("DP reduce-scatter", net::CollectiveOp::ReduceScatter, g, grads), 1) +
                   2 * tally_.run(collective("DP all-gather", net::CollectiveOp::AllGather, g, grads), 2);
        return tally_.run(collective("DP all-reduce", net::CollectiveOp::AllReduce, g, grads), 1);
    }

private:
    int at(int t_i, int c_i, int d_i, int p_i) const { return ranks_[static_cast<std::size_t>(L_.rank(t_i, c_i, d_i, p_i))]; }

    /// One kind of collective in all its groups at once: as NCCL runs it when the servers are known.
    net::CollectiveResult collective(const char* what, net::CollectiveOp op, const Groups& g, double bytes) {
        net::CollectiveResult r = comm_ ? net::runGroupedNcclCollective(topo_, router_, op, g, comm_->server_of_host, bytes, how_)
                                        : net::runGroupedCollective(topo_, router_, op, g, bytes);
        StepCollective c;
        c.what = what;
        c.bytes = bytes;
        c.groups = static_cast<int>(g.size());
        c.ranks = g.empty() ? 0 : static_cast<int>(g.front().size());
        if (comm_) {
            c.algorithm = r.algorithm;
            c.protocol = r.protocol;
            c.channels = r.channels;
        }
        c.seconds = r.time_s;
        c.latency_s = r.latency_s;
        ran.push_back(std::move(c));
        return r;
    }

    const net::Topology& topo_;
    net::Router& router_;
    const model::TrainingSpec& s_;
    const TrainingLayout& L_;
    const std::vector<int>& ranks_;
    Tally& tally_;
    const double layers_per_stage_, act_;  ///< act_: bf16 activations of one micro-batch
    const double passes_;                  ///< forwards per micro-batch (recomputation adds one)
    const double per_step_;                ///< micro-batches per GPU and step
    const net::JobComm* comm_;             ///< as NCCL runs them; null: plain rings
    net::NcclChoice how_;
};

}  // namespace

TrainingStep trainingStep(const net::Topology& topo, net::Router& router, const model::TrainingSpec& s, const std::vector<int>& ranks,
                          const GpuRoofline& gpu, double throttle, const net::JobComm* job_comm) {
    TrainingStep out;
    const int G = static_cast<int>(ranks.size());
    const TrainingLayout L = trainingLayout(s, G);
    out.layout = L;
    out.arc_bytes.assign(static_cast<std::size_t>(topo.arcCount()), 0.0);
    Tally tally{out.arc_bytes, out.stalled};
    const bool net = topo.nodeCount() > 0;  // without a fabric every transfer is free
    const bool shaped = s.hidden_size > 0 && s.layers > 0;
    const double active = s.active_params > 0 ? s.active_params : s.model_params;
    const double attention = shaped && s.seq_len > 0 ? 6.0 * s.layers * s.hidden_size * s.seq_len : 0.0;  // causal
    out.model_flops = (6.0 * active + attention) * s.tokens_per_step;
    out.hardware_flops = out.model_flops * (1.0 + s.recompute / 3.0);  // forward = 1/3 of forward + backward
    out.attention_flops = attention * s.tokens_per_step * (1.0 + s.recompute / 3.0);
    const int m = L.micro_batches;
    trainingCompute(s, gpu, out);  // at full clock: retimed() applies the clocks, so a cached step can follow them
    double tp_mb = 0, cp_mb = 0, ep_mb = 0, pp_mb = 0;
    if (net) {
        StepComm comm(topo, router, s, L, ranks, tally, job_comm);
        if (shaped) {
            tp_mb = comm.tensor();
            cp_mb = comm.context();
            ep_mb = comm.expert();
            pp_mb = comm.pipeline();
        }
        out.dp_s = comm.data();
        out.collectives = std::move(comm.ran);
    }
    out.comm_mb_s = tp_mb + cp_mb + ep_mb + pp_mb;
    const double v = std::max(1, s.virtual_stages);
    out.pipeline_slots = m + (L.pp - 1) / v;
    out.tp_s = tp_mb * out.pipeline_slots;
    out.cp_s = cp_mb * out.pipeline_slots;
    out.ep_s = ep_mb * out.pipeline_slots;
    out.pp_s = pp_mb * out.pipeline_slots;
    return retimed(out, s, throttle, gpu.peak_flops);
}

std::string describeCollectives(const std::vector<StepCollective>& collectives) {
    std::string out;
    for (const StepCollective& c : collectives) {
        if (!out.empty()) out += '\n';
        char line[256];
        const std::string how = c.algorithm.empty() ? std::string("ring") : c.algorithm + "/" + c.protocol;
        std::snprintf(line, sizeof line, "%s: %s, %d channel%s, %.3f ms (%d group%s of %d)", c.what.c_str(), how.c_str(), c.channels,
                      c.channels == 1 ? "" : "s", 1e3 * c.seconds, c.groups, c.groups == 1 ? "" : "s", c.ranks);
        out += line;
    }
    return out;
}

}  // namespace ct::sim
