#pragma once
// Helpers shared by the layout edits (edit.cpp, edit_cooling.cpp). Private to the model library.
#include <clustertwin/model/scenario.hpp>

#include <set>
#include <string>

namespace ct::model::detail {

/// Every id in use, so new ones are unique across kinds.
std::set<std::string> allIds(const Scenario& s);
/// The number in `v`, or ModelError naming `key`.
double number(const std::string& key, const std::string& v);
/// Sets a sensor's "name", "height_m", "side" (rack sensors), "x_m" or "y_m" (point sensors), checked.
void setSensorProperty(Hall& h, Sensor& x, const std::string& key, const std::string& value);
/// `base`, or `base-2`, `base-3`... the first not in `used`; it is then added to `used`.
std::string fresh(std::set<std::string>& used, const std::string& base);

struct Where {
    Hall* hall = nullptr;
    Row* row = nullptr;
    Rack* rack = nullptr;
    Node* node = nullptr;
    CoolingUnit* unit = nullptr;
    Cdu* cdu = nullptr;
    Sensor* sensor = nullptr;
};

/// Where the rack, row, node, cooling unit, CDU or sensor `id` is; all null when nothing has that id.
Where find(Scenario& s, const std::string& id);
/// As find(); throws ModelError naming the id when nothing has it.
Where require(Scenario& s, const std::string& id);

}  // namespace ct::model::detail
