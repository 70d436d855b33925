#pragma once
// Mapping imported telemetry onto a scenario (issue 4): the scenario's telemetry_mapping rules, then exact
// matches on node hostnames, ids and names, GPU UUIDs, Redfish chassis ids; a report of what did not match.
// Without a scenario, a skeleton one is built from the telemetry (hosts → nodes, GPU counts and models).
// Slurm jobs become scenario jobs for the replay (issue 3's job model).
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/model/scenario.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ct::model {
class Catalog;
}

namespace ct::model {
class Catalog;
}

namespace ct::importers {

struct MappingReport {
    std::size_t matched = 0;
    std::vector<std::string> unmatched;  ///< imported entity ids that map to nothing in the scenario
};

class EntityMapper {
public:
    /// Throws ImportError naming the rule ("/telemetry_mapping/2/pattern") when a pattern is not a regex.
    explicit EntityMapper(const model::Scenario& s);
    ~EntityMapper();
    EntityMapper(EntityMapper&&) noexcept;

    /// The scenario node for a hostname ("" when none): rules first, then hostname, id, name, short name.
    std::string node(const std::string& hostname) const;
    /// The scenario entity of an imported entity ("" when none).
    std::string map(const ImportedEntity& e) const;
    /// Rewrites entity ids in place (entities, samples, links) to scenario ids where they map; the rest keep
    /// theirs and are listed in the report.
    MappingReport apply(ParseResult& r) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

struct ReplayJobs {
    std::vector<model::Job> jobs;
    std::vector<ImportWarning> skipped;  ///< jobs left out, and why (no start, nodes not in the scenario)
    double t0_s = 0;                     ///< Unix time of the replay's t = 0
};

/// Scenario jobs from Slurm accounting: nodes mapped through `mapper`, start/end relative to `t0_s` (default:
/// the earliest start), utilization `utilization` while running. Jobs that never started are skipped; a job
/// some of whose nodes are missing keeps the rest and is warned about.
ReplayJobs slurmToJobs(const std::vector<SlurmJob>& jobs, const EntityMapper& mapper, std::optional<double> t0_s = std::nullopt,
                       double utilization = 0.9);

/// Places the jobs of a trace that name no nodes (they want `gpus`) on the scenario's GPU nodes, in order of
/// arrival: the first node with enough free GPUs (whole nodes when a job wants more than one has), waiting
/// first come first served while none has (start and end move later; extra "queued_s"). A job's utilization
/// becomes its share of its node's GPUs, so jobs sharing a node add up. Jobs larger than the scenario are
/// skipped ("too_big"). Returns how many were placed.
std::size_t placeTraceJobs(ReplayJobs& jobs, const model::Scenario& s, const model::Catalog& c);

/// A scenario from telemetry alone: one node per host (in name order), racks of four nodes in rows of eight,
/// cooling and power sized by the hall builder; node hostnames are the hosts. Each host's hardware is what its
/// telemetry reports: the GPU model (catalogGpuFor) and the number of GPUs. Eight SXM GPUs of a model with a
/// DGX / HGX entry are that system; any other host gets a server of its own in the scenario's catalog section
/// (its GPUs from the catalog, the rest a generic two-socket server's, said so in its source). A GPU the
/// catalog does not know gets a generic entry named as such, never another GPU's figures. `notes` lists every
/// guess (a name without a form factor, a vGPU profile, an unknown GPU).
model::Scenario skeletonScenario(const std::vector<ImportedEntity>& entities, std::vector<std::string>* notes = nullptr);

/// The catalog GPU a telemetry name stands for (DCGM's modelName "Tesla T4", nvidia-smi's "NVIDIA H100 80GB
/// HBM3", Slurm's gres type "a100"), or "" when the catalog has none; `guess` says what was assumed, if anything
/// (an A100 named without its form factor, a vGPU profile).
std::string catalogGpuFor(const std::string& telemetry_name, std::string* guess = nullptr);

}  // namespace ct::importers
