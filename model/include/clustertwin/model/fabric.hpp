#pragma once
// The shape of a generated fat tree, shared by the validator (so a fabric the radix cannot build is a
// validation error) and the builder in ct_sim (so both agree on what is built).
#include <clustertwin/model/scenario.hpp>

#include <string>
#include <vector>

namespace ct::model {

struct FatTreeShape {
    int down = 0;             ///< host ports per leaf (edge) switch
    int up = 0;               ///< uplinks per leaf; down = oversubscription · up exactly
    long long max_hosts = 0;  ///< what this radix connects in this many levels
    std::string error;        ///< non-empty when the parameters cannot be built
};

/// The leaf's port split for an exact down:up ratio `oversubscription` on switches of `radix` ports: the most
/// uplinks `up` such that down = oversubscription · up is a whole number and down + up ≤ radix. Two levels
/// connect radix · down hosts (a spine port per leaf); three connect radix · radix/2 · down (radix pods of
/// radix/2 edge switches). `error` says why a shape is impossible and what the radix allows.
FatTreeShape fatTreeShape(int radix, int levels, double oversubscription);

/// "" when `hosts` fit the shape, else a sentence saying what the radix and levels connect.
std::string fatTreeCapacityError(const FatTreeShape& shape, int radix, int levels, double oversubscription, long long hosts);

/// The scenario's nodes in the order they are cabled to a generated fabric and ranked by "packed" placement:
/// by where they stand, never by the order or names in the file. Halls in order; in a hall, rows by their
/// position across their length; in a row, racks along it; in a rack, nodes from the lowest U up. Each entry is
/// (hall, row, rack, node) indices into the scenario.
struct NodeRef {
    std::size_t hall = 0, row = 0, rack = 0, node = 0;
};
std::vector<NodeRef> nodesInCablingOrder(const Scenario& s);

/// A cable as the fabric names it in runs: "a<->b", or "a<->b#k" for the k-th of the parallel cables between
/// the same two ends (k ≥ 2).
struct CableName {
    std::string a, b;
    int ordinal = 1;
    bool valid = false;  ///< the id had the form
};
CableName parseCableId(const std::string& id);
/// The same for people: "leaf3 ↔ spine0", "leaf3 ↔ spine0, cable 30"; an id of another form as it is.
std::string cableLabel(const std::string& id);

}  // namespace ct::model
