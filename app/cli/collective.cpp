#include "collective.hpp"

#include "flows.hpp"

#include <clustertwin/sim/collectives.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace ct::cli {

namespace m = ct::model;
namespace net = ct::sim::net;
using json = nlohmann::ordered_json;

const char* kCollectiveHelp = R"(Usage: clustertwin-cli collective SCENARIO --op OP --bytes SIZE [--ranks N] [options]

Runs one collective on the scenario's fabric (NVLink inside nodes, the InfiniBand fat tree between them) and
reports the completion time, the bus bandwidth (as nccl-tests defines it) and the busiest links.
  --op OP             allreduce | hierarchical-allreduce | allgather | reducescatter | alltoall | broadcast | reduce
                      (from the first rank, pipelined along each channel's ring)
  --bytes SIZE        buffer size: 1GiB, 256MiB, 4MB, 1e9 ...
  --sweep MIN:MAX:F   every size from MIN to MAX, each F times the last (nccl-tests' -b MIN -e MAX -f F;
                      K, M, G are powers of 1024 as there), printed in nccl-tests' layout (with --json:
                      one row per size with what ran)
  --ranks N           number of GPUs taking part (all)
  --placement P       packed (fill nodes in the order they are cabled, the default) or spread (one GPU per
                      node in turn); nodes are cabled by where they stand (hall, row, rack, U), never by the
                      order of the scenario file
  --order O           the ring's rank order over the placed GPUs: linear (as placed, the default), stride:K
                      (every K-th placed GPU, then the next offset: 0, K, 2K, ..., 1, K+1, ...) or a FILE that
                      lists GPU ports (NODE/gpuN) in ring order, one per line or as a JSON array
  --channels N        rings at once, each with 1/N of the buffer, as NCCL's channels (all-reduce, all-gather,
                      reduce-scatter): channel c enters and leaves every node through its local GPU c and that
                      GPU's NIC, so a multi-node collective loads every rail. Default: one per rail (the most
                      GPUs a node has in the collective, at most NCCL's 32) with --order linear when every
                      node's GPUs are next to each other in it (--placement packed), else 1 (the ring as given)
  --algo A            ring, tree (all-reduce across nodes: NCCL's double binary tree between nodes, a chain
                      inside each), nvls (all-reduce inside one server whose NVSwitches reduce: NVLink SHARP on
                      Hopper and later), nvlstree (NVLS in each such server, a tree between them) or collnet
                      (a chain in each server, the switches reduce between them: SHARP, when the catalog's
                      switch model has in_network_reduction); default: the fastest for this size and scale, as
                      NCCL's tuner picks (never collnet: NCCL runs it only when NCCL_COLLNET_ENABLE=1)
  --proto P           LL, LL128 or Simple: NCCL's protocols (the share of a link's bandwidth that carries data,
                      the latency per hop over NVLink and the network); default: the fastest, as NCCL's tuner
  --model M           nccl (the default: the algorithm, protocol and latencies above) or fabric (the bare fabric:
                      synchronous steps, each paying its links' latency, no protocol: what SimGrid computes)
  --fail-link ID      fail a link first, "a<->b" (repeatable), e.g. leaf0<->spine3
  --links FILE        every link direction's bytes and utilization, busiest first: CSV, or JSON for *.json
  --json              print the result as JSON
)";

double parseBytes(const std::string& text, const std::string& option) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        throw UsageError(option + " expects a size like 1GiB, got '" + text + "'");
    }
    const std::string unit = text.substr(used);
    double scale = 1;
    if (unit.empty() || unit == "B") scale = 1;
    else if (unit == "KiB") scale = 1024.0;
    else if (unit == "MiB") scale = 1024.0 * 1024;
    else if (unit == "GiB") scale = 1024.0 * 1024 * 1024;
    else if (unit == "KB" || unit == "kB") scale = 1e3;
    else if (unit == "MB") scale = 1e6;
    else if (unit == "GB") scale = 1e9;
    else throw UsageError(option + ": unknown unit '" + unit + "' (B, KiB, MiB, GiB, KB, MB, GB)");
    if (!(v > 0) || !std::isfinite(v * scale)) throw UsageError(option + " must be > 0");
    return v * scale;
}

