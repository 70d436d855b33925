#pragma once
// Shared set-up for the simulation tests: samples from resources/scenarios with small changes.
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/engine.hpp>

#include <QTest>

#include <string>
#include "test_paths.hpp"

namespace fixtures {

struct Loaded {
    ct::model::Scenario scenario;
    ct::model::Catalog catalog;
};

/// One job `id` at `util` on every node of the scenario.
inline ct::model::Job jobOnAllNodes(const ct::model::Scenario& s, const char* id, double util) {
    ct::model::Job j;
    j.id = id;
    j.utilization = util;
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) j.nodes.push_back(n.id);
    return j;
}

/// A sample scenario with all its nodes in one job at `util` (0 = leave the sample's jobs) and the scenario's
/// own catalog section replaced by `catalog_json` when given. Fails the test on validation errors.
inline Loaded sample(const char* name, double util = 0, const std::string& catalog_json = "") {
    auto lr = ct::model::loadScenarioFile(std::string(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json");
    Loaded l{lr.scenario, {}};
    if (util > 0) l.scenario.jobs = {jobOnAllNodes(l.scenario, "test-job", util)};
    l.scenario.events.clear();
    if (!catalog_json.empty()) l.scenario.catalog_json = catalog_json;
    ct::model::Diagnostics d;
    l.catalog = ct::model::effectiveCatalog(l.scenario, ct::model::Catalog::builtin(), d);
    const auto sem = ct::model::validateScenario(l.scenario, l.catalog);
    d.insert(d.end(), sem.begin(), sem.end());
    for (const auto& x : d)
        if (x.severity == ct::model::Severity::Error) qFatal("fixture invalid: %s", x.toString().c_str());
    return l;
}

/// Engine options with the quick (potential-flow) air: for tests of power, equipment, jobs and rendering, whose
/// subject is not the air and whose runs last simulated hours. The lattice's engine path is tst_air_solver's.
inline ct::sim::EngineOptions quickAir() {
    ct::sim::EngineOptions o;
    o.air = "quick";
    return o;
}

inline ct::model::Event event(double t, const char* kind, const char* target, std::optional<double> v = std::nullopt) {
    ct::model::Event e;
    e.time_s = t;
    e.kind = kind;
    e.target = target;
    e.value = v;
    return e;
}

/// A hall from the builder (built-in catalog) with all its nodes in one job "all" at `util`.
inline Loaded built(const ct::model::HallParams& p, double util) {
    Loaded l{ct::model::buildHall(p), ct::model::Catalog::builtin()};
    l.scenario.jobs = {jobOnAllNodes(l.scenario, "all", util)};
    return l;
}

/// Fails the test on any validation error.
inline void requireValid(const Loaded& l) {
    for (const auto& d : ct::model::validateScenario(l.scenario, l.catalog))
        if (d.severity == ct::model::Severity::Error) QFAIL(d.toString().c_str());
}

/// The cooling units' airflow-weighted supply temperature.
inline double supplyMean(const ct::model::Frame& f) {
    double q = 0, t = 0;
    for (const auto& u : f.cooling_units) {
        q += u.airflow_m3s;
        t += u.airflow_m3s * u.supply_c;
    }
    return t / q;
}

/// Runs until `t_s`, returning the last frame.
inline const ct::model::Frame& runTo(ct::sim::Engine& e, double t_s) {
    while (e.timeS() < t_s - 1e-9) e.step();
    return e.frame();
}

inline double meanInlet(const ct::model::Frame& f) {
    double s = 0;
    for (const auto& r : f.racks) s += r.inlet_mean_c;
    return s / static_cast<double>(f.racks.size());
}

inline double meanGpuPower(const ct::model::Frame& f) {
    double s = 0;
    for (const auto& g : f.gpus) s += g.power_w;
    return s / static_cast<double>(f.gpus.size());
}

}  // namespace fixtures
