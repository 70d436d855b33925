#include <clustertwin/model/fabric.hpp>
#include <clustertwin/sim/inference.hpp>
#include <clustertwin/sim/jobs.hpp>
#include <clustertwin/sim/training.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace ct::sim {

struct JobWorkload::JobRt {
    const model::Job* job = nullptr;
    std::vector<int> nodes;  ///< scenario node indices
    int gpus = 0;
    double peak_flops = 0;  ///< per GPU, FLOP/s (BF16 dense)
    TrainingStep step;      ///< at full clocks, on the fabric as it is (empty without one)
    bool stalled = false;
    bool dirty = true;
    std::vector<double> arc_bytes;  ///< per step
    // Failures: a failed GPU stops the synchronous job; it restarts (on spares) after detection + restart +
    // reading its checkpoint, and redoes the work since that checkpoint.
    std::set<std::size_t> failed_gpus;
    double down_until = -1;
    double resumed_at = 0;  ///< when it last started computing (its start, or its last restart)
    int interruptions = 0;
    TrainingStep now;  ///< the step at the current clocks
    const model::GpuModel* gpu = nullptr;
    std::optional<InferenceResult> serving;  ///< a shaped inference job's pools, simulated once
    std::unordered_map<int, int> position;   ///< scenario node index -> its place among the job's ranked nodes
    model::JobFrame frame;
};

void placeJobs(model::Scenario& s, const model::Catalog& c) {
    struct NodeRef {
        std::string id, rack;
        int gpus;
    };
    std::vector<NodeRef> all;  // where they are cabled, so a placement does not depend on the file's order
    for (const model::NodeRef& ref : model::nodesInCablingOrder(s)) {
        const model::Rack& r = s.halls[ref.hall].rows[ref.row].racks[ref.rack];
        const model::Node& n = r.nodes[ref.node];
        const auto* sm = c.server(n.model);
        all.push_back({n.id, r.id, sm ? sm->gpu_count : 0});
    }
    std::vector<std::size_t> order(s.jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.jobs[a].start_s < s.jobs[b].start_s; });
    auto overlaps = [](const model::Job& a, const model::Job& b) {
        const double ae = a.end_s.value_or(1e300), be = b.end_s.value_or(1e300);
        return a.start_s < be && b.start_s < ae;
    };
    for (std::size_t oi : order) {
        model::Job& j = s.jobs[oi];
        if (!j.nodes.empty() || j.gpus <= 0) continue;
        std::set<std::string> busy;
        for (const auto& other : s.jobs)
            if (&other != &j && overlaps(other, j)) busy.insert(other.nodes.begin(), other.nodes.end());
        std::vector<const NodeRef*> free;
        for (const auto& n : all)
            if (!busy.count(n.id) && n.gpus > 0) free.push_back(&n);
        if (j.placement == "topology-aware") {
            std::map<std::string, int> free_in_rack;
            for (const auto* n : free) ++free_in_rack[n->rack];
            // Racks with the most free nodes first; equal ones stay in cabling order (a rack's nodes are together).
            std::stable_sort(free.begin(), free.end(),
                             [&](const NodeRef* a, const NodeRef* b) { return free_in_rack[a->rack] > free_in_rack[b->rack]; });
        }
        int got = 0;
        for (const auto* n : free) {
            if (got >= j.gpus) break;
            j.nodes.push_back(n->id);
            got += n->gpus;
        }
        if (got < j.gpus)
            throw SimError("job " + j.id + " asks for " + std::to_string(j.gpus) + " GPUs; only " + std::to_string(got) +
                           " are free at its start");
    }
}

