#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/reliability.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace ct::sim {

ComponentCounts jobComponents(const model::Scenario& s, const model::Catalog& c, const model::Job& job) {
    ComponentCounts out;
    std::set<std::string> mine(job.nodes.begin(), job.nodes.end());
    double job_gpus = 0, all_gpus = 0, job_nodes = 0;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) {
                    const model::ServerModel* sm = c.server(n.model);
                    const double g = sm ? sm->gpu_count : 0;
                    all_gpus += g;
                    if (!mine.count(n.id)) continue;
                    job_gpus += g;
                    job_nodes += 1;
                }
    out.count["gpu"] = out.count["hbm"] = out.count["nic"] = job_gpus;
    out.count["node"] = out.count["nvlink"] = job_nodes;
    // The fabric's switches and cables as built, the job's share of them (a job on the whole cluster depends on
    // all; a smaller one on its leaves and a share of the rest — an even share is the estimate).
    if (s.network.topology != "none" && all_gpus > 0) {
        const net::ScenarioFabric f = net::buildScenarioFabric(s, c);
        double switches = 0, cables = 0;
        for (int v = 0; v < f.topology.nodeCount(); ++v) switches += f.topology.node(v).kind == net::NodeKind::Switch;
        for (int k = 0; k < f.topology.cableCount(); ++k) cables += f.topology.arc(2 * k).kind != net::LinkKind::NvLink;
        const double share = job_gpus / all_gpus;
        out.count["switch"] = switches * share;
        out.count["cable"] = cables * share;
    }
    return out;
}

namespace {

/// One job's timeline over the period: work towards the next checkpoint, write it, and on a failure go down
/// (detection, restart, reading the checkpoint; a failure meanwhile starts it again), losing the work since the
/// last completed checkpoint.
class FailureTimeline {
public:
    FailureTimeline(ReliabilityResult& res, const ReliabilityOptions& o, std::vector<std::string> kinds, std::vector<double> count,
                    const std::vector<double>& rate, double total, double interval, double down)
        : res_(res),
          o_(o),
          kinds_(std::move(kinds)),
          count_(std::move(count)),
          rng_(o.seed),
          next_(total > 0 ? total : 1.0),
          which_(rate.begin(), rate.end()),
          interval_(interval),
          down_(down) {
        fail_at_ = total > 0 ? next_(rng_) : INFINITY;
    }

    void run() {
        while (now_ < o_.duration_s) {
            const double work_end = now_ + (interval_ - since_ckpt_);
            if (fail_at_ < std::min(work_end, o_.duration_s)) {
                since_ckpt_ += fail_at_ - now_;
                fail(fail_at_, since_ckpt_);
                continue;
            }
            if (work_end >= o_.duration_s) {  // the period ends mid-interval: that work counts (as if checkpointed at the end)
                res_.useful_s += o_.duration_s - now_;
                now_ = o_.duration_s;
                break;
            }
            since_ckpt_ = interval_;
            now_ = work_end;
            const double write_end = now_ + res_.checkpoint_write_s;
            if (fail_at_ < std::min(write_end, o_.duration_s)) {  // the checkpoint never completes
                res_.checkpoint_s += fail_at_ - now_;
                fail(fail_at_, since_ckpt_);
                continue;
            }
            res_.checkpoint_s += std::min(write_end, o_.duration_s) - now_;
            now_ = write_end;
            res_.useful_s += since_ckpt_;
            since_ckpt_ = 0;
        }
    }

private:
    void fail(double at, double lost) {
        const std::size_t k = kinds_.empty() ? 0 : which_(rng_);
        ++res_.interruptions;
        ++res_.by_kind[kinds_[k]];
        std::uniform_int_distribution<long long> dev(0, std::max<long long>(0, static_cast<long long>(count_[k]) - 1));
        if (res_.events.size() < 10000) res_.events.push_back({at, kinds_[k], static_cast<int>(dev(rng_)), lost, 0});
        res_.lost_s += lost;
        since_ckpt_ = 0;
        double until = at + down_;
        fail_at_ = at + next_(rng_);
        while (fail_at_ < until && fail_at_ < o_.duration_s) {
            const std::size_t k2 = which_(rng_);
            ++res_.interruptions;
            ++res_.by_kind[kinds_[k2]];
            if (res_.events.size() < 10000) res_.events.push_back({fail_at_, kinds_[k2], 0, 0, 0});
            until = fail_at_ + down_;
            fail_at_ += next_(rng_);
        }
        until = std::min(until, o_.duration_s);
        res_.down_s += until - at;
        if (!res_.events.empty()) res_.events.back().down_s = until - at;
        now_ = until;
    }

    ReliabilityResult& res_;
    const ReliabilityOptions& o_;
    const std::vector<std::string> kinds_;
    const std::vector<double> count_;
    std::mt19937_64 rng_;
    std::exponential_distribution<double> next_;
    std::discrete_distribution<std::size_t> which_;
    const double interval_, down_;
    double now_ = 0, fail_at_ = INFINITY;
    double since_ckpt_ = 0;  ///< useful work since the last completed checkpoint
};

}  // namespace

ReliabilityResult simulateReliability(const ComponentCounts& comp, const model::Catalog& c, const model::TrainingSpec& t,
                                      const ReliabilityOptions& o) {
    ReliabilityResult res;
    res.duration_s = o.duration_s;
    res.step_s = o.step_s;
    // Failure rates per second, by kind.
    std::vector<std::string> kinds;
    std::vector<double> rate, count;
    double total = 0;
    for (const auto& [kind, n] : comp.count) {
        if (n <= 0) continue;
        const model::FailureRate* fr = c.failureRate(kind);
        if (!fr) throw SimError("reliability: the catalog has no failure rate for '" + kind + "'");
        kinds.push_back(kind);
        count.push_back(n);
        rate.push_back(n * fr->per_1000_device_days / 1000.0 / 86400.0);
        total += rate.back();
    }
    res.mtbf_s = total > 0 ? 1.0 / total : INFINITY;
    const double bytes = t.checkpoint_bytes > 0 ? t.checkpoint_bytes : 14.0 * t.model_params;
    res.checkpoint_write_s = res.checkpoint_read_s = bytes / (t.storage_gbytes_per_s * 1e9);
    double interval = t.checkpoint_interval_s;
    if (interval <= 0) interval = std::isfinite(res.mtbf_s) ? std::sqrt(2.0 * res.checkpoint_write_s * res.mtbf_s) : 86400.0;
    interval = std::max(interval, 1.0);
    res.checkpoint_interval_s = interval;
    const double down = t.detection_s + t.restart_s + res.checkpoint_read_s;
    FailureTimeline(res, o, std::move(kinds), std::move(count), rate, total, interval, down).run();
    res.goodput = o.duration_s > 0 ? res.useful_s / o.duration_s : 0;
    return res;
}

}  // namespace ct::sim
