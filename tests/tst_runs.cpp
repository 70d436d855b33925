// ct_runs (issue 39): what a run records of a frame is one table that recording and replay both walk, so a
// series that is recorded but cannot be replayed fails here; every recorded metric is in model/metrics' table.
#include <clustertwin/model/alerts.hpp>
#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/runs/frame_series.hpp>
#include <clustertwin/runs/recorder.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/run_overview.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/run_session.hpp>

#include <QTemporaryDir>
#include <QTest>

#include <optional>

#include <cmath>
#include <set>
#include <string>
#include "test_paths.hpp"

namespace m = ct::model;
namespace r = ct::runs;

class TstRuns : public QObject {
    Q_OBJECT
private slots:
    void everyRecordedSeriesIsReplayed();
    void everyRecordedMetricIsInTheMetricsTable();
    void seriesNotRecordedReplayAsUnknownOrZero();
    void aCancelledSessionIsKeptAndMarkedInterrupted();
    void aSessionThatRunsToItsEndIsComplete();
    void theFrameAtAnAlertsMomentShowsWhatRaisedIt();
    void aRunInProgressIsReadAsItGrows();
};

namespace {

/// Gives every row of the table a value of its own (1 + its position, scaled by the entry), so a row read back
/// into another row's member shows.
template <class E>
void fill(E& e, const std::vector<r::SeriesField<E>>& table, double base) {
    for (std::size_t i = 0; i < table.size(); ++i) table[i].set(e, base + static_cast<double>(i) + 1);
}

template <class E>
int compare(const char* kind, const E& want, const E& got, const std::vector<r::SeriesField<E>>& table) {
    int checked = 0;
    for (const auto& row : table) {
        const double a = row.get(want), b = row.get(got);
        if (a != b) {
            QTest::qFail(qPrintable(QString("%1 %2: recorded %3, replayed %4")
                                        .arg(kind, QString::fromUtf8(row.metric.data(), int(row.metric.size())))
                                        .arg(a)
                                        .arg(b)),
                         __FILE__, __LINE__);
            return -1;
        }
        ++checked;
    }
    return checked;
}

/// lab-8node with one entity of every kind the table records that the sample lacks.
m::ValidationReport everyKind() {
    m::ValidationReport rep = m::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    auto& s = rep.scenario;
    m::Transformer t;
    t.id = "tx1";
    t.feed = s.power.feeds.empty() ? "" : s.power.feeds[0].id;
    s.power.transformers.push_back(t);
    m::WaterLoop l;
    l.id = "loop1";
    s.plant.loops.push_back(l);
    m::Cdu c;
    c.id = "cdu1";
    s.halls[0].cdus.push_back(c);
    m::Sensor x;
    x.id = "sensor1";
    x.rack = s.halls[0].rows[0].racks[0].id;
    s.halls[0].sensors.push_back(x);
    m::Job j;
    j.id = "job1";
    s.jobs.push_back(j);
    return rep;
}

}  // namespace

