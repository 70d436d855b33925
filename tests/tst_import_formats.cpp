// Telemetry import, issue 4 second part: nvidia-smi XML, Redfish, ibnetdiscover/ibswinfo, Slurm JSON and node
// inventories on the real files in ../shared/testdata (values read by hand), every file there, malformed
// variants of every format, mapping onto a scenario, the skeleton scenario, Slurm jobs for the replay.
#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include "parse_checks.hpp"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QTest>

#include <map>

#include <cmath>
#include <fstream>
#include <sstream>
#include "test_paths.hpp"

using namespace ct::importers;
using namespace parse_checks;

namespace {
const std::string kData = CT_SHARED_TESTDATA_DIR;
std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
#define NEED_DATA() \
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout")
}  // namespace

class TstImportFormats : public QObject {
    Q_OBJECT
private slots:
    void nvidiaSmiXmlAcrossVersions();
    void redfishLegacyAndNewResources();
    void redfishMockupDirectoriesImport();
    void ibnetdiscoverPortsAndTopologyFile();
    void ibswinfoHealth();
    void slurmJsonBothNumberStyles();
    void slurmNodeInventories();
    void everyFileInTestdataImports();
    void malformedVariantsOfEveryFormat();
    void mappingRulesAndUnmatchedReport();
    void skeletonScenarioFromTelemetry();
    void skeletonTakesTheHardwareTheTelemetryReports();
    void slurmJobsForTheReplay();
};

void TstImportFormats::nvidiaSmiXmlAcrossVersions() {
    NEED_DATA();
    // v12 A100 with MIG: legacy <power_readings>-less v12 layout, MIG instances 3..6, timestamp in ctime form.
    const ParseResult a100 = parseFile(kData + "/nvidia_smi_xml/telegraf__a100-sxm4-v12.nvidia-smi-q-x.xml", {}, "node7");
    QCOMPARE(value(a100, "node7/gpu0", "temp_c"), 27.0);
    QCOMPARE(value(a100, "node7/gpu0", "power_w"), 67.03);
    QVERIFY(hasEntity(a100, "node7/gpu0/mig3") && hasEntity(a100, "node7/gpu0/mig6"));
    QCOMPARE(find(a100, "node7/gpu0", "temp_c")->t_s, 1691149470.0);  // Fri Aug  4 11:44:30 2023 (UTC)
    QVERIFY(!find(a100, "node7/gpu0", "utilization"));                // N/A under MIG: skipped, not zero
    // v13: average_power_draw (what power.draw reports) / instant_power_draw, clocks_event_reasons. No host
    // in the file: the host is the file's name.
    const ParseResult v13 = parseFile(kData + "/nvidia_smi_xml/telegraf__rtx-3080-v13.nvidia-smi-q-x.xml");
    const std::string g = "telegraf__rtx-3080-v13/gpu0";
    QCOMPARE(value(v13, g, "power_w"), 139.62);
    QCOMPARE(value(v13, g, "power_instant_w"), 142.33);
    QCOMPARE(value(v13, g, "utilization"), 0.65);
    QCOMPARE(value(v13, g, "power_limit_w"), 320.0);
    QCOMPARE(value(v13, g, "throttle_thermal"), 0.0);
    bool uuid = false;
    for (const auto& e : v13.entities)
        uuid = uuid || (e.kind == "gpu" && e.labels.count("uuid") && e.labels.at("uuid") == "GPU-19d6d965-2acc-f646-00f8-4c76979aabb4");
    QVERIFY(uuid);
    // An old (pre-v12) file: <power_readings><power_draw> N/A, temperature read.
    const ParseResult old = parseFile(kData + "/nvidia_smi_xml/telegraf__gtx-1070-ti.nvidia-smi-q-x.xml");
    QCOMPARE(value(old, "telegraf__gtx-1070-ti/gpu0", "temp_c"), 39.0);
    QVERIFY(!find(old, "telegraf__gtx-1070-ti/gpu0", "power_w"));
}