JobWorkload::JobWorkload(const model::Scenario& s, const model::Catalog& c) : scenario_(s), catalog_(c), fallback_(s) {
    std::unordered_map<std::string, int> node_index;
    std::vector<const model::ServerModel*> server_of;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) {
                    node_index.emplace(n.id, static_cast<int>(node_index.size()));
                    server_of.push_back(c.server(n.model));
                }
    job_of_node_.assign(node_index.size(), -1);
    // A frame lists every node's GPUs in scenario order, as many as its server has (0 for a storage node).
    first_gpu_.assign(1, 0);
    for (const auto* sm : server_of) first_gpu_.push_back(first_gpu_.back() + static_cast<std::size_t>(sm ? sm->gpu_count : 0));
    bool any_training = false;
    for (const auto& j : s.jobs) {
        if (!j.training && !j.inference) continue;
        JobRt rt;
        rt.job = &j;
        rt.frame.id = j.id;
        for (const auto& nid : j.nodes) {
            auto it = node_index.find(nid);
            if (it == node_index.end()) throw SimError("job " + j.id + ": unknown node " + nid);
            rt.nodes.push_back(it->second);
            const auto* sm = server_of[it->second];
            rt.gpus += sm ? sm->gpu_count : 0;
            if (const auto* g = sm ? c.gpu(sm->gpu_model) : nullptr) {
                rt.peak_flops = g->peak_bf16_tflops * 1e12;
                rt.gpu = g;
            }
        }
        for (std::size_t i = 0; i < rt.nodes.size(); ++i) rt.position[rt.nodes[i]] = static_cast<int>(i);
        if (rt.gpus == 0 || rt.peak_flops <= 0) throw SimError("job " + j.id + ": its nodes have no GPUs");
        for (int n : rt.nodes) job_of_node_[n] = static_cast<int>(jobs_.size());
        any_training = any_training || j.training.has_value() || (j.inference && j.inference->layers > 0);  // jobs that use the fabric
        jobs_.push_back(std::move(rt));
    }
    if (any_training && s.network.topology != "none") {
        fabric_ = net::buildScenarioFabric(s, c);
        router_ = std::make_unique<net::Router>(fabric_.topology);
        comm_ = net::jobComm(fabric_);
    }
}

JobWorkload::~JobWorkload() = default;

void JobWorkload::solveComm(JobRt& j) {
    j.dirty = false;
    j.stalled = false;
    j.arc_bytes.assign(static_cast<std::size_t>(fabric_.topology.arcCount()), 0.0);
    // Ranks follow where the job's nodes are cabled (as `collective --placement packed` does), not the order
    // the job lists them in, so the same GPUs give the same rings either way.
    std::vector<int> ranks;
    if (router_) {
        std::vector<int> pos(fabric_.gpus_of_node.size(), 0), nodes = j.nodes;
        for (std::size_t i = 0; i < fabric_.cabling_order.size(); ++i) pos[fabric_.cabling_order[i]] = static_cast<int>(i);
        std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return pos[a] < pos[b]; });
        for (int n : nodes) ranks.insert(ranks.end(), fabric_.gpus_of_node[n].begin(), fabric_.gpus_of_node[n].end());
        for (std::size_t i = 0; i < nodes.size(); ++i) j.position[nodes[i]] = static_cast<int>(i);
        j.step = trainingStep(fabric_.topology, *router_, *j.job->training, ranks, gpuRoofline(*j.gpu), 1.0, &comm_);
    } else {
        for (std::size_t i = 0; i < j.nodes.size(); ++i) j.position[j.nodes[i]] = static_cast<int>(i);
        // No fabric described: compute and pipeline only (every transfer free).
        net::Topology none;
        net::Router r(none);
        j.step = trainingStep(none, r, *j.job->training, std::vector<int>(static_cast<std::size_t>(j.gpus), 0), gpuRoofline(*j.gpu));
    }
    j.stalled = j.step.stalled;
    if (router_) j.arc_bytes = j.step.arc_bytes;
    j.frame.collectives = describeCollectives(j.step.collectives);  // the traffic does not change with the clocks
}

