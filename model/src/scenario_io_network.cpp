// Reading and writing the scenario's network: generator parameters, routing, explicit switches and links,
// link overrides. Private to the model library.
#include "scenario_io_parts.hpp"

namespace ct::model::detail {

void readNetwork(ObjReader& r, Network& n, Diagnostics& d) {
    r.get("topology", n.topology, true);
    r.get("routing", n.routing);
    r.get("levels", n.levels);
    r.get("radix", n.radix);
    r.get("oversubscription", n.oversubscription);
    r.get("link_speed_gbps", n.link_speed_gbps);
    r.get("link_latency_s", n.link_latency_s);
    r.get("switch_model", n.switch_model);
    r.get("rails", n.rails);
    readList(r, "switches", false, n.switches, d, [](ObjReader& x, NetworkSwitch& s) {
        x.get("id", s.id, true);
        x.get("name", s.name);
        x.get("model", s.model);
        x.get("level", s.level);
        x.get("rack", s.rack);
    });
    readList(r, "links", false, n.links, d, [](ObjReader& x, NetworkLink& l) {
        x.get("a", l.a, true);
        x.get("b", l.b, true);
        x.get("count", l.count);
        x.get("speed_gbps", l.speed_gbps);
        x.get("latency_s", l.latency_s);
    });
    readList(r, "link_overrides", false, n.link_overrides, d, [](ObjReader& x, LinkOverride& o) {
        x.get("link", o.link, true);
        x.get("speed_gbps", o.speed_gbps);
        x.get("latency_s", o.latency_s);
    });
}

ojson writeNetwork(const Network& n) {
    ojson net;
    net["topology"] = n.topology;
    putIfNotEmpty(net, "routing", n.routing);
    net["levels"] = n.levels;
    net["radix"] = n.radix;
    net["oversubscription"] = num(n.oversubscription);
    net["link_speed_gbps"] = num(n.link_speed_gbps);
    net["link_latency_s"] = num(n.link_latency_s);
    putIfNotEmpty(net, "switch_model", n.switch_model);
    net["rails"] = n.rails;
    if (!n.switches.empty()) {
        ojson a = ojson::array();
        for (const auto& s : n.switches) {
            ojson o;
            o["id"] = s.id;
            putIfNotEmpty(o, "name", s.name);
            putIfNotEmpty(o, "model", s.model);
            o["level"] = s.level;
            putIfNotEmpty(o, "rack", s.rack);
            putExtras(o, s.extra);
            a.push_back(std::move(o));
        }
        net["switches"] = std::move(a);
    }
    if (!n.links.empty()) {
        ojson a = ojson::array();
        for (const auto& l : n.links) {
            ojson o;
            o["a"] = l.a;
            o["b"] = l.b;
            if (l.count != 1) o["count"] = l.count;
            if (l.speed_gbps) o["speed_gbps"] = num(*l.speed_gbps);
            if (l.latency_s) o["latency_s"] = num(*l.latency_s);
            putExtras(o, l.extra);
            a.push_back(std::move(o));
        }
        net["links"] = std::move(a);
    }
    if (!n.link_overrides.empty()) {
        ojson a = ojson::array();
        for (const auto& l : n.link_overrides) {
            ojson o;
            o["link"] = l.link;
            if (l.speed_gbps) o["speed_gbps"] = num(*l.speed_gbps);
            if (l.latency_s) o["latency_s"] = num(*l.latency_s);
            putExtras(o, l.extra);
            a.push_back(std::move(o));
        }
        net["link_overrides"] = std::move(a);
    }
    putExtras(net, n.extra);
    return net;
}

}  // namespace ct::model::detail
