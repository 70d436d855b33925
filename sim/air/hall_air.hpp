#pragma once
// Builds a hall's air geometry on any air solver (MODELS.md §3): racks, cooling units and CDUs as solids; each
// rack level an intake port (front) and an exhaust port (back, blowing backwards); each unit a supply (low at the
// front, blowing forwards) and a return (through the top, or the upper back when the unit reaches the ceiling);
// on a raised floor, floor tiles in front of every rack blowing upwards through their open area. Private to ct_sim.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/air/air_solver.hpp>

#include <utility>
#include <vector>

namespace ct::sim {

struct RackAirPorts {
    std::vector<int> intake, exhaust;  ///< one port each per level, bottom up
    std::vector<double> level_z_m;     ///< centre height of each level
    /// For each node of the rack (in the rack's order): (level, share of the node's height in it).
    std::vector<std::vector<std::pair<int, double>>> node_levels;
};

struct UnitAirPorts {
    int supply = -1, ret = -1;
};

struct HallAirPorts {
    std::vector<RackAirPorts> racks;  ///< in the hall's order (rows, then racks)
    std::vector<UnitAirPorts> units;  ///< in the hall's order of cooling units
    int tiles = -1;                   ///< raised floor: the tiles, fed by every live unit through the plenum
    double fastest_jet_ms = 0;        ///< the fastest source jet at the equipment's maximum airflow
};

/// `unit_airflow_margin`: units blow at most this multiple of the racks' airflow (the engine's rule), which
/// bounds the tiles' jet. Throws SimError naming the rack or unit whose intake, exhaust, supply or return is
/// blocked by a wall or equipment, and for unknown catalog models.
HallAirPorts buildHallAir(const model::Hall& hall, const model::Catalog& catalog, AirSolver& solver, double unit_airflow_margin);

} // namespace ct::sim