void JobWorkload::onEvent(const model::Event& e) {
    if (e.kind != "link_fail" && e.kind != "link_restore") return;
    if (!router_) return;
    const bool fail = e.kind == "link_fail";
    const int cable = fabric_.topology.cableByName(e.target);
    if (cable >= 0) fabric_.topology.setCableFailed(cable, fail);
    else if (const int node = fabric_.topology.find(e.target); node >= 0) fabric_.topology.setNodeFailed(node, fail);
}

void JobWorkload::update(double t, double dt, const model::Frame& prev, model::Frame& out) {
    dt_ = dt;
    if (router_ && comm_version_ != fabric_.topology.version()) {
        comm_version_ = fabric_.topology.version();
        for (auto& j : jobs_) j.dirty = true;
    }
    out.jobs.clear();
    std::vector<double> link_rate(static_cast<std::size_t>(router_ ? fabric_.topology.arcCount() : 0), 0.0);
    for (auto& j : jobs_) {
        const model::Job& job = *j.job;
        model::JobFrame& f = j.frame;
        f.running = t >= job.start_s && (!job.end_s || t < *job.end_s);
        if (!f.running) f.utilization = f.step_time_s = f.comm_share = f.mfu = 0;
        else if (job.inference) inferenceFrame(j, throttleOf(j, prev));
        else trainingFrame(j, t, prev, out, link_rate);
        out.jobs.push_back(f);
    }
    out.links.clear();
    if (router_) linkFrames(t, link_rate, out);
}

double JobWorkload::throttleOf(const JobRt& j, const model::Frame& prev) const {
    // A synchronous job goes at the pace of its slowest GPU (failed ones are replaced by spares on restart).
    double throttle = 1.0;
    for (int n : j.nodes)
        for (std::size_t g = first_gpu_[n]; g < first_gpu_[n + 1] && g < prev.gpus.size(); ++g)
            if (!prev.gpus[g].failed) throttle = std::min(throttle, prev.gpus[g].throttle);
    return std::max(throttle, 0.05);
}

void JobWorkload::inferenceFrame(JobRt& j, double throttle) {
    const auto& in = *j.job->inference;
    model::JobFrame& f = j.frame;
    f.compute_time_s = f.step_time_s = f.comm_time_s = f.comm_share = 0;
    f.stalled = false;
    if (in.layers > 0 && in.hidden_size > 0 && in.prompt_tokens > 0) {
        // Served as requests on prefill and decode instances: the pools' steady activity, simulated once
        // over 300 s (docs/workloads.md); the GPUs' demand follows their pool.
        if (!j.serving) {
            std::vector<int> ranks;
            if (router_)
                for (int n : j.nodes) ranks.insert(ranks.end(), fabric_.gpus_of_node[n].begin(), fabric_.gpus_of_node[n].end());
            const InferenceHardware hw =
                inferenceHardware(in, *j.gpu, router_ ? &fabric_.topology : nullptr, router_.get(), ranks, router_ ? &comm_ : nullptr);
            j.serving = simulateInference(in, j.gpus, hw, 300.0);
        }
        const InferenceResult& r = *j.serving;
        const double pre = in.serving == "disaggregated" ? in.prefill_gpus : j.gpus;
        f.utilization = (pre * r.prefill_activity + (j.gpus - pre) * r.decode_activity) / j.gpus;
        f.mfu = 2 * in.model_params * (r.tokens_per_s + in.prompt_tokens * r.completed / r.duration_s) / (j.gpus * j.peak_flops);
        f.tokens_per_s = r.tokens_per_s;
        f.ttft_p99_s = r.ttft_p99_s;
        f.tpot_p99_s = r.tpot_p99_s;
        return;
    }
    // Without a model shape: the compute its request rate needs.
    const double need = 2 * in.model_params * in.requests_per_s * in.tokens_per_request;
    f.utilization = std::min(1.0, need / (j.gpus * j.peak_flops * in.efficiency * throttle));
    f.mfu = need / (j.gpus * j.peak_flops);
}

