#include "flows.hpp"

#include "collective.hpp"
#include "io.hpp"

#include <clustertwin/model/validate.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

namespace ct::cli {

namespace m = ct::model;
namespace net = ct::sim::net;
using json = nlohmann::ordered_json;

const char* kFlowsHelp = R"(Usage: clustertwin-cli flows SCENARIO --flows FLOWS.json [options]

Starts point-to-point flows on the scenario's fabric (NVLink inside nodes, the scale-out fabric between them,
routed as the scenario's network says: dmodk or ecmp) and shares every link max-min fairly, recomputing the
rates whenever a flow starts or ends. Prints each flow's rate when it started to drain and its finish time.
  --flows FILE        the flows: {"flows": [{"id": "f0", "src": "n01/gpu0", "dst": "n02/gpu3", "bytes": "1GiB",
                      "start_s": 0}, ...]}; ends are GPU ports (NODE/gpuN) or switch ids; bytes a number or a
                      size (1GiB, 256MiB, 4MB); start_s defaults to 0; id to the flow's index
  --fail-link ID      fail a link first, "a<->b" (repeatable), e.g. leaf0<->spine3
  --links FILE        every link direction's bytes and utilization, busiest first: CSV, or JSON for *.json
  --json              print the result as JSON
A flow finishes at start + path latency + its bytes drained at its max-min rates.
)";

std::optional<net::ScenarioFabric> loadFabric(const std::string& file, const Args& a, const char* command) {
    const m::ValidationReport rep = m::loadAndValidate(file);
    for (const auto& d : rep.diagnostics) std::cerr << file << ": " << d.toString() << "\n";
    if (m::hasErrors(rep.diagnostics)) return std::nullopt;
    std::optional<net::ScenarioFabric> f;
    try {
        f = net::buildScenarioFabric(rep.scenario, rep.catalog);
    } catch (const sim::SimError& e) {
        std::cerr << command << ": " << file << ": " << e.what() << "\n";
        return std::nullopt;
    }
    for (const auto& id : a.all("fail-link")) {
        const std::vector<int> cables = f->topology.cablesByName(id);
        if (cables.empty()) throw UsageError("--fail-link: no link '" + id + "' (links are named a<->b, e.g. leaf0<->spine3)");
        for (int c : cables) f->topology.setCableFailed(c, true);
    }
    return f;
}

void writeLinkLoads(const std::string& path, const net::Topology& t, const std::vector<double>& arc_bytes, double time_s) {
    const std::vector<net::BusyLink> loads = net::linkLoads(t, arc_bytes, time_s, true);
    OutputFile out(path);
    const bool as_json = path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    if (as_json) {
        json links = json::array();
        for (const auto& l : loads)
            links.push_back({{"link", l.id},
                             {"cable", l.cable},
                             {"capacity_GBps", l.capacity_Bps / 1e9},
                             {"latency_s", l.latency_s},
                             {"bytes", l.bytes},
                             {"utilization", l.utilization},
                             {"failed", l.failed}});
        out.stream() << json{{"time_s", time_s}, {"links", links}}.dump(1) << "\n";
    } else {
        out.stream() << "link,cable,capacity_GBps,latency_s,bytes,utilization,failed\n";
        char buf[128];
        for (const auto& l : loads) {
            std::snprintf(buf, sizeof buf, ",%.9g,%.9g,%.9g,%.6f,%d\n", l.capacity_Bps / 1e9, l.latency_s, l.bytes, l.utilization,
                          l.failed ? 1 : 0);
            out.stream() << l.id << "," << l.cable << buf;
        }
    }
    out.commit();
}