void TstImportFormats::redfishLegacyAndNewResources() {
    NEED_DATA();
    const std::string t = kData + "/redfish/telegraf-testdata";
    // Files saved loose in a directory: the directory is the host (dell/, hp/).
    const ParseResult thermal = parseFile(t + "/dell/dell_thermal.json");
    QCOMPARE(value(thermal, "dell/System.Embedded.1/system_board_fan1a", "fan_rpm"), 17760.0);
    QCOMPARE(value(thermal, "dell/System.Embedded.1/cpu1_temp", "temp_c"), 40.0);
    const ParseResult power = parseFile(t + "/dell/dell_power.json");
    QCOMPARE(value(power, "dell/System.Embedded.1", "power_w"), 429.0);
    bool null_warned = false;  // "LastPowerOutputWatts": null → no_data with its JSON pointer
    for (const auto& w : power.warnings)
        null_warned = null_warned || (w.kind == "no_data" && w.location.find("#/PowerSupplies/0/") != std::string::npos);
    QVERIFY(null_warned);
    QCOMPARE(value(parseFile(t + "/hp/hp_power.json"), "hp/1", "power_w"), 221.0);
    const ParseResult metrics = parseFile(t + "/hp/thermal_subsys/hp_thermal_metrics.json");
    QCOMPARE(value(metrics, "thermal_subsys/1", "ambient_c"), 19.0);
    QCOMPARE(value(metrics, "thermal_subsys/1/01_inlet_ambient", "temp_c"), 19.0);
    // DMTF mockups: a Sensor (L/min), an outlet's excerpts, a fan's SpeedPercent. The mockup mirrors the URIs
    // below its directory, which is the host.
    const std::string d = kData + "/redfish/dmtf-Redfish-Publications__public-";
    QCOMPARE(value(parseFile(d + "cooling-unit/Chassis/CDU/Sensors/PrimaryFlow/index.json"),
                   "dmtf-Redfish-Publications__public-cooling-unit/CDU/Sensors/PrimaryFlow", "flow_lpm"),
             42.0);
    const ParseResult outlet = parseFile(d + "pdu/PowerEquipment/RackPDUs/1/Outlets/A1/index.json");
    const std::string a1 = "dmtf-Redfish-Publications__public-pdu/PowerEquipment/RackPDUs/1/Outlets/A1";
    QCOMPARE(value(outlet, a1, "power_w"), 197.4);
    QCOMPARE(value(outlet, a1, "current_a"), 1.68);
    QCOMPARE(value(parseFile(d + "liquid-cooled-server/Chassis/1U/ThermalSubsystem/Fans/Bay1/index.json"),
                   "dmtf-Redfish-Publications__public-liquid-cooled-server/1U/ThermalSubsystem/Fans/Bay1", "fan_speed"),
             0.45);
    // A MetricReport carries its own times and names the property it reports by URI#pointer.
    const ParseResult rep =
        parseText(parseRedfishJson,
                  R"({"@odata.id": "/redfish/v1/TelemetryService/MetricReports/P", "@odata.type": "#MetricReport.v1_4_0.MetricReport",
        "MetricValues": [{"MetricValue": "103", "Timestamp": "2016-11-08T12:25:00-05:00", "MetricProperty": "/redfish/v1/Chassis/Tray_1/Power#/PowerControl/0/PowerConsumedWatts"},
                         {"MetricValue": "oops", "Timestamp": "2016-11-08T12:25:10-05:00", "MetricProperty": "/redfish/v1/Chassis/Tray_1/Power#/PowerControl/0/PowerConsumedWatts"}]})");
    QCOMPARE(value(rep, "Tray_1", "power_w"), 103.0);
    QCOMPARE(find(rep, "Tray_1", "power_w")->t_s, 1478625900.0);
    QCOMPARE(rep.warnings.size(), std::size_t(1));
    QCOMPARE(rep.warnings[0].location, std::string("t#/MetricValues/1/MetricValue"));
}

