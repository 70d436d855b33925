#pragma once
// Generates a valid scenario from a few parameters: rows of racks in alternating hot/cold aisles grouped in pods
// laid out so the hall is near square; cooling as halls are built now (perimeter units on the walls, in-row
// coolers in the rows, rear doors on the racks, CDUs where the servers need liquid; N+redundancy), aisle
// containment; one or several halls on a site with a 2N power chain (utility → transformers → UPS → PDUs) sized
// to the load; and a network description. Used for the samples and for benchmark halls and campuses.
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
    int nodes_per_rack = 4;  ///< ignored (1) for rack-scale systems
    std::string rack_model = "rack-48u-600x1200";
    double cold_aisle_m = 1.2;
    double hot_aisle_m = 1.2;
    double wall_clearance_m = 1.8;  ///< between walls/units and the rows
    std::string cooling_unit_model = "crah-cw-120kw";
    std::string cdu_model = "cdu-coolit-chx750";
    int cooling_redundancy = 1;  ///< extra units beyond what the load needs (N+1 = 1)
    double supply_setpoint_c = 20;
    double cdu_supply_temp_c = 30;
    double ceiling_height_m = 4.0;
    double raised_floor_m = 0;  ///< 0 = slab floor
    std::string ups_model = "ups-500kw";
    std::string topology = "fat-tree";  ///< "none", "fat-tree", "rail-optimized", "nvl72"
    int fat_tree_levels = 0;            ///< 2 or 3; 0 = the fewest that connect every GPU at this radix
    int radix = 0;                      ///< switch ports; 0 = the switch model's
    std::string routing;                ///< "dmodk", "ecmp" or "" (the network's default)
    double oversubscription = 1.0;
    double link_speed_gbps = 0;  ///< per GPU NIC; 0 = the server's (DGX A100: 200, DGX H100: 400)
    /// The fabric's switch; "" = the InfiniBand ib-ndr-qm9700 (64 ports) when it connects every GPU in at most
    /// three levels, else the catalog's Ethernet eth-sn5600-400g (128 ports), as 100k-GPU clusters are built.
    std::string switch_model;
    /// "auto" (perimeter when its units fit on the walls, else in-row; liquid-cooled servers get CDUs either way),
    /// "perimeter", "inrow", "rear-door" or "liquid" (servers with cold plates: CDUs plus perimeter units for the
    /// rest of the heat).
    std::string cooling = "auto";
    /// "auto" (hot with in-row coolers and for air-cooled racks of 10 kW or more, none otherwise), "hot", "cold" or
    /// "none": one containment per pod. Hot
    /// containment with perimeter units gets a ducted ceiling return; cold containment needs a raised floor.
    std::string containment = "auto";
    std::string containment_model = "panels-doors";
    std::string inrow_model = "inrow-cw-600";
    std::string rear_door_model;  ///< "" = the smallest catalog door that carries a rack's air heat
    int pods = 0;                 ///< groups of rows side by side; 0 = chosen so the hall is near square
    double pod_gap_m = 2.4;       ///< service aisle between pods
    int halls = 1;                ///< identical halls side by side on one site, on one power chain and plant
    /// When > 0: halls, rows and racks per row are chosen for this many GPUs (halls of at most
    /// `max_racks_per_hall` racks, rows of `racks_per_row`), overriding `rows` and `halls`.
    int gpus = 0;
    int max_racks_per_hall = 400;
};

/// Throws ModelError when a parameter is out of range or a catalog id is unknown (message names the field).
Scenario buildHall(const HallParams& p, const Catalog& c = Catalog::builtin());

/// Rack PDUs on sides A and B (from floor PDUs `upstream_a`, `upstream_b`) with the smallest standard 3-phase
/// 230/400 V breaker that carries `rack_load_w` on one side within the 80 % rule; more PDUs per side when one is not
/// enough. Throws ModelError when four 125 A PDUs per side cannot.
std::vector<RackPdu> rackPdusFor(const std::string& rack_id, const std::string& upstream_a, const std::string& upstream_b,
                                 double rack_load_w);

}  // namespace ct::model
