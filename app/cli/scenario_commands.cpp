// The commands about a scenario file itself: validate, info, generate and backends.
#include "scenario_commands.hpp"

#include "io.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/backend.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ct::cli {

namespace m = ct::model;
using json = nlohmann::ordered_json;

const char* const kValidateHelp = R"(Usage: clustertwin-cli validate FILE [--json] [-o OUT]

Checks a scenario file: JSON syntax (line and column), structure (types, required fields; unknown keys are
warnings) and meaning (ids, catalog models, placement in the hall, overlaps, breakers, power feeds, cooling
sources, jobs, events). Prints every problem as "FILE: error|warning: /json/pointer: message" on stderr.
  --json   print {"file", "valid", "errors": [...], "warnings": [...]} on stdout
  -o OUT   a valid scenario also written to OUT as the app saves it (canonical keys and layout; atomic)
Exit 0 when there are no errors (warnings allowed), 2 otherwise.
)";

const char* const kInfoHelp = R"(Usage: clustertwin-cli info FILE [--json]

Summarises a valid scenario: halls, rows, racks, nodes, GPUs by model, nameplate IT power, heat to air and to
liquid, cooling capacity and airflow, and whether cooling survives the loss of any one unit (N-1).
  --json   print the summary as one JSON object on stdout
)";

const char* const kGenerateHelp = R"(Usage: clustertwin-cli generate [options] -o FILE

Builds a valid scenario: rows of racks in alternating hot/cold aisles grouped in pods so the hall is near square,
cooling as halls are built now (perimeter units on the walls, in-row coolers in the rows, rear doors on the racks,
CDUs when the servers need liquid) sized N+redundancy, aisle containment, one or several halls on a site with a 2N
power chain sized to the load, and a network description.
  --id ID                   scenario id (generated)
  --name TEXT               scenario name
  --description TEXT        one line on what the scenario shows (default: what was generated)
  --rows N                  rows of racks (2)
  --racks-per-row N         racks in each row (4)
  --server MODEL            server model from the catalog (dgx-h100)
  --nodes-per-rack N        servers per rack (4; 1 for rack-scale systems)
  --rack-model MODEL        rack model (rack-48u-600x1200)
  --cooling-unit MODEL      CRAH/CRAC model (crah-cw-120kw)
  --cdu MODEL               CDU model, used when servers need liquid (cdu-coolit-chx750)
  --redundancy N            extra cooling units beyond the load (1 = N+1)
  --setpoint C              CRAH supply setpoint in °C (20)
  --ceiling M               hall height in m (4)
  --raised-floor M          raised floor height in m (0 = slab)
  --cooling KIND            auto | perimeter | inrow | rear-door | liquid (auto: perimeter units when they fit
                            on the walls, else in-row coolers; CDUs for liquid-cooled servers)
  --containment KIND        auto | hot | cold | none, one per pod (auto: hot with in-row coolers or racks of
                            10 kW of air heat or more); hot aisles of perimeter halls get a ducted ceiling
                            return, cold ones need a raised floor
  --containment-model ID    containment system from the catalog, for its leakage (panels-doors)
  --inrow-model ID          in-row cooler from the catalog (inrow-cw-600)
  --rear-door ID            rear door from the catalog (the smallest that carries a rack)
  --pods N                  groups of rows side by side (0 = chosen so the hall is near square)
  --halls N                 identical halls side by side on one site, power chain and plant (1)
  --gpus N                  size halls, rows and racks for N GPUs (halls of at most 400 racks, rows of
                            --racks-per-row, 20 unless given); e.g. --gpus 100000 makes a campus
  --topology T              none | fat-tree | rail-optimized | nvl72 (fat-tree)
  --levels N                fat-tree tiers, 2 or 3 (the fewest that connect every GPU at this radix)
  --switch MODEL            fabric switch from the catalog (ib-ndr-qm9700, InfiniBand, 64 ports; for more GPUs
                            than it connects in 3 levels, eth-sn5600-400g, Ethernet, 128 ports)
  --radix N                 switch ports (the switch model's)
  --routing R               dmodk (InfiniBand fat trees, the default) or ecmp (Ethernet/RoCE hashing)
  --oversubscription X      leaf down:up ratio, exactly (1; 2 on radix 64 gives 42 down and 21 up)
  --link-speed GBPS         each GPU's NIC in Gb/s (the server's: 200 for DGX A100, 400 for DGX H100)
  --jobs N                  split the nodes into N training jobs
  --event T,KIND,TARGET[,VALUE]   add an event (repeatable), e.g. 600,cooling_unit_fail,crah-01
  -o, --out FILE            where to write the scenario (atomically; "-" is stdout)
  -q, --quiet               no summary line on stderr
)";

