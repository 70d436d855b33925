// Telemetry import (issue 4, first formats): real DCGM exporter scrapes from ../shared/testdata with values
// read by hand, malformed variants (warnings with file:line, good records kept, no crash), the long CSV.
#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/runs/store.hpp>

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>
#include <sstream>
#include "test_paths.hpp"

using namespace ct::importers;

namespace {
const ImportedSample* find(const ParseResult& r, const std::string& entity, const std::string& metric) {
    for (const auto& s : r.samples)
        if (s.entity == entity && s.metric == metric) return &s;
    return nullptr;
}
std::string dcgm(const char* name) { return std::string(CT_SHARED_TESTDATA_DIR) + "/dcgm_exporter/" + name; }
ParseResult parseText(const std::string& text, ParseResult (*fn)(std::istream&, const ParseOptions&, const Progress&, std::size_t)) {
    std::istringstream in(text);
    ParseOptions o;
    o.file_name = "t";
    o.default_time_s = 1000;
    return fn(in, o, {}, text.size());
}
}  // namespace

class TstImport : public QObject {
    Q_OBJECT
private slots:
    void realDcgmScrapesGiveTheValuesInTheFiles();
    void everyDcgmScrapeImports();
    void malformedScrapesWarnAndKeepTheGoodRecords();
    void progressCanCancel();
    void longCsvReadsSecondsAndIsoTimes();
    void nvidiaSmiCsvPrometheusApiAndPerfqueryGiveTheValuesInTheFiles();
    void hostlistsExpand();
    void sacctJobsFromTheRealHabrokFile();
    void sacctWithAHeaderAndSteps();
    void alertRulesOnEachPollRaiseWhatOneEvaluationDoes();
};

void TstImport::realDcgmScrapesGiveTheValuesInTheFiles() {
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout");
    // Values read by hand from the files.
    const ParseResult t4 = parseFile(dcgm("cncf-k8s-ai-conformance__v1.35-ericsson-ccd__1x-tesla-t4__drv590.48.01__nohelp.metrics.prom"));
    QVERIFY(find(t4, "cp-bm14r7/gpu0", "temp_c"));
    QCOMPARE(find(t4, "cp-bm14r7/gpu0", "temp_c")->value, 74.0);
    QCOMPARE(find(t4, "cp-bm14r7/gpu0", "power_w")->value, 68.244);
    QCOMPARE(find(t4, "cp-bm14r7/gpu0", "utilization")->value, 0.91);  // DCGM_FI_DEV_GPU_UTIL 91 %
    const ParseResult l40s = parseFile(dcgm("cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom"));
    QCOMPARE(find(l40s, "gpu1-wl8sg/gpu0", "temp_c")->value, 32.0);
    QCOMPARE(find(l40s, "gpu1-wl8sg/gpu0", "power_w")->value, 35.686);
    QCOMPARE(find(l40s, "gpu1-wl8sg/gpu0", "sm_clock_mhz")->value, 210.0);
    bool model = false;
    for (const auto& e : l40s.entities) model = model || (e.id == "gpu1-wl8sg/gpu0" && e.name == "NVIDIA L40S");
    QVERIFY(model);
    // The L4 capture starts with a line that is not exposition format: warned at line 1, the rest kept.
    const ParseResult l4 = parseFile(dcgm("cncf-k8s-ai-conformance__v1.35-kops__1x-nvidia-l4__drv580.105.08.metrics.prom"));
    QCOMPARE(find(l4, "i-030791dc5a37cd257/gpu0", "power_w")->value, 16.365);
    QVERIFY(!l4.warnings.empty());
    QVERIFY(QString::fromStdString(l4.warnings[0].location).endsWith(".prom:1"));
}

void TstImport::everyDcgmScrapeImports() {
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout");
    const QDir dir(QString(CT_SHARED_TESTDATA_DIR) + "/dcgm_exporter");
    int files = 0;
    for (const QString& f : dir.entryList({"*.prom"}, QDir::Files)) {
        const ParseResult r = parseFile(dir.filePath(f).toStdString());
        QVERIFY2(r.samples.size() >= 10, qPrintable(f));
        ++files;
    }
    QCOMPARE(files, 4);
}

