#include "collective.hpp"

#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/collectives.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace ct::cli {

namespace m = ct::model;
namespace net = ct::sim::net;
using json = nlohmann::ordered_json;

const char* kCollectiveHelp = R"(Usage: clustertwin-cli collective SCENARIO --op OP --bytes SIZE [--ranks N] [options]

Runs one collective on the scenario's fabric (NVLink inside nodes, the InfiniBand fat tree between them) and
reports the completion time, the bus bandwidth (as nccl-tests defines it) and the busiest links.
  --op OP             allreduce | hierarchical-allreduce | allgather | reducescatter | alltoall
  --bytes SIZE        buffer size: 1GiB, 256MiB, 4MB, 1e9 ...
  --ranks N           number of GPUs taking part (all)
  --placement P       packed (fill nodes in order, the default) or spread (one GPU per node in turn)
  --fail-link ID      fail a link first, "a<->b" (repeatable), e.g. leaf0<->spine3
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

int cmdCollective(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    if (!a.has("op")) throw UsageError("collective needs --op");
    if (!a.has("bytes")) throw UsageError("collective needs --bytes");
    net::CollectiveOp op;
    try {
        op = net::collectiveFromString(a.get("op"));
    } catch (const sim::SimError& e) {
        throw UsageError(e.what());
    }
    const double bytes = parseBytes(a.get("bytes"), "--bytes");
    const std::string placement = a.get("placement", "packed");
    if (placement != "packed" && placement != "spread") throw UsageError("--placement must be packed or spread");

    const m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (m::hasErrors(rep.diagnostics)) return 2;
    net::ScenarioFabric f;
    try {
        f = net::buildScenarioFabric(rep.scenario, rep.catalog);
    } catch (const sim::SimError& e) {
        std::cerr << "collective: " << e.what() << "\n";
        return 2;
    }
    const int nodes = static_cast<int>(f.gpus_of_node.size()), gpn = static_cast<int>(f.gpus_of_node[0].size());
    const int total = nodes * gpn;
    const int n = a.getInt("ranks", total);
    if (n < 1 || n > total)
        throw UsageError("--ranks must be within 1.." + std::to_string(total) + " (the scenario's GPUs), got " + std::to_string(n));
    std::vector<int> ranks, node_of;
    for (int i = 0; i < n; ++i) {
        const int node = placement == "packed" ? i / gpn : i % nodes;
        const int gpu = placement == "packed" ? i % gpn : i / nodes;
        ranks.push_back(f.gpus_of_node[node][gpu]);
        node_of.push_back(node);
    }
    for (const auto& id : a.all("fail-link")) {
        const int c = f.topology.cableByName(id);
        if (c < 0) throw UsageError("--fail-link: no link '" + id + "' (links are named a<->b, e.g. leaf0<->spine3)");
        f.topology.setCableFailed(c, true);
    }
    net::Router router(f.topology);
    const net::CollectiveResult r = net::runCollective(f.topology, router, op, ranks, bytes, node_of);
    if (r.stalled_pairs > 0)
        std::cerr << "collective: " << r.stalled_pairs << " rank pair(s) have no route; the operation cannot complete\n";
    if (a.flag("json")) {
        json busy = json::array();
        for (const auto& b : r.busiest) busy.push_back({{"link", b.id}, {"bytes", b.bytes}, {"utilization", b.utilization}});
        std::cout << json{{"op", net::toString(op)}, {"ranks", n}, {"bytes", bytes}, {"placement", placement},
                          {"time_s", r.stalled_pairs ? json(nullptr) : json(r.time_s)}, {"algbw_GBps", r.algbw_Bps / 1e9},
                          {"busbw_GBps", r.busbw_Bps / 1e9}, {"steps", r.steps}, {"stalled_pairs", r.stalled_pairs},
                          {"busiest_links", busy}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf("%s of %.4g bytes over %d GPUs (%s): %.6f s, algbw %.2f GB/s, busbw %.2f GB/s, %d steps\n",
                    net::toString(op), bytes, n, placement.c_str(), r.time_s, r.algbw_Bps / 1e9, r.busbw_Bps / 1e9, r.steps);
        for (std::size_t i = 0; i < r.busiest.size() && i < 5; ++i)
            std::printf("  busiest %zu: %-40s %.3g bytes, %.0f %%\n", i + 1, r.busiest[i].id.c_str(), r.busiest[i].bytes,
                        100 * r.busiest[i].utilization);
    }
    return r.stalled_pairs > 0 ? 1 : 0;
}

} // namespace ct::cli