const char* const kBackendsHelp = R"(Usage: clustertwin-cli backends [--json]

Lists the compute backends: CPU (always) and CUDA (when built with it and a device is present).
)";

namespace {

constexpr int kOk = 0, kInvalid = 2;  // exit codes (main.cpp)

void printDiagnostics(const std::string& file, const m::Diagnostics& d) {
    for (const auto& x : d) std::cerr << file << ": " << x.toString() << "\n";
}

json diagnosticsJson(const m::Diagnostics& d, m::Severity sev) {
    json a = json::array();
    for (const auto& x : d)
        if (x.severity == sev) a.push_back({{"pointer", x.location}, {"message", x.message}});
    return a;
}

std::string one(const Args& a, const std::string& what) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one " + what);
    return a.positional()[0];
}

/// Loads and validates; on errors prints them and throws InvalidInput.
m::ValidationReport loadValid(const std::string& file) {
    m::ValidationReport rep = m::loadAndValidate(file);
    printDiagnostics(file, rep.diagnostics);
    if (m::hasErrors(rep.diagnostics)) {
        std::cerr << file << ": " << m::countErrors(rep.diagnostics) << " error(s); fix them first (clustertwin-cli validate)\n";
        throw InvalidInput{};
    }
    return rep;
}

}  // namespace

int cmdValidate(const Args& a) {
    const std::string file = one(a, "scenario file");
    m::ValidationReport rep = m::loadAndValidate(file);
    printDiagnostics(file, rep.diagnostics);
    const bool valid = !m::hasErrors(rep.diagnostics);
    if (valid && a.has("out")) m::saveScenarioFile(rep.scenario, a.get("out"));
    if (a.flag("json")) {
        json o{{"file", file},
               {"valid", valid},
               {"errors", diagnosticsJson(rep.diagnostics, m::Severity::Error)},
               {"warnings", diagnosticsJson(rep.diagnostics, m::Severity::Warning)}};
        std::cout << o.dump(2) << "\n";
    }
    std::cerr << file << ": " << (valid ? "valid" : "invalid") << " (" << m::countErrors(rep.diagnostics) << " errors, "
              << m::countWarnings(rep.diagnostics) << " warnings)\n";
    return valid ? kOk : kInvalid;
}

json redundancyJson(const m::RedundancyResult& r) {
    json o{{"survives", r.survives}};
    if (!r.survives) {
        o["worst_unit"] = r.worst_unit;
        o["shortfall_w"] = r.worst_shortfall_w;
    }
    return o;
}

