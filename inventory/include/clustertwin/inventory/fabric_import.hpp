#pragma once
// A scenario's fabric as cabled: the switches and cables an InfiniBand fabric discovery (ibnetdiscover) found,
// mapped onto the scenario's nodes, as an explicit network (issue 20).
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::inventory {

struct FabricImport {
    model::Network network;          ///< topology "explicit"
    int switches = 0, cables = 0;    ///< cables counted with their parallel ones
    int hosts_matched = 0;           ///< HCAs cabled to a scenario node's GPU port
    std::vector<std::string> notes;  ///< every HCA, link or port left out, and why (nothing dropped silently)
};

/// Builds an explicit network from a parsed discovery (`parseIbnetdiscover`): every switch (level 1 when it has
/// hosts, else one more than its nearest such switch, at most 3), every switch-to-switch cable (parallel ones
/// counted), and each host's HCAs, in name order, cabled as its GPU ports gpu0, gpu1, ... A host is a scenario
/// node whose hostname or id is the HCA's host name. Link speed from the width and rate ("4x NDR" = 400 Gb/s);
/// unknown rates take the scenario's link speed. Keeps the scenario's routing, latency and overrides.
FabricImport fabricFromDiscovery(const importers::ParseResult& discovered, const model::Scenario& s, const std::vector<int>& gpus_per_node);

/// Gb/s of an InfiniBand link as ibnetdiscover writes it ("4x EDR", "4xHDR", "1x SDR"); 0 when unknown.
double infinibandGbps(const std::string& speed);

}  // namespace ct::inventory
