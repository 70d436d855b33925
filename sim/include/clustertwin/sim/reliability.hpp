#pragma once
// Failures and checkpoints of a synchronous training job (docs/workloads.md): components fail at the
// catalog's rates; any failure stops the job, which restarts after detection + restart + reading its last
// checkpoint and loses the work since. A Monte Carlo over days of operation — no air grid needed.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/backend.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ct::sim {

/// The job's components by kind (the catalog's failure_rates ids) and how many of each it depends on.
struct ComponentCounts {
    std::map<std::string, double> count;  ///< "gpu", "hbm", "nvlink", "nic", "node", "switch", "cable"
};

/// What a job of these nodes depends on: its GPUs (and their HBM and NICs), its nodes and their NVLink
/// domains, and the fabric's switches and cables (as built) in proportion to the job's share of its GPUs.
/// Throws SimError when the fabric cannot be built.
ComponentCounts jobComponents(const model::Scenario& s, const model::Catalog& c, const model::Job& job);

struct Interruption {
    double t_s = 0;          ///< when the failure happened, from the job's start
    std::string kind;        ///< component kind
    int device = 0;          ///< which one of its kind (0-based)
    double lost_work_s = 0;  ///< work since the last checkpoint, redone
    double down_s = 0;       ///< detection + restart + checkpoint read
};

struct ReliabilityResult {
    double duration_s = 0;
    double step_s = 0;                 ///< the job's step time (no failures)
    double checkpoint_interval_s = 0;  ///< as used (Young/Daly's when the spec says 0)
    double checkpoint_write_s = 0, checkpoint_read_s = 0;
    double mtbf_s = 0;  ///< 1 / the job's total failure rate
    int interruptions = 0;
    std::map<std::string, int> by_kind;
    double useful_s = 0;               ///< training time that counts
    double lost_s = 0;                 ///< redone after failures
    double checkpoint_s = 0;           ///< spent writing checkpoints
    double down_s = 0;                 ///< stopped: detection, restart, checkpoint reads
    double goodput = 0;                ///< useful / duration (Meta's effective training time ratio)
    std::vector<Interruption> events;  ///< the first 10,000
};

struct ReliabilityOptions {
    double duration_s = 54 * 86400.0;
    std::uint64_t seed = 1;
    double step_s = 0;  ///< a step's duration, to report the steps lost (0 = not known)
};

/// Simulates `o.duration_s` of a job with `spec`'s checkpoint policy on `components` at the catalog's rates.
/// Throws SimError when the catalog lacks a rate for a component kind the job has.
ReliabilityResult simulateReliability(const ComponentCounts& components, const model::Catalog& c, const model::TrainingSpec& spec,
                                      const ReliabilityOptions& o);

}  // namespace ct::sim
