#include "compare_runs.hpp"

#include <clustertwin/runs/replay.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace ct::app {

namespace {

bool isRack(const runs::RunReplay& r, const std::string& id) { return r.series(id, "inlet_max_c") != nullptr; }

double at(const runs::RunReplay& r, const std::string& id, const char* metric, double t_s) {
    const auto* s = r.series(id, metric);
    return s ? runs::valueAt(*s, r.startS() + t_s + 1e-6) : std::nan("");
}

}  // namespace

std::vector<RackDiff> rackDiffs(const runs::RunReplay& base, const runs::RunReplay& what, double t_s) {
    std::vector<RackDiff> out;
    for (const std::string& id : what.entities()) {
        if (!isRack(what, id)) continue;
        RackDiff d;
        d.rack = id;
        d.base_inlet_c = at(base, id, "inlet_max_c", t_s);
        d.what_inlet_c = at(what, id, "inlet_max_c", t_s);
        d.delta_k = d.what_inlet_c - d.base_inlet_c;
        d.base_power_kw = at(base, id, "power_w", t_s) / 1e3;
        d.what_power_kw = at(what, id, "power_w", t_s) / 1e3;
        const std::string node_prefix = id + "/";
        for (const auto& e : what.events())
            if (e.kind != "event" && e.t_s <= what.startS() + t_s + 1e-6 && (e.target == id || e.target.rfind(node_prefix, 0) == 0))
                ++d.alerts;
        out.push_back(d);
    }
    std::stable_sort(out.begin(), out.end(), [](const RackDiff& a, const RackDiff& b) {
        const double x = std::isfinite(a.delta_k) ? a.delta_k : -1e300, y = std::isfinite(b.delta_k) ? b.delta_k : -1e300;
        return x > y;
    });
    return out;
}

CompareSummary compareRuns(const runs::RunReplay& base, const runs::RunReplay& what, double limit_c) {
    CompareSummary s;
    s.limit_c = limit_c;
    s.largest_rise_k = -1e300;
    const double end = what.endS() - what.startS();
    for (const std::string& id : what.entities()) {
        if (!isRack(what, id)) continue;
        ++s.racks;
        const auto& w = *what.series(id, "inlet_max_c");
        const auto* b = base.series(id, "inlet_max_c");
        for (const auto& [t, v] : w) {
            if (!std::isfinite(v)) continue;
            const double rel = t - what.startS();
            if (v > limit_c && (s.first_over_what_s < 0 || rel < s.first_over_what_s)) {
                s.first_over_what_s = rel;
                s.first_over_rack = id;
            }
            if (!b) continue;
            const double bv = runs::valueAt(*b, base.startS() + rel + 1e-6);
            if (std::isfinite(bv) && v - bv > s.largest_rise_k) {
                s.largest_rise_k = v - bv;
                s.largest_rack = id;
                s.largest_at_s = rel;
            }
        }
        if (b)
            for (const auto& [t, v] : *b)
                if (std::isfinite(v) && v > limit_c && t - base.startS() <= end + 1e-6) {
                    const double rel = t - base.startS();
                    if (s.first_over_base_s < 0 || rel < s.first_over_base_s) s.first_over_base_s = rel;
                    break;
                }
        if (at(what, id, "inlet_max_c", end) > limit_c) ++s.over_what;
        if (at(base, id, "inlet_max_c", end) > limit_c) ++s.over_base;
    }
    if (s.largest_rise_k < -1e299) s.largest_rise_k = 0;
    return s;
}

}  // namespace ct::app
