#pragma once
// Helpers shared by the layout edits (edit.cpp, edit_cooling.cpp). Private to the model library.
#include <clustertwin/model/scenario.hpp>

#include <set>
#include <string>

namespace ct::model::detail {

/// Every id in use, so new ones are unique across kinds.
std::set<std::string> allIds(const Scenario& s);
/// `base`, or `base-2`, `base-3`... the first not in `used`; it is then added to `used`.
std::string fresh(std::set<std::string>& used, const std::string& base);

struct Where {
    Hall* hall = nullptr;
    Row* row = nullptr;
    Rack* rack = nullptr;
    Node* node = nullptr;
    CoolingUnit* unit = nullptr;
    Cdu* cdu = nullptr;
};

/// Where the rack, row, node, cooling unit or CDU `id` is; all null when nothing has that id.
Where find(Scenario& s, const std::string& id);
/// As find(); throws ModelError naming the id when nothing has it.
Where require(Scenario& s, const std::string& id);

}  // namespace ct::model::detail
