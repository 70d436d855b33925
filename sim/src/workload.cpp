#include <clustertwin/sim/workload.hpp>

#include <algorithm>
#include <unordered_map>

namespace ct::sim {

ProfileWorkload::ProfileWorkload(const model::Scenario& s) {
    std::unordered_map<std::string, std::size_t> node_index;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) node_index.emplace(n.id, node_index.size());
    jobs_of_node_.resize(node_index.size());
    for (const auto& j : s.jobs)
        for (const auto& n : j.nodes)
            if (auto it = node_index.find(n); it != node_index.end()) jobs_of_node_[it->second].push_back(&j);
}

double ProfileWorkload::gpuDemand(std::size_t node, int, double t) const {
    double u = 0;
    if (node >= jobs_of_node_.size()) return 0;
    for (const model::Job* j : jobs_of_node_[node]) {
        if (t < j->start_s || (j->end_s && t >= *j->end_s)) continue;
        u += j->profile ? j->profile->valueAt(t - j->start_s) : j->utilization;  // jobs sharing a node add up
    }
    return std::min(1.0, u);
}

}  // namespace ct::sim