void TstImport::malformedScrapesWarnAndKeepTheGoodRecords() {
    const std::string good = "# HELP DCGM_FI_DEV_GPU_TEMP t\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\", hostname=\"h1\"} 40\n";
    // Truncated in the middle of a label set, garbage bytes, bad UTF-8, a huge number, a sentinel, NaN, a timestamp.
    const std::string text = good + "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h1\n" + "\x01\x02 garbage\n" +
                             "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",Hostname=\"h\xc3\x28\"} 41\n" +
                             "DCGM_FI_DEV_POWER_USAGE{gpu=\"1\",Hostname=\"h1\"} 1e999\n" +
                             "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"1\",Hostname=\"h1\"} 9223372036854775794\n" +
                             "DCGM_FI_DEV_POWER_USAGE{gpu=\"2\",Hostname=\"h1\"} NaN\n" +
                             "DCGM_FI_DEV_GPU_TEMP{gpu=\"2\",Hostname=\"h1\",note=\"a \\\"quoted\\\" value\"} 43 1795266760000\n" +
                             "DCGM_FI_DEV_GPU_TEMP{gpu=\"3\" 44\n";
    const ParseResult r = parseText(text, parsePrometheusText);
    QVERIFY(find(r, "h1/gpu0", "temp_c") && find(r, "h1/gpu0", "temp_c")->value == 40.0);
    QVERIFY(find(r, "h1/gpu1", "power_w") && std::isinf(find(r, "h1/gpu1", "power_w")->value));
    QVERIFY(find(r, "h1/gpu2", "power_w") && std::isnan(find(r, "h1/gpu2", "power_w")->value));
    QVERIFY(find(r, "h1/gpu2", "temp_c") && find(r, "h1/gpu2", "temp_c")->t_s == 1795266760.0);
    QVERIFY(!find(r, "h1/gpu1", "memory_temp_c"));  // the sentinel is no data
    std::map<std::string, int> kinds;
    for (const auto& w : r.warnings) ++kinds[w.kind];
    QCOMPARE(kinds["syntax"], 3);  // truncated label set, garbage, unterminated label set
    QCOMPARE(kinds["bad_utf8"], 1);
    QCOMPARE(kinds["no_data"], 1);
    QCOMPARE(r.warnings[0].location, std::string("t:3"));
    QVERIFY(parseText("", parsePrometheusText).samples.empty());
}

void TstImport::progressCanCancel() {
    std::string text;
    for (int i = 0; i < 20000; ++i) text += "x{gpu=\"" + std::to_string(i) + "\"} 1\n";
    std::istringstream in(text);
    ParseOptions o;
    o.default_time_s = 0;
    int calls = 0;
    const ParseResult r = parsePrometheusText(
        in, o, [&](double) { return ++calls < 2; }, text.size());
    QVERIFY(r.cancelled);
    QVERIFY(r.samples.size() < 20000);
    QVERIFY(r.samples.size() >= 4095);
}

void TstImport::longCsvReadsSecondsAndIsoTimes() {
    const std::string text =
        "time,entity,metric,value,unit\n"
        "1795266760,r01-01,inlet_c,24.5,degC\n"
        "2026-11-21T13:12:40Z,r01-01,inlet_c,25.0,degC\n"
        "2026-11-21T14:12:40+01:00,r01-01,inlet_c,25.5,degC\n"
        "yesterday,r01-01,inlet_c,1,degC\n"
        "1795266770,r01-01,inlet_c,warm,degC\n"
        "1795266780,r01-01\n";
    const ParseResult r = parseText(text, parseLongCsv);
    QCOMPARE(r.samples.size(), std::size_t(3));
    QCOMPARE(r.samples[0].t_s, 1795266760.0);
    QCOMPARE(r.samples[1].t_s, 1795266760.0);  // 2026-11-21T13:12:40Z
    QCOMPARE(r.samples[2].t_s, 1795266760.0);  // the same instant at +01:00
    QCOMPARE(r.warnings.size(), std::size_t(3));
    QCOMPARE(r.warnings[0].location, std::string("t:5"));
    QVERIFY(parseText("a,b\n1,2\n", parseLongCsv).warnings.at(0).kind == "missing_field");
}