void TstImportFormats::redfishMockupDirectoriesImport() {
    NEED_DATA();
    // Every JSON resource of the three DMTF mockups and the vendor captures parses; readings come out of the
    // ones that carry them.
    int files = 0;
    std::size_t samples = 0;
    QDirIterator it(QString::fromStdString(kData + "/redfish"), {"*.json"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const std::string f = it.next().toStdString();
        const Detection det = detectFileFormat(f);
        if (!det.is("redfish-json")) continue;  // explorer_config.json
        const ParseResult r = parseFile(f);
        for (const auto& w : r.warnings) QVERIFY2(w.location.rfind(f, 0) == 0, w.location.c_str());
        samples += r.samples.size();
        ++files;
    }
    QVERIFY(files > 550);
    QVERIFY(samples > 400);
}

void TstImportFormats::ibnetdiscoverPortsAndTopologyFile() {
    NEED_DATA();
    const ParseResult p = parseFile(kData + "/infiniband/infiniband_exporter__ibnetdiscover_test.out");
    // 7 connected port lines, each cable listed from both ends, plus SW–SW: 4 distinct cables.
    QCOMPARE(p.links.size(), std::size_t(4));
    bool hca = false;
    for (const auto& e : p.entities)
        hca = hca ||
              (e.id == "o0001/hca-1" && e.parent == "o0001" && e.labels.at("guid") == "0x7cfe9003003b4bde" && e.labels.at("lid") == "134");
    QVERIFY(hca);
    QVERIFY(hasEntity(p, "ib-i1l1s01"));
    // The topology-file form (FORMATS.md §5b), with stderr noise before it and a bad port line.
    const ParseResult t =
        parseText(parseIbnetdiscover,
                  "src/query_smp.c:195; umad (DR path slid 0; dlid 0; 0,1) Connection timed out\n"
                  "#\n# Topology file: generated on Tue Jun  5 2018\n#\n"
                  "vendid=0x2c9\ndevid=0xcb20\nsysimgguid=0xe41d2d030003e470\nswitchguid=0xe41d2d030003e470(e41d2d030003e470)\n"
                  "Switch\t36 \"S-e41d2d030003e470\"\t\t# \"SwitchIB Mellanox Technologies\" base port 0 lid 268 lmc 0\n"
                  "[1]\t\"H-0002c902002789ac\"[1](2c902002789ad) \t\t# \"compute-00-01 HCA-1\" lid 3 4xEDR\n"
                  "[2 broken\n\n"
                  "vendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c902002789af\ncaguid=0x2c902002789ac\n"
                  "Ca\t2 \"H-0002c902002789ac\"\t\t# \"compute-00-01 HCA-1\"\n"
                  "[1](2c902002789ad) \t\"S-e41d2d030003e470\"[1]\t\t# lid 3 lmc 0 \"SwitchIB Mellanox Technologies\" lid 268 4xEDR\n");
    QCOMPARE(t.links.size(), std::size_t(1));
    QCOMPARE(t.links[0].speed, std::string("4xEDR"));
    QVERIFY(hasEntity(t, "compute-00-01/hca-1"));
    QCOMPARE(t.warnings.size(), std::size_t(2));  // the stderr line and "[2 broken"
    QCOMPARE(t.warnings[1].location, std::string("t:11"));
}

void TstImportFormats::ibswinfoHealth() {
    NEED_DATA();
    const ParseResult r = parseFile(kData + "/infiniband/infiniband_exporter__ibswinfo_test1.out");
    const std::string sw = "ibsw-1c34da0300010540";
    QCOMPARE(value(r, sw, "temp_c"), 45.0);
    QCOMPARE(value(r, sw + "/PSU0", "power_w"), 72.0);
    QCOMPARE(value(r, sw + "/fan1", "fan_rpm"), 8493.0);
    QCOMPARE(value(r, sw, "fan_fault"), 1.0);  // "fan status | ERROR"
    QCOMPARE(value(r, sw, "uptime_s"), 160 * 86400.0 + 10 * 3600 + 38 * 60 + 53);
    const ParseResult bad = parseFile(kData + "/infiniband/infiniband_exporter__ibswinfo_test-err1.out");
    QCOMPARE(bad.warnings.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(bad.warnings[0].location).endsWith(":20"));
    QVERIFY(bad.samples.size() >= 15);
}

void TstImportFormats::slurmJsonBothNumberStyles() {
    const std::string text = R"({"meta": {"plugin": {"type": "openapi/dbv0.0.37"}, "Slurm": {"release": "24.05.5"}}, "errors": [],
      "jobs": [
        {"job_id": 101, "name": "train", "user": "ann", "partition": "gpu", "state": {"current": "COMPLETED", "reason": "None"},
         "nodes": "dgx[001-002]", "time": {"submission": 1700000000, "start": 1700000100, "end": 1700003700, "elapsed": 3600},
         "tres": {"allocated": [{"type": "cpu", "count": 64}, {"type": "gres", "name": "gpu", "count": 16}]}},
        {"job_id": {"set": true, "infinite": false, "number": 102}, "array": {"job_id": {"set": true, "number": 100}, "task_id": {"set": true, "number": 3}},
         "state": {"current": ["RUNNING"]}, "nodes": "dgx003",
         "time": {"submission": {"set": true, "number": 1700000000}, "start": {"set": true, "number": 1700000200}, "end": {"set": false, "number": 0}}},
        {"name": "no id"},
        {"job_id": 104, "nodes": "dgx[9-1]", "time": {"start": 0}}
      ]})";
    std::istringstream in(text);
    ParseOptions o;
    o.file_name = "j.json";
    const SlurmResult r = parseSlurmJson(in, o);
    QCOMPARE(r.jobs.size(), std::size_t(3));
    QCOMPARE(r.jobs[0].gpus, 16);
    QCOMPARE(r.jobs[0].nodes, (std::vector<std::string>{"dgx001", "dgx002"}));
    QCOMPARE(*r.jobs[0].end_s - *r.jobs[0].start_s, 3600.0);
    QCOMPARE(r.jobs[1].id, std::string("100_3"));
    QCOMPARE(r.jobs[1].state, std::string("RUNNING"));
    QVERIFY(!r.jobs[1].end_s);
    QVERIFY(!r.jobs[2].start_s);  // start 0 = unset
    QCOMPARE(r.warnings.size(), std::size_t(2));
    QCOMPARE(r.warnings[0].location, std::string("j.json#/jobs/2/job_id"));
    QCOMPARE(r.warnings[1].location, std::string("j.json#/jobs/3/nodes"));
}