void JobWorkload::failures(JobRt& j, double t, const model::Frame& prev, model::Frame& out) {
    const model::Job& job = *j.job;
    const model::TrainingSpec& spec = *job.training;
    std::string first_failed;
    for (int n : j.nodes) {
        for (std::size_t g = first_gpu_[n]; g < first_gpu_[n + 1] && g < prev.gpus.size(); ++g) {
            if (!prev.gpus[g].failed) j.failed_gpus.erase(g);
            else if (j.failed_gpus.insert(g).second && first_failed.empty()) first_failed = prev.gpus[g].id;
        }
    }
    if (first_failed.empty()) return;
    const double bytes = spec.checkpoint_bytes > 0 ? spec.checkpoint_bytes : 14.0 * spec.model_params;
    const double down = spec.detection_s + spec.restart_s + bytes / (spec.storage_gbytes_per_s * 1e9);
    const bool was_down = t < j.down_until;
    const double since = std::max(0.0, t - j.resumed_at);
    const double lost = spec.checkpoint_interval_s > 0 ? std::fmod(since, spec.checkpoint_interval_s) : since;
    j.down_until = t + down;
    ++j.interruptions;
    out.alerts.push_back({t, "job_interrupted", job.id,
                          "job " + job.id + " stopped: " + first_failed + " failed; it restarts from its last checkpoint in " +
                              std::to_string(static_cast<int>(std::lround(down))) + " s" +
                              (was_down ? std::string(" (it was already restarting)")
                                        : ", redoing " + std::to_string(static_cast<int>(std::lround(lost))) + " s of work")});
}

void JobWorkload::trainingFrame(JobRt& j, double t, const model::Frame& prev, model::Frame& out, std::vector<double>& link_rate) {
    const model::Job& job = *j.job;
    model::JobFrame& f = j.frame;
    const double throttle = throttleOf(j, prev);
    if (j.dirty) solveComm(j);
    const model::TrainingSpec& spec = *job.training;
    if (j.interruptions == 0 && j.down_until < 0) j.resumed_at = std::max(j.resumed_at, job.start_s);
    failures(j, t, prev, out);
    const bool restarting = t < j.down_until;
    if (!restarting && j.down_until > j.resumed_at) j.resumed_at = j.down_until;
    const TrainingStep st = retimed(j.step, spec, throttle, j.peak_flops);
    j.now = st;
    const bool stopped = j.stalled || restarting;
    f.compute_time_s = st.compute_s;
    f.comm_time_s = st.tp_s + st.cp_s + st.ep_s + st.pp_s + st.dp_s;
    f.step_time_s = st.step_s;
    f.stalled = stopped;
    f.utilization = stopped ? 0.0 : st.compute_s / st.step_s;
    f.comm_share = stopped ? 1.0 : (st.pipeline_slots * st.comm_mb_s + st.dp_exposed_s) / st.step_s;
    f.mfu = stopped ? 0.0 : st.mfu;
    f.bubble_share = stopped ? 0.0 : st.bubble_s / st.step_s;
    f.interruptions = j.interruptions;
    const bool new_stall = j.stalled && stalled_alerted_.insert(job.id).second;
    if (!j.stalled) stalled_alerted_.erase(job.id);
    if (new_stall)
        out.alerts.push_back({t, "job_stalled", job.id, "job " + job.id + " stalled: some of its GPUs have no route to each other"});
    if (!stopped)
        for (std::size_t a = 0; a < link_rate.size(); ++a) link_rate[a] += j.arc_bytes[a] / f.step_time_s;
}

