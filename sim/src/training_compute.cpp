// One GPU's compute in a training step, kernel by kernel (docs/workloads.md "Compute"): each operator of a
// transformer layer timed from its FLOPs and bytes against the GPU's peaks and the shares of them its kernels
// achieve (the catalog's measured figures, or the job's overrides).
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/sim/training.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>

namespace ct::sim {

namespace {

constexpr double kKernelGap = 2e-6;     ///< between dependent kernels: launch, ramp-up and tail (our estimate)
constexpr double kMatmulStandIn = 0.7;  ///< when the catalog has no measured matmul share (its GPUs span 0.73–0.87)
constexpr double kMemoryStandIn = 0.8;  ///< when it has no memory share
constexpr double kBf16 = 2;             ///< bytes per activation element
/// Adam reads the fp32 gradient, master weight and two moments (16 B) and writes those three and the bf16 weight (14 B).
constexpr double kAdamBytesPerParam = 30;
constexpr double kBackwardAttention = 2.5;  ///< flash attention's backward does 2.5 × its forward's work (it recomputes QKᵀ)

std::string fixed(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

/// The shares a step uses: the job's overrides, else the GPU's, else stated stand-ins (with a warning).
struct Shares {
    double matmul = 0, attention = 0, memory = 0;
};

Shares shares(const model::TrainingSpec& s, const GpuRoofline& g, bool shaped, TrainingStep& out) {
    Shares k{g.matmul, g.attention, g.memory};
    const std::string gpu = g.gpu.empty() ? std::string("GPU") : g.gpu;
    if (s.efficiency > 0) {
        k.matmul = s.efficiency;
        out.overrides.push_back("efficiency " + fixed(s.efficiency, 2) + " replaces the " + gpu + "'s matmul share");
    } else if (k.matmul <= 0) {
        k.matmul = kMatmulStandIn;
        out.warnings.push_back("the catalog has no measured matmul share for the " + gpu + ": taken as " + fixed(kMatmulStandIn, 2) +
                               " (the measured GPUs span 0.73-0.87); unchecked");
    }
    const bool attention = shaped && s.seq_len > 0;
    if (s.attention_efficiency > 0) {
        k.attention = s.attention_efficiency;
        if (attention)
            out.overrides.push_back("attention_efficiency " + fixed(s.attention_efficiency, 2) + " replaces the " + gpu +
                                    "'s attention share");
    } else if (k.attention <= 0) {
        k.attention = 0.5 * k.matmul;
        if (attention)
            out.warnings.push_back("the catalog has no measured attention share for the " + gpu + ": taken as half its matmul share (" +
                                   fixed(k.attention, 2) + "); unchecked");
    }
    if (k.memory <= 0) {
        k.memory = kMemoryStandIn;
        if (shaped) out.warnings.push_back("the catalog has no memory share for the " + gpu + ": taken as " + fixed(kMemoryStandIn, 2));
    }
    if (g.memory_bw <= 0 && shaped)
        out.warnings.push_back("the " + gpu + " has no memory bandwidth in the catalog: memory-bound kernels are taken as free");
    return k;
}

/// Kernels of one kind of work, summed by name in the order they first appear.
class Kernels {
public:
    Kernels(const GpuRoofline& g, const Shares& k) : g_(g), k_(k) {}

    /// M × K times K × N in bf16, `times` per unit of work.
    void matmul(const std::string& name, double M, double N, double K, double times) {
        const double flops = 2 * M * N * K, bytes = kBf16 * (M * K + K * N + M * N);
        const double t = std::max(flops / (g_.peak_flops * k_.matmul * matmulWaveShare(M, N, g_.sms)), memoryTime(bytes));
        add(name, "matmul", flops, bytes, t, times);
    }
    /// Flash attention doing `flops` of work (its backward kBackwardAttention times its forward's), moving `bytes`.
    void attention(const std::string& name, double flops, double bytes, double times) {
        add(name, "attention", flops, bytes, std::max(flops / (g_.peak_flops * k_.attention), memoryTime(bytes)), times);
    }
    void memory(const std::string& name, double bytes, double times) { add(name, "memory", 0, bytes, memoryTime(bytes), times); }

    /// Every op of `other` times `factor` added to this one's (by name).
    void addScaled(const Kernels& other, double factor) {
        for (const OpTime& o : other.ops_) {
            OpTime& mine = at(o.name, o.kind);
            mine.flops += o.flops * factor;
            mine.bytes += o.bytes * factor;
            mine.seconds += o.seconds * factor;
            mine.kernels += o.kernels * factor;
        }
    }
    double seconds() const {
        double s = 0;
        for (const OpTime& o : ops_) s += o.seconds;
        return s;
    }
    const std::vector<OpTime>& ops() const { return ops_; }

private:
    double memoryTime(double bytes) const { return g_.memory_bw > 0 ? bytes / (g_.memory_bw * k_.memory) : 0.0; }
    OpTime& at(const std::string& name, const char* kind) {
        for (OpTime& o : ops_)
            if (o.name == name) return o;
        ops_.push_back(OpTime{name, kind});
        return ops_.back();
    }
    OpTime& at(const std::string& name, const std::string& kind) { return at(name, kind.c_str()); }
    void add(const std::string& name, const char* kind, double flops, double bytes, double t, double times) {
        OpTime& o = at(name, kind);
        o.flops += flops * times;
        o.bytes += bytes * times;
        o.seconds += (t + g_.kernel_gap_s) * times;
        o.kernels += times;
    }

    const GpuRoofline& g_;
    const Shares k_;
    std::vector<OpTime> ops_;
};

/// The transformer's shape as one GPU sees it (its TP share of every matrix).
struct Shape {
    double b = 0;         ///< tokens of one micro-batch on this GPU
    double s = 0;         ///< the whole sequence
    double h = 0, t = 1;  ///< hidden size, TP
    double qkv = 0;       ///< Q, K and V's width (GQA: h + 2 · h · kv/heads)
    double f = 0;         ///< the MLP's (an expert's) inner size
    double up = 1;        ///< matrices before the activation: 2 for SwiGLU (gate, up), 1 for GeLU
    double routed = 1;    ///< MoE: tokens per local expert's matmul over b (top_k · EP / experts), 1 dense
    double experts = 1;   ///< MoE: experts on this GPU (experts / EP), 1 dense
};

/// The MLP's inner size when the spec does not give it: what each layer's share of the (active) parameters
/// leaves after attention (and after the embeddings when the vocabulary is known).
double ffnSize(const model::TrainingSpec& s, const Shape& x, TrainingStep& out) {
    if (s.ffn_hidden_size > 0) return s.ffn_hidden_size;
    const double params = s.experts > 0 && s.active_params > 0 ? s.active_params : s.model_params;
    const double embeddings = s.vocab_size > 0 ? 2.0 * s.vocab_size * x.h : 0.0;
    const double attention = x.h * x.qkv + x.h * x.h;
    const double mlp = (params - embeddings) / s.layers - attention;
    const double per_f = (x.up + 1) * x.h * (s.experts > 0 ? std::max(1, s.top_k) : 1);
    if (mlp <= 0) {
        out.warnings.push_back("the parameters leave no MLP after attention: its inner size is taken as 4 x hidden");
        return 4 * x.h;
    }
    return mlp / per_f;
}

/// One layer's kernels for one micro-batch on one GPU: forward, backward, and the recomputed share of forward.
Kernels layerKernels(const model::TrainingSpec& s, const Shape& x, const GpuRoofline& g, const Shares& k) {
    Kernels fwd(g, k), bwd(g, k);
    const double e = x.b * x.h / x.t * kBf16;  // a hidden-sized activation, sequence-parallel over TP
    auto linear = [&](const std::string& name, double M, double N, double K, double times) {
        fwd.matmul(name, M, N, K, times);
        bwd.matmul(name, M, K, N, times);  // the input's gradient
        bwd.matmul(name, K, N, M, times);  // the weight's gradient
    };
    linear("QKV projection", x.b, x.qkv / x.t, x.h, 1);
    const double att_flops = 2 * x.b * x.s * x.h / x.t;  // causal: QKᵀ and AV over s/2 keys on average
    const double att_bytes = kBf16 * x.b * (x.qkv + x.h) / x.t;
    if (att_flops > 0) {
        fwd.attention("attention", att_flops, att_bytes, 1);
        bwd.attention("attention", kBackwardAttention * att_flops, 2 * att_bytes, 1);
    }
    linear("attention output projection", x.b, x.h, x.h / x.t, 1);
    if (s.experts > 0) linear("MoE router", x.b, s.experts, x.h, 1);
    const double mb = x.b * x.routed;  // tokens per expert matmul
    linear(x.up > 1 ? "MLP gate and up" : "MLP up", mb, x.up * x.f / x.t, x.h, x.experts);
    const double act = x.b * x.routed * x.experts * x.f / x.t * kBf16;  // the activation's output
    fwd.memory("MLP activation", (x.up + 1) * act, 1);                  // reads its inputs, writes one
    bwd.memory("MLP activation", (2 * x.up + 1) * act, 1);              // reads inputs and gradient, writes input gradients
    linear("MLP down", mb, x.h, x.f / x.t, x.experts);
    fwd.memory("norms", 2 * 2 * e, 1);  // two per layer: read x, write y
    bwd.memory("norms", 2 * 3 * e, 1);  // read x and dy, write dx
    fwd.memory("residual adds", 2 * 3 * e, 1);
    bwd.memory("residual adds", 2 * 3 * e, 1);
    Kernels all(g, k);
    all.addScaled(fwd, 1.0 + s.recompute);
    all.addScaled(bwd, 1.0);
    return all;
}

/// The output layer and loss for one micro-batch on the last stage, and the embedding lookup on the first.
Kernels headKernels(const model::TrainingSpec& s, const Shape& x, const GpuRoofline& g, const Shares& k) {
    Kernels h(g, k);
    if (s.vocab_size <= 0) return h;
    const double V = s.vocab_size;
    h.matmul("output layer", x.b, V / x.t, x.h, 1);
    h.matmul("output layer", x.b, x.h, V / x.t, 1);
    h.matmul("output layer", x.h, V / x.t, x.b, 1);
    h.memory("loss (softmax cross-entropy)", x.b * V / x.t * (kBf16 + 4 + 4 + kBf16), 1);  // logits in, fp32 out; back
    h.memory("embedding", 2 * x.b * x.h / x.t * kBf16, 1);
    return h;
}

/// The pipeline's slowest stage: whole layers on each stage, the output layer on the last one, which takes
/// as many fewer layers as balances the stages best (as Llama 3 did).
struct StageLoad {
    double layers = 0;  ///< on the slowest stage
    bool head = false;  ///< the slowest stage is the last one, with the output layer
};

StageLoad slowestStage(int layers, int stages, double layer_s, double head_s) {
    if (stages <= 1) return {static_cast<double>(layers), true};
    StageLoad best;
    double best_s = -1;
    for (int k = 0; k <= layers; ++k) {
        const double rest = std::ceil(static_cast<double>(layers - k) / (stages - 1));
        const double last_s = k * layer_s + head_s, rest_s = rest * layer_s;
        const double slowest = std::max(last_s, rest_s);
        if (best_s < 0 || slowest < best_s) {
            best_s = slowest;
            best = last_s >= rest_s ? StageLoad{static_cast<double>(k), true} : StageLoad{rest, false};
        }
    }
    return best;
}

}  // namespace

double matmulWaveShare(double M, double N, int sms) {
    if (sms <= 0) return 1.0;
    auto useful = [&](double tm, double tn) {  // the output's share of what the waves' tiles could compute
        const double tiles = std::ceil(M / tm) * std::ceil(N / tn);
        return M * N / (std::ceil(tiles / sms) * sms * tm * tn);
    };
    return std::max(useful(128, 256), useful(256, 128));
}

GpuRoofline gpuRoofline(const model::GpuModel& g) {
    GpuRoofline r;
    r.gpu = g.name;
    r.architecture = g.architecture;
    r.peak_flops = g.peak_bf16_tflops * 1e12;
    r.memory_bw = g.memory_bandwidth_tbs * 1e12;
    r.matmul = g.matmul_efficiency;
    r.matmul_sustained = g.matmul_sustained;
    r.chip_spread = g.chip_spread;
    r.attention = g.attention_efficiency;
    r.memory = g.memory_efficiency;
    r.sms = g.sm_count;
    r.kernel_gap_s = kKernelGap;
    return r;
}

double slowestChipShare(double spread, double chips) {
    if (spread <= 0 || chips <= 1) return 1.0;
    // E[max of n] = ∫ x · n · φ(x) · Φ(x)^(n−1) dx, by the trapezoid rule over ±12 σ (the density is smooth there).
    const double n = chips, dx = 1e-3;
    double e = 0;
    for (double x = -12; x <= 12; x += dx) {
        const double phi = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
        e += x * n * phi * std::exp((n - 1) * std::log1p(-0.5 * std::erfc(x / std::sqrt(2.0)))) * dx;
    }
    return std::max(0.0, 1.0 - spread * e);
}

std::optional<TrainingStep> jobCompute(const model::Scenario& sc, const model::Catalog& cat, const model::Job& j) {
    if (!j.training) return std::nullopt;
    const model::GpuModel* gpu = nullptr;
    int gpus = 0;
    const std::unordered_set<std::string> mine(j.nodes.begin(), j.nodes.end());  // a 100k-GPU job lists thousands
    for (const auto& h : sc.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) {
                    const auto* sm = cat.server(n.model);
                    const auto* g = sm ? cat.gpu(sm->gpu_model) : nullptr;
                    if (!g) continue;
                    const bool in_job = mine.count(n.id) > 0;
                    if (in_job) gpus += sm->gpu_count;
                    if (in_job || !gpu) gpu = g;
                }
    if (j.nodes.empty()) gpus = j.gpus;
    if (!gpu || gpus <= 0) return std::nullopt;
    net::Topology none;
    net::Router router(none);
    return trainingStep(none, router, *j.training, std::vector<int>(static_cast<std::size_t>(gpus), 0), gpuRoofline(*gpu));
}

namespace {

/// A synchronous step goes at its slowest chip's pace (docs/workloads.md "Compute"): every kernel, and so the
/// compute, slows by the expected slowest of the job's G chips; and says where the GPU's figures leave that unchecked.
void atSlowestChipsPace(const model::TrainingSpec& s, const GpuRoofline& g, double G, TrainingStep& out) {
    const std::string gpu = g.gpu.empty() ? std::string("GPU") : g.gpu;
    if (s.efficiency <= 0 && g.matmul > 0 && !g.matmul_sustained)
        out.warnings.push_back("the " + gpu + "'s matmul share is a boost-clock burst (MAMF): a long run at the power cap " +
                               "sustains less (an H200 0.89 of its burst); unchecked");
    if (g.chip_spread <= 0) {
        if (G > 1)
            out.warnings.push_back("no measured chip-to-chip spread for the " + gpu +
                                   ": every chip is taken as the median one, where a synchronous job waits for its slowest");
        return;
    }
    out.slowest_chip = slowestChipShare(g.chip_spread, G);
    if (out.slowest_chip >= 1 || out.slowest_chip <= 0) return;
    for (OpTime& o : out.ops) {
        o.seconds /= out.slowest_chip;
        o.achieved *= out.slowest_chip;
    }
    out.compute_full_s /= out.slowest_chip;
    out.optimizer_s /= out.slowest_chip;
}

}  // namespace

void trainingCompute(const model::TrainingSpec& s, const GpuRoofline& g, TrainingStep& out) {
    const TrainingLayout& L = out.layout;
    const double G = static_cast<double>(L.tp) * L.cp * L.pp * L.dp;
    const bool shaped = s.hidden_size > 0 && s.layers > 0;
    out.gpu = g.gpu;
    const Shares k = shares(s, g, shaped, out);
    if (!shaped) {
        // No shape: 6 · N (plus recomputation) FLOPs per token as one dense matmul at the matmul share.
        const double flops = out.hardware_flops / G;
        OpTime op{"dense matmuls (no model shape)", "matmul", flops, 0, flops / (g.peak_flops * k.matmul), k.matmul, 0};
        out.ops = {op};
        out.compute_full_s = op.seconds;
        out.optimizer_s = 0;
        out.warnings.push_back("no model shape (layers, hidden_size): compute is 6 x parameters FLOPs per token at the matmul share");
        atSlowestChipsPace(s, g, G, out);
        return;
    }
    Shape x;
    x.b = L.micro_tokens;
    x.s = s.seq_len;
    x.h = s.hidden_size;
    x.t = L.tp;
    x.qkv = s.heads > 0 && s.kv_heads > 0 ? x.h * (1.0 + 2.0 * s.kv_heads / s.heads) : 3 * x.h;
    x.up = s.mlp == "swiglu" ? 2 : 1;
    if (s.experts > 0) {
        x.experts = static_cast<double>(s.experts) / L.ep;
        x.routed = static_cast<double>(std::max(1, s.top_k)) / x.experts;
    }
    x.f = ffnSize(s, x, out);
    const Kernels layer = layerKernels(s, x, g, k);
    const Kernels head = headKernels(s, x, g, k);
    const StageLoad slowest = slowestStage(s.layers, L.pp, layer.seconds(), head.seconds());
    const double m = L.micro_batches;
    Kernels step(g, k);
    step.addScaled(layer, m * slowest.layers);
    step.addScaled(head, slowest.head ? m : 0.0);
    // Adam on this GPU's parameters: its TP × PP share, further split over DP × CP by ZeRO (the distributed optimizer).
    const double shard = s.model_params / (static_cast<double>(L.tp) * L.pp) / (s.zero_stage >= 1 ? static_cast<double>(L.dp) * L.cp : 1.0);
    Kernels opt(g, k);
    opt.memory("optimizer (Adam)", kAdamBytesPerParam * shard, 1);
    step.addScaled(opt, 1.0);
    out.ops = step.ops();
    for (OpTime& o : out.ops) {
        const double busy = o.seconds - g.kernel_gap_s * o.kernels;
        o.achieved = busy <= 0            ? 0
                     : o.kind == "memory" ? (g.memory_bw > 0 ? o.bytes / busy / g.memory_bw : 0)
                                          : o.flops / busy / g.peak_flops;
    }
    std::stable_sort(out.ops.begin(), out.ops.end(), [](const OpTime& a, const OpTime& b) { return a.seconds > b.seconds; });
    out.compute_full_s = step.seconds();
    out.optimizer_s = opt.seconds();
    atSlowestChipsPace(s, g, G, out);
    if (g.architecture != "hopper" && g.architecture != "ampere")
        out.warnings.push_back("no published training run on " + (g.architecture.empty() ? std::string("this GPU") : g.architecture) +
                               " GPUs checks this model (only A100 and H100 runs do)");
}

}  // namespace ct::sim