void TstImportFormats::slurmNodeInventories() {
    NEED_DATA();
    const ParseResult sc = parseFile(kData + "/slurm/hb-jobinfo__habrok__scontrol.txt");
    QVERIFY(hasEntity(sc, "a100gpu1/gpu3") && !hasEntity(sc, "a100gpu1/gpu4"));  // gres/gpu=4
    const ParseResult gres = parseFile(kData + "/slurm/ood_core__osc__sinfo_gres.txt");
    QVERIFY(hasEntity(gres, "a0001/gpu3"));
    const ParseResult ali = parseFile(kData + "/jobs_trace/alibaba-clusterdata__gpu-v2023__openb_node_list_gpu_node.csv");
    QVERIFY(hasEntity(ali, "openb-node-0000/gpu1") && !hasEntity(ali, "openb-node-0000/gpu2"));  // 2 x P100
    // The squeue \x1F columns of OSC become jobs; its first row has two fields more than the header: warned
    // at its line and skipped, the others kept.
    const SlurmResult q = parseSlurmFile(kData + "/slurm/ood_core__osc__null_submit_time.txt");
    QCOMPARE(q.jobs.size(), std::size_t(3));
    QCOMPARE(q.jobs[0].id, std::string("6787542"));
    QCOMPARE(q.jobs[0].nodes, (std::vector<std::string>{"c0902"}));
    QVERIFY(QString::fromStdString(q.warnings.at(0).location).endsWith("null_submit_time.txt:2"));
}

