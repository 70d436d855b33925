#pragma once
// What the GPUs are asked to do. The engine asks a Workload for each GPU's demanded utilization; issue 3's
// network-coupled job model plugs in through the same interface.
#include <clustertwin/model/frame.hpp>
#include <clustertwin/model/scenario.hpp>

#include <cstddef>
#include <vector>

namespace ct::sim {

class Workload {
public:
    virtual ~Workload() = default;
    /// Demanded utilization (0..1) of GPU `gpu` of node `node` (index in scenario order) at `t_s`.
    virtual double gpuDemand(std::size_t node, int gpu, double t_s) const = 0;
    /// Events the workload reacts to (link and job events); called when the engine applies them.
    virtual void onEvent(const model::Event&) {}
    /// Called at the start of every step, [t_s, t_s + dt_s], with the previous frame (throttling slows compute);
    /// a workload may add its outputs (jobs, links) and alerts to `out`. gpuDemand(…, t_s) then answers for that
    /// step.
    virtual void update(double /*t_s*/, double /*dt_s*/, const model::Frame& /*previous*/, model::Frame& /*out*/) {}
};

/// Utilization from the scenario's jobs: while a job runs, its nodes follow its profile (or its constant
/// `utilization`); nodes outside any running job idle at 0. Jobs that share a node (a trace's small jobs, each
/// with its share of the node as its utilization) add up, to at most 1.
class ProfileWorkload : public Workload {
public:
    explicit ProfileWorkload(const model::Scenario& s);
    double gpuDemand(std::size_t node, int gpu, double t_s) const override;

private:
    std::vector<std::vector<const model::Job*>> jobs_of_node_;
};

}  // namespace ct::sim
