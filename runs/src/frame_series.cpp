#include <clustertwin/runs/frame_series.hpp>

#include <cmath>

namespace ct::runs {

namespace m = ct::model;

// A double member of an entry, read and written as it is.
// NOLINTNEXTLINE(bugprone-macro-parentheses): E is a type and member a member name; neither can be parenthesised
#define CT_SERIES(E, member) [](const E& e) { return e.member; }, [](E& e, double v) { e.member = v; }

const std::vector<SeriesField<m::GpuFrame>>& gpuSeries() {
    static const std::vector<SeriesField<m::GpuFrame>> t{
        {"power_w", "W", CT_SERIES(m::GpuFrame, power_w)},
        {"temp_c", "degC", CT_SERIES(m::GpuFrame, temp_c)},
        {"utilization", "ratio", CT_SERIES(m::GpuFrame, utilization)},
        {"throttle", "ratio", CT_SERIES(m::GpuFrame, throttle)},
    };
    return t;
}

const std::vector<SeriesField<m::NodeFrame>>& nodeSeries() {
    static const std::vector<SeriesField<m::NodeFrame>> t{
        {"power_w", "W", CT_SERIES(m::NodeFrame, power_ac_w)},
        {"inlet_c", "degC", CT_SERIES(m::NodeFrame, inlet_c)},
        {"exhaust_c", "degC", CT_SERIES(m::NodeFrame, exhaust_c)},
        {"fan_speed", "ratio", CT_SERIES(m::NodeFrame, fan_speed)},
    };
    return t;
}

const std::vector<SeriesField<m::RackFrame>>& rackSeries() {
    static const std::vector<SeriesField<m::RackFrame>> t{
        {"power_w", "W", CT_SERIES(m::RackFrame, power_w)},
        {"inlet_max_c", "degC", CT_SERIES(m::RackFrame, inlet_max_c)},
        {"inlet_mean_c", "degC", CT_SERIES(m::RackFrame, inlet_mean_c)},
        {"exhaust_c", "degC", CT_SERIES(m::RackFrame, exhaust_c)},
        {"capture_index", "ratio", CT_SERIES(m::RackFrame, capture_index), RecordWhen::Finite},
        {"rear_door_w", "W", CT_SERIES(m::RackFrame, rear_door_w), RecordWhen::Positive},
        {"recirculation", "ratio", CT_SERIES(m::RackFrame, recirculation), RecordWhen::NonZero},
    };
    return t;
}

const std::vector<SeriesField<m::CoolingUnitFrame>>& coolingUnitSeries() {
    static const std::vector<SeriesField<m::CoolingUnitFrame>> t{
        {"return_c", "degC", CT_SERIES(m::CoolingUnitFrame, return_c)},
        {"supply_c", "degC", CT_SERIES(m::CoolingUnitFrame, supply_c)},
        {"load_w", "W", CT_SERIES(m::CoolingUnitFrame, load_w)},
        {"fan_power_w", "W", CT_SERIES(m::CoolingUnitFrame, fan_power_w)},
    };
    return t;
}

const std::vector<SeriesField<m::CduFrame>>& cduSeries() {
    static const std::vector<SeriesField<m::CduFrame>> t{
        {"supply_c", "degC", CT_SERIES(m::CduFrame, supply_c)},
        {"return_c", "degC", CT_SERIES(m::CduFrame, return_c)},
        {"load_w", "W", CT_SERIES(m::CduFrame, load_w)},
    };
    return t;
}

const std::vector<SeriesField<m::RackPduFrame>>& rackPduSeries() {
    static const std::vector<SeriesField<m::RackPduFrame>> t{
        {"load_w", "W", CT_SERIES(m::RackPduFrame, load_w)},
        {"breaker_utilization", "ratio", CT_SERIES(m::RackPduFrame, breaker_utilization)},
    };
    return t;
}

const std::vector<SeriesField<m::PowerNodeFrame>>& upsSeries() {
    static const std::vector<SeriesField<m::PowerNodeFrame>> t{
        {"load_w", "W", CT_SERIES(m::PowerNodeFrame, load_w)},
        {"loss_w", "W", CT_SERIES(m::PowerNodeFrame, loss_w)},
    };
    return t;
}

const std::vector<SeriesField<m::WaterLoopFrame>>& waterLoopSeries() {
    static const std::vector<SeriesField<m::WaterLoopFrame>> t{
        {"load_w", "W", CT_SERIES(m::WaterLoopFrame, load_w)},
    };
    return t;
}

const std::vector<SeriesField<m::JobFrame>>& jobSeries() {
    static const std::vector<SeriesField<m::JobFrame>> t{
        {"step_time_s", "s", CT_SERIES(m::JobFrame, step_time_s)},
        {"comm_share", "ratio", CT_SERIES(m::JobFrame, comm_share)},
        {"mfu", "ratio", CT_SERIES(m::JobFrame, mfu)},
        {"utilization", "ratio", CT_SERIES(m::JobFrame, utilization)},
        {"bubble_share", "ratio", CT_SERIES(m::JobFrame, bubble_share), RecordWhen::Positive},
        {"interruptions", "count", [](const m::JobFrame& e) { return static_cast<double>(e.interruptions); },
         [](m::JobFrame& e, double v) { e.interruptions = std::isfinite(v) ? static_cast<int>(v) : 0; }, RecordWhen::Positive},
        {"tokens_per_s", "1/s", CT_SERIES(m::JobFrame, tokens_per_s), RecordWhen::Positive},
        {"ttft_p99_s", "s", CT_SERIES(m::JobFrame, ttft_p99_s), RecordWhen::Always, "tokens_per_s"},
        {"tpot_p99_s", "s", CT_SERIES(m::JobFrame, tpot_p99_s), RecordWhen::Always, "tokens_per_s"},
    };
    return t;
}

const std::vector<SeriesField<m::LinkFrame>>& linkSeries() {
    static const std::vector<SeriesField<m::LinkFrame>> t{
        {"utilization", "ratio", CT_SERIES(m::LinkFrame, utilization)},
    };
    return t;
}

const std::vector<SeriesField<m::SensorFrame>>& sensorSeries() {
    static const std::vector<SeriesField<m::SensorFrame>> t{
        {"temp_c", "degC", CT_SERIES(m::SensorFrame, temp_c), RecordWhen::Finite},  // a point inside equipment reads nothing
    };
    return t;
}

const std::vector<SeriesField<m::Frame>>& siteSeries() {
    static const std::vector<SeriesField<m::Frame>> t{
        {"it_power_w", "W", CT_SERIES(m::Frame, it_power_w)},
        {"facility_power_w", "W", CT_SERIES(m::Frame, facility_power_w)},
        {"cooling_power_w", "W", CT_SERIES(m::Frame, cooling_power_w)},
        {"pue", "ratio", CT_SERIES(m::Frame, pue)},
        {"heat_in_w", "W", CT_SERIES(m::Frame, heat_in_w)},
        {"heat_removed_w", "W", CT_SERIES(m::Frame, heat_removed_w)},
        {"rear_door_heat_w", "W", CT_SERIES(m::Frame, rear_door_heat_w), RecordWhen::Positive},
        {"max_inlet_c", "degC", CT_SERIES(m::Frame, max_inlet_c)},
        {"rci_hi", "percent", CT_SERIES(m::Frame, rci_hi)},
        {"rci_lo", "percent", CT_SERIES(m::Frame, rci_lo)},
        {"rti", "percent", CT_SERIES(m::Frame, rti)},
        {"shi", "ratio", CT_SERIES(m::Frame, shi)},
    };
    return t;
}

#undef CT_SERIES

namespace {
template <class E>
void addRows(std::vector<SeriesRow>& out, std::string_view kind, const std::vector<SeriesField<E>>& t) {
    for (const auto& r : t) out.push_back({kind, r.metric, r.unit});
}
}  // namespace

std::vector<SeriesRow> recordedSeries() {
    std::vector<SeriesRow> out;
    addRows(out, "gpu", gpuSeries());
    addRows(out, "node", nodeSeries());
    addRows(out, "rack", rackSeries());
    addRows(out, "cooling_unit", coolingUnitSeries());
    addRows(out, "cdu", cduSeries());
    addRows(out, "rack_pdu", rackPduSeries());
    addRows(out, "ups", upsSeries());
    addRows(out, "transformer", upsSeries());
    addRows(out, "water_loop", waterLoopSeries());
    addRows(out, "job", jobSeries());
    addRows(out, "link", linkSeries());
    addRows(out, "sensor", sensorSeries());
    addRows(out, "site", siteSeries());
    return out;
}

}  // namespace ct::runs
