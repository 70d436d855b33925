#pragma once
// Capacity for planners (issue 40): how much more each rack, row, floor PDU, UPS, feed and hall can take — space,
// power with its redundancy respected (2N: each side carries the whole load when the other fails), cooling at
// N+1 (the largest unit out) — and where N more racks of a model could go.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/edit.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::model {

struct Headroom {
    std::string id;
    std::string kind;  ///< "rack", "row", "floor_pdu", "ups", "feed", "hall"
    std::string what;  ///< "space", "power", "cooling"
    double capacity = 0, used = 0;
    std::string unit;   ///< "U", "W"
    std::string basis;  ///< how capacity and use are counted ("80 % of the B-side breakers, the A side failed")
    double left() const { return capacity - used; }
};

/// Every entity's headroom at nameplate load (servers at their published maximum): racks (space in U; power: the
/// weakest side's breakers at 80 % carrying the whole rack, as when the other side has failed), rows (their
/// racks' sums), floor PDUs, UPSs and feeds (their capacity against their load with the other side failed),
/// halls (air cooling with the largest unit out against the heat the racks give the air; liquid likewise with the
/// largest CDU out). Entities whose capacity the scenario or catalog does not give are left out.
std::vector<Headroom> capacityHeadroom(const Scenario& s, const Catalog& c);

struct Placement {
    std::string hall_id, row_id;  ///< row_id "": a new row of the hall
    std::string new_row_name;
    std::vector<Vec2> positions;  ///< where the racks would stand
    std::string floor_pdu_a, floor_pdu_b;
    double power_left_w = 0;    ///< the least headroom left on the floor PDUs, UPSs and feeds that carry them
    std::string tightest;       ///< which of them ("floor PDU pdu-row01-a")
    double cooling_left_w = 0;  ///< the hall's air cooling left at N+1 once they run
    std::string warning;        ///< a redundancy it would cost, when it can be placed all the same
};

/// `count` racks side by side in one row (row_id "": a new row of the hall), each planned on the scenario with the
/// ones before it added, as Edit > Add rack plans one: where each goes and how it is powered, and what they leave.
struct RowPlan {
    std::vector<RackPlan> racks;  ///< in order; apply them in order (addPlannedRack) to add the row
    std::string problem;          ///< why they cannot all be added ("" = they can: racks.size() == count)
    Placement place;              ///< positions, floor PDUs, headroom left, the first redundancy warning
    /// The new racks' redundancy in words: "2N: ..." when each side carries them alone and the chain and the
    /// cooling (N+1) still carry everything, else what is lost.
    std::string redundancy;
};
RowPlan planRacks(const Scenario& s, const Catalog& c, const std::string& hall_id, const std::string& row_id, int count,
                  const std::string& rack_model, const std::string& server_model, int servers);

struct PlacementAnswer {
    std::vector<Placement> fits;       ///< most headroom left first
    std::vector<std::string> refused;  ///< "row01: no room for 4 racks (...)", one line per row tried
};

/// Where `count` racks of `rack_model`, each with `servers` × `server_model`, could go: each row of each hall (and
/// a new row per hall), the racks added side by side as Edit > Add rack would place and power them; a place fits
/// when every rack has room and power (plan without a problem), the floor PDUs, UPSs and feeds still carry their
/// load with the other side failed, and the hall's air cooling still covers its heat with its largest unit out.
PlacementAnswer placeRacks(const Scenario& s, const Catalog& c, int count, const std::string& rack_model, const std::string& server_model,
                           int servers);

}  // namespace ct::model