namespace {

/// --order FILE: GPU ports in ring order, one per line (# comments) or a JSON array.
Ranks ranksFromFile(const net::ScenarioFabric& f, const std::string& order) {
    std::ifstream in(order);
    if (!in) throw UsageError("--order: '" + order + "' is not linear, stride:K or a readable file");
    std::vector<std::string> ids;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find_first_not_of(" \t\r\n") != std::string::npos && text[text.find_first_not_of(" \t\r\n")] == '[') {
        try {
            ids = json::parse(text).get<std::vector<std::string>>();
        } catch (const json::exception& e) {
            throw UsageError("--order " + order + ": expected a JSON array of GPU ports: " + e.what());
        }
    } else {
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);) {
            line.erase(0, line.find_first_not_of(" \t\r"));
            line.erase(line.find_last_not_of(" \t\r") + 1);
            if (!line.empty() && line[0] != '#') ids.push_back(line);
        }
    }
    std::map<int, int> node_index;
    for (int n = 0; n < static_cast<int>(f.gpus_of_node.size()); ++n)
        for (int g : f.gpus_of_node[n]) node_index[g] = n;
    std::set<int> seen;
    Ranks out;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const int h = f.topology.find(ids[i]);
        if (h < 0 || !node_index.count(h))
            throw UsageError("--order " + order + ": entry " + std::to_string(i + 1) + ": no GPU port '" + ids[i] + "'");
        if (!seen.insert(h).second) throw UsageError("--order " + order + ": '" + ids[i] + "' is listed twice");
        out.ranks.push_back(h);
        out.node_of.push_back(node_index[h]);
    }
    if (out.ranks.empty()) throw UsageError("--order " + order + ": lists no GPUs");
    return out;
}

}  // namespace

