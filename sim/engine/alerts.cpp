// The alerts of a step: raised once per condition (Alerts), and the checks made over the finished frame.
#include "engine/passes.hpp"

#include <cstdio>

namespace ct::sim::detail {

namespace u = model::units;

void Alerts::set(const std::string& kind, const std::string& entity, const std::string& msg, bool active, double value, double threshold) {
    const std::string key = kind + '\x1f' + entity;
    if (active) {
        if (active_.insert(key).second) out_->push_back({t, kind, entity, msg, value, threshold});
    } else {
        active_.erase(key);
    }
}

void Alerts::event(const std::string& kind, const std::string& entity, const std::string& msg, double value, double threshold) {
    out_->push_back({t, kind, entity, msg, value, threshold});
}

bool Alerts::active(const std::string& kind, const std::string& entity) const { return active_.count(kind + '\x1f' + entity) > 0; }

void frameAlerts(Site& s, const model::Frame& f, bool air_approximate, bool& physics_beyond, Alerts& alerts) {
    for (std::size_t ri = 0; ri < s.racks.size() && ri < f.racks.size(); ++ri) {
        RackRt& rr = s.racks[ri];
        const model::RackFrame& rf = f.racks[ri];
        alerts.onChange(rr.door_alerted, "cooling_short", rf.id, rr.door_at_capacity,
                        [&] { return "rear door of rack " + rf.id + " is at capacity; the room takes the rest"; });
        alerts.onChange(
            rr.inlet_alerted, "inlet_high", rf.id, rf.inlet_max_c > kInletLimitC, [&] { return "rack " + rf.id + " inlet above 27 °C"; },
            rf.inlet_max_c, kInletLimitC);
    }
    for (auto& ur : s.units)
        alerts.onChange(ur.short_alerted, "cooling_short", ur.unit->id, ur.over_capacity,
                        [&] { return "cooling unit " + ur.unit->id + " is at capacity; supply above setpoint"; });
    physicsRangeAlert(s, f, air_approximate, physics_beyond, alerts);
    for (const auto& l : s.loops)
        alerts.set("cooling_short", l.loop->id, "water loop " + l.loop->id + " carries more than its capacity",
                   !l.failed && l.loop->capacity_w > 0 && l.load_w > l.loop->capacity_w, l.load_w, l.loop->capacity_w);
    for (std::size_t pi = 0; pi < s.rpdus.size() && pi < f.rack_pdus.size(); ++pi) {
        const model::RackPduFrame& rf = f.rack_pdus[pi];
        alerts.onChange(
            s.rpdus[pi].breaker_alerted, "breaker_high", rf.id, rf.breaker_utilization > u::kContinuousLoadFraction,
            [&] { return "rack PDU " + rf.id + " above 80 % of its breaker"; }, rf.breaker_utilization, u::kContinuousLoadFraction);
    }
    auto chain = [&](std::vector<ChainRt>& v, const char* what) {
        for (auto& x : v)
            alerts.onChange(
                x.overload_alerted, "feed_overload", x.id, x.capacity_w > 0 && x.load_w > x.capacity_w,
                [&] { return std::string(what) + " " + x.id + " above its capacity"; }, x.load_w, x.capacity_w);
    };
    chain(s.pdus, "PDU");
    chain(s.ups, "UPS");
    chain(s.txs, "transformer");
    chain(s.feeds, "feed");
}

void physicsRangeAlert(const Site& s, const model::Frame& f, bool air_approximate, bool& beyond, Alerts& alerts) {
    // Issue 16: a rack inlet past where IT equipment would have shut down (the model keeps it running and
    // heating) is a result outside what the model represents: one critical alert naming the likely cause,
    // raised when it happens and again only after the hall came back in range.
    const bool now = f.max_inlet_c > kInletShutdownC;
    if (now && !beyond) {
        int failed = 0, short_units = 0;
        double working_w = 0;
        for (const auto& ur : s.units) {
            failed += ur.failed ? 1 : 0;
            short_units += ur.over_capacity ? 1 : 0;
            if (!ur.failed && ur.model) working_w += ur.model->capacity_w;
        }
        char buf[320];
        std::string cause;
        if (f.heat_in_w > working_w) {
            std::snprintf(buf, sizeof buf, "cooling short: %.0f kW of heat into the air for %.0f kW of working cooling units",
                          f.heat_in_w / 1e3, working_w / 1e3);
            cause = buf;
        } else if (failed > 0) {
            cause = std::to_string(failed) + " of " + std::to_string(s.units.size()) + " cooling units failed";
        } else if (short_units > 0) {
            cause = std::to_string(short_units) + " cooling unit(s) at capacity";
        } else {
            cause = "hot exhaust reaches the inlets (recirculation: layout, containment or airflow)";
        }
        if (air_approximate) cause += "; the quick air model (potential flow) cannot carry supply jets across the room";
        std::snprintf(buf, sizeof buf,
                      "rack %s inlet %.1f °C is above %.0f °C, where IT equipment shuts down: results from here on are outside "
                      "what the model represents. Likely cause: ",
                      f.max_inlet_rack.c_str(), f.max_inlet_c, kInletShutdownC);
        alerts.event("physics_range", f.max_inlet_rack, buf + cause, f.max_inlet_c, kInletShutdownC);
    }
    beyond = now;
}

}  // namespace ct::sim::detail
