// nccl-tests in and out (issue 41): `collective --sweep` prints the twin's answer in nccl-tests' layout, and
// `compare-nccl` sets a measured nccl-tests output against the twin, size by size.
#include "collective.hpp"
#include "flows.hpp"

#include <clustertwin/importers/nccl_tests.hpp>
#include <clustertwin/model/error.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

namespace ct::cli {

namespace net = ct::sim::net;
using json = nlohmann::ordered_json;

const char* kCompareNcclHelp = R"(Usage: clustertwin-cli compare-nccl FILE SCENARIO [options]

Sets what nccl-tests measured on a cluster (the text all_reduce_perf, all_gather_perf, reduce_scatter_perf or
alltoall_perf print, mpirun's [1,0]<stdout>: tags and NCCL's log lines allowed) against the twin's collective on
the scenario's fabric, size by size: measured and simulated time and bus bandwidth, and the ratio simulated /
measured. Rows that do not parse are counted and named on stderr; the rest are compared.
  --op OP             the collective, when neither the text nor the file name names the program
                      (allreduce, allgather, reducescatter, alltoall)
  --ranks N           GPUs taking part, when the text has no "# Rank" lines (default: as many as it lists)
  --placement P       packed (the default) or spread, as for collective
  --channels N        as for collective (default one per rail)
  --algo A, --proto P as for collective (default: what NCCL's tuner would pick, size by size)
  --model M           nccl (the default) or fabric, as for collective
  --fail-link ID      fail a link first (repeatable)
  --json              everything as one JSON object on stdout
Exit codes: 0 compared, 1 a rank pair without a route, 2 usage error or a file with no result row.
)";

std::vector<double> parseSweep(const std::string& text) {
    const auto a = text.find(':'), b = text.find(':', a == std::string::npos ? a : a + 1);
    if (a == std::string::npos || b == std::string::npos) throw UsageError("--sweep expects MIN:MAX:FACTOR, e.g. 8:8G:2");
    auto size = [&](std::string s) {
        if (!s.empty() && (s.back() == 'K' || s.back() == 'M' || s.back() == 'G')) s += "iB";  // nccl-tests: powers of 1024
        return parseBytes(s, "--sweep");
    };
    const double lo = size(text.substr(0, a)), hi = size(text.substr(a + 1, b - a - 1));
    double f = 0;
    try {
        f = std::stod(text.substr(b + 1));
    } catch (const std::exception&) {}
    if (!(f > 1)) throw UsageError("--sweep: the factor must be > 1, got '" + text.substr(b + 1) + "'");
    if (hi < lo) throw UsageError("--sweep: MAX is below MIN");
    std::vector<double> sizes;
    for (double s = lo; s <= hi * (1 + 1e-12) && sizes.size() < 200; s *= f) sizes.push_back(std::round(s));
    return sizes;
}

std::vector<SweepRow> runSweep(const net::ScenarioFabric& f, net::CollectiveOp op, const Ranks& rk, const net::NcclChoice& how,
                               const std::vector<double>& sizes) {
    const std::vector<net::CollectiveResult> results = net::ncclSweep(f, op, {rk.ranks, rk.node_of}, how, sizes);
    std::vector<SweepRow> rows;
    rows.reserve(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) rows.push_back({sizes[i], results[i]});
    return rows;
}

net::NcclChoice ncclChoice(const Args& a, int channels) {
    if (channels < 1 || channels > 64) throw UsageError("--channels must be within 1..64");
    net::NcclChoice how;
    how.channels = channels;
    const std::string model = a.get("model", "nccl");
    if (model != "nccl" && model != "fabric") throw UsageError("--model must be nccl or fabric");
    how.fabric_only = model == "fabric";
    try {
        if (a.has("algo")) how.algo = net::algoFromString(a.get("algo"));
        if (a.has("proto")) how.proto = net::protoFromString(a.get("proto"));
    } catch (const sim::SimError& e) {
        throw UsageError(e.what());
    }
    return how;
}

void printNcclTable(const std::vector<SweepRow>& rows, net::CollectiveOp op, int ranks) {
    const bool reduces = op == net::CollectiveOp::AllReduce || op == net::CollectiveOp::ReduceScatter || op == net::CollectiveOp::Reduce;
    const int root = op == net::CollectiveOp::Broadcast || op == net::CollectiveOp::Reduce ? 0 : -1;  // as nccl-tests prints it
    std::printf("# clustertwin-cli collective --op %s over %d GPUs: simulated; in place as out of place (one answer)\n", net::toString(op),
                ranks);
    const char* kHead = "#%12s %13s %9s %7s %7s %8s %7s %7s %6s %8s %7s %7s %6s\n";
    std::printf("#\n#%68s%37s\n", "out-of-place", "in-place");
    std::printf(kHead, "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
    std::printf(kHead, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
    double sum = 0;
    for (const SweepRow& r : rows) {
        const double t = r.result.time_s * 1e6, alg = r.result.algbw_Bps / 1e9, bus = r.result.busbw_Bps / 1e9;
        std::printf(" %12.0f %13.0f %9s %7s %7d %8.2f %7.2f %7.2f %6s %8.2f %7.2f %7.2f %6s\n", r.bytes, std::floor(r.bytes / 4), "float",
                    reduces ? "sum" : "none", root, t, alg, bus, "N/A", t, alg, bus, "N/A");
        sum += bus;
    }
    std::printf("# Out of bounds values : 0 OK (nothing validated: simulated)\n# Avg bus bandwidth    : %g \n#\n",
                rows.empty() ? 0.0 : sum / static_cast<double>(rows.size()));
    // What ran, size range by size range (NCCL_DEBUG=INFO would say it per call).
    for (std::size_t i = 0; i < rows.size();) {
        std::size_t j = i;
        const auto& r = rows[i].result;
        while (j + 1 < rows.size() && rows[j + 1].result.algorithm == r.algorithm && rows[j + 1].result.protocol == r.protocol &&
               rows[j + 1].result.channels == r.channels)
            ++j;
        std::printf("# twin: %s/%s, %d channel%s, for %.0f to %.0f B\n", r.algorithm.c_str(), r.protocol.empty() ? "-" : r.protocol.c_str(),
                    r.channels, r.channels == 1 ? "" : "s", rows[i].bytes, rows[j].bytes);
        i = j + 1;
    }
}

void printSweepJson(const std::vector<SweepRow>& rows, net::CollectiveOp op, std::size_t ranks, const std::string& placement,
                    const std::string& order, const std::string& routing) {
    json out = json::array();
    double sum = 0;
    for (const SweepRow& r : rows) {
        const auto& c = r.result;
        out.push_back({{"size_B", r.bytes},
                       {"time_s", c.stalled_pairs ? json(nullptr) : json(c.time_s)},
                       {"latency_s", c.latency_s},
                       {"algbw_GBps", c.algbw_Bps / 1e9},
                       {"busbw_GBps", c.busbw_Bps / 1e9},
                       {"algorithm", c.algorithm},
                       {"protocol", c.protocol},
                       {"channels", c.channels},
                       {"tuned", c.tuned},
                       {"stalled_pairs", c.stalled_pairs}});
        sum += c.busbw_Bps / 1e9;
    }
    std::cout << json{{"op", net::toString(op)},
                      {"ranks", ranks},
                      {"placement", placement},
                      {"order", order},
                      {"routing", routing},
                      {"avg_busbw_GBps", rows.empty() ? 0.0 : sum / static_cast<double>(rows.size())},
                      {"rows", out}}
                     .dump(2)
              << "\n";
}

namespace {

net::CollectiveOp opOf(const std::string& name, const std::string& file) {
    if (name.empty()) throw UsageError("compare-nccl: " + file + " does not say which program printed it; give --op");
    if (name == "allreduce" || name == "allgather" || name == "reducescatter" || name == "alltoall" || name == "broadcast" ||
        name == "reduce")
        return net::collectiveFromString(name);
    throw UsageError("compare-nccl: " + file + " is " + name +
                     "_perf output; the twin models allreduce, allgather, reducescatter, alltoall, broadcast and reduce");
}

}  // namespace

int cmdCompareNccl(const Args& a) {
    if (a.positional().size() != 2) throw UsageError("compare-nccl needs FILE and SCENARIO");
    const std::string file = a.positional()[0];
    std::ifstream in(file);
    if (!in) throw UsageError("compare-nccl: cannot read " + file);
    importers::NcclTestsRun m;
    try {
        m = importers::parseNcclTests(in, file);
    } catch (const model::ParseError& e) {
        throw UsageError(e.what());
    }
    for (const auto& p : m.problems) std::cerr << "compare-nccl: skipped " << p << "\n";
    const net::CollectiveOp op = opOf(a.has("op") ? a.get("op") : m.op, file);
    std::optional<net::ScenarioFabric> fab = loadFabric(a.positional()[1], a, "compare-nccl");
    if (!fab) return 2;
    const int total = static_cast<int>(fab->gpus_of_node.size() * fab->gpus_of_node[0].size());
    const int n = a.getInt("ranks", m.ranks);
    if (n < 1) throw UsageError("compare-nccl: " + file + " lists no ranks; give --ranks");
    if (n > total)
        throw UsageError("compare-nccl: " + std::to_string(n) + " ranks, but the scenario has " + std::to_string(total) + " GPUs");
    const std::string placement = a.get("placement", "packed");
    if (placement != "packed" && placement != "spread") throw UsageError("--placement must be packed or spread");
    const Ranks rk = ranksByPlacement(*fab, n, placement, "linear");
    const int channels = a.getInt("channels", net::defaultChannels(rk.node_of));
    net::NcclChoice how = ncclChoice(a, channels);
    how.architecture = fab->gpu_architecture;  // NCCL's per-channel ceilings for these GPUs
    how.in_network_reduction = fab->in_network_reduction;
    std::vector<double> sizes;
    for (const auto& r : m.rows) sizes.push_back(r.size_B);
    std::vector<SweepRow> sim;
    try {
        sim = runSweep(*fab, op, rk, how, sizes);
    } catch (const sim::SimError& e) {
        throw UsageError(e.what());
    }
    int stalled = 0;
    json rows = json::array();
    if (!a.flag("json"))
        std::printf("%s over %d GPUs (%s, %d channel%s): measured %s (%zu sizes)\n%14s %12s %12s %12s %12s %8s  %s\n", net::toString(op), n,
                    placement.c_str(), channels, channels == 1 ? "" : "s", file.c_str(), m.rows.size(), "size (B)", "meas. us",
                    "meas. GB/s", "sim. us", "sim. GB/s", "sim/meas", "twin ran");
    for (std::size_t i = 0; i < m.rows.size(); ++i) {
        const auto& r = m.rows[i];
        const auto& s = sim[i].result;
        stalled = std::max(stalled, s.stalled_pairs);
        const double bus = s.busbw_Bps / 1e9, ratio = r.busbw_GBps > 0 ? bus / r.busbw_GBps : std::nan("");
        rows.push_back({{"size_B", r.size_B},
                        {"line", r.line},
                        {"measured_time_us", r.time_us},
                        {"measured_busbw_GBps", r.busbw_GBps},
                        {"simulated_time_us", s.time_s * 1e6},
                        {"simulated_busbw_GBps", bus},
                        {"ratio", std::isfinite(ratio) ? json(ratio) : json(nullptr)},
                        {"algorithm", s.algorithm},
                        {"protocol", s.protocol}});
        if (!a.flag("json"))
            std::printf("%14.0f %12.2f %12.2f %12.2f %12.2f %8.3f  %s/%s\n", r.size_B, r.time_us, r.busbw_GBps, s.time_s * 1e6, bus, ratio,
                        s.algorithm.c_str(), s.protocol.c_str());
    }
    if (a.flag("json"))
        std::cout << json{{"file", file},
                          {"op", net::toString(op)},
                          {"ranks", n},
                          {"channels", channels},
                          {"devices", m.devices},
                          {"rows", rows},
                          {"bad_lines", m.bad_lines},
                          {"problems", m.problems}}
                         .dump(2)
                  << "\n";
    if (stalled > 0) std::cerr << "compare-nccl: " << stalled << " rank pair(s) have no route; the collective cannot complete\n";
    return stalled > 0 ? 1 : 0;
}

}  // namespace ct::cli