void TstRuns::everyRecordedSeriesIsReplayed() {
    const m::ValidationReport rep = everyKind();
    const auto& s = rep.scenario;
    m::Frame f;
    f.time_s = 10;
    const std::string node = s.halls[0].rows[0].racks[0].nodes[0].id;
    f.gpus.push_back({m::gpuId(node, 0)});
    fill(f.gpus[0], r::gpuSeries(), 100);
    f.nodes.push_back({node});
    fill(f.nodes[0], r::nodeSeries(), 200);
    f.racks.emplace_back().id = s.halls[0].rows[0].racks[0].id;
    fill(f.racks[0], r::rackSeries(), 300);
    f.cooling_units.push_back({s.halls[0].cooling_units[0].id});
    fill(f.cooling_units[0], r::coolingUnitSeries(), 400);
    f.cdus.push_back({"cdu1"});
    fill(f.cdus[0], r::cduSeries(), 500);
    f.rack_pdus.push_back({s.halls[0].rows[0].racks[0].pdus[0].id});
    fill(f.rack_pdus[0], r::rackPduSeries(), 600);
    f.ups.push_back({s.power.ups[0].id});
    fill(f.ups[0], r::upsSeries(), 700);
    f.transformers.push_back({"tx1"});
    fill(f.transformers[0], r::upsSeries(), 800);
    f.loops.push_back({"loop1"});
    fill(f.loops[0], r::waterLoopSeries(), 900);
    f.jobs.push_back({"job1"});
    fill(f.jobs[0], r::jobSeries(), 1000);
    f.links.emplace_back().id = "leaf0<->spine0";
    fill(f.links[0], r::linkSeries(), 0.5);
    f.sensors.push_back({"sensor1"});
    fill(f.sensors[0], r::sensorSeries(), 1200);
    fill(f, r::siteSeries(), 1100);
    f.time_s = 10;  // the site rows must not have touched the time

    QTemporaryDir tmp;
    auto store = r::TelemetryStore::open(tmp.filePath("run.sqlite").toStdString());
    std::int64_t run = 0;
    {
        r::RunRecorder rec(store, s, rep.catalog, "every series", r::RunMeta{});
        rec.record(f);
        rec.finish(f.time_s);
        run = rec.run();
    }
    const r::RunReplay rp = r::RunReplay::load(store, run);
    const m::Frame g = rp.frameAt(f.time_s);
    QCOMPARE(g.gpus.size(), std::size_t(1));
    QCOMPARE(g.transformers.size(), std::size_t(1));
    QCOMPARE(g.loops.size(), std::size_t(1));
    int rows = 0;
    rows += compare("gpu", f.gpus[0], g.gpus[0], r::gpuSeries());
    rows += compare("node", f.nodes[0], g.nodes[0], r::nodeSeries());
    rows += compare("rack", f.racks[0], g.racks[0], r::rackSeries());
    rows += compare("cooling_unit", f.cooling_units[0], g.cooling_units[0], r::coolingUnitSeries());
    rows += compare("cdu", f.cdus[0], g.cdus[0], r::cduSeries());
    rows += compare("rack_pdu", f.rack_pdus[0], g.rack_pdus[0], r::rackPduSeries());
    rows += compare("ups", f.ups[0], g.ups[0], r::upsSeries());
    rows += compare("transformer", f.transformers[0], g.transformers[0], r::upsSeries());
    rows += compare("water_loop", f.loops[0], g.loops[0], r::waterLoopSeries());
    rows += compare("job", f.jobs[0], g.jobs[0], r::jobSeries());
    QCOMPARE(g.links.size(), std::size_t(1));
    rows += compare("link", f.links[0], g.links[0], r::linkSeries());
    rows += compare("sensor", f.sensors[0], g.sensors[0], r::sensorSeries());
    rows += compare("site", f, g, r::siteSeries());
    QCOMPARE(rows, static_cast<int>(r::recordedSeries().size()));
    QVERIFY(g.jobs[0].running);
    // And nothing was recorded that the table does not list: the store holds exactly the table's rows.
    std::set<std::pair<std::string, std::string>> stored;
    for (const auto& x : store.seriesSummary(run)) stored.insert({x.key.metric, x.key.unit});
    std::set<std::pair<std::string, std::string>> listed;
    for (const auto& x : r::recordedSeries()) listed.insert({std::string(x.metric), std::string(x.unit)});
    QCOMPARE(stored, listed);
}

void TstRuns::everyRecordedMetricIsInTheMetricsTable() {
    for (const auto& x : r::recordedSeries()) {
        const m::MetricInfo info = m::metricInfo(x.metric, x.unit);
        QVERIFY2(info.known, qPrintable(QString("%1 of a %2 is recorded but not in model/metrics' table")
                                            .arg(QString::fromUtf8(x.metric.data(), int(x.metric.size())),
                                                 QString::fromUtf8(x.kind.data(), int(x.kind.size())))));
        QCOMPARE(QString::fromStdString(info.stored_unit), QString::fromUtf8(x.unit.data(), int(x.unit.size())));
    }
}

void TstRuns::seriesNotRecordedReplayAsUnknownOrZero() {
    // A rack without a rear door has no rear_door_w series: it replays as 0 (what it was); a GPU whose
    // temperature an import did not have replays as unknown, not as 0 °C.
    QTemporaryDir tmp;
    auto store = r::TelemetryStore::open(tmp.filePath("t.sqlite").toStdString());
    const auto run = store.createRun("import", "imported", "");
    store.upsertEntities({{"h1/gpu0", "gpu", "h1", ""}, {"r1", "rack", "", ""}});
    const auto a = store.series(run, {"h1/gpu0", "power_w", "W", "dcgm"});
    const auto b = store.series(run, {"r1", "power_w", "W", "redfish"});
    store.writeBatch({{a, 100, 350}, {b, 100, 12000}});
    const m::Frame g = r::RunReplay::load(store, run).frameAt(100);
    QCOMPARE(g.gpus.size(), std::size_t(1));
    QCOMPARE(g.gpus[0].power_w, 350.0);
    QVERIFY(std::isnan(g.gpus[0].temp_c));
    QCOMPARE(g.racks.size(), std::size_t(1));
    QCOMPARE(g.racks[0].rear_door_w, 0.0);
    QVERIFY(std::isnan(g.racks[0].inlet_mean_c));
    QVERIFY(std::isnan(g.it_power_w));
}

