#pragma once
// What the workload commands (training, inference, reliability) share: the scenario loaded, validated and its
// jobs placed, the job asked for with --job, its GPUs, and their ranks on the fabric.
#include "args.hpp"

#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ct::cli {

struct JobInput {
    model::ValidationReport rep;
    std::size_t index = 0;                 ///< into rep.scenario.jobs
    int gpus = 0;                          ///< the job's GPUs
    const model::GpuModel* gpu = nullptr;  ///< their model (nullptr when the servers have none)
    const model::Job& job() const { return rep.scenario.jobs[index]; }
};

/// Adds the jobs of a jobs file (an array, or {"jobs": [...]}, as in a scenario's "jobs") to the scenario and
/// checks them as part of it; every finding goes to stderr with the file and its JSON pointer in that file.
/// False when the file cannot be read or any finding is an error.
bool addJobsFile(model::ValidationReport& rep, const std::string& path);

/// Loads and validates the scenario (the one positional argument), adds the jobs of --jobs FILE, places the jobs
/// and picks --job, or the first job with a `kind` spec ("training" or "inference"), the file's before the
/// scenario's. nullopt after printing why to stderr (exit 2).
std::optional<JobInput> loadJob(const Args& a, const char* command, const char* kind);

/// The job's GPUs as host nodes of `f`: its nodes in cabling order, or in the order the job lists them.
std::vector<int> jobRanks(const sim::net::ScenarioFabric& f, const model::Job& job, bool cabling_order);

}  // namespace ct::cli