namespace {

struct FlowSpec {
    std::string id;
};

/// Reads the flows file; throws UsageError naming the file and the JSON pointer of a bad entry.
std::vector<net::Flow> readFlows(const std::string& path, const net::Topology& t, std::vector<FlowSpec>& specs) {
    std::ifstream in(path);
    if (!in) throw UsageError("--flows: cannot open '" + path + "'");
    json doc;
    try {
        doc = json::parse(in);
    } catch (const json::parse_error& e) {
        throw UsageError(path + ": not JSON: " + e.what());
    }
    const json* list = &doc;
    std::string base;
    if (doc.is_object()) {
        if (!doc.contains("flows")) throw UsageError(path + ": expected {\"flows\": [...]} or an array of flows");
        list = &doc["flows"];
        base = "/flows";
    }
    if (!list->is_array()) throw UsageError(path + ": " + (base.empty() ? "/" : base) + ": expected an array of flows");
    std::vector<net::Flow> flows;
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& e = (*list)[i];
        const std::string p = path + ": " + base + "/" + std::to_string(i);
        if (!e.is_object()) throw UsageError(p + ": expected an object");
        auto end = [&](const char* key) {
            if (!e.contains(key) || !e[key].is_string()) throw UsageError(p + "/" + key + ": expected a GPU port (NODE/gpuN) or switch id");
            const std::string id = e[key].get<std::string>();
            const int n = t.find(id);
            if (n < 0) throw UsageError(p + "/" + key + ": no GPU port or switch '" + id + "' in the fabric");
            return n;
        };
        net::Flow f;
        f.src = end("src");
        f.dst = end("dst");
        if (!e.contains("bytes")) throw UsageError(p + "/bytes: missing");
        if (e["bytes"].is_number()) {
            f.bytes = e["bytes"].get<double>();
            if (!(f.bytes >= 0) || !std::isfinite(f.bytes)) throw UsageError(p + "/bytes: must be >= 0");
        } else if (e["bytes"].is_string()) {
            f.bytes = parseBytes(e["bytes"].get<std::string>(), p + "/bytes");
        } else {
            throw UsageError(p + "/bytes: expected a number or a size like \"1GiB\"");
        }
        if (e.contains("start_s")) {
            if (!e["start_s"].is_number() || !(e["start_s"].get<double>() >= 0)) throw UsageError(p + "/start_s: must be a number >= 0");
            f.start_s = e["start_s"].get<double>();
        }
        FlowSpec s;
        s.id = e.contains("id") && e["id"].is_string() ? e["id"].get<std::string>() : "f" + std::to_string(i);
        specs.push_back(s);
        flows.push_back(std::move(f));
    }
    if (flows.empty()) throw UsageError(path + ": no flows");
    return flows;
}

}  // namespace

int cmdFlows(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    if (!a.has("flows")) throw UsageError("flows needs --flows FILE");
    const std::string file = a.positional()[0];
    std::optional<net::ScenarioFabric> f = loadFabric(file, a, "flows");
    if (!f) return 2;
    std::vector<FlowSpec> specs;
    std::vector<net::Flow> flows = readFlows(a.get("flows"), f->topology, specs);
    net::Router router(f->topology);
    const net::FlowSimResult r = net::simulateFlows(f->topology, router, flows);
    if (a.has("links")) writeLinkLoads(a.get("links"), f->topology, r.arc_bytes, r.end_s);
    const net::Topology& t = f->topology;
    if (a.flag("json")) {
        json out = json::array();
        for (std::size_t i = 0; i < flows.size(); ++i) {
            const net::Flow& x = flows[i];
            out.push_back({{"id", specs[i].id},
                           {"src", t.node(x.src).id},
                           {"dst", t.node(x.dst).id},
                           {"bytes", x.bytes},
                           {"start_s", x.start_s},
                           {"hops", x.path.size()},
                           {"latency_s", router.latency(x.path)},
                           {"rate_GBps", x.first_rate_Bps / 1e9},
                           {"finish_s", x.stalled ? json(nullptr) : json(x.finish_s)},
                           {"stalled", x.stalled}});
        }
        std::cout << json{{"routing", net::toString(t.routing())},
                          {"end_s", r.end_s},
                          {"rate_recomputations", r.rate_recomputations},
                          {"stalled", r.stalled},
                          {"flows", out}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf("%zu flows on %s (routing %s): all done at %.9f s, %d rate recomputations\n", flows.size(), file.c_str(),
                    net::toString(t.routing()), r.end_s, r.rate_recomputations);
        std::printf("  %-12s %-22s %-22s %12s %10s %12s %14s\n", "id", "src", "dst", "bytes", "start_s", "rate_GBps", "finish_s");
        for (std::size_t i = 0; i < flows.size(); ++i) {
            const net::Flow& x = flows[i];
            if (x.stalled)
                std::printf("  %-12s %-22s %-22s %12.6g %10.6g %12s %14s\n", specs[i].id.c_str(), t.node(x.src).id.c_str(),
                            t.node(x.dst).id.c_str(), x.bytes, x.start_s, "-", "no route");
            else
                std::printf("  %-12s %-22s %-22s %12.6g %10.6g %12.6f %14.9f\n", specs[i].id.c_str(), t.node(x.src).id.c_str(),
                            t.node(x.dst).id.c_str(), x.bytes, x.start_s, x.first_rate_Bps / 1e9, x.finish_s);
        }
    }
    if (r.stalled > 0) std::cerr << "flows: " << r.stalled << " flow(s) have no route and never finish\n";
    return r.stalled > 0 ? 1 : 0;
}

}  // namespace ct::cli
