#pragma once
// Start from an inventory (issue 18): a scenario built from NetBox's REST API JSON (sites, locations, racks, device
// types, devices, and the floor-plan plugin's floor plans for rack positions), and the reverse: NetBox-importable
// CSV of a scenario's racks and devices. Written against the NetBox 4.1 OpenAPI schema (/api/schema/) and the
// netbox-floorplan-plugin's floorplans endpoint (its Fabric.js canvas, 100 units per metre).
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::inventory {

struct InventoryReport {
    int sites = 0, locations = 0, racks = 0, device_types = 0, devices = 0, floorplans = 0;
    int nodes = 0;                      ///< devices that became nodes
    int racks_placed = 0;               ///< racks at their floor-plan position (the others laid out in rows)
    std::vector<std::string> unmapped;  ///< what could not be mapped to the catalog, and was left out or approximated
    std::vector<std::string> notes;     ///< what the importer added or assumed (cooling, power, layout)
    std::vector<std::string> errors;    ///< files or records it could not read: "file: /results/3/rack: ..."
};

struct InventoryResult {
    model::Scenario scenario;
    InventoryReport report;
};

/// Reads NetBox API list responses ({"count", "results": [...]} from /api/dcim/sites/, /locations/, /racks/,
/// /device-types/, /devices/ and /api/plugins/floorplan/floorplans/, one endpoint per file, recognised by their
/// objects' fields; or one object holding them under "sites", "locations", "racks", "device_types", "devices",
/// "floorplans"). Device types map to catalog servers by slug or model name; racks to the catalog rack nearest in
/// height and footprint. Every hall gets perimeter cooling sized N+1 for its air heat and the site a 2N power chain
/// (NetBox holds neither as this model needs them), both named in the notes. Throws ImportError only when no file
/// could be read at all or no rack was found.
InventoryResult importNetbox(const std::vector<std::string>& files, const model::Catalog& c);

/// NetBox bulk-import CSV (Organization > Import): racks (site, location, name, status, width, u_height, outer
/// dimensions) and devices (name, role, manufacturer, device type, site, location, rack, position, face, status).
std::string netboxRacksCsv(const model::Scenario& s, const model::Catalog& c);
std::string netboxDevicesCsv(const model::Scenario& s, const model::Catalog& c);

}  // namespace ct::inventory