namespace {
/// A shipped sample for `duration_s` with the quick air model, into `db` (lab-8node at 0.5 m by default).
ct::session::RunRequest sampleRun(const std::string& db, double duration_s, const char* sample = "lab-8node", double cell_m = 0.5) {
    m::ValidationReport rep = m::loadAndValidate(std::string(CT_RESOURCE_DIR) + "/scenarios/" + sample + ".json");
    ct::session::RunRequest q;
    q.scenario = std::move(rep.scenario);
    q.catalog = std::move(rep.catalog);
    q.engine.air = "quick";
    q.engine.cell_m = cell_m;
    q.engine.threads = 1;
    q.duration_s = duration_s;
    q.db_path = db;
    q.run_name = "test";
    q.meta.source = "tst_runs";
    return q;
}
}  // namespace

void TstRuns::aCancelledSessionIsKeptAndMarkedInterrupted() {
    // The one run loop (issue 39): a cancel from any front end stops the run at the next step, keeps what ran
    // and marks it the same way (metadata, an event, the run list), whatever asked for the stop.
    QTemporaryDir tmp;
    const std::string db = tmp.filePath("cancel.sqlite").toStdString();
    ct::session::RunSession run(sampleRun(db, 3600));
    int progress = 0;
    ct::session::RunCallbacks cb;
    cb.progress = [&](const ct::session::RunProgress& p) { progress = p.percent; };
    cb.cancelled = [&] { return progress >= 2; };
    cb.cancel_reason = "cancelled";
    const auto o = run.run(cb);
    QCOMPARE(int(o.end), int(ct::session::RunEnd::Cancelled));
    QVERIFY(o.sim_time_s > 0 && o.sim_time_s < 3600);
    auto store = r::TelemetryStore::open(db, r::TelemetryStore::Mode::Existing);
    const auto runs = store.runs();
    QCOMPARE(runs.size(), std::size_t(1));
    const r::RunMeta& meta = runs[0].meta;
    QVERIFY(meta.interrupted);
    QCOMPARE(meta.interrupted_by, std::string("cancelled"));
    QCOMPARE(meta.interrupted_at_s.value_or(-1), o.sim_time_s);
    QCOMPARE(*runs[0].end_s, o.sim_time_s);
    QCOMPARE(store.eventCount(runs[0].id, "interrupted"), std::int64_t(1));
    const r::RunOverview ov = r::describeRun(store, runs[0].id);
    QVERIFY(ov.interrupted);
    QVERIFY(!ov.complete);
    // What ran was recorded: the replay reaches the time it stopped.
    const r::RunReplay rp = r::RunReplay::load(store, runs[0].id);
    QCOMPARE(rp.endS(), o.sim_time_s);
    QVERIFY(rp.seriesCount() > 0);
}

void TstRuns::aSessionThatRunsToItsEndIsComplete() {
    QTemporaryDir tmp;
    const std::string db = tmp.filePath("full.sqlite").toStdString();
    ct::session::RunSession run(sampleRun(db, 120));
    QVERIFY(run.storesFields());
    const auto o = run.run();
    QCOMPARE(int(o.end), int(ct::session::RunEnd::Finished));
    QCOMPARE(o.sim_time_s, 120.0);
    auto store = r::TelemetryStore::open(db, r::TelemetryStore::Mode::Existing);
    const auto info = store.runs().at(0);
    QVERIFY(!info.meta.interrupted);
    QCOMPARE(info.meta.source, std::string("tst_runs"));
    QCOMPARE(info.meta.air, std::string("quick"));
    QVERIFY(!info.meta.air_summary.empty());
    QCOMPARE(info.meta.duration_s.value_or(0), 120.0);
    QVERIFY(!info.meta.scenario_hash.empty());
    QVERIFY(r::describeRun(store, info.id).complete);
    // Samples every 10 s (13 records: t = 0, 10, ..., 120) and fields every 60 s (t = 0, 60, 120).
    const r::RunReplay rp = r::RunReplay::load(store, info.id);
    const auto* power = rp.series(rp.info().scenario_id, "it_power_w");
    QVERIFY(power);
    QCOMPARE(power->size(), std::size_t(13));
    QCOMPARE(store.airFieldTimes(info.id).size(), std::size_t(3));
    // The outcome's energy is the integral of the site's power over the run.
    QVERIFY(o.it_energy_j > 0);
    QVERIFY(std::abs(o.it_energy_j / 120 - o.last.it_power_w) / o.last.it_power_w < 0.05);
}

