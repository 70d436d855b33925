// Validation of the scenario's network: generator parameters against what the radix can build, explicit
// switches and links, link overrides. Private to the model library.
#include <clustertwin/model/fabric.hpp>

#include "json_util.hpp"
#include "validate_parts.hpp"

#include <cmath>
#include <map>
#include <set>

namespace ct::model::detail {

namespace {

struct NetChecker {
    const Scenario& s;
    const Catalog& c;
    Diagnostics& d;
    void err(const std::string& p, std::string m) { d.push_back({Severity::Error, p, std::move(m)}); }
    void warn(const std::string& p, std::string m) { d.push_back({Severity::Warning, p, std::move(m)}); }

    std::map<std::string, int> gpusOfNode() const {
        std::map<std::string, int> g;
        for (const Hall& h : s.halls)
            for (const Row& row : h.rows)
                for (const Rack& r : row.racks)
                    for (const Node& n : r.nodes)
                        if (const ServerModel* sm = c.server(n.model)) g[n.id] = sm->gpu_count;
        return g;
    }

    void optionalPositive(const std::string& p, const std::optional<double>& v, bool allow_zero) {
        if (v && !(allow_zero ? *v >= 0 : *v > 0)) err(p, allow_zero ? "must be >= 0" : "must be > 0");
    }

    void run() {
        const Network& n = s.network;
        static const std::set<std::string> kinds{"none", "fat-tree", "rail-optimized", "nvl72", "explicit"};
        if (!kinds.count(n.topology)) {
            err("/network/topology", "unknown topology '" + n.topology + "' (none, fat-tree, rail-optimized, nvl72, explicit)");
            return;
        }
        if (n.topology == "none") return;
        if (!n.routing.empty() && n.routing != "dmodk" && n.routing != "ecmp")
            err("/network/routing", "unknown routing '" + n.routing + "' (dmodk, ecmp)");
        if (!(n.link_speed_gbps > 0)) err("/network/link_speed_gbps", "must be > 0");
        if (!(n.link_latency_s >= 0)) err("/network/link_latency_s", "must be >= 0");
        if (n.rails < 0) err("/network/rails", "must be >= 0");
        if (!n.switch_model.empty() && !c.switchModel(n.switch_model))
            err("/network/switch_model", "unknown switch model '" + n.switch_model + "' (not in the catalog)");
        const auto gpus = gpusOfNode();
        if (n.topology == "explicit") checkExplicit(gpus);
        else checkGenerated(gpus);
        for (std::size_t i = 0; i < n.link_overrides.size(); ++i) {
            const LinkOverride& o = n.link_overrides[i];
            const std::string p = ptrJoin("/network/link_overrides", i);
            if (o.link.find("<->") == std::string::npos)
                err(p + "/link", "name a link as a<->b (e.g. leaf0<->spine3), got '" + o.link + "'");
            optionalPositive(p + "/speed_gbps", o.speed_gbps, false);
            optionalPositive(p + "/latency_s", o.latency_s, true);
            if (!o.speed_gbps && !o.latency_s) warn(p, "changes nothing (give speed_gbps or latency_s)");
        }
    }

    void checkGenerated(const std::map<std::string, int>& gpus) {
        const Network& n = s.network;
        if (!n.switches.empty()) err("/network/switches", "switches are listed only with topology \"explicit\"");
        if (!n.links.empty()) err("/network/links", "links are listed only with topology \"explicit\"");
        const FatTreeShape shape = fatTreeShape(n.radix, n.levels, n.oversubscription);
        if (!shape.error.empty()) {
            const std::string field = n.radix < 4 || n.radix % 2       ? "/network/radix"
                                      : n.levels != 2 && n.levels != 3 ? "/network/levels"
                                                                       : "/network/oversubscription";
            err(field, shape.error);
            return;
        }
        long long ports = 0;  // one NIC port per GPU joins the tree
        for (const auto& [id, g] : gpus) ports += g;
        const std::string cap = fatTreeCapacityError(shape, n.radix, n.levels, n.oversubscription, ports);
        if (!cap.empty()) err(n.levels == 2 ? "/network/levels" : "/network/radix", cap);
    }

    void checkExplicit(const std::map<std::string, int>& gpus) {
        const Network& n = s.network;
        std::map<std::string, std::size_t> sw;
        for (std::size_t i = 0; i < n.switches.size(); ++i) {
            const NetworkSwitch& x = n.switches[i];
            const std::string p = ptrJoin("/network/switches", i);
            if (x.id.empty()) err(p + "/id", "must not be empty");
            else if (!sw.emplace(x.id, i).second) err(p + "/id", "duplicate switch id '" + x.id + "'");
            if (gpus.count(x.id)) err(p + "/id", "'" + x.id + "' is also a node id");
            if (!x.model.empty() && !c.switchModel(x.model)) err(p + "/model", "unknown switch model '" + x.model + "'");
            if (x.level < 1 || x.level > 3) err(p + "/level", "must be 1, 2 or 3");
        }
        if (n.links.empty()) err("/network/links", "an explicit fabric needs its links");
        auto endOk = [&](const std::string& e) -> std::string {
            if (sw.count(e)) return {};
            const auto slash = e.rfind("/gpu");
            if (slash == std::string::npos) return "'" + e + "' is neither a switch of /network/switches nor a GPU port NODE/gpuN";
            const auto it = gpus.find(e.substr(0, slash));
            if (it == gpus.end()) return "unknown node '" + e.substr(0, slash) + "' in '" + e + "'";
            const std::string idx = e.substr(slash + 4);
            if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos || std::stoi(idx) >= it->second)
                return "node '" + it->first + "' has GPUs 0.." + std::to_string(it->second - 1) + ", not '" + e + "'";
            return {};
        };
        std::set<std::string> cabled;
        for (std::size_t i = 0; i < n.links.size(); ++i) {
            const NetworkLink& l = n.links[i];
            const std::string p = ptrJoin("/network/links", i);
            if (auto m = endOk(l.a); !m.empty()) err(p + "/a", m);
            if (auto m = endOk(l.b); !m.empty()) err(p + "/b", m);
            if (l.a == l.b) err(p + "/b", "a link needs two different ends");
            if (l.count < 1) err(p + "/count", "must be >= 1");
            optionalPositive(p + "/speed_gbps", l.speed_gbps, false);
            optionalPositive(p + "/latency_s", l.latency_s, true);
            for (const std::string* e : {&l.a, &l.b})
                if (!sw.count(*e) && !cabled.insert(*e).second) err(p, "GPU port '" + *e + "' is cabled twice (one NIC port per GPU)");
        }
        std::size_t uncabled = 0;
        std::string first;
        for (const auto& [id, g] : gpus)
            for (int i = 0; i < g; ++i)
                if (!cabled.count(id + "/gpu" + std::to_string(i)) && uncabled++ == 0) first = id + "/gpu" + std::to_string(i);
        if (uncabled > 0)
            warn("/network/links", std::to_string(uncabled) + " GPU port(s) are not cabled to the fabric (first: " + first +
                                       "); they reach other nodes only through NVLink, if at all");
    }
};

}  // namespace

void checkNetwork(const Scenario& s, const Catalog& c, Diagnostics& d) { NetChecker{s, c, d}.run(); }

}  // namespace ct::model::detail
