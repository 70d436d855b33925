#pragma once
// What a run records of a frame, as one table (contributing.md habit 15): for every entity kind the series it
// writes — metric id, stored unit, and how the value is read from and written back into the frame's entry. The
// recorder writes by it, replay reads by it, and tst_store checks that every row comes back and is in
// model/metrics' table, so a series that is recorded but not replayed fails a test.
#include <clustertwin/model/frame.hpp>

#include <cmath>
#include <string_view>
#include <vector>

namespace ct::runs {

/// When a row is recorded, and what replay assumes where its series is absent.
enum class RecordWhen {
    Always,    ///< every frame; absent: unknown (NaN)
    Finite,    ///< when the value is a number (the Capture Index of racks that have one); absent: NaN
    Positive,  ///< when > 0 (rear doors, pipeline bubbles, served tokens); absent: 0, which it was
    NonZero,   ///< when ≠ 0 (a rack's recirculation, negative for bypass); absent: 0, which it was
};

/// A series recorded only when positive or non-zero was 0 where it is absent.
inline bool zeroWhenAbsent(RecordWhen w) { return w == RecordWhen::Positive || w == RecordWhen::NonZero; }

/// One recorded series of an entity of kind E (model::GpuFrame, model::RackFrame, ... or model::Frame for the
/// site's totals).
template <class E>
struct SeriesField {
    std::string_view metric, unit;
    double (*get)(const E&);
    void (*set)(E&, double);
    RecordWhen when = RecordWhen::Always;
    /// Only when this row of the same entity is recorded too (a served model's latencies go with its tokens/s).
    std::string_view with = {};
};

/// The table's rows per entity kind, with the store's kind names ("gpu", "node", "rack", "cooling_unit", "cdu",
/// "rack_pdu", "ups", "transformer", "water_loop", "job", "link", "site").
const std::vector<SeriesField<model::GpuFrame>>& gpuSeries();
const std::vector<SeriesField<model::NodeFrame>>& nodeSeries();
const std::vector<SeriesField<model::RackFrame>>& rackSeries();
const std::vector<SeriesField<model::CoolingUnitFrame>>& coolingUnitSeries();
const std::vector<SeriesField<model::CduFrame>>& cduSeries();
const std::vector<SeriesField<model::RackPduFrame>>& rackPduSeries();
const std::vector<SeriesField<model::PowerNodeFrame>>& upsSeries();  ///< also transformers
const std::vector<SeriesField<model::WaterLoopFrame>>& waterLoopSeries();
const std::vector<SeriesField<model::JobFrame>>& jobSeries();
const std::vector<SeriesField<model::LinkFrame>>& linkSeries();
const std::vector<SeriesField<model::SensorFrame>>& sensorSeries();
const std::vector<SeriesField<model::Frame>>& siteSeries();

/// Whether a row is recorded for this entry (its condition, and its `with` row's).
template <class E>
bool recorded(const SeriesField<E>& row, const E& e, const std::vector<SeriesField<E>>& table) {
    const double v = row.get(e);
    const bool self = row.when == RecordWhen::Always || (row.when == RecordWhen::Finite && !std::isnan(v)) ||
                      (row.when == RecordWhen::Positive && v > 0) || (row.when == RecordWhen::NonZero && v != 0 && !std::isnan(v));
    if (!self || row.with.empty()) return self;
    for (const auto& r : table)
        if (r.metric == row.with) return recorded(r, e, table);
    return false;
}

/// Every (kind, metric, unit) the table records, for tests and docs.
struct SeriesRow {
    std::string_view kind, metric, unit;
};
std::vector<SeriesRow> recordedSeries();

}  // namespace ct::runs
