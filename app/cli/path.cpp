#include "path.hpp"

#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/path_trace.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace ct::cli {

const char* kPathHelp = R"(Usage: clustertwin-cli path SCENARIO --from GPU --to GPU [--json]

The route the fabric's routing gives traffic from one GPU to another (D-mod-k on fat trees, ECMP on Ethernet,
as the flows and collectives take it): every switch and cable on the way, cables by the ids a run's series give
them (leaf0<->spine0#25, which the 3D view and the Fabric dock label "leaf0 ↔ spine0, cable 25"), the path's
latency and its narrowest cable. GPU ids as in the scenario
(n0001/gpu0); a node id stands for its first GPU.
  --json   {"from", "to", "routing", "hops": [...], "cables": [...], "latency_s", "bottleneck_gbps"}
Exit codes: 0 traced, 2 usage error, invalid scenario, an id that is no GPU, or no route.
)";

int cmdPath(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    if (!a.has("from") || !a.has("to")) throw UsageError("path needs --from GPU and --to GPU");
    const std::string file = a.positional()[0];
    const model::ValidationReport rep = model::loadAndValidate(file);
    for (const auto& d : rep.diagnostics)
        if (d.severity == model::Severity::Error) std::cerr << file << ": " << d.toString() << "\n";
    if (model::hasErrors(rep.diagnostics)) return 2;
    sim::net::PathTrace t;
    try {
        t = sim::net::tracePath(rep.scenario, rep.catalog, a.get("from"), a.get("to"));
    } catch (const sim::SimError& e) {
        std::cerr << "clustertwin-cli path: " << e.what() << "\n";
        return 2;
    }
    if (a.flag("json")) {
        std::cout << nlohmann::ordered_json{{"from", a.get("from")},
                                            {"to", a.get("to")},
                                            {"routing", t.routing},
                                            {"hops", t.hops},
                                            {"cables", t.cables},
                                            {"latency_s", t.latency_s},
                                            {"bottleneck_gbps", t.bottleneck_gbps}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::cout << a.get("from") << " → " << a.get("to") << " (" << t.routing << " routing): " << t.hops.size() - 1 << " hop(s)\n";
    for (std::size_t i = 0; i < t.cables.size(); ++i)
        std::cout << "  " << t.hops[i] << "  ──" << t.cables[i] << "──>  " << t.hops[i + 1] << "\n";
    char b[120];
    std::snprintf(b, sizeof b, "latency %.2f µs, narrowest cable %.0f Gb/s\n", t.latency_s * 1e6, t.bottleneck_gbps);
    std::cout << b;
    return 0;
}

}  // namespace ct::cli
