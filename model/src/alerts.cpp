#include "clustertwin/model/alerts.hpp"

namespace ct::model {

const std::vector<AlertKindInfo>& alertKinds() {
    using S = AlertSeverity;
    static const std::vector<AlertKindInfo> table = {
        {"physics_range", "Result outside physical range", S::Critical, "", "the result cannot be trusted: check the named cause"},
        {"gpu_shutdown", "GPU shut down", S::Critical, "temp_c", "the GPU reached its shutdown temperature and stopped"},
        {"unit_failed", "Cooling failed", S::Critical, "", "a cooling unit or CDU is out of service"},
        {"node_unpowered", "Node without power", S::Critical, "", "every power feed of the node is down"},
        {"feed_overload", "Over capacity", S::Critical, "load_w", "a feed, UPS or PDU carries more than it is rated for"},
        {"job_stalled", "Job stalled", S::Critical, "", "some of the job's GPUs cannot reach each other"},
        {"job_interrupted", "Job interrupted", S::Critical, "", "a GPU of the job failed: it restarts from its last checkpoint"},
        {"cooling_short", "Cooling at capacity", S::Warning, "", "the unit cannot hold its setpoint: supply rises"},
        {"inlet_high", "Inlet above 27 °C", S::Warning, "inlet_max_c", "above ASHRAE's recommended inlet range"},
        {"throttling", "GPU throttling", S::Warning, "throttle", "the GPU runs below full clocks (heat or power)"},
        {"gpu_hot", "GPU past its slowdown temperature", S::Warning, "temp_c",
         "measured: the GPU is hotter than its model's slowdown temperature, so its clocks drop"},
        {"gpu_power_high", "GPU above its power limit", S::Warning, "power_w",
         "measured: the GPU draws more than its model's board power limit (a wrong limit, or the wrong model)"},
        {"breaker_high", "Breaker above 80 %", S::Warning, "breaker_utilization", "above the continuous-load limit of its breaker"},
        {"power_ramp", "Power ramp", S::Warning, "", "a feed's draw changes faster than the utility's ramp limit"},
        {"link_high", "Link above 90 %", S::Warning, "utilization", "a fabric link is nearly saturated: collectives slow down"},
        {"rack_airflow", "Rack airflow short", S::Warning, "", "the rack draws more air than reaches it"},
        {"event", "Scenario event", S::Info, "", "a scheduled event of the scenario or what-if"},
    };
    return table;
}

AlertKindInfo alertKind(std::string_view kind) {
    for (const auto& k : alertKinds())
        if (k.kind == kind) return k;
    AlertKindInfo k;
    k.kind = std::string(kind);
    k.title = k.kind;
    for (char& c : k.title)
        if (c == '_') c = ' ';
    if (!k.title.empty() && k.title[0] >= 'a' && k.title[0] <= 'z') k.title[0] = static_cast<char>(k.title[0] - 'a' + 'A');
    return k;
}

const char* toString(AlertSeverity s) {
    switch (s) {
        case AlertSeverity::Info:
            return "info";
        case AlertSeverity::Warning:
            return "warning";
        case AlertSeverity::Critical:
            return "critical";
    }
    return "warning";
}

std::optional<AlertSeverity> parseSeverity(std::string_view s) {
    for (const AlertSeverity v : {AlertSeverity::Info, AlertSeverity::Warning, AlertSeverity::Critical})
        if (s == toString(v)) return v;
    return std::nullopt;
}

AlertSeverity severityOf(std::string_view kind, std::string_view own) {
    if (const auto v = parseSeverity(own)) return *v;
    return alertKind(kind).severity;
}

}  // namespace ct::model
