#include <clustertwin/inventory/fabric_import.hpp>

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <set>

namespace ct::inventory {

using importers::ImportedEntity;
using importers::ImportedLink;
using importers::ParseResult;

double infinibandGbps(const std::string& speed) {
    std::string s;
    for (char c : speed)
        if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto x = s.find('X');
    if (x == std::string::npos || x == 0) return 0;
    int width = 0;
    try {
        width = std::stoi(s.substr(0, x));
    } catch (const std::exception&) {
        return 0;
    }
    // Signalling per lane as the InfiniBand Trade Association names the rates (SDR 2.5 Gb/s ... XDR 200 Gb/s);
    // the fabric's "400 Gb/s" for 4x NDR is this figure.
    static const std::map<std::string, double> lane{{"SDR", 2.5}, {"DDR", 5},  {"QDR", 10},  {"FDR10", 10}, {"FDR", 14.0625},
                                                    {"EDR", 25},  {"HDR", 50}, {"NDR", 100}, {"XDR", 200}};
    const auto it = lane.find(s.substr(x + 1));
    return it == lane.end() || width < 1 ? 0 : width * it->second;
}

namespace {

/// The discovered fabric turned into the scenario's explicit network, part by part.
class FabricBuild {
public:
    FabricBuild(const ParseResult& d, FabricImport& out) : d_(d), out_(out) {
        for (const auto& e : d.entities) entity_[e.id] = &e;
    }

    /// Each host's HCAs in name order become its GPU ports. Scenario nodes are found by hostname or id, with
    /// their GPU counts (scenario order).
    void hostPorts(const model::Scenario& s, const std::vector<int>& gpus_per_node) {
        std::map<std::string, std::pair<std::string, int>> node_of;
        std::size_t k = 0;
        for (const auto& h : s.halls)
            for (const auto& row : h.rows)
                for (const auto& r : row.racks)
                    for (const auto& n : r.nodes) {
                        const int g = k < gpus_per_node.size() ? gpus_per_node[k] : 0;
                        ++k;
                        node_of.emplace(n.id, std::make_pair(n.id, g));
                        if (!n.hostname.empty()) node_of.emplace(n.hostname, std::make_pair(n.id, g));
                    }
        std::map<std::string, std::vector<std::string>> hcas_of;  // scenario node id -> HCA entity ids
        std::set<std::string> unknown_hosts;
        for (const auto& e : d_.entities) {
            if (e.kind != "hca") continue;
            auto it = e.parent.empty() ? node_of.end() : node_of.find(e.parent);
            if (it == node_of.end()) {
                unknown_hosts.insert(e.parent.empty() ? e.id : e.parent);
                continue;
            }
            hcas_of[it->second.first].push_back(e.id);
        }
        for (auto& [node, hcas] : hcas_of) {
            std::sort(hcas.begin(), hcas.end());
            const int gpus = node_of.at(node).second;
            for (std::size_t i = 0; i < hcas.size(); ++i) {
                if (static_cast<int>(i) >= gpus) {
                    out_.notes.push_back("HCA " + hcas[i] + " left out: node " + node + " has " + std::to_string(gpus) + " GPU ports");
                    continue;
                }
                port_of_[hcas[i]] = node + "/gpu" + std::to_string(i);
            }
        }
        for (const auto& h : unknown_hosts)
            out_.notes.push_back("HCA of '" + h + "' left out: no node in the scenario has that hostname or id");
    }

    /// Switch levels: 1 with hosts, else 1 + the hops to the nearest such switch (at most 3).
    void switches() {
        std::map<std::string, std::vector<std::string>> adj;
        std::map<std::string, int> level;
        for (const auto& l : d_.links) {
            if (isSwitch(l.from) && isSwitch(l.to)) {
                adj[l.from].push_back(l.to);
                adj[l.to].push_back(l.from);
            }
            for (const auto& [sw, other] : {std::pair{l.from, l.to}, std::pair{l.to, l.from}})
                if (isSwitch(sw) && !isSwitch(other)) level[sw] = 1;
        }
        std::deque<std::string> q;
        for (const auto& [sw, lv] : level) q.push_back(sw);
        while (!q.empty()) {
            const std::string u = q.front();
            q.pop_front();
            for (const auto& w : adj[u])
                if (!level.count(w)) {
                    level[w] = level[u] + 1;
                    q.push_back(w);
                }
        }
        for (const auto& e : d_.entities) {
            if (e.kind != "ib_switch") continue;
            int lv = level.count(e.id) ? level[e.id] : 1;
            if (lv > 3) {
                out_.notes.push_back("switch " + e.id + " is " + std::to_string(lv) + " hops above the hosts; drawn at level 3");
                lv = 3;
            }
            model::NetworkSwitch sw;
            sw.id = e.id;
            sw.name = e.name;
            sw.level = lv;
            out_.network.switches.push_back(sw);
            ++out_.switches;
        }
    }

    /// Cables: switch-switch (parallel ones merged into a count per pair and speed) and host ports.
    void cables() {
        std::map<std::tuple<std::string, std::string, double>, int> trunks;
        std::set<std::string> cabled;
        for (const auto& l : d_.links) {
            const double gbps = infinibandGbps(l.speed);
            if (isSwitch(l.from) && isSwitch(l.to)) {
                ++trunks[{std::min(l.from, l.to), std::max(l.from, l.to), gbps}];
                continue;
            }
            const bool from_sw = isSwitch(l.from);
            const std::string hca = from_sw ? l.to : l.from, sw = from_sw ? l.from : l.to;
            if (!isSwitch(sw)) {
                out_.notes.push_back("cable " + l.from + " - " + l.to + " left out: it joins two HCAs, not a switch");
                continue;
            }
            auto p = port_of_.find(hca);
            if (p == port_of_.end()) continue;  // its host is not in the scenario (noted above)
            if (!cabled.insert(hca).second) {
                out_.notes.push_back("HCA " + hca + " has a second cable (to " + sw + "); only the first is kept");
                continue;
            }
            model::NetworkLink link;
            link.a = p->second;
            link.b = sw;
            if (gbps > 0) link.speed_gbps = gbps;
            else out_.notes.push_back("cable " + hca + " - " + sw + ": unknown speed '" + l.speed + "', taken as the network's");
            out_.network.links.push_back(link);
            ++out_.cables;
            ++out_.hosts_matched;
        }
        for (const auto& [key, count] : trunks) {
            model::NetworkLink link;
            link.a = std::get<0>(key);
            link.b = std::get<1>(key);
            link.count = count;
            if (std::get<2>(key) > 0) link.speed_gbps = std::get<2>(key);
            out_.network.links.push_back(link);
            out_.cables += count;
        }
    }

private:
    bool isSwitch(const std::string& id) const {
        auto it = entity_.find(id);
        return it != entity_.end() && it->second->kind == "ib_switch";
    }

    const ParseResult& d_;
    FabricImport& out_;
    std::map<std::string, const ImportedEntity*> entity_;
    std::map<std::string, std::string> port_of_;  ///< HCA entity id -> "node/gpuN"
};

}  // namespace

FabricImport fabricFromDiscovery(const ParseResult& d, const model::Scenario& s, const std::vector<int>& gpus_per_node) {
    FabricImport out;
    out.network = s.network;
    out.network.topology = "explicit";
    out.network.switches.clear();
    out.network.links.clear();
    FabricBuild b(d, out);
    b.hostPorts(s, gpus_per_node);
    b.switches();
    b.cables();
    return out;
}

}  // namespace ct::inventory