void TstImport::nvidiaSmiCsvPrometheusApiAndPerfqueryGiveTheValuesInTheFiles() {
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout");
    const std::string root = CT_SHARED_TESTDATA_DIR;
    auto metric = [](const ParseResult& r, const std::string& m) -> const ImportedSample* {
        for (const auto& s : r.samples)
            if (s.metric == m) return &s;
        return nullptr;
    };
    // netdata's Tesla P100 capture: "37", "28.16", "[N/A]" fan.
    const ParseResult p100 = parseFile(root + "/nvidia_smi_csv/netdata-go.d__tesla-p100.query-gpu.csv");
    QCOMPARE(metric(p100, "temp_c")->value, 37.0);
    QCOMPARE(metric(p100, "power_w")->value, 28.16);
    QCOMPARE(metric(p100, "utilization")->value, 0.0);
    QVERIFY(!metric(p100, "fan_speed"));
    // The H100 under load: "631.95 W", "59", "100 %".
    const ParseResult h100 =
        parseFile(root + "/nvidia_smi_csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.query-gpu.csv");
    QCOMPARE(metric(h100, "power_w")->value, 631.95);
    QCOMPARE(metric(h100, "temp_c")->value, 59.0);
    QCOMPARE(metric(h100, "utilization")->value, 1.0);
    bool named = false;
    for (const auto& e : h100.entities) named = named || e.name == "NVIDIA H100 80GB HBM3";
    QVERIFY(named);
    // Prometheus API: a vector with a string value, and a matrix of two series.
    const ParseResult vec =
        parseFile(root + "/prometheus_query/cncf-k8s-ai-conformance__upcloud__api-v1-query__vector__DCGM_FI_DEV_GPU_TEMP__compact.json");
    QCOMPARE(vec.samples.size(), std::size_t(1));
    QCOMPARE(vec.samples[0].entity, std::string("gpu1-wl8sg/gpu0"));
    QCOMPARE(vec.samples[0].metric, std::string("temp_c"));
    QCOMPARE(vec.samples[0].value, 32.0);
    QCOMPARE(vec.samples[0].t_s, 1775721747.082);
    const ParseResult mat = parseFile(root + "/prometheus_query/prometheus-docs__api-v1-query_range__matrix__up__example.json");
    QCOMPARE(mat.samples.size(), std::size_t(6));
    // perfquery: data counters are 4-byte words.
    const ParseResult ib = parseFile(root + "/infiniband/infiniband_exporter__perfquery_0x7cfe9003003b4bde.out");
    QCOMPARE(metric(ib, "xmit_bytes")->value, 9049592493976.0 * 4);
    QCOMPARE(metric(ib, "rcv_bytes")->value, 9752484588300.0 * 4);
    QCOMPARE(metric(ib, "xmit_bytes")->entity, std::string("ib-lid134/port1"));
    QCOMPARE(metric(ib, "symbol_error_counter")->value, 0.0);
}

void TstImport::hostlistsExpand() {
    QCOMPARE(expandHostlist("dgx[001-004,010]"), (std::vector<std::string>{"dgx001", "dgx002", "dgx003", "dgx004", "dgx010"}));
    QCOMPARE(expandHostlist("a100gpu2"), (std::vector<std::string>{"a100gpu2"}));
    QCOMPARE(expandHostlist("n1,cs[100,102]-ib"), (std::vector<std::string>{"n1", "cs100-ib", "cs102-ib"}));
    QVERIFY(expandHostlist("None assigned").empty());
    QVERIFY_THROWS_EXCEPTION(ImportError, expandHostlist("dgx[1-"));
    QVERIFY_THROWS_EXCEPTION(ImportError, expandHostlist("dgx[9-2]"));
}

void TstImport::sacctJobsFromTheRealHabrokFile() {
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout");
    // hb-jobinfo runs sacct --parsable --noheader --delimiter=☃ with this --format list (its jobinfo script).
    const std::string fields =
        "JobID,JobName,User,Partition,NodeList,NNodes,NCPUs,NTasks,State,Submit,Start,End,Timelimit,Elapsed,TotalCPU,"
        "CPUTime,UserCPU,SystemCPU,ReqMem,MaxRSS,MaxVMSize,ReqTRES,AllocTRES,TRESUsageInMax,TRESUsageInMax,TRESUsageInTot,"
        "TRESUsageInTot,TRESUsageOutTot,MaxDiskRead,MaxDiskWrite,MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MaxVMSizeTask,"
        "MaxDiskReadNode,MaxDiskReadTask,MaxDiskWriteNode,MaxDiskWriteTask";
    std::ifstream in(std::string(CT_SHARED_TESTDATA_DIR) + "/slurm/hb-jobinfo__habrok__sacct.txt");
    ParseOptions o;
    o.file_name = "sacct";
    const SlurmResult r = parseSacct(in, o, fields);
    for (const auto& w : r.warnings) qWarning("%s: %s", w.location.c_str(), w.message.c_str());
    QVERIFY(r.jobs.size() >= 5);
    const SlurmJob& j = r.jobs[0];  // read by hand from the first line
    QCOMPARE(j.id, std::string("4034541"));
    QCOMPARE(j.user, std::string("user424"));
    QCOMPARE(j.partition, std::string("gpumedium"));
    QCOMPARE(j.state, std::string("CANCELLED"));  // "CANCELLED by 10304007"
    QCOMPARE(j.nodes, (std::vector<std::string>{"a100gpu2"}));
    QVERIFY(*j.start_s > *j.submit_s && *j.end_s > *j.start_s);
    QCOMPARE(*j.end_s - *j.start_s, 3 * 3600.0 + 34 * 60 + 13);  // Elapsed 03:34:13
    bool none_assigned = false, array_task = false;
    for (const auto& x : r.jobs) {
        none_assigned = none_assigned || (x.id == "4047445" && x.nodes.empty() && !x.start_s);
        array_task = array_task || x.id == "5908801_3";
    }
    QVERIFY(none_assigned);
    QVERIFY(array_task);
    // Without the field list there is nothing to go on: a clear warning, no jobs.
    std::ifstream again(std::string(CT_SHARED_TESTDATA_DIR) + "/slurm/hb-jobinfo__habrok__sacct.txt");
    const SlurmResult bare = parseSacct(again, o);
    QVERIFY(bare.jobs.empty());
    QCOMPARE(bare.warnings.at(0).kind, std::string("missing_field"));
}

