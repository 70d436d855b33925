#pragma once
// One generated hall's floor (builder.cpp builds the site around it): pods of rows, racks, in-row coolers, rear
// doors, containment, perimeter units on the walls and CDUs. Private to the model library.
#include <clustertwin/model/builder.hpp>

#include <string>
#include <vector>

namespace ct::model::detail {

/// What the site needs to know of a hall it asked for.
struct HallPlan {
    const HallParams* p = nullptr;
    const Catalog* c = nullptr;
    std::string cooling;       ///< resolved: "perimeter", "inrow", "rear-door", "liquid"
    std::string containment;   ///< resolved: "hot", "cold", "none"
    int index = 0;             ///< 0-based hall number on the site
    std::string prefix;        ///< "" for the first hall, "h2-", "h3-"... for the others
    std::string ups_a, ups_b;  ///< the UPS each side's floor PDUs hang on
    std::string loop;          ///< the chilled-water loop of its in-row coolers and rear doors ("" = none)
};

struct HallBuilt {
    Hall hall;
    std::vector<Pdu> floor_pdus;
    double it_load_w = 0;  ///< nameplate
    int racks = 0, nodes = 0, units = 0, inrow = 0, doors = 0, cdus = 0;
};

/// The perimeter units a hall's air heat needs (N + redundancy) do not fit on its walls: HallParams would have to
/// pick in-row cooling. Throws ModelError for parameters out of range (naming the field).
bool perimeterFits(const HallParams& p, const Catalog& c);

/// Rack PDUs on sides A and B (upstream floor PDUs given) with the smallest standard 3-phase 230/400 V breaker that
/// carries the whole rack on one side within the 80 % rule, more PDUs per side when one is not enough. Throws
/// ModelError when four 125 A PDUs per side cannot.
std::vector<RackPdu> sizedRackPdus(const std::string& rack_id, const std::string& upstream_a, const std::string& upstream_b,
                                   double rack_load_w);

/// Lays out one hall; `node_seq` numbers nodes across the site.
HallBuilt layoutHall(const HallPlan& plan, int& node_seq, const std::string& node_fmt);

}  // namespace ct::model::detail
