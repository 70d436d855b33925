#pragma once
// Layout edits (issue 6): pure functions on a scenario, so the app's undo stack, the tests and any script
// share one implementation. Each throws ModelError naming what is wrong (unknown id, bad value) and then
// leaves the scenario unchanged.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::model {

/// `d` rounded to whole tiles of `tile_m` (a drag moves by whole floor tiles).
double snapToTiles(double d_m, double tile_m);

/// Moves racks, cooling units and CDUs by (dx, dy), snapped to whole tiles of their hall.
void moveEntities(Scenario& s, const std::vector<std::string>& ids, double dx_m, double dy_m);
/// Turns racks and units a quarter turn clockwise (north → east → south → west) about their centres.
void rotateEntities(Scenario& s, const std::vector<std::string>& ids);
/// Copies racks (with their nodes and PDUs) beside the originals, one footprint further along the row, with
/// new unique ids (hostnames and GPU UUIDs are not copied). Returns the new racks' ids.
std::vector<std::string> duplicateRacks(Scenario& s, const Catalog& c, const std::vector<std::string>& ids);
/// Removes racks, rows (with their racks), cooling units and CDUs, and what refers to them: CDU rack lists,
/// jobs' nodes, events aimed at them.
void removeEntities(Scenario& s, const std::vector<std::string>& ids);
/// Adds an empty row to a hall; returns its id.
std::string addRow(Scenario& s, const std::string& hall_id, const std::string& name = {});
/// Adds a rack of `rack_model` to a row at `position`, filled from U1 with `nodes` servers of `server_model`
/// ("" = empty), powered like the row's other racks (or from the first floor PDUs on sides A and B).
/// Returns its id.
std::string addRack(Scenario& s, const Catalog& c, const std::string& row_id, const std::string& rack_model,
                    const std::string& server_model, int nodes, Vec2 position_m, Facing facing);
/// Sets an editable property of a rack, row, node, cooling unit, CDU or sensor: "name", "x_m", "y_m", "facing",
/// "model", "supply_setpoint_c" and "fan_speed" (units; empty: none), "supply_temp_c" (CDUs), "u_position" and "slot" (nodes).
void setProperty(Scenario& s, const std::string& id, const std::string& key, const std::string& value);

/// Where a new rack would go and how it would be powered (Edit > Add rack shows it before adding).
struct RackPlan {
    std::string hall_id;
    std::string row_id;  ///< the row it joins; "" = a new row (new_row_name)
    std::string new_row_name;
    Vec2 position_m;
    Facing facing = Facing::North;
    double load_w = 0;     ///< nameplate of its servers
    double breaker_a = 0;  ///< per 3-phase PDU
    int pdus_per_side = 0;
    std::string upstream_a, upstream_b;  ///< floor PDUs
    std::string problem;                 ///< why it cannot be added ("" = it can)
    /// What adding it would cost though it can be added: a floor PDU that could no longer carry its racks when
    /// the other side fails (the redundancy lost), or both sides from one floor PDU. "" = nothing.
    std::string warning;
};

/// Plans a rack of `rack_model` with `nodes` × `server_model` ("" = empty) in row `row_id` ("" = a new row of
/// hall `hall_id`): the next free slot along the row after its last rack or cooler (else before its first), or for
/// a new row the line beside the last row across an aisle, facing the other way so aisles alternate; PDUs on
/// sides A and B that carry the servers within 80 %, on the floor PDUs the row's racks use (a new row: the two with
/// the most room left when the other side fails, on different UPSs where there are). Never throws; an impossible
/// plan says why in `problem`, a redundancy it would lose in `warning`.
RackPlan planRack(const Scenario& s, const Catalog& c, const std::string& hall_id, const std::string& row_id, const std::string& rack_model,
                  const std::string& server_model, int nodes);
/// Adds the planned rack (and its new row); returns the rack's id. Throws ModelError with the plan's problem.
std::string addPlannedRack(Scenario& s, const Catalog& c, const RackPlan& plan, const std::string& rack_model,
                           const std::string& server_model, int nodes);

/// Closes the aisles of `kind` ("hot" or "cold") between consecutive rows of `row_ids` with containment of catalog
/// `model`; returns its id. Throws when the rows face no such aisle.
std::string addContainment(Scenario& s, const Catalog& c, const std::vector<std::string>& row_ids, const std::string& kind,
                           const std::string& model = "panels-doors");
/// Places an in-row cooler of catalog `model` at the next free slot of a row, facing as its racks do, on water loop
/// `loop` ("" = the plant's facility water); returns its id.
std::string addInRowCooler(Scenario& s, const Catalog& c, const std::string& row_id, const std::string& model,
                           const std::string& loop = {});
/// Fits a rear door of catalog `model` to a rack on water loop `loop`; an empty model removes the door.
void fitRearDoor(Scenario& s, const Catalog& c, const std::string& rack_id, const std::string& model, const std::string& loop = {});
/// What a click at `at` on hall `hall_id`'s plan places (the editor's Add sensor): on a rack's footprint a strip
/// sensor on its front or rear, whichever half was clicked; elsewhere a point sensor there; at `height_m`, with a
/// fresh id naming where it is (r01-01-front-1.20, sensor-3.00-2.40-1.20). Throws for an unknown hall.
Sensor sensorAt(const Scenario& s, const Catalog& c, const std::string& hall_id, Vec2 at, double height_m);
/// Adds sensor x to hall `hall_id` (a fresh id when it has none), checked: its rack in that hall, its side, its
/// point on the floor, its height within the hall's, its id unused. Returns the id. Sensors are edited with
/// setProperty ("name", "height_m", "side", point sensors' "x_m"/"y_m"), moved with moveEntities (point sensors;
/// a rack's move with it) and removed with removeEntities (and with their rack).
std::string addSensor(Scenario& s, const std::string& hall_id, Sensor x);
/// Adds an empty hall of the given size beside the last one on the site; returns its id.
std::string addHall(Scenario& s, double width_m, double depth_m, double height_m);

}  // namespace ct::model
