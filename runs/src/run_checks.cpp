#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/run_checks.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::runs {

std::vector<RunFinding> checkRun(const RunReplay& run) {
    std::vector<RunFinding> out;
    if (run.info().kind != "simulated") return out;
    // Inlets past the shutdown range: the engine says when and why.
    int excursions = 0;
    for (const auto& e : run.events())
        if (e.kind == "physics_range" && excursions++ == 0)
            out.push_back({RunFinding::Level::Error, e.message, e.t_s - run.startS(), e.target});
    if (excursions > 1) out.back().text += " (" + std::to_string(excursions) + " times in this run)";
    // Heat balance at steady state, from the site's totals.
    const std::vector<std::pair<double, double>>*in = nullptr, *removed = nullptr, *inlet = nullptr, *doors = nullptr;
    for (const auto& e : run.entities())
        if (run.series(e, "heat_in_w") && run.series(e, "heat_removed_w")) {
            in = run.series(e, "heat_in_w");
            removed = run.series(e, "heat_removed_w");
            inlet = run.series(e, "max_inlet_c");
            doors = run.series(e, "rear_door_heat_w");  // rear doors take heat from the air into water
            break;
        }
    const double duration = run.endS() - run.startS();
    if (!in || !removed || !inlet || inlet->empty() || duration < 600) return out;
    const double window = std::max(300.0, 0.1 * duration);
    double lo = 1e300, hi = -1e300;
    for (const auto& [t, v] : *inlet)
        if (t >= run.endS() - window && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    if (!(hi - lo < 0.3)) return out;  // still moving: a transient, not a balance to check
    const double q_in = valueAt(*in, run.endS()),
                 q_out = valueAt(*removed, run.endS()) + (doors && !doors->empty() ? valueAt(*doors, run.endS()) : 0.0);
    if (!(q_in > 0) || !std::isfinite(q_out)) return out;
    const double gap = (q_in - q_out) / q_in;
    if (std::abs(gap) <= kHeatImbalanceLimit) return out;
    char buf[400];
    std::snprintf(
        buf, sizeof buf,
        "At steady state the cooling removes %.0f kW of the %.0f kW put into the air (%.0f %% apart; more than %.0f %% is outside "
        "what a settled hall can do). Likely cause: %s",
        q_out / 1e3, q_in / 1e3, 100 * std::abs(gap), 100 * kHeatImbalanceLimit,
        gap > 0 ? "heat is trapped in the room or leaves through a liquid loop the air totals do not count; check failed or "
                  "short cooling units and the liquid fraction of the servers"
                : "more heat is removed than is put in, which breaks conservation of energy: a model error, please report it "
                  "with the scenario");
    out.push_back({RunFinding::Level::Warning, buf, duration, ""});
    return out;
}

}  // namespace ct::runs
