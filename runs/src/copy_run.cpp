// A run copied between stores (copy_run.hpp), through the store's own reads and writes.
#include <clustertwin/runs/copy_run.hpp>

#include <algorithm>

namespace ct::runs {

std::int64_t copyRun(const TelemetryStore& from, std::int64_t run, TelemetryStore& to, const std::string& name, CopyStats* stats) {
    const std::vector<RunInfo> all = from.runs();
    const auto it = std::find_if(all.begin(), all.end(), [&](const RunInfo& r) { return r.id == run; });
    if (it == all.end()) throw StoreError(from.path() + ": no run " + std::to_string(run) + " to copy");
    RunMeta meta = it->meta;
    if (const auto sc = from.runScenario(run)) meta.scenario_json = *sc;
    const std::int64_t id = to.createRun(name.empty() ? it->name : name, it->kind, it->scenario_id, meta);
    to.upsertEntities(from.entities());
    CopyStats st;
    const std::vector<SeriesValues> series = from.allSeries(run);
    std::vector<SeriesKey> keys;
    keys.reserve(series.size());
    for (const auto& s : series) keys.push_back(s.key);
    const std::vector<std::int64_t> ids = to.seriesMany(id, keys);
    std::vector<Sample> samples;
    for (std::size_t i = 0; i < series.size(); ++i) {
        for (const auto& [t, v] : series[i].points) samples.push_back({ids[i], t, v});
        st.samples += static_cast<std::int64_t>(series[i].points.size());
    }
    st.series = static_cast<std::int64_t>(series.size());
    std::vector<SourceRecord> sources = from.sources(run);
    for (auto& s : sources) s.run = id;
    to.writeBatch(std::move(samples), sources);
    const std::vector<StoredEvent> events = from.events(run);
    to.writeEvents(id, events);
    st.events = static_cast<std::int64_t>(events.size());
    for (int hall : from.airFieldHalls(run))
        for (double t : from.airFieldTimes(run, hall))
            if (const auto f = from.airFieldAt(run, t, hall)) {
                to.writeAirField(id, t, *f);
                ++st.air_fields;
            }
    if (it->end_s) to.finishRun(id, *it->end_s);
    if (stats) *stats = st;
    return id;
}

}  // namespace ct::runs
