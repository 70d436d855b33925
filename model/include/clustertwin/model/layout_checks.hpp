#pragma once
// Live checks of a layout while it is edited (issue 6): what a planner must fix or know, each tied to the
// entity the 3D view marks. Runs the validator and adds the layout rules it does not cover.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/error.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::model {

struct LayoutFinding {
    Severity severity = Severity::Warning;
    /// "overlap", "outside_hall", "aisle_orientation", "rack_power", "pdu_capacity", "cooling_n",
    /// "cooling_n_minus_1", "floor_load", "rack_weight", "aisle_supply", "aisle_return",
    /// "rear_door_capacity", "invalid" (any other validation problem)
    std::string kind;
    std::string entity;    ///< the rack, unit, PDU, hall... it concerns
    std::string location;  ///< JSON pointer
    std::string message;
};

/// Floor rating when a hall does not give one (`"floor_rating_kg_m2"` in the hall): a raised floor's
/// typical 1,220 kg/m² (250 lbf/ft²) or a slab's 2,440 kg/m² (500 lbf/ft²).
inline constexpr double kRaisedFloorRatingKgM2 = 1220;
inline constexpr double kSlabRatingKgM2 = 2440;

/// Never throws.
std::vector<LayoutFinding> checkLayout(const Scenario& s, const Catalog& c);

/// Whether a validation finding is about the layout (overlap, outside the hall, breakers, capacity, weight):
/// a work in progress that a planner may save and open again, unlike a broken file.
bool isLayoutProblem(const Diagnostic& d);

/// The entity a JSON pointer into the scenario names (the deepest rack, row, unit, PDU... on its path).
std::string entityAt(const Scenario& s, const std::string& pointer);

}  // namespace ct::model
