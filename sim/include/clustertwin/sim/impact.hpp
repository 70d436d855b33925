#pragma once
// "What loses cooling, power or connectivity if X fails", worked out from the scenario's structure without
// simulating (issue 6): the power chain with its A/B sides and failover loads, cooling capacity against
// nameplate heat, and reachability in the fabric.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::sim {

struct ImpactReport {
    std::string failed;  ///< the id asked about
    std::string kind;    ///< utility_feed, transformer, ups, pdu, rack_pdu, cooling_unit, water_loop, cdu, switch, link, node, gpu, rack
    // Power
    std::vector<std::string> nodes_unpowered;   ///< every feed of the node is down
    std::vector<std::string> racks_unpowered;   ///< every node of the rack is unpowered
    std::vector<std::string> racks_single_fed;  ///< still powered, by one side only (redundancy lost)
    std::vector<std::string> overloaded;        ///< PDUs, UPSs, feeds above capacity with the failover load (nameplate)
    // Cooling
    std::vector<std::string> racks_cooling_short;          ///< racks whose cooling can no longer carry their nameplate heat
    double air_capacity_left_w = 0, air_heat_w = 0;        ///< in the failed unit's hall
    double liquid_capacity_left_w = 0, liquid_heat_w = 0;  ///< of the racks the failed CDU served
    // Fabric
    std::vector<std::string> gpus_without_fabric_link;  ///< every InfiniBand/Ethernet link of the GPU is down
    std::vector<std::string> nodes_disconnected;        ///< no path from the node to any other node
    // Compute
    std::vector<std::string> nodes_lost;  ///< the failed node itself, or a failed rack's nodes
    std::vector<std::string> gpus_lost;   ///< the failed GPU, or every GPU of a lost node
    std::vector<std::string> jobs_hit;    ///< jobs placed on what is lost (jobs placed by the scheduler: see notes)
    std::vector<std::string> notes;

    /// Everything that is affected, for highlighting (racks, nodes, GPUs, power gear).
    std::vector<std::string> affected() const;
};

/// Throws SimError when `id` names nothing that can fail (or the fabric cannot be built).
ImpactReport impactOf(const model::Scenario& s, const model::Catalog& c, const std::string& id);

}  // namespace ct::sim
