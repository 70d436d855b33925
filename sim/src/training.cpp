#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/training.hpp>

#include <algorithm>
#include <cmath>

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

} // namespace

TrainingStep retimed(const TrainingStep& base, const model::TrainingSpec& s, double throttle, double peak) {
    TrainingStep out = base;
    const double m = base.layout.micro_batches;
    const double G = static_cast<double>(base.layout.tp) * base.layout.cp * base.layout.pp * base.layout.dp;
    const double attn_eff = s.attention_efficiency > 0 ? s.attention_efficiency : s.efficiency;
    const double full = ((base.hardware_flops - base.attention_flops) / s.efficiency + base.attention_flops / attn_eff) / G / peak;
    out.compute_s = full / std::max(throttle, 1e-3);
    out.slot_s = out.compute_s / m + base.comm_mb_s;
    out.bubble_s = (out.pipeline_slots - m) * out.slot_s;
    out.dp_exposed_s = std::max(0.0, base.dp_s - s.comm_overlap * out.compute_s);
    out.step_s = out.pipeline_slots * out.slot_s + out.dp_exposed_s;
    out.mfu = out.step_s > 0 ? out.model_flops / (out.step_s * G * peak) : 0;
    out.hardware_tflops = out.step_s > 0 ? out.hardware_flops / (out.step_s * G) / 1e12 : 0;
    return out;
}