void JobWorkload::linkFrames(double t, const std::vector<double>& link_rate, model::Frame& out) {
    const auto& topo = fabric_.topology;
    std::vector<model::LinkFrame> failed;
    for (int c = 0; c < topo.cableCount(); ++c) {
        const double u = std::max(link_rate[2 * c], link_rate[2 * c + 1]) / topo.arc(2 * c).capacity_Bps;
        model::LinkFrame lf{topo.cableId(c), net::toString(topo.arc(2 * c).kind), u, !topo.arcUp(2 * c)};
        if (lf.failed) failed.push_back(std::move(lf));
        else if (u > 0) out.links.push_back(std::move(lf));
    }
    // Alert once when a link goes above 90 %; it may alert again after it has come down.
    std::set<std::string> hot;
    for (const auto& lf : out.links) {
        if (lf.utilization <= 0.9) continue;
        hot.insert(lf.id);
        if (!hot_links_.count(lf.id))
            out.alerts.push_back({t, "link_high", lf.id, "link " + lf.id + " above 90 % utilization", lf.utilization, 0.9});
    }
    hot_links_ = std::move(hot);
    // The busiest 500 links with traffic, then every failed one.
    std::stable_sort(out.links.begin(), out.links.end(), [](const auto& a, const auto& b) { return a.utilization > b.utilization; });
    if (out.links.size() > 500) out.links.resize(500);
    out.links.insert(out.links.end(), failed.begin(), failed.end());
}

double JobWorkload::gpuDemand(std::size_t node, int gpu, double t) const {
    if (node < job_of_node_.size() && job_of_node_[node] >= 0) {
        const JobRt& j = jobs_[static_cast<std::size_t>(job_of_node_[node])];
        if (!j.frame.running) return fallback_.gpuDemand(node, gpu, t);
        if (j.serving) {  // a served model: its pool's activity
            const model::InferenceSpec& in = *j.job->inference;
            auto it = j.position.find(static_cast<int>(node));
            const long long rank = it == j.position.end() ? 0 : it->second * (j.gpus / static_cast<long long>(j.nodes.size())) + gpu;
            return in.serving == "disaggregated" && rank >= in.prefill_gpus ? j.serving->decode_activity : j.serving->prefill_activity;
        }
        if (!j.job->training || j.frame.utilization <= 0 || !(dt_ > 0)) return j.frame.utilization;
        // Phase-resolved: the share of [t, t + dt] this GPU's pipeline stage spends computing. In a step, stage
        // k idles k/v slots (the pipeline filling), computes its m micro-batches (each slot: compute, then the
        // slot's traffic), idles (p − 1 − k)/v slots (draining) and waits for the exposed data-parallel
        // reduction; all stages repeat in step. Over a whole step this is compute / step, the frame's figure.
        const TrainingStep& st = j.now;
        const TrainingLayout& L = st.layout;
        auto it = j.position.find(static_cast<int>(node));
        if (it == j.position.end() || !(st.step_s > 0)) return j.frame.utilization;
        const long long gpn = j.gpus / static_cast<long long>(j.nodes.size());
        const long long rank = it->second * gpn + gpu;
        const long long tc = static_cast<long long>(L.tp) * L.cp;
        const int stage = static_cast<int>(L.dp_outer ? (rank / tc) % L.pp : (rank / (tc * L.dp)) % L.pp);
        const double m = L.micro_batches, c = st.compute_s / m, slot = st.slot_s;
        const double v = std::max(1, j.job->training->virtual_stages), warm = stage * slot / v;
        auto within = [&](double x) {  // busy time in [0, x] of one step
            if (x <= warm) return 0.0;
            const double y = x - warm;
            if (y >= m * slot) return m * c;
            const double full = std::floor(y / slot);
            return full * c + std::min(y - full * slot, c);
        };
        auto busy = [&](double x) {  // busy time from the phase origin to x
            x = std::max(0.0, x - j.resumed_at);
            const double k = std::floor(x / st.step_s);
            return k * m * c + within(x - k * st.step_s);
        };
        return std::clamp((busy(t + dt_) - busy(t)) / dt_, 0.0, 1.0);
    }
    return fallback_.gpuDemand(node, gpu, t);
}

}  // namespace ct::sim
