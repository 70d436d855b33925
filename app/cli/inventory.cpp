#include "inventory.hpp"

#include "io.hpp"

#include <clustertwin/importers/format.hpp>
#include <clustertwin/inventory/fabric_import.hpp>
#include <clustertwin/inventory/netbox.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace ct::cli {

const char* kFromNetboxHelp = R"(Usage: clustertwin-cli from-netbox FILE... -o SCENARIO [--json]

Builds a scenario from NetBox REST API JSON: the list responses of /api/dcim/sites/, /locations/, /racks/,
/device-types/ and /devices/ (each file one endpoint, e.g. curl -H "Authorization: Token …"
https://netbox/api/dcim/racks/?limit=0), and /api/plugins/floorplan/floorplans/ for rack positions (the
netbox-floorplan-plugin). Locations become halls, racks keep their floor-plan position (others are laid out in
rows), devices whose type is a catalog server become nodes at their U position. NetBox holds no cooling or power
chain as the model needs them: each hall gets perimeter CRAHs N+1 for its air heat and the site a 2N chain, both
reported. Written against the NetBox 4.1 API schema.
  -o, --out FILE   the scenario (atomically; "-" is stdout)
  --json           the report (counts, what was not mapped, what was added) as JSON on stdout
Exit codes: 0 built (what could not be mapped is reported), 2 no racks could be read or a bad file left nothing,
1 runtime error.
)";

const char* kToNetboxHelp = R"(Usage: clustertwin-cli to-netbox SCENARIO -o DIR

Writes DIR/racks.csv and DIR/devices.csv in NetBox's bulk-import format (Organization > Racks / Devices >
Import): racks with site, location (the hall), size and a comment giving the ClusterTwin position and facing;
devices (the nodes) with role "GPU server", manufacturer and device type from the catalog, rack and U position.
Create the site, locations, manufacturers, device types and role in NetBox first.
)";

const char* kImportFabricHelp = R"(Usage: clustertwin-cli import-fabric SCENARIO DISCOVERY -o OUT [--json]

Replaces the scenario's network with the InfiniBand fabric as cabled: DISCOVERY is the output of ibnetdiscover
(topology file) or ibnetdiscover -p (ports report). Every switch and switch-to-switch cable is kept (parallel
cables counted, speed from the link's width and rate, e.g. 4x NDR = 400 Gb/s); each host's HCAs, in name order,
become the GPU ports gpu0, gpu1, ... of the scenario node whose hostname or id is the HCA's host. What cannot
be mapped (hosts not in the scenario, more HCAs than GPUs, unconnected ports) is listed, never dropped silently.
The result routes as the scenario's network says (dmodk unless routing is set) through collective, flows and
simulate --jobs.
  -o, --out FILE   the scenario (atomically; "-" is stdout)
  --json           the report (switches, cables, hosts matched, notes, parse warnings) as JSON on stdout
Exit codes: 0 written, 2 unreadable input or an invalid result, 1 runtime error.
)";

int cmdImportFabric(const Args& a) {
    if (a.positional().size() != 2) throw UsageError("expected SCENARIO and the ibnetdiscover file");
    const std::string out = a.get("out");
    if (out.empty()) throw UsageError("import-fabric needs -o OUT");
    const std::string scen = a.positional()[0], disc = a.positional()[1];
    model::ValidationReport rep = model::loadAndValidate(scen);
    for (const auto& d : rep.diagnostics) std::cerr << scen << ": " << d.toString() << "\n";
    if (model::hasErrors(rep.diagnostics)) return 2;
    std::ifstream in(disc);
    if (!in) {
        std::cerr << "clustertwin-cli import-fabric: cannot open " << disc << "\n";
        return 2;
    }
    importers::ParseOptions opt;
    opt.file_name = disc;
    opt.default_time_s = 0;
    const importers::ParseResult parsed = importers::parseIbnetdiscover(in, opt);
    for (const auto& w : parsed.warnings) std::cerr << w.location << ": warning: " << w.message << "\n";
    if (parsed.links.empty()) {
        std::cerr << "clustertwin-cli import-fabric: " << disc << ": no cables found (is it ibnetdiscover output?)\n";
        return 2;
    }
    std::vector<int> gpus;
    for (const auto& h : rep.scenario.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) gpus.push_back(rep.catalog.server(n.model) ? rep.catalog.server(n.model)->gpu_count : 0);
    inventory::FabricImport f = inventory::fabricFromDiscovery(parsed, rep.scenario, gpus);
    if (!a.flag("json"))
        for (const auto& n : f.notes) std::cerr << disc << ": " << n << "\n";
    if (f.hosts_matched == 0) {
        std::cerr << "clustertwin-cli import-fabric: no HCA of " << disc << " belongs to a node of " << scen
                  << " (nodes are matched by hostname or id); nothing written\n";
        if (a.flag("json"))
            for (const auto& n : f.notes) std::cerr << disc << ": " << n << "\n";
        return 2;
    }
    model::Scenario s = rep.scenario;
    s.network = f.network;
    const model::Diagnostics d = model::validateScenario(s, rep.catalog);
    for (const auto& x : d) std::cerr << out << ": " << x.toString() << "\n";
    if (model::hasErrors(d)) return 2;
    OutputFile file(out);
    file.stream() << model::scenarioToJson(s);
    file.commit();
    if (a.flag("json")) {
        nlohmann::json warnings = nlohmann::json::array();
        for (const auto& w : parsed.warnings) warnings.push_back(w.location + ": " + w.message);
        std::cout << nlohmann::json{{"scenario", out},  {"switches", f.switches}, {"cables", f.cables}, {"hosts_matched", f.hosts_matched},
                                    {"notes", f.notes}, {"warnings", warnings}}
                         .dump(2)
                  << "\n";
    } else {
        std::cerr << out << ": fabric from " << disc << ": " << f.switches << " switch(es), " << f.cables << " cable(s), "
                  << f.hosts_matched << " GPU port(s) cabled\n";
    }
    return 0;
}

