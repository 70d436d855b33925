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

    std::mt19937_64 rng(o.seed);
    std::exponential_distribution<double> next(total > 0 ? total : 1.0);
    std::discrete_distribution<std::size_t> which(rate.begin(), rate.end());
    double now = 0, fail_at = total > 0 ? next(rng) : INFINITY;
    double since_ckpt = 0;  // useful work since the last completed checkpoint
    auto fail = [&](double at, double lost) {
        const std::size_t k = kinds.empty() ? 0 : which(rng);
        ++res.interruptions;
        ++res.by_kind[kinds[k]];
        std::uniform_int_distribution<long long> dev(0, std::max<long long>(0, static_cast<long long>(count[k]) - 1));
        if (res.events.size() < 10000) res.events.push_back({at, kinds[k], static_cast<int>(dev(rng)), lost, 0});
        res.lost_s += lost;
        since_ckpt = 0;
        // Down: detection, restart and reading the checkpoint; a failure meanwhile starts it again.
        double until = at + down;
        fail_at = at + next(rng);
        while (fail_at < until && fail_at < o.duration_s) {
            const std::size_t k2 = which(rng);
            ++res.interruptions;
            ++res.by_kind[kinds[k2]];
            if (res.events.size() < 10000) res.events.push_back({fail_at, kinds[k2], 0, 0, 0});
            until = fail_at + down;
            fail_at += next(rng);
        }
        until = std::min(until, o.duration_s);
        res.down_s += until - at;
        if (!res.events.empty()) res.events.back().down_s = until - at;
        now = until;
    };
    while (now < o.duration_s) {
        // Work towards the next checkpoint, then write it.
        const double work_end = now + (interval - since_ckpt);
        if (fail_at < std::min(work_end, o.duration_s)) {
            since_ckpt += fail_at - now;
            fail(fail_at, since_ckpt);
            continue;
        }
        if (work_end >= o.duration_s) {  // the period ends mid-interval: that work counts (as if checkpointed at the end)
            res.useful_s += o.duration_s - now;
            now = o.duration_s;
            break;
        }
        since_ckpt = interval;
        now = work_end;
        const double write_end = now + res.checkpoint_write_s;
        if (fail_at < std::min(write_end, o.duration_s)) {  // the checkpoint never completes
            res.checkpoint_s += fail_at - now;
            fail(fail_at, since_ckpt);
            continue;
        }
        res.checkpoint_s += std::min(write_end, o.duration_s) - now;
        now = write_end;
        res.useful_s += since_ckpt;
        since_ckpt = 0;
    }
    res.goodput = o.duration_s > 0 ? res.useful_s / o.duration_s : 0;
    return res;
}

} // namespace ct::sim
