#include "impact.hpp"

#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/impact.hpp>

#include <nlohmann/json.hpp>

#include <iostream>

namespace ct::cli {

const char* kImpactHelp = R"(Usage: clustertwin-cli impact SCENARIO --fail ID [--json]

Works out, from the scenario's structure and without simulating, what is affected if ID fails: a utility feed,
UPS, floor PDU, rack PDU, cooling unit, CDU, rack, node, fabric switch (e.g. leaf0) or link ("a<->b").
  power         nodes and racks that lose every feed, racks left on one side, gear overloaded by the failover
  cooling       racks whose remaining air or liquid cooling is below their nameplate heat
  connectivity  GPUs whose fabric links are all down, nodes cut off from the others
Exit codes: 0 done (whatever the impact), 2 usage error, invalid scenario or unknown ID.
)";

int cmdImpact(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    const std::string id = a.get("fail");
    if (id.empty()) throw UsageError("impact needs --fail ID");
    model::ValidationReport rep = model::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (model::hasErrors(rep.diagnostics)) return 2;
    sim::ImpactReport r;
    try {
        r = sim::impactOf(rep.scenario, rep.catalog, id);
    } catch (const sim::SimError& e) {
        std::cerr << "clustertwin-cli impact: " << e.what() << "\n";
        return 2;
    }
    if (a.flag("json")) {
        nlohmann::json o{
            {"failed", r.failed},
            {"kind", r.kind},
            {"power",
             {{"nodes_unpowered", r.nodes_unpowered},
              {"racks_unpowered", r.racks_unpowered},
              {"racks_single_fed", r.racks_single_fed},
              {"overloaded", r.overloaded}}},
            {"cooling",
             {{"racks_short", r.racks_cooling_short},
              {"air_capacity_left_w", r.air_capacity_left_w},
              {"air_heat_w", r.air_heat_w},
              {"liquid_capacity_left_w", r.liquid_capacity_left_w},
              {"liquid_heat_w", r.liquid_heat_w}}},
            {"connectivity", {{"gpus_without_fabric_link", r.gpus_without_fabric_link}, {"nodes_disconnected", r.nodes_disconnected}}},
            {"compute", {{"nodes_lost", r.nodes_lost}, {"gpus_lost", r.gpus_lost}, {"jobs_hit", r.jobs_hit}}},
            {"notes", r.notes}};
        std::cout << o.dump(2) << "\n";
        return 0;
    }
    auto list = [](const char* what, const std::vector<std::string>& v) {
        std::cout << "  " << what << ": " << v.size();
        for (std::size_t i = 0; i < v.size() && i < 12; ++i) std::cout << (i ? ", " : " (") << v[i];
        if (!v.empty()) std::cout << (v.size() > 12 ? ", …)" : ")");
        std::cout << "\n";
    };
    std::cout << "If " << r.kind << " " << r.failed << " fails:\n";
    std::cout << "power\n";
    list("nodes unpowered", r.nodes_unpowered);
    list("racks unpowered", r.racks_unpowered);
    list("racks left on one feed", r.racks_single_fed);
    list("overloaded", r.overloaded);
    std::cout << "cooling\n";
    list("racks short of cooling", r.racks_cooling_short);
    std::cout << "connectivity\n";
    list("GPUs without a fabric link", r.gpus_without_fabric_link);
    list("nodes cut off", r.nodes_disconnected);
    std::cout << "compute\n";
    list("nodes lost", r.nodes_lost);
    list("GPUs lost", r.gpus_lost);
    list("jobs hit", r.jobs_hit);
    for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
    return 0;
}

}  // namespace ct::cli