void TstRuns::theFrameAtAnAlertsMomentShowsWhatRaisedIt() {
    // Issue 40: the demo's racks cross 27 °C between the 10 s samples (r02-05 at 4 s); a click on the alert moves
    // the timeline to its moment, where the view, the hint and the inspector read the replayed frame. That frame
    // must show the value that raised the alert, not the sample before it (20 °C).
    QTemporaryDir tmp;
    const std::string db = tmp.filePath("alerts.sqlite").toStdString();
    ct::session::RunRequest q = sampleRun(db, 120, "demo", ct::sim::EngineOptions{}.cell_m);
    ct::session::RunSession(std::move(q)).run();
    auto store = r::TelemetryStore::open(db, r::TelemetryStore::Mode::Existing);
    const r::RunReplay rp = r::RunReplay::load(store, store.runs().at(0).id);
    int checked = 0, between = 0;
    for (const auto& e : rp.events()) {
        const m::AlertKindInfo k = m::alertKind(e.kind);
        if (!e.value || k.metric.empty() || !rp.series(e.target, k.metric)) continue;
        const m::Frame f = rp.frameAt(e.t_s);
        double shown = std::nan("");
        for (const auto& rk : f.racks)
            if (rk.id == e.target && k.metric == "inlet_max_c") shown = rk.inlet_max_c;
        const double stored = r::valueAt(*rp.series(e.target, k.metric), e.t_s);
        QVERIFY2(std::fabs(stored - *e.value) <= 1e-6 * std::max(1.0, std::fabs(*e.value)),
                 qPrintable(QString("%1 %2 at %3 s: the alert says %4, the replay %5")
                                .arg(QString::fromStdString(e.kind), QString::fromStdString(e.target))
                                .arg(e.t_s)
                                .arg(*e.value)
                                .arg(stored)));
        if (!std::isnan(shown)) QCOMPARE(shown, stored);
        between += std::fmod(e.t_s, 10.0) != 0.0 ? 1 : 0;
        ++checked;
    }
    QVERIFY2(checked > 0, "the demo raised no alert with a value");
    QVERIFY2(between > 0, "no alert fell between two samples: the check would pass without the fix");
}

QTEST_GUILESS_MAIN(TstRuns)
#include "tst_runs.moc"

void TstRuns::aRunInProgressIsReadAsItGrows() {
    // Issue 40: the app showed a run in progress by loading it whole at every checkpoint. A replay extended at
    // each checkpoint with what was written since reads only the new chunks, and at the end is what a fresh load
    // of the finished run is: every series point for point, the events, the end.
    QTemporaryDir tmp;
    const std::string db = tmp.filePath("growing.sqlite").toStdString();
    ct::session::RunRequest q = sampleRun(db, 600, "demo", 0.5);
    q.record_every_s = 10;
    std::optional<r::RunReplay> grown;
    std::optional<r::TelemetryStore> reader;
    int checkpoints = 0, extended = 0;
    std::size_t added = 0;
    ct::session::RunCallbacks cb;
    cb.checkpoint_every_s = 1e-9;  // after every step: the reader sees the run in many pieces
    cb.checkpoint = [&](std::int64_t run) {
        if (++checkpoints % 7 != 0) return;
        if (!reader) reader.emplace(r::TelemetryStore::open(db, r::TelemetryStore::Mode::Existing));
        if (!grown) {
            grown.emplace(r::RunReplay::load(*reader, run));
            return;
        }
        added += grown->extend(*reader);
        ++extended;
    };
    ct::session::RunSession(std::move(q)).run(cb);
    QVERIFY(grown.has_value());
    QVERIFY2(extended >= 5, qPrintable(QString::number(extended)));
    QVERIFY(added > 0);
    const double before_end = grown->endS();
    grown->extend(*reader);  // what the end wrote: the last samples, events and the run's end
    QVERIFY(grown->endS() >= before_end);
    auto store = r::TelemetryStore::open(db, r::TelemetryStore::Mode::Existing);
    const r::RunReplay fresh = r::RunReplay::load(store, grown->info().id);
    QCOMPARE(grown->startS(), fresh.startS());
    QCOMPARE(grown->endS(), fresh.endS());
    QCOMPARE(grown->seriesCount(), fresh.seriesCount());
    QCOMPARE(grown->events().size(), fresh.events().size());
    QCOMPARE(grown->info().end_s.value_or(-1), fresh.info().end_s.value_or(-2));
    std::size_t points = 0;
    for (const auto& e : fresh.entities()) {
        QCOMPARE(grown->kindOf(e), fresh.kindOf(e));
        for (const auto& m : fresh.metricsOf(e)) {
            const auto* a = grown->series(e, m);
            const auto* b = fresh.series(e, m);
            QVERIFY2(a && *a == *b, qPrintable(QString::fromStdString(e + " " + m)));
            points += b->size();
        }
    }
    QVERIFY(points > 1000);
    // An import merges sources and is read whole.
    QVERIFY_THROWS_EXCEPTION(r::StoreError, [] {
        QTemporaryDir t2;
        auto st = r::TelemetryStore::open(t2.filePath("i.sqlite").toStdString());
        const auto id = st.createRun("import", "imported", "s");
        r::RunReplay rp = r::RunReplay::load(st, id);
        rp.extend(st);
    }());
}
