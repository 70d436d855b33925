#pragma once
// Generates a valid scenario from a few parameters: rows of racks in alternating hot/cold aisles, cooling
// units along the walls and CDUs where the servers need liquid (N+redundancy), a 2N power chain sized to the
// load, and a network description. Used for the sample scenarios and for benchmark halls of 10k–100k GPUs.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <string>

namespace ct::model {

struct HallParams {
    std::string id = "generated";
    std::string name = "Generated hall";
    int rows = 2;
    int racks_per_row = 4;
    std::string server_model = "dgx-h100";
    int nodes_per_rack = 4;           ///< ignored (1) for rack-scale systems
    std::string rack_model = "rack-48u-600x1200";
    double cold_aisle_m = 1.2;
    double hot_aisle_m = 1.2;
    double wall_clearance_m = 1.8;    ///< between walls/units and the rows
    std::string cooling_unit_model = "crah-cw-120kw";
    std::string cdu_model = "cdu-coolit-chx750";
    int cooling_redundancy = 1;       ///< extra units beyond what the load needs (N+1 = 1)
    double supply_setpoint_c = 20;
    double cdu_supply_temp_c = 30;
    double ceiling_height_m = 4.0;
    double raised_floor_m = 0;        ///< 0 = slab floor
    std::string ups_model = "ups-500kw";
    std::string topology = "fat-tree";  ///< "none", "fat-tree", "rail-optimized", "nvl72"
    int fat_tree_levels = 2;
    double oversubscription = 1.0;
    double link_speed_gbps = 400;
    std::string switch_model = "ib-ndr-qm9700";
};

/// Throws ModelError when a parameter is out of range or a catalog id is unknown (message names the field).
Scenario buildHall(const HallParams& p, const Catalog& c = Catalog::builtin());

} // namespace ct::model