int cmdInfo(const Args& a) {
    const std::string file = one(a, "scenario file");
    const m::ValidationReport rep = loadValid(file);
    const m::ScenarioSummary s = m::summarize(rep.scenario, rep.catalog);
    if (a.flag("json")) {
        json by_model = json::object();
        for (const auto& [k, v] : s.gpus_by_model) by_model[k] = v;
        json o{{"id", rep.scenario.id},
               {"name", rep.scenario.name},
               {"halls", s.halls},
               {"rows", s.rows},
               {"racks", s.racks},
               {"nodes", s.nodes},
               {"gpus", s.gpus},
               {"gpus_by_model", by_model},
               {"nameplate_it_power_w", s.nameplate_it_power_w},
               {"air_heat_w", s.air_heat_w},
               {"liquid_heat_w", s.liquid_heat_w},
               {"cooling_units", s.cooling_units},
               {"cdus", s.cdus},
               {"air_cooling_capacity_w", s.air_cooling_capacity_w},
               {"liquid_cooling_capacity_w", s.liquid_cooling_capacity_w},
               {"server_airflow_m3s", s.server_airflow_m3s},
               {"cooling_airflow_m3s", s.cooling_airflow_m3s},
               {"air_n_minus_1", redundancyJson(s.air_n_minus_1)},
               {"liquid_n_minus_1", redundancyJson(s.liquid_n_minus_1)},
               {"cooling_survives_single_failure", s.cooling_survives_any_single_failure()},
               {"network_topology", rep.scenario.network.topology}};
        std::cout << o.dump(2) << "\n";
        return kOk;
    }
    auto kw = [](double w) {
        char b[32];
        std::snprintf(b, sizeof b, "%.1f kW", w / 1000);
        return std::string(b);
    };
    auto nm1 = [&](const m::RedundancyResult& r) {
        return r.survives ? std::string("yes")
                          : "NO (losing " + (r.worst_unit.empty() ? std::string("-") : r.worst_unit) + " leaves " +
                                kw(r.worst_shortfall_w) + " uncooled)";
    };
    std::cout << rep.scenario.name << " (" << rep.scenario.id << ")\n"
              << "  halls " << s.halls << ", rows " << s.rows << ", racks " << s.racks << ", nodes " << s.nodes << ", GPUs " << s.gpus
              << "\n";
    for (const auto& [k, v] : s.gpus_by_model) std::cout << "    " << v << " x " << k << "\n";
    std::cout << "  nameplate IT power   " << kw(s.nameplate_it_power_w) << " (air " << kw(s.air_heat_w) << ", liquid "
              << kw(s.liquid_heat_w) << ")\n"
              << "  air cooling          " << s.cooling_units << " units, " << kw(s.air_cooling_capacity_w) << "\n"
              << "  liquid cooling       " << s.cdus << " CDUs, " << kw(s.liquid_cooling_capacity_w) << "\n"
              << "  airflow              servers " << s.server_airflow_m3s << " m³/s, units " << s.cooling_airflow_m3s << " m³/s\n"
              << "  N-1 air cooling      " << nm1(s.air_n_minus_1) << "\n"
              << "  N-1 liquid cooling   " << nm1(s.liquid_n_minus_1) << "\n"
              << "  network              " << rep.scenario.network.topology << "\n";
    return kOk;
}

m::Event parseEventSpec(const std::string& spec) {
    std::vector<std::string> parts;
    std::stringstream ss(spec);
    for (std::string p; std::getline(ss, p, ',');) parts.push_back(p);
    if (parts.size() < 3 || parts.size() > 4) throw UsageError("--event expects T,KIND,TARGET[,VALUE], got '" + spec + "'");
    m::Event e;
    try {
        e.time_s = m::parseDurationS(parts[0]);
    } catch (const m::ModelError& err) {
        throw UsageError(std::string("--event: ") + err.what());
    }
    e.kind = parts[1];
    e.target = parts[2];
    if (parts.size() == 4) {
        try {
            e.value = std::stod(parts[3]);
        } catch (const std::exception&) {
            throw UsageError("--event: bad value '" + parts[3] + "'");
        }
    }
    return e;
}

