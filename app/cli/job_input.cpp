#include "job_input.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/sim/jobs.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <unordered_map>

namespace ct::cli {

bool addJobsFile(model::ValidationReport& rep, const std::string& path) {
    model::JobsResult jr = model::loadJobsFile(path);
    for (const auto& x : jr.diagnostics) std::cerr << path << ": " << x.toString() << "\n";
    bool ok = !model::hasErrors(jr.diagnostics);
    // Check them as part of the scenario, then point the findings back into the jobs file.
    const std::size_t first = rep.scenario.jobs.size();
    rep.scenario.jobs.insert(rep.scenario.jobs.end(), jr.jobs.begin(), jr.jobs.end());
    const std::string base = "/jobs/";
    for (auto d : model::validateScenario(rep.scenario, rep.catalog)) {
        if (d.location.rfind(base, 0) != 0) continue;
        const std::size_t slash = d.location.find('/', base.size());
        const std::size_t k = std::stoul(d.location.substr(base.size(), slash - base.size()));
        if (k < first) continue;
        d.location = jr.pointer_prefix + "/" + std::to_string(k - first) + (slash == std::string::npos ? "" : d.location.substr(slash));
        std::cerr << path << ": " << d.toString() << "\n";
        ok = ok && d.severity != model::Severity::Error;
    }
    return ok;
}

std::optional<JobInput> loadJob(const Args& a, const char* command, const char* kind) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    JobInput in{model::loadAndValidate(file)};
    for (const auto& d : in.rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (model::hasErrors(in.rep.diagnostics)) return std::nullopt;
    const std::size_t scenario_jobs = in.rep.scenario.jobs.size();
    if (a.has("jobs") && !addJobsFile(in.rep, a.get("jobs"))) return std::nullopt;
    sim::placeJobs(in.rep.scenario, in.rep.catalog);
    const bool training = std::string(kind) == "training";
    const auto& jobs = in.rep.scenario.jobs;
    in.index = jobs.size();
    // The jobs file's first, then the scenario's.
    for (std::size_t k = 0; k < jobs.size() && in.index == jobs.size(); ++k) {
        const std::size_t i = (k + scenario_jobs) % jobs.size();
        if ((training ? jobs[i].training.has_value() : jobs[i].inference.has_value()) && (!a.has("job") || jobs[i].id == a.get("job")))
            in.index = i;
    }
    if (in.index == jobs.size()) {
        std::cerr << "clustertwin-cli " << command << ": " << file << ": "
                  << (a.has("job") ? "no " + std::string(kind) + " job '" + a.get("job") + "'"
                                   : "no job with a " + std::string(kind) + " spec")
                  << "\n";
        return std::nullopt;
    }
    std::unordered_map<std::string, const model::Node*> node;
    for (const auto& h : in.rep.scenario.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) node.emplace(n.id, &n);
    for (const auto& id : in.job().nodes)
        if (auto it = node.find(id); it != node.end())
            if (const auto* sm = in.rep.catalog.server(it->second->model)) {
                in.gpus += sm->gpu_count;
                if (const auto* g = in.rep.catalog.gpu(sm->gpu_model)) in.gpu = g;
            }
    if (!in.gpu || in.gpus == 0) {
        std::cerr << "clustertwin-cli " << command << ": job " << in.job().id << " has no GPUs\n";
        return std::nullopt;
    }
    return in;
}

std::vector<int> jobRanks(const sim::net::ScenarioFabric& f, const model::Job& job, bool cabling_order) {
    std::unordered_map<std::string, int> index;
    for (std::size_t k = 0; k < f.node_ids.size(); ++k) index.emplace(f.node_ids[k], static_cast<int>(k));
    std::vector<int> nodes;
    for (const auto& id : job.nodes)
        if (auto it = index.find(id); it != index.end()) nodes.push_back(it->second);
    if (cabling_order) {
        std::vector<int> pos(f.node_ids.size(), 0);
        for (std::size_t i = 0; i < f.cabling_order.size(); ++i) pos[f.cabling_order[i]] = static_cast<int>(i);
        std::stable_sort(nodes.begin(), nodes.end(), [&](int x, int y) { return pos[x] < pos[y]; });
    }
    std::vector<int> ranks;
    for (int n : nodes) ranks.insert(ranks.end(), f.gpus_of_node[n].begin(), f.gpus_of_node[n].end());
    return ranks;
}

}  // namespace ct::cli
