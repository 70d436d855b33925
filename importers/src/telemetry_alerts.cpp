// Alerts on measured telemetry (telemetry_alerts.hpp).
#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/importers/telemetry_alerts.hpp>

#include <clustertwin/model/catalog.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

namespace ct::importers {

namespace {

struct GpuLimits {
    double slowdown_c = 87, shutdown_c = 92;
    std::string model;  ///< the catalog's name, or "" for the generic limits
};

GpuLimits limitsFor(const std::string& telemetry_name) {
    GpuLimits l;
    const std::string id = catalogGpuFor(telemetry_name);
    if (const model::GpuModel* g = id.empty() ? nullptr : model::Catalog::builtin().gpu(id)) {
        l.slowdown_c = g->slowdown_temp_c;
        l.shutdown_c = g->shutdown_temp_c;
        l.model = g->name;
    }
    return l;
}

std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v);
    return b;
}

}  // namespace

std::size_t raiseTelemetryAlerts(runs::TelemetryStore& store, std::int64_t run, const std::vector<ImportedEntity>& entities) {
    std::map<std::string, std::string> gpu_name;  // GPU entity → the model name its telemetry gives
    for (const auto& e : entities)
        if (e.kind == "gpu") gpu_name[e.id] = e.name;
    if (gpu_name.empty()) return 0;
    std::set<std::tuple<long long, std::string, std::string>> known;  // (ms, kind, target) already stored
    for (const auto& e : store.events(run)) known.insert({std::llround(e.t_s * 1000), e.kind, e.target});
    std::vector<runs::StoredEvent> out;
    for (const auto& sv : store.values(run, "temp_c", {}, -1e300, 1e300)) {
        const auto it = gpu_name.find(sv.key.entity);
        if (it == gpu_name.end()) continue;
        const GpuLimits lim = limitsFor(it->second);
        const std::string whose = lim.model.empty() ? "a data-centre GPU's generic limit (the catalog does not know '" + it->second + "')"
                                                    : "the " + lim.model + "'s";
        struct Rule {
            const char* kind;
            double limit;
            const char* what;
            bool armed = true;
        };
        Rule rules[] = {{"gpu_hot", lim.slowdown_c, "slowdown temperature: its clocks drop"},
                        {"gpu_shutdown", lim.shutdown_c, "shutdown temperature: it stops"}};
        for (const auto& [t, v] : sv.points) {
            if (!std::isfinite(v)) continue;
            for (Rule& r : rules) {
                if (r.armed && v > r.limit) {
                    r.armed = false;
                    if (known.insert({std::llround(t * 1000), r.kind, sv.key.entity}).second)
                        out.push_back(
                            {t, r.kind, sv.key.entity, v,
                             "GPU " + sv.key.entity + " measured " + fmt(v) + " °C, past " + whose + " " + fmt(r.limit) + " °C " + r.what,
                             r.limit});
                } else if (!r.armed && v < r.limit - 2.0) {
                    r.armed = true;
                }
            }
        }
    }
    if (!out.empty()) store.writeEvents(run, out);
    return out.size();
}

}  // namespace ct::importers
