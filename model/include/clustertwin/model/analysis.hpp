#pragma once
// Figures derived from a scenario without simulating: counts, nameplate power, cooling capacity and whether
// cooling survives the loss of any one unit.
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/model/scenario.hpp>

#include <map>
#include <string>
#include <vector>

namespace ct::model {

/// Nameplate (published maximum) power of one rack: its servers' max_power_w. Unknown models count 0.
double rackNameplatePowerW(const Rack& r, const Catalog& c);
/// Share of a rack's nameplate heat that goes to liquid (weighted by server power).
double rackLiquidPowerW(const Rack& r, const Catalog& c);

/// Every rack at its nameplate, summed up the power chain: per floor PDU (by the racks' PDUs' upstream), UPS and
/// feed (a transformer by its id, its load over its efficiency added to its own feed).
struct ChainLoad {
    std::map<std::string, double> pdu, ups, feed;
};
/// The chain's loads in normal operation (a rack's load spread over all its PDUs) and with one side failed (over
/// the PDUs of its own side only, so each side's floor PDU carries the rack alone): what the validator checks,
/// capacity reports and the editor plans against.
struct ChainLoads {
    ChainLoad normal, failover;
};
ChainLoads chainLoads(const Scenario& s, const Catalog& c);

struct RedundancyResult {
    bool survives = true;          ///< load still carried after losing any one unit
    std::string worst_unit;        ///< the unit whose loss hurts most ("" when none)
    double worst_shortfall_w = 0;  ///< load not carried after losing worst_unit (0 when survives)
};

struct ScenarioSummary {
    int halls = 0, rows = 0, racks = 0, nodes = 0, gpus = 0;
    std::map<std::string, int> gpus_by_model;
    double nameplate_it_power_w = 0;
    double air_heat_w = 0;     ///< nameplate heat that goes to room air
    double liquid_heat_w = 0;  ///< nameplate heat that goes to CDU loops
    int cooling_units = 0, cdus = 0;
    double air_cooling_capacity_w = 0;
    double liquid_cooling_capacity_w = 0;
    double server_airflow_m3s = 0;      ///< all servers at full load
    double cooling_airflow_m3s = 0;     ///< all units at full fan speed
    RedundancyResult air_n_minus_1;     ///< losing any one CRAH/CRAC
    RedundancyResult liquid_n_minus_1;  ///< losing any one CDU
    bool cooling_survives_any_single_failure() const { return air_n_minus_1.survives && liquid_n_minus_1.survives; }
};

/// Never throws; unknown catalog references contribute nothing (validate first).
ScenarioSummary summarize(const Scenario& s, const Catalog& c);

/// Whether `capacities` (units) can carry `loads` (consumers) when each consumer may draw only from the
/// units listed in `links[consumer]`: a bipartite max-flow. Returns the load not carried (0 = all carried).
double unservedLoad(const std::vector<double>& capacities, const std::vector<double>& loads, const std::vector<std::vector<int>>& links);

}  // namespace ct::model
