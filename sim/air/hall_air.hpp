#pragma once
// Builds a hall's air geometry on any air solver (models.md §3): racks, cooling units and CDUs as solids; each
// rack level an intake port (front) and an exhaust port (back, blowing backwards), split across the rack where
// servers stand side by side; each perimeter unit a supply
// (low at the front, blowing forwards) and a return (through the top, or the upper back when the unit reaches the
// ceiling); each in-row cooler a return through its back (hot aisle) and a supply through its front (cold aisle),
// over its height; on a raised floor, floor tiles in front of every rack blowing upwards through their open area;
// with a ducted ceiling return, grilles over the hot aisles instead of the units' own returns. Containment is
// solid panels (roof, end doors, and the rows' gaps closed); each aisle it seals is a region of its own, joined
// to the room by a pair of leak ports per direction through its end doors. Private to ct_sim.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>
#include <clustertwin/sim/air/air_solver.hpp>

#include <utility>
#include <vector>

namespace ct::sim {

struct RackAirPorts {
    /// One port each per level, bottom up; where servers stand side by side, per level and column across the
    /// rack (from the left seen from the front), a level's columns one after another.
    std::vector<int> intake, exhaust;
    std::vector<double> level_z_m;  ///< centre height of each entry's level
    /// Per entry: the pressure probes in the aisles just off its front and back (the second cells out, or the
    /// port's own where the aisle is narrower); −1 where the solver has no pressure or the rack no openings.
    std::vector<int> front_probe, back_probe;
    std::vector<int> columns;  ///< per entry: how many entries share its level (the columns of a sliced rack)
    /// For each node of the rack (in the rack's order): (entry, share of the node's airflow through it).
    std::vector<std::vector<std::pair<int, double>>> node_levels;
};

struct UnitAirPorts {
    int supply = -1, ret = -1;
};

/// A connected part of the room's air. Region 0 is the open room; every other region is an aisle sealed by a
/// containment, joined to the room by leak ports (air through the panels' gaps): room → region (a sink in the
/// room, a source inside) and region → room.
struct AirRegion {
    std::string containment;  ///< its containment's id ("" for the room)
    bool cold = false;        ///< a contained cold aisle (else hot)
    double leakage = 0;       ///< the containment's leakage fraction
    int leak_in_sink = -1, leak_in_source = -1;
    int leak_out_sink = -1, leak_out_source = -1;
};

struct HallAirPorts {
    std::vector<RackAirPorts> racks;  ///< in the hall's order (rows, then racks)
    std::vector<UnitAirPorts> units;  ///< in the hall's order of cooling units (ret = −1 behind a ceiling return)
    /// Raised floor: the tiles, fed by the perimeter units through the plenum; one port per region with tiles.
    std::vector<int> tiles;
    /// Ducted ceiling return: the grilles the perimeter units draw from; one port per region with grilles.
    std::vector<int> grilles;
    std::vector<AirRegion> regions;  ///< [0] is the room
    std::vector<int> port_region;    ///< the region of every port, by port number
    /// Containments whose aisles stay open to the room at this grid (no roof or doors): not sealed regions.
    std::vector<std::string> unsealed;
    /// The fastest air the source ports make at the equipment's maximum airflow (m/s): a jet's speed, or over a
    /// perforated tile its holes' jets merged with their momentum kept (√open share × the holes' speed).
    double fastest_jet_ms = 0;
};

/// `unit_airflow_margin`: units blow at most this multiple of the racks' airflow (the engine's rule), which
/// bounds the tiles' jet. Throws SimError naming the rack or unit whose intake, exhaust, supply or return is
/// blocked by a wall or equipment, and for unknown catalog models.
HallAirPorts buildHallAir(const model::Hall& hall, const model::Catalog& catalog, AirSolver& solver, double unit_airflow_margin);

}  // namespace ct::sim