Ranks ranksByPlacement(const net::ScenarioFabric& f, int n, const std::string& placement, const std::string& order) {
    Ranks out;
    try {
        net::PlacedRanks placed = net::placeRanks(f, n, placement == "spread");
        out.ranks = std::move(placed.ranks);
        out.node_of = std::move(placed.node_of);
    } catch (const sim::SimError& e) {
        throw UsageError(e.what());
    }
    if (order == "linear") return out;
    int k = 0;
    try {
        k = std::stoi(order.substr(7));
    } catch (const std::exception&) {}
    if (k < 1) throw UsageError("--order stride:K needs a whole K >= 1, got '" + order + "'");
    std::vector<int> idx(out.ranks.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
    std::stable_sort(idx.begin(), idx.end(), [&](int x, int y) { return x % k < y % k; });
    Ranks sorted;
    for (int i : idx) {
        sorted.ranks.push_back(out.ranks[i]);
        sorted.node_of.push_back(out.node_of[i]);
    }
    return sorted;
}

namespace {}  // namespace

int cmdCollective(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    if (!a.has("op")) throw UsageError("collective needs --op");
    if (!a.has("bytes") && !a.has("sweep")) throw UsageError("collective needs --bytes or --sweep");
    net::CollectiveOp op;
    try {
        op = net::collectiveFromString(a.get("op"));
    } catch (const sim::SimError& e) {
        throw UsageError(e.what());
    }
    const std::vector<double> sweep = a.has("sweep") ? parseSweep(a.get("sweep")) : std::vector<double>{};
    const double bytes = a.has("bytes") ? parseBytes(a.get("bytes"), "--bytes") : sweep.front();
    const std::string placement = a.get("placement", "packed");
    if (placement != "packed" && placement != "spread") throw UsageError("--placement must be packed or spread");

    std::optional<net::ScenarioFabric> fab = loadFabric(file, a, "collective");
    if (!fab) return 2;
    net::ScenarioFabric& f = *fab;
    const int total = static_cast<int>(f.gpus_of_node.size() * f.gpus_of_node[0].size());
    const std::string order = a.get("order", "linear");
    Ranks rk;
    if (order != "linear" && order.rfind("stride:", 0) != 0) {
        rk = ranksFromFile(f, order);
        if (a.has("ranks") && a.getInt("ranks", 0) != static_cast<int>(rk.ranks.size()))
            throw UsageError("--ranks " + a.get("ranks") + " but --order lists " + std::to_string(rk.ranks.size()) + " GPUs");
    } else {
        const int n = a.getInt("ranks", total);
        if (n < 1 || n > total)
            throw UsageError("--ranks must be within 1.." + std::to_string(total) + " (the scenario's GPUs), got " + std::to_string(n));
        rk = ranksByPlacement(f, n, placement, order);
    }
    const int n = static_cast<int>(rk.ranks.size());
    net::Router router(f.topology);
    const int channels = a.getInt("channels", order == "linear" ? net::defaultChannels(rk.node_of) : 1);
    net::NcclChoice how = ncclChoice(a, channels);
    how.architecture = f.gpu_architecture;  // NCCL's per-channel ceilings for these GPUs
    how.in_network_reduction = f.in_network_reduction;
    if (!how.fabric_only && net::channelCaps(how.architecture, 1).tree <= 0)
        std::cerr << "collective: warning: NCCL has no tuning row for "
                  << (how.architecture.empty() ? std::string("these GPUs (unknown or mixed)") : how.architecture + " GPUs")
                  << ": no per-channel ceilings, and no published nccl-tests run checks these figures\n";
    if (!sweep.empty()) {
        if (a.has("links")) throw UsageError("--links writes one collective's link loads: give --bytes, not --sweep");
        std::vector<SweepRow> rows;
        try {
            rows = runSweep(f, op, rk, how, sweep);
        } catch (const sim::SimError& e) {
            throw UsageError(e.what());
        }
        if (a.flag("json")) printSweepJson(rows, op, rk.ranks.size(), placement, order, net::toString(f.topology.routing()));
        else printNcclTable(rows, op, n);
        for (const auto& row : rows)
            if (row.result.stalled_pairs > 0) return 1;
        return 0;
    }
    net::CollectiveResult r;
    try {
        r = net::runNcclCollective(f.topology, router, op, rk.ranks, rk.node_of, bytes, how);
    } catch (const sim::SimError& e) {
        throw UsageError(e.what());
    }
    if (a.has("links")) writeLinkLoads(a.get("links"), f.topology, r.arc_bytes, r.time_s);
    if (r.stalled_pairs > 0)
        std::cerr << "collective: " << r.stalled_pairs << " rank pair(s) have no route; the operation cannot complete\n";
    if (a.flag("json")) {
        json busy = json::array();
        for (const auto& b : r.busiest) busy.push_back({{"link", b.id}, {"bytes", b.bytes}, {"utilization", b.utilization}});
        std::cout << json{{"op", net::toString(op)},
                          {"ranks", n},
                          {"bytes", bytes},
                          {"placement", placement},
                          {"order", order},
                          {"channels", r.channels},
                          {"algorithm", r.algorithm},
                          {"protocol", r.protocol},
                          {"tuned", r.tuned},
                          {"routing", net::toString(f.topology.routing())},
                          {"time_s", r.stalled_pairs ? json(nullptr) : json(r.time_s)},
                          {"latency_s", r.latency_s},
                          {"algbw_GBps", r.algbw_Bps / 1e9},
                          {"busbw_GBps", r.busbw_Bps / 1e9},
                          {"steps", r.steps},
                          {"stalled_pairs", r.stalled_pairs},
                          {"busiest_links", busy}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf(
            "%s of %.4g bytes over %d GPUs (%s, order %s, %s/%s%s, %d channel%s, routing %s): %.9f s (latency %.2f us), algbw %.2f GB/s, "
            "busbw %.2f GB/s, %d steps\n",
            net::toString(op), bytes, n, placement.c_str(), order.c_str(), r.algorithm.c_str(),
            r.protocol.empty() ? "-" : r.protocol.c_str(), r.tuned ? " as NCCL's tuner picks" : "", r.channels, r.channels == 1 ? "" : "s",
            net::toString(f.topology.routing()), r.time_s, r.latency_s * 1e6, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9, r.steps);
        for (std::size_t i = 0; i < r.busiest.size() && i < 5; ++i)
            std::printf("  busiest %zu: %-40s %.3g bytes, %.0f %%\n", i + 1, r.busiest[i].id.c_str(), r.busiest[i].bytes,
                        100 * r.busiest[i].utilization);
    }
    return r.stalled_pairs > 0 ? 1 : 0;
}

}  // namespace ct::cli
