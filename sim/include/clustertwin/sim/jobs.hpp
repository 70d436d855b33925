#pragma once
// The network-coupled job model (models.md §5): a training step is compute time plus exposed communication
// time on the fabric; GPU utilization = compute / step time, so congestion or a failed link slows the job and
// lowers its GPUs' power. Plugs into the engine as its Workload.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/workload.hpp>

#include <memory>
#include <set>

namespace ct::sim {

/// Gives jobs that ask for a number of GPUs their nodes, in order of start time, among nodes no overlapping
/// job holds: "packed" takes free nodes in cabling order (model::nodesInCablingOrder), "topology-aware" fills the racks with the most free
/// nodes first (fewest racks, so fewest leaves in a node-major fabric). Throws SimError when a job does not fit.
void placeJobs(model::Scenario& s, const model::Catalog& c);

class JobWorkload : public Workload {
public:
    /// Throws SimError when the scenario's jobs need a fabric that cannot be built.
    JobWorkload(const model::Scenario& s, const model::Catalog& c);
    ~JobWorkload() override;
    double gpuDemand(std::size_t node, int gpu, double t_s) const override;
    void onEvent(const model::Event& e) override;
    void update(double t_s, double dt_s, const model::Frame& previous, model::Frame& out) override;

    const net::Topology& topology() const { return fabric_.topology; }

private:
    struct JobRt;
    void solveComm(JobRt& j);
    /// The pace of the job's slowest live GPU last step (≥ 0.05).
    double throttleOf(const JobRt& j, const model::Frame& prev) const;
    /// An inference job's frame: served on prefill/decode pools when its model's shape is given, else the
    /// compute its request rate needs.
    void inferenceFrame(JobRt& j, double throttle);
    /// A training job's frame: its step retimed for throttling, stalls and restarts; its traffic into link_rate.
    void trainingFrame(JobRt& j, double t, const model::Frame& prev, model::Frame& out, std::vector<double>& link_rate);
    /// GPUs of the job newly failed: it stops and restarts from its last checkpoint (job_interrupted).
    void failures(JobRt& j, double t, const model::Frame& prev, model::Frame& out);
    /// The busiest links and every failed one into the frame; link_high once per excursion above 90 %.
    void linkFrames(double t, const std::vector<double>& link_rate, model::Frame& out);
    const model::Scenario& scenario_;
    const model::Catalog& catalog_;
    net::ScenarioFabric fabric_;
    std::unique_ptr<net::Router> router_;
    net::JobComm comm_;  ///< the jobs' collectives as NCCL runs them on fabric_
    ProfileWorkload fallback_;
    std::vector<JobRt> jobs_;
    std::vector<int> job_of_node_;        ///< index into jobs_ of the coupled job running on a node, or −1
    std::vector<std::size_t> first_gpu_;  ///< per scenario node + 1: where its GPUs start in a frame's gpus
    std::set<std::string> stalled_alerted_, hot_links_;
    std::uint64_t comm_version_ = ~0ull;
    double dt_ = 0;  ///< the engine's step, for phase-resolved GPU demand
};

}  // namespace ct::sim