int cmdGenerate(const Args& a) {
    if (!a.positional().empty()) throw UsageError("generate takes no positional arguments");
    const std::string out = a.get("out");
    if (out.empty()) throw UsageError("generate needs -o FILE");
    m::HallParams p;
    p.id = a.get("id", p.id);
    p.name = a.get("name", p.name);
    p.rows = a.getInt("rows", p.rows);
    p.racks_per_row = a.getInt("racks-per-row", p.racks_per_row);
    p.server_model = a.get("server", p.server_model);
    p.nodes_per_rack = a.getInt("nodes-per-rack", p.nodes_per_rack);
    p.rack_model = a.get("rack-model", p.rack_model);
    p.cooling_unit_model = a.get("cooling-unit", p.cooling_unit_model);
    p.cdu_model = a.get("cdu", p.cdu_model);
    p.cooling_redundancy = a.getInt("redundancy", p.cooling_redundancy);
    p.supply_setpoint_c = a.getDouble("setpoint", p.supply_setpoint_c);
    p.ceiling_height_m = a.getDouble("ceiling", p.ceiling_height_m);
    p.raised_floor_m = a.getDouble("raised-floor", p.raised_floor_m);
    p.topology = a.get("topology", p.topology);
    p.fat_tree_levels = a.getInt("levels", p.fat_tree_levels);
    p.radix = a.getInt("radix", p.radix);
    p.switch_model = a.get("switch", p.switch_model);
    p.routing = a.get("routing", p.routing);
    p.oversubscription = a.getDouble("oversubscription", p.oversubscription);
    p.link_speed_gbps = a.getDouble("link-speed", p.link_speed_gbps);
    p.cooling = a.get("cooling", p.cooling);
    p.containment = a.get("containment", p.containment);
    p.containment_model = a.get("containment-model", p.containment_model);
    p.inrow_model = a.get("inrow-model", p.inrow_model);
    p.rear_door_model = a.get("rear-door", p.rear_door_model);
    p.pods = a.getInt("pods", p.pods);
    p.halls = a.getInt("halls", p.halls);
    p.gpus = a.getInt("gpus", p.gpus);
    if (p.gpus > 0 && !a.has("racks-per-row")) p.racks_per_row = 20;
    m::Scenario s;
    try {
        s = m::buildHall(p);
    } catch (const m::ModelError& e) {
        throw UsageError(e.what());
    }
    if (a.has("description")) s.description = a.get("description");
    const int jobs = a.getInt("jobs", 0);
    if (jobs < 0) throw UsageError("--jobs must be >= 0");
    if (jobs > 0) {
        std::vector<std::string> nodes;
        for (const auto& h : s.halls)
            for (const auto& row : h.rows)
                for (const auto& r : row.racks)
                    for (const auto& n : r.nodes) nodes.push_back(n.id);
        if (static_cast<std::size_t>(jobs) > nodes.size()) throw UsageError("--jobs: more jobs than nodes");
        for (int j = 0; j < jobs; ++j) {
            m::Job job;
            job.id = "job" + std::to_string(j + 1);
            job.name = "Training job " + std::to_string(j + 1);
            for (std::size_t i = j * nodes.size() / jobs; i < (j + 1) * nodes.size() / jobs; ++i) job.nodes.push_back(nodes[i]);
            s.jobs.push_back(std::move(job));
        }
    }
    for (const auto& spec : a.all("event")) s.events.push_back(parseEventSpec(spec));
    const m::Diagnostics d = m::validateScenario(s, m::Catalog::builtin());
    printDiagnostics(out, d);
    if (m::hasErrors(d)) throw InvalidInput{};
    ct::cli::OutputFile file(out);  // stdout for "-", else written atomically
    file.stream() << m::scenarioToJson(s);
    file.commit();
    const m::ScenarioSummary sum = m::summarize(s, m::Catalog::builtin());
    if (!a.flag("quiet"))
        std::cerr << (out == "-" ? std::string("<stdout>") : out) << ": " << sum.racks << " racks, " << sum.nodes << " nodes, " << sum.gpus
                  << " GPUs, " << sum.nameplate_it_power_w / 1000 << " kW nameplate\n";
    return kOk;
}

int cmdBackends(const Args& a) {
    const auto all = ct::sim::listBackends();
    if (a.flag("json")) {
        json arr = json::array();
        for (const auto& b : all)
            arr.push_back({{"name", std::string(ct::sim::toString(b.kind))},
                           {"compiled", b.compiled},
                           {"available", b.available},
                           {"device", b.device},
                           {"why_not", b.why_not}});
        std::cout << arr.dump(2) << "\n";
    } else {
        for (const auto& b : all)
            std::cout << ct::sim::toString(b.kind) << ": " << (b.available ? "available, " + b.device : "unavailable: " + b.why_not)
                      << "\n";
    }
    return kOk;
}

/// One row per command (contributing.md habit 15): its name and synopsis, one line for the command list, what
/// runs it, its flags and options, and its help. The main help, `help`, the man page (cmake/ManCommands.cmake
/// reads `help --commands`) and the bash completion are all made from it.

}  // namespace ct::cli