void TstImportFormats::everyFileInTestdataImports() {
    NEED_DATA();
    // Files that are not telemetry ClusterTwin reads, each with the reason detection gives.
    const std::map<std::string, std::string> not_imported = {
        {"FORMATS.md", "documentation"},
        {"SOURCES.md", "documentation"},
        {"alibaba-clusterdata__gpu-v2023__README.md", "documentation"},
        {"dcgm-exporter__etc__default-counters.csv", "DCGM exporter counter list"},
        {"hb-jobinfo__habrok__squeue.txt", ""},  // headerless squeue/sstat -o output: columns unknown
        {"hb-jobinfo__habrok__sstat.txt", ""},
        {"ood_core__osc__owens_nodes.txt", ""},  // sinfo -o / scontrol partition listings: no GPUs or samples
        {"ood_core__osc__owens_partitions.txt", ""},
        {"ood_core__osc__sinfo_fc.txt", ""},
        {"$metadata/index.xml", "XML without"},  // Redfish $metadata (CSDL)
        {"odata/index.json", ""},                // the OData service document
        {"explorer_config.json", ""},
    };
    const std::string sacct_fields =
        "JobID,JobName,User,Partition,NodeList,NNodes,NCPUs,NTasks,State,Submit,Start,End,Timelimit,Elapsed,TotalCPU,CPUTime,UserCPU,"
        "SystemCPU,ReqMem,MaxRSS,MaxVMSize,ReqTRES,AllocTRES,TRESUsageInMax,TRESUsageInMax,TRESUsageInTot,TRESUsageInTot,TRESUsageOutTot,"
        "MaxDiskRead,MaxDiskWrite,MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MaxVMSizeTask,MaxDiskReadNode,MaxDiskReadTask,MaxDiskWriteNode,"
        "MaxDiskWriteTask";
    int imported = 0, skipped = 0;
    QDirIterator it(QString::fromStdString(kData), QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const std::string f = it.next().toStdString();
        std::string base = f.substr(f.find_last_of('/') + 1);
        for (const auto& [suffix, why] : not_imported)
            if (f.size() >= suffix.size() && f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0) base = suffix;
        if (QFileInfo(QString::fromStdString(f)).size() == 0) {  // perfquery that failed: imports as nothing, said so
            const ParseResult r = parseFile(f);
            QCOMPARE(r.warnings.at(0).kind, std::string("empty"));
            ++imported;
            continue;
        }
        const Detection det = detectFileFormat(f);
        if (!det) {
            QVERIFY2(not_imported.count(base), ("not recognised: " + f).c_str());
            QVERIFY2(det.reason.find(not_imported.at(base)) != std::string::npos, (f + ": " + det.reason).c_str());
            ++skipped;
            continue;
        }
        QVERIFY2(!not_imported.count(base), ("now recognised, update the list: " + f).c_str());
        if (det.is("slurm-sacct") || det.is("slurm-json")) {
            const SlurmResult r = parseSlurmFile(f, base.find("habrok__sacct") != std::string::npos ? sacct_fields : "");
            QVERIFY2(!r.jobs.empty(), f.c_str());
        } else {
            const ParseResult r = parseFile(f);
            const bool empty_file = !r.warnings.empty() && r.warnings[0].kind == "empty";
            const bool collection = det.is("redfish-json");  // service roots, accounts: no readings
            QVERIFY2(empty_file || collection || !r.samples.empty() || !r.entities.empty() || !r.jobs.empty(), f.c_str());
        }
        ++imported;
    }
    QVERIFY(imported > 600);
    QVERIFY(skipped >= static_cast<int>(not_imported.size()));  // each listed file at least once (mockups repeat some)
}

void TstImportFormats::malformedVariantsOfEveryFormat() {
    NEED_DATA();
    struct Case {
        Parser fn;
        std::string file;
    };
    const std::vector<Case> cases = {
        {parsePrometheusText, "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom"},
        {parseNvidiaSmiCsv, "/nvidia_smi_csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.query-gpu.csv"},
        {parseNvidiaSmiXml, "/nvidia_smi_xml/telegraf__rtx-3080-v13.nvidia-smi-q-x.xml"},
        {parsePrometheusApiJson, "/prometheus_query/prometheus-docs__api-v1-query_range__matrix__up__example.json"},
        {parseRedfishJson, "/redfish/telegraf-testdata/dell/dell_thermal.json"},
        {parsePerfquery, "/infiniband/infiniband_exporter__perfquery_0x7cfe9003009ce5b0.out"},
        {parseIbnetdiscover, "/infiniband/infiniband_exporter__ibnetdiscover_test.out"},
        {parseIbswinfo, "/infiniband/infiniband_exporter__ibswinfo_test1.out"},
        {parseSlurmNodes, "/slurm/hb-jobinfo__habrok__scontrol.txt"},
    };
    for (const auto& c : cases) {
        const std::string text = readAll(kData + c.file);
        const ParseResult good = parseText(c.fn, text, "f");
        const std::size_t n = good.samples.size() + good.entities.size() + good.links.size();
        QVERIFY2(n > 0, c.file.c_str());
        auto count = [](const ParseResult& r) { return r.samples.size() + r.entities.size() + r.links.size(); };
        auto located = [&](const ParseResult& r) {
            for (const auto& w : r.warnings)
                if (w.location.rfind("f:", 0) != 0 && w.location.rfind("f#", 0) != 0) return false;
            return true;
        };
        // Empty, and truncated at two-thirds: no crash, warnings located.
        const ParseResult empty = parseText(c.fn, "", "f");
        QVERIFY(located(empty));
        const ParseResult cut = parseText(c.fn, text.substr(0, text.size() * 2 / 3), "f");
        QVERIFY2(located(cut), c.file.c_str());
        // Line formats keep what came before the cut; whole-document JSON cannot, and says so.
        const bool json = c.fn == parsePrometheusApiJson || c.fn == parseRedfishJson;
        if (json) QVERIFY2(!cut.warnings.empty(), c.file.c_str());
        else if (std::count(text.begin(), text.end(), '\n') >= 4) QVERIFY2(count(cut) > 0, c.file.c_str());
        // Garbage bytes and bad UTF-8 in the middle (own line), and a huge number: the good records are kept.
        const std::size_t mid = text.find('\n', text.size() / 2) + 1;
        std::string garbage = text;
        garbage.insert(mid, std::string("\x01\x02\xff\xfe garbage \xc3\x28 \"{[<\n", 22));
        const ParseResult g = parseText(c.fn, garbage, "f");
        QVERIFY2(located(g), c.file.c_str());
        if (!json) {
            QVERIFY2(count(g) + 2 >= n, c.file.c_str());
            QVERIFY2(!g.warnings.empty() || c.fn == parseIbnetdiscover, c.file.c_str());
        }
        // A number JSON cannot hold (found by fuzz_slurm_json): a warning, not an exception.
        if (json) QVERIFY(located(parseText(c.fn, "6E1226", "f")));
        std::string huge = text;
        if (const std::size_t p = huge.find_first_of("123456789", mid); p != std::string::npos && p < mid + 400)
            huge.insert(p, std::string(400, '9'));
        const ParseResult h = parseText(c.fn, huge, "f");
        QVERIFY2(located(h), c.file.c_str());
        for (const auto& s : h.samples) QVERIFY(!std::isnan(s.t_s));
    }
}