TrainingStep trainingStep(const net::Topology& topo, net::Router& router, const model::TrainingSpec& s, const std::vector<int>& ranks,
                          double peak, double throttle) {
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
    const double attn_eff = s.attention_efficiency > 0 ? s.attention_efficiency : s.efficiency;
    const double compute_mb = ((out.hardware_flops - out.attention_flops) / s.efficiency + out.attention_flops / attn_eff) / G / m / peak;
    out.compute_s = compute_mb * m;
    // (the clock factor is applied by retimed() at the end, so a cached step can follow the clocks)
    auto at = [&](int t_i, int c_i, int d_i, int p_i) { return ranks[static_cast<std::size_t>(L.rank(t_i, c_i, d_i, p_i))]; };
    // Per micro-batch on one stage: the traffic that sits between its kernels.
    const double layers_per_stage = shaped ? static_cast<double>(s.layers) / L.pp : 0.0;
    const double act = shaped ? L.micro_tokens * s.hidden_size * 2.0 : 0.0;  // bf16 activations of one micro-batch
    const double passes = 1.0 + s.recompute;                                // forwards per micro-batch
    double tp_mb = 0, cp_mb = 0, ep_mb = 0, pp_mb = 0;
    const double per_step = static_cast<double>(m);                          // micro-batches per GPU and step
    if (net && L.tp > 1 && shaped) {
        Groups g;
        for (int p = 0; p < L.pp; ++p)
            for (int d = 0; d < L.dp; ++d)
                for (int c = 0; c < L.cp; ++c) {
                    g.emplace_back();
                    for (int t = 0; t < L.tp; ++t) g.back().push_back(at(t, c, d, p));
                }
        // Two all-reduces per layer in each forward (attention, MLP), two in the backward.
        const double n = (2.0 * passes + 2.0) * layers_per_stage;
        tp_mb = n * tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::AllReduce, g, act), n * per_step);
    }
    if (net && L.cp > 1 && shaped) {
        Groups g;
        for (int p = 0; p < L.pp; ++p)
            for (int d = 0; d < L.dp; ++d)
                for (int t = 0; t < L.tp; ++t) {
                    g.emplace_back();
                    for (int c = 0; c < L.cp; ++c) g.back().push_back(at(t, c, d, p));
                }
        // Ring attention: K and V of the whole sequence gathered in each forward, their gradients reduce-scattered
        // in the backward; GQA shrinks them by kv_heads / heads; each TP rank holds 1/TP of the heads.
        const double kv_share = s.heads > 0 && s.kv_heads > 0 ? static_cast<double>(s.kv_heads) / s.heads : 1.0;
        const double kv = 2.0 * act * L.cp * kv_share / L.tp;
        const double ag = tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::AllGather, g, kv), passes * layers_per_stage * per_step);
        const double rs = tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::ReduceScatter, g, kv), layers_per_stage * per_step);
        cp_mb = layers_per_stage * (passes * ag + rs);
    }
    if (net && L.ep > 1 && shaped && s.experts > 0) {
        Groups g;
        for (int p = 0; p < L.pp; ++p)
            for (int blk = 0; blk < L.dp / L.ep; ++blk)
                for (int c = 0; c < L.cp; ++c)
                    for (int t = 0; t < L.tp; ++t) {
                        g.emplace_back();
                        for (int e = 0; e < L.ep; ++e) g.back().push_back(at(t, c, blk * L.ep + e, p));
                    }
        // Tokens to their experts and back (dispatch, combine) in each forward and backward; each TP rank moves
        // its 1/TP share of the hidden state, top_k copies of it.
        const double bytes = act * s.top_k / L.tp;
        const double n = 2.0 * (passes + 1.0) * layers_per_stage;
        ep_mb = n * tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::AllToAll, g, bytes), n * per_step);
    }
    if (net && L.pp > 1 && shaped) {
        // Stage k sends its activations to k + 1 in the forward, k + 1 the gradients back in the backward, each TP
        // rank its 1/TP shard (sequence parallel); all stage boundaries at once.
        std::vector<std::tuple<int, int, double>> fwd, bwd;
        for (int p = 0; p + 1 < L.pp; ++p)
            for (int d = 0; d < L.dp; ++d)
                for (int c = 0; c < L.cp; ++c)
                    for (int t = 0; t < L.tp; ++t) {
                        fwd.emplace_back(at(t, c, d, p), at(t, c, d, p + 1), act / L.tp);
                        bwd.emplace_back(at(t, c, d, p + 1), at(t, c, d, p), act / L.tp);
                    }
        // Both directions carry L.virtual_stages chunk boundaries per micro-batch on an interleaved schedule.
        const double v = std::max(1, s.virtual_stages);
        pp_mb = v * (tally.run(net::runTransfers(topo, router, fwd), v * per_step) + tally.run(net::runTransfers(topo, router, bwd), v * per_step));
    }
    out.comm_mb_s = tp_mb + cp_mb + ep_mb + pp_mb;
    const double v = std::max(1, s.virtual_stages);
    out.pipeline_slots = m + (L.pp - 1) / v;
    out.tp_s = tp_mb * out.pipeline_slots;
    out.cp_s = cp_mb * out.pipeline_slots;
    out.ep_s = ep_mb * out.pipeline_slots;
    out.pp_s = pp_mb * out.pipeline_slots;
    // Gradients of each rank's parameter shard, reduced over the data-parallel (and context-parallel) replicas.
    if (net && L.dp * L.cp > 1) {
        Groups g;
        for (int p = 0; p < L.pp; ++p)
            for (int t = 0; t < L.tp; ++t) {
                g.emplace_back();
                for (int d = 0; d < L.dp; ++d)
                    for (int c = 0; c < L.cp; ++c) g.back().push_back(at(t, c, d, p));
            }
        const double grads = s.bytes_per_param * s.model_params / (static_cast<double>(L.tp) * L.pp);
        if (s.zero_stage >= 3) {
            // FSDP: parameters all-gathered for the forward and again for the backward, gradients reduce-scattered.
            out.dp_s = tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::ReduceScatter, g, grads), 1) +
                       2 * tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::AllGather, g, grads), 2);
        } else {
            out.dp_s = tally.run(net::runGroupedCollective(topo, router, net::CollectiveOp::AllReduce, g, grads), 1);
        }
    }
    return retimed(out, s, throttle, peak);
}

} // namespace ct::sim