void TstImport::sacctWithAHeaderAndSteps() {
    const std::string text =
        "JobID|JobName|State|NodeList|Start|End|AllocTRES|\n"
        "101|train|COMPLETED|dgx[001-002]|2026-01-01T00:00:00|2026-01-01T01:00:00|cpu=64,gres/gpu=16,node=2|\n"
        "101.batch|batch|COMPLETED|dgx001|2026-01-01T00:00:00|2026-01-01T01:00:00||\n"
        "102|x|PENDING|None assigned|Unknown|Unknown||\n"
        "103|broken|RUNNING\n";
    std::istringstream in(text);
    ParseOptions o;
    o.file_name = "t";
    const SlurmResult r = parseSacct(in, o);
    QCOMPARE(r.jobs.size(), std::size_t(2));
    QCOMPARE(r.jobs[0].gpus, 16);
    QCOMPARE(r.jobs[0].nodes.size(), std::size_t(2));
    QCOMPARE(*r.jobs[0].end_s - *r.jobs[0].start_s, 3600.0);
    QVERIFY(!r.jobs[1].start_s);
    QCOMPARE(r.warnings.size(), std::size_t(1));
    QCOMPARE(r.warnings[0].location, std::string("t:5"));
}

QTEST_GUILESS_MAIN(TstImport)
void TstImport::alertRulesOnEachPollRaiseWhatOneEvaluationDoes() {
    // A followed server's polls evaluate only what came in since the last (AlertEvaluator keeps each rule's
    // state), so a poll costs what it adds. Evaluated poll by poll, three hours of a wandering temperature raise exactly the alerts
    // one evaluation of the whole run raises: none twice for an episode that straddles a poll, none missed for one
    // that begins just before a poll and completes its wait after it.
    QTemporaryDir tmp;
    AlertRuleSet rules;
    AlertRule hot;
    hot.alert = "gpu_warm";
    hot.metric = "temp_c";
    hot.limit = "80";
    hot.for_s = 60;
    hot.clear = 2;
    AlertRule cold = hot;
    cold.alert = "gpu_cool";
    cold.above = false;
    cold.limit = "70";
    cold.for_s = 0;
    cold.clear = 0;
    rules.rules = {hot, cold};
    std::vector<std::pair<double, double>> readings;  // every 15 s, a slow wander and a fast wiggle, and a gap
    for (int k = 0; k < 720; ++k)
        if (k < 300 || k > 330) readings.push_back({k * 15.0, 75 + 8 * std::sin(k / 23.0) + 2.5 * std::sin(k * 1.7)});
    auto evaluate = [&](const QString& name, double poll_s) {
        auto st = ct::runs::TelemetryStore::open(tmp.filePath(name).toStdString());
        const auto run = st.createRun("live", "imported", "");
        const auto id = st.series(run, {"g0", "temp_c", "degC", "prometheus"});
        AlertEvaluator ev(rules);
        std::size_t i = 0;
        for (double to = poll_s; i < readings.size(); to += poll_s) {
            std::vector<ct::runs::Sample> batch;
            for (; i < readings.size() && readings[i].first < to; ++i) batch.push_back({id, readings[i].first, readings[i].second});
            st.writeBatch(batch);
            ev.evaluate(st, run);
        }
        QStringList got;
        for (const auto& e : st.events(run)) got << QString("%1 %2 %3").arg(QString::fromStdString(e.kind)).arg(e.t_s).arg(*e.value);
        return got;
    };
    const QStringList once = evaluate("once.sqlite", 1e9);
    QVERIFY2(once.size() >= 8, qPrintable(once.join("; ")));
    for (double poll : {15.0, 45.0, 300.0, 1000.0}) QCOMPARE(evaluate(QString("poll%1.sqlite").arg(poll), poll), once);
}

#include "tst_import.moc"
