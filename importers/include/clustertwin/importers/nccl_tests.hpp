#pragma once
// The text that NVIDIA's nccl-tests print (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
// ...): one row per message size with its out-of-place and in-place time, algorithm and bus bandwidth
// (nccl-tests' doc/PERFORMANCE.md defines them). What operators run to accept a cluster; issue 41 compares the
// twin's collectives with it.
#include <istream>
#include <string>
#include <vector>

namespace ct::importers {

struct NcclTestsRow {
    double size_B = 0;  ///< the "size" column: the buffer S the bandwidths are defined on
    long long count = 0;
    std::string type, redop;
    int root = -1;                                       ///< -1 where the op has no root or the column is absent (nccl-tests before 2.11)
    double time_us = 0, algbw_GBps = 0, busbw_GBps = 0;  ///< out of place
    double ip_time_us = 0, ip_algbw_GBps = 0, ip_busbw_GBps = 0;  ///< in place (0 where not printed)
    std::string wrong, ip_wrong;                                  ///< "#wrong": "0", a count or "N/A"
    int line = 0;                                                 ///< 1-based line in the input
};

struct NcclTestsRun {
    /// "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv", "hypercube",
    /// from the program named in the text ("all_reduce_perf") or the file name; empty when neither says.
    std::string op;
    int ranks = 0;                     ///< "#  Rank  N ... device" lines, or the highest N + 1 (0 when none)
    std::vector<std::string> devices;  ///< each rank's device as printed ("NVIDIA H100 80GB HBM3")
    std::vector<NcclTestsRow> rows;
    double avg_busbw_GBps = -1;  ///< "# Avg bus bandwidth" (−1 when absent)
    int bad_lines = 0;           ///< rows that did not parse, each in problems with its line
    std::vector<std::string> problems;
};

/// Parses nccl-tests output; `name` (a file name) names the op when the text does not and prefixes problems.
/// mpirun's "[1,0]<stdout>:" tags are taken off. Rows that do not parse are counted, never fatal; throws
/// model::ParseError (with `name`) when nothing in the text is a result row.
NcclTestsRun parseNcclTests(std::istream& in, const std::string& name);

/// "all_reduce_perf" → "allreduce" (also "all_reduce", "allreduce"); empty for anything else.
std::string ncclTestsOp(const std::string& program);

}  // namespace ct::importers
