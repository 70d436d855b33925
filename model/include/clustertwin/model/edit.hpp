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
/// Sets an editable property of a rack, row, node, cooling unit or CDU: "name", "x_m", "y_m", "facing",
/// "model", "supply_setpoint_c" (units), "supply_temp_c" (CDUs), "u_position" (nodes).
void setProperty(Scenario& s, const std::string& id, const std::string& key, const std::string& value);

} // namespace ct::model
