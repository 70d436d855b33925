#pragma once
// clustertwin-cli collective: one collective operation on a scenario's fabric.
#include "args.hpp"

#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/nccl_sweep.hpp>

#include <string>
#include <vector>

namespace ct::cli {

extern const char* kCollectiveHelp;
int cmdCollective(const Args& a);
/// "1GiB", "512MiB", "4MB", "1e9", "1048576" → bytes. Throws UsageError.
double parseBytes(const std::string& text, const std::string& option);

/// The ranks (GPU ports) and their nodes, in ring order.
struct Ranks {
    std::vector<int> ranks, node_of;
};
/// n ranks placed packed (node by node in cabling order) or spread (one per node in turn); with stride:K,
/// reordered so ranks i, i+K, … come first. Throws UsageError for a bad stride.
Ranks ranksByPlacement(const sim::net::ScenarioFabric& f, int n, const std::string& placement, const std::string& order);

/// Rows of a sweep: the op over each size, printed in nccl-tests' layout (out of place and in place alike: the
/// twin has one answer) with `# Avg bus bandwidth` at the end; compare-nccl's simulated side.
struct SweepRow {
    double bytes = 0;
    sim::net::CollectiveResult result;
};
std::vector<SweepRow> runSweep(const sim::net::ScenarioFabric& f, sim::net::CollectiveOp op, const Ranks& rk,
                               const sim::net::NcclChoice& how, const std::vector<double>& sizes);
/// --algo, --proto and the channels (validated: 1..64) as a choice for runNcclCollective. Throws UsageError.
sim::net::NcclChoice ncclChoice(const Args& a, int channels);
void printNcclTable(const std::vector<SweepRow>& rows, sim::net::CollectiveOp op, int ranks);
/// The same sweep as JSON: one row per size with its time, bandwidths and what ran (algorithm, protocol, channels).
void printSweepJson(const std::vector<SweepRow>& rows, sim::net::CollectiveOp op, std::size_t ranks, const std::string& placement,
                    const std::string& order, const std::string& routing);
/// "8:8G:2" (nccl-tests' -b, -e, -f; K, M, G are powers of 1024 as there, or any --bytes unit) → the sizes.
std::vector<double> parseSweep(const std::string& text);

extern const char* kCompareNcclHelp;
int cmdCompareNccl(const Args& a);

}  // namespace ct::cli