int cmdFromNetbox(const Args& a) {
    if (a.positional().empty()) throw UsageError("from-netbox needs the NetBox JSON files");
    const std::string out = a.get("out");
    if (out.empty()) throw UsageError("from-netbox needs -o SCENARIO");
    inventory::InventoryResult res;
    try {
        res = inventory::importNetbox(a.positional(), model::Catalog::builtin());
    } catch (const importers::ImportError& e) {
        std::cerr << "clustertwin-cli from-netbox: " << e.what() << "\n";
        return 2;
    }
    const auto& r = res.report;
    for (const auto& e : r.errors) std::cerr << "error: " << e << "\n";
    const model::Diagnostics d = model::validateScenario(res.scenario, model::Catalog::builtin());
    for (const auto& x : d) std::cerr << out << ": " << x.toString() << "\n";
    OutputFile file(out);
    file.stream() << model::scenarioToJson(res.scenario);
    file.commit();
    if (a.flag("json")) {
        nlohmann::json o{{"scenario", out},
                         {"read",
                          {{"sites", r.sites},
                           {"locations", r.locations},
                           {"racks", r.racks},
                           {"device_types", r.device_types},
                           {"devices", r.devices},
                           {"floorplans", r.floorplans}}},
                         {"halls", res.scenario.halls.size()},
                         {"nodes", r.nodes},
                         {"racks_placed_from_floorplan", r.racks_placed},
                         {"unmapped", r.unmapped},
                         {"notes", r.notes},
                         {"errors", r.errors},
                         {"valid", !model::hasErrors(d)}};
        std::cout << o.dump(2) << "\n";
    } else {
        std::cerr << out << ": " << res.scenario.halls.size() << " hall(s), " << r.racks << " rack(s) (" << r.racks_placed
                  << " at their floor-plan position), " << r.nodes << " node(s) from " << r.devices << " device(s)\n";
        for (const auto& u : r.unmapped) std::cerr << "  not mapped: " << u << "\n";
        for (const auto& n : r.notes) std::cerr << "  added: " << n << "\n";
    }
    return model::hasErrors(d) ? 2 : 0;
}

int cmdToNetbox(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string dir = a.get("out");
    if (dir.empty()) throw UsageError("to-netbox needs -o DIR");
    model::ValidationReport rep = model::loadAndValidate(a.positional()[0]);
    for (const auto& d : rep.diagnostics) std::cerr << a.positional()[0] << ": " << d.toString() << "\n";
    if (model::hasErrors(rep.diagnostics)) return 2;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
    for (const auto& [name, text] : {std::pair{"racks.csv", inventory::netboxRacksCsv(rep.scenario, rep.catalog)},
                                     std::pair{"devices.csv", inventory::netboxDevicesCsv(rep.scenario, rep.catalog)}}) {
        OutputFile f((std::filesystem::path(dir) / name).string());
        f.stream() << text;
        f.commit();
    }
    std::cerr << dir << ": racks.csv and devices.csv written\n";
    return 0;
}

}  // namespace ct::cli