void TstImportFormats::mappingRulesAndUnmatchedReport() {
    NEED_DATA();
    ct::model::ValidationReport rep = ct::model::loadAndValidate(std::string(CT_SOURCE_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    QVERIFY(!ct::model::hasErrors(rep.diagnostics));
    ct::model::Scenario s = rep.scenario;
    const std::string node0 = s.halls[0].rows[0].racks[0].nodes[0].id;
    s.telemetry_mapping.push_back({"hostname", "gpu1-wl8sg", node0, {}});
    QVERIFY(!ct::model::hasErrors(ct::model::validateScenario(s, rep.catalog)));
    // The documented "<node>/gpuN" target of a gpu_uuid rule is accepted (it was refused); a GPU the node
    // does not have is not.
    s.telemetry_mapping.push_back({"gpu_uuid", "GPU-19d6d965-.*", node0 + "/gpu0", {}});
    QVERIFY(!ct::model::hasErrors(ct::model::validateScenario(s, rep.catalog)));
    s.telemetry_mapping.back().entity = node0 + "/gpu99";
    bool gpu_named = false;
    for (const auto& d : ct::model::validateScenario(s, rep.catalog)) gpu_named = gpu_named || d.location == "/telemetry_mapping/1/entity";
    QVERIFY(gpu_named);
    s.telemetry_mapping.pop_back();
    EntityMapper m(s);
    ParseResult l40s =
        parseFile(kData + "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom");
    ParseResult t4 =
        parseFile(kData + "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-ericsson-ccd__1x-tesla-t4__drv590.48.01__nohelp.metrics.prom");
    const MappingReport a = m.apply(l40s);
    QCOMPARE(a.unmatched.size(), std::size_t(0));
    QVERIFY(find(l40s, node0 + "/gpu0", "temp_c"));
    const MappingReport b = m.apply(t4);
    QVERIFY(std::find(b.unmatched.begin(), b.unmatched.end(), "cp-bm14r7") != b.unmatched.end());
    QVERIFY(find(t4, "cp-bm14r7/gpu0", "temp_c"));  // unmatched entities keep their ids
    // A bad rule is named by its pointer in the validator and refused by the mapper.
    s.telemetry_mapping.push_back({"hostname", "dgx(", "x", {}});
    bool named = false;
    for (const auto& d : ct::model::validateScenario(s, rep.catalog)) named = named || d.location == "/telemetry_mapping/1/pattern";
    QVERIFY(named);
    QVERIFY_THROWS_EXCEPTION(ImportError, EntityMapper{s});
    // Round trip of the rules through the scenario file.
    s.telemetry_mapping.pop_back();
    const auto back = ct::model::parseScenario(ct::model::scenarioToJson(s));
    QCOMPARE(back.scenario.telemetry_mapping, s.telemetry_mapping);
}

namespace {
/// The scenario's nodes by hostname, and its catalog merged with its own section (checked clean).
std::map<std::string, std::string> modelsByHost(const ct::model::Scenario& s) {
    std::map<std::string, std::string> out;
    for (const auto& h : s.halls)
        for (const auto& r : h.rows)
            for (const auto& k : r.racks)
                for (const auto& n : k.nodes) out[n.hostname] = n.model;
    return out;
}
ct::model::Catalog mergedCatalog(const ct::model::Scenario& s) {
    ct::model::Diagnostics d;
    ct::model::Catalog c = ct::model::effectiveCatalog(s, ct::model::Catalog::builtin(), d);
    for (const auto& x : d) QTest::qVerify(x.severity != ct::model::Severity::Error, "catalog", x.toString().c_str(), __FILE__, __LINE__);
    return c;
}
}  // namespace

void TstImportFormats::skeletonScenarioFromTelemetry() {
    NEED_DATA();
    // Slurm's inventory: a100gpu* nodes with four GPUs of gres type "a100", v100 nodes, CPU-only nodes.
    const ParseResult sc = parseFile(kData + "/slurm/hb-jobinfo__habrok__scontrol.txt");
    std::vector<std::string> notes;
    const ct::model::Scenario s = skeletonScenario(sc.entities, &notes);
    const ct::model::Catalog cat = mergedCatalog(s);
    int a100 = 0;
    const auto models = modelsByHost(s);
    for (const auto& [host, model] : models)
        if (host.rfind("a100gpu", 0) == 0) {
            ++a100;
            // Four A100s, as the inventory says: not an eight-GPU DGX A100.
            const ct::model::ServerModel* sm = cat.server(model);
            QVERIFY2(sm, model.c_str());
            QCOMPARE(sm->gpu_count, 4);
            QCOMPARE(sm->gpu_model, std::string("a100-sxm4-80gb"));
        }
    int hosts = 0;
    for (const auto& e : sc.entities) hosts += e.kind == "node";
    QCOMPARE(static_cast<int>(models.size()), hosts);
    QVERIFY(a100 >= 5);
    // The guesses are said: "a100" names no form factor; v100 is not in the catalog and gets a generic entry.
    bool said_a100 = false, said_v100 = false;
    for (const auto& n : notes) {
        said_a100 = said_a100 || n.find("'a100': an A100 named without its form factor") != std::string::npos;
        said_v100 = said_v100 || n.find("'v100' is not in the catalog") != std::string::npos;
    }
    QVERIFY(said_a100 && said_v100);
    const ct::model::GpuModel* v100 = cat.gpu("telemetry-gpu-v100");
    QVERIFY(v100 && v100->name.find("Unknown GPU 'v100' (generic figures)") != std::string::npos);
    QVERIFY(!ct::model::hasErrors(ct::model::validateScenario(s, cat)));
    QVERIFY_THROWS_EXCEPTION(ImportError, skeletonScenario({}));
}

void TstImportFormats::skeletonTakesTheHardwareTheTelemetryReports() {
    NEED_DATA();
    // Issue 40: four single-GPU hosts scraped by DCGM (a T4, an L4, an L40S, an A100 vGPU) became four 8-GPU DGX
    // H100s, the T4 labelled 70 / 700 W so that at 68 W and 91 % it looked idle, and memory temperatures 0.0 °C.
    std::vector<ImportedEntity> entities;
    for (const char* f : {"cncf-k8s-ai-conformance__v1.35-ericsson-ccd__1x-tesla-t4__drv590.48.01__nohelp.metrics.prom",
                          "cncf-k8s-ai-conformance__v1.35-kops__1x-nvidia-l4__drv580.105.08.metrics.prom",
                          "cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom",
                          "cncf-k8s-ai-conformance__v1.35-vks__1x-grid-a100-40c-vgpu__drv580.126.09.metrics.prom"}) {
        const ParseResult r = parseFile(kData + "/dcgm_exporter/" + f);
        entities.insert(entities.end(), r.entities.begin(), r.entities.end());
        for (const auto& smp : r.samples) QVERIFY2(smp.metric != "memory_temp_c", "a GPU without a memory sensor stored 0 °C");
    }
    std::vector<std::string> notes;
    const ct::model::Scenario s = skeletonScenario(entities, &notes);
    const ct::model::Catalog cat = mergedCatalog(s);
    const std::map<std::string, std::string> want = {{"cp-bm14r7", "t4-pcie-16gb"},
                                                     {"i-030791dc5a37cd257", "l4-pcie-24gb"},
                                                     {"gpu1-wl8sg", "l40s-pcie-48gb"},
                                                     {"test-ai-1-node-pool-40c-d5ds8-br9r6-9tb2c", "a100-pcie-40gb"}};
    const auto models = modelsByHost(s);
    QCOMPARE(models.size(), want.size());
    for (const auto& [host, gpu] : want) {
        const ct::model::ServerModel* sm = cat.server(models.at(host));
        QVERIFY2(sm, host.c_str());
        QCOMPARE(sm->gpu_count, 1);
        QCOMPARE(sm->gpu_model, gpu);
        QVERIFY(sm->max_power_w < 1500);  // one card and a two-socket host, not a 10 kW DGX
    }
    QCOMPARE(cat.gpu("t4-pcie-16gb")->max_power_w, 70.0);  // 68 W is 97 % of it
    bool said_vgpu = false;
    for (const auto& n : notes) said_vgpu = said_vgpu || n.find("a vGPU profile") != std::string::npos;
    QVERIFY(said_vgpu);
    QVERIFY(!ct::model::hasErrors(ct::model::validateScenario(s, cat)));
    // The names the tools give map onto the catalog; a GPU it does not know maps onto nothing.
    QCOMPARE(catalogGpuFor("NVIDIA H100 80GB HBM3"), std::string("h100-sxm5-80gb"));
    QCOMPARE(catalogGpuFor("NVIDIA H100 PCIe"), std::string("h100-pcie-80gb"));
    QCOMPARE(catalogGpuFor("NVIDIA H100 NVL"), std::string("h100-nvl-94gb"));
    QCOMPARE(catalogGpuFor("NVIDIA A100-SXM4-80GB"), std::string("a100-sxm4-80gb"));
    QCOMPARE(catalogGpuFor("NVIDIA A100 80GB PCIe"), std::string("a100-pcie-80gb"));
    QCOMPARE(catalogGpuFor("NVIDIA A100-PCIE-40GB"), std::string("a100-pcie-40gb"));
    QCOMPARE(catalogGpuFor("NVIDIA L40S"), std::string("l40s-pcie-48gb"));
    QCOMPARE(catalogGpuFor("NVIDIA L40"), std::string());
    QCOMPARE(catalogGpuFor("NVIDIA A10G"), std::string());
    QCOMPARE(catalogGpuFor("NVIDIA GB200"), std::string("gb200-blackwell-186gb"));
}

void TstImportFormats::slurmJobsForTheReplay() {
    NEED_DATA();
    ct::model::ValidationReport rep = ct::model::loadAndValidate(std::string(CT_SOURCE_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    ct::model::Scenario s = rep.scenario;
    // Habrok's a100gpu<N> onto the lab's nodes by rule.
    std::vector<std::string> ids;
    for (const auto& r : s.halls[0].rows)
        for (const auto& k : r.racks)
            for (const auto& n : k.nodes) ids.push_back(n.id);
    for (std::size_t i = 0; i < ids.size(); ++i) s.telemetry_mapping.push_back({"hostname", "a100gpu" + std::to_string(i + 1), ids[i], {}});
    const EntityMapper m(s);
    const SlurmJob a{"1", "x", "u", "p", "COMPLETED", {"a100gpu1", "a100gpu2"}, 100.0, 200.0, 500.0, 8};
    const SlurmJob b{"2", "y", "u", "p", "COMPLETED", {"a100gpu3", "gpu99"}, 100.0, 300.0, 400.0, 4};
    const SlurmJob c{"3", "z", "u", "p", "PENDING", {}, 150.0, std::nullopt, std::nullopt, 0};
    const SlurmJob d{"4", "w", "u", "p", "COMPLETED", {"elsewhere1"}, 100.0, 250.0, 260.0, 0};
    const ReplayJobs rj = slurmToJobs({a, b, c, d}, m);
    QCOMPARE(rj.t0_s, 200.0);
    QCOMPARE(rj.jobs.size(), std::size_t(2));
    QCOMPARE(rj.jobs[0].nodes, (std::vector<std::string>{ids[0], ids[1]}));
    QCOMPARE(rj.jobs[0].start_s, 0.0);
    QCOMPARE(*rj.jobs[0].end_s, 300.0);
    QCOMPARE(rj.jobs[1].nodes, (std::vector<std::string>{ids[2]}));
    QCOMPARE(rj.skipped.size(), std::size_t(3));  // partial job 2, never-started 3, unmatched 4
    // The jobs validate against the scenario (as `simulate --jobs` will check them).
    s.jobs = rj.jobs;
    s.telemetry_mapping.clear();
    QVERIFY(!ct::model::hasErrors(ct::model::validateScenario(s, rep.catalog)));
}

QTEST_GUILESS_MAIN(TstImportFormats)
#include "tst_import_formats.moc"
