// Issue 17 (telemetry, lose nothing): entity identities that keep distinct things distinct, the one
// vocabulary, and the Redfish, CSV and Prometheus defects of the issue, each on a real file from
// ../shared/testdata or, where none has the case, a fixture under tests/data/import (named with its source).
#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/runs/store.hpp>

#include "parse_checks.hpp"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include "test_paths.hpp"

using namespace ct::importers;
using namespace ct::runs;
using namespace parse_checks;

namespace {
const std::string kData = CT_SHARED_TESTDATA_DIR;
const std::string kOwn = std::string(CT_TEST_DATA_DIR) + "/import";
void write(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}
#define NEED_DATA() \
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout")
}  // namespace

class TstImportIdentity : public QObject {
    Q_OBJECT
private slots:
    void redfishPowerSuppliesWithOneName();
    void redfishServersWithTheSameChassisId();
    void redfishReadingsTheIssueNamed();
    void redfishTimedRecords();
    void nvidiaSmiFilesWithoutAHostStayApart();
    void nvidiaGpuExporterMatchesTheCsvOfTheSameCapture();
    void prometheusSeriesDifferingOnlyInPid();
    void oneVocabularyAcrossFormats();
    void cutFilesAreWarned();
    void slurmMultiLineNodesAndRunningJobs();
    void infinibandNamesAndGroupedOutput();
};

void TstImportIdentity::redfishPowerSuppliesWithOneName() {
    NEED_DATA();
    // HPE iLO 5 names both supplies "HpeServerPowerSupply": they were one entity and the second's readings
    // collided with the first's. Now the member id tells them apart (and the crawl directory names the host).
    const ParseResult r = parseFile(kData + "/redfish/telegraf-testdata/hp/hp_power.json");
    QCOMPARE(value(r, "hp/1/hpe_server_power_supply_0", "power_out_w"), 0.0);
    QCOMPARE(value(r, "hp/1/hpe_server_power_supply_1", "power_out_w"), 90.0);
    std::set<std::tuple<std::string, std::string, double>> keys;
    for (const auto& s : r.samples) QVERIFY2(keys.insert({s.entity, s.metric, s.t_s}).second, (s.entity + " " + s.metric).c_str());
}

void TstImportIdentity::redfishServersWithTheSameChassisId() {
    // Two servers' crawls, both "Chassis/1" (every HPE server's chassis is), saved per server as the DMTF
    // mockups are: each is its own host, nothing collides, and a scenario mapping finds them by host.
    QTemporaryDir dir;
    const std::string power = R"({"@odata.id": "/redfish/v1/Chassis/1/Power", "@odata.type": "#Power.v1_5_0.Power",
        "PowerControl": [{"PowerConsumedWatts": %W%}]})";
    for (const auto& [host, w] : std::map<std::string, std::string>{{"srv-a", "221"}, {"srv-b", "305"}}) {
        std::string text = power;
        text.replace(text.find("%W%"), 3, w);
        write(dir.path().toStdString() + "/" + host + "/redfish/v1/Chassis/1/Power/index.json", text);
    }
    auto store = TelemetryStore::open(dir.path().toStdString() + "/t.db");
    ImportSession session(store, {});
    session.importFiles({{dir.path().toStdString() + "/srv-a/redfish/v1/Chassis/1/Power/index.json", true},
                         {dir.path().toStdString() + "/srv-b/redfish/v1/Chassis/1/Power/index.json", true}});
    const ImportSummary sum = session.finish();
    QCOMPARE(sum.written.conflicts, std::int64_t(0));
    QCOMPARE(sum.written.stored, std::int64_t(2));
    std::set<std::string> ids;
    for (const auto& e : sum.entities) ids.insert(e.id);
    QVERIFY(ids.count("srv-a/1") && ids.count("srv-b/1"));
    for (const auto& e : sum.entities)
        if (e.id == "srv-a/1") QCOMPARE(e.labels.at("host"), std::string("srv-a"));
}

void TstImportIdentity::redfishReadingsTheIssueNamed() {
    NEED_DATA();
    const std::string t = kData + "/redfish/telegraf-testdata";
    const std::string d = kData + "/redfish/dmtf-Redfish-Publications__public-liquid-cooled-server/Chassis/1U";
    // PowerOutputWatts (Dell iDRAC) was never read.
    QCOMPARE(value(parseFile(t + "/dell/dell_power.json"), "dell/System.Embedded.1/ps1_status", "power_out_w"), 203.0);
    // A sensor that is Absent is not 0 °C: no sample, a no_data note naming its state.
    const ParseResult absent = parseFile(d + "/Sensors/PS2InputPower/index.json");
    QCOMPARE(absent.samples.size(), std::size_t(0));
    QVERIFY(hasWarning(absent, "no_data", "Absent"));
    // ... and an Absent member of a Thermal array that shows 0 (minimal resource written from DMTF's Thermal
    // schema, Status.State "Absent"): not stored as 0 °C.
    const ParseResult thermal =
        parseText(parseRedfishJson, R"({"@odata.id": "/redfish/v1/Chassis/1/Thermal", "@odata.type": "#Thermal.v1_7_0.Thermal",
        "Temperatures": [{"Name": "CPU1", "ReadingCelsius": 41, "Status": {"State": "Enabled"}},
                         {"Name": "CPU2", "ReadingCelsius": 0, "Status": {"State": "Absent"}}]})");
    QCOMPARE(thermal.samples.size(), std::size_t(1));
    QVERIFY(hasWarning(thermal, "no_data", "/Temperatures/1/Status/State"));
    // ReadingUnits "Cel" without ReadingType is a temperature, not a metric "reading" in "Cel".
    const ParseResult ambient = parseFile(d + "/Sensors/AmbientTemp/index.json");
    QCOMPARE(value(ambient, "dmtf-Redfish-Publications__public-liquid-cooled-server/1U/Sensors/AmbientTemp", "temp_c"), 22.5);
    QCOMPARE(unit(ambient, "dmtf-Redfish-Publications__public-liquid-cooled-server/1U/Sensors/AmbientTemp", "temp_c"), std::string("degC"));
    // TemperatureSummaryCelsius keeps its unit.
    const ParseResult metrics = parseFile(t + "/hp/thermal_subsys/hp_thermal_metrics.json");
    QCOMPARE(value(metrics, "thermal_subsys/1", "ambient_c"), 19.0);
    QCOMPARE(unit(metrics, "thermal_subsys/1", "ambient_c"), std::string("degC"));
    // A percentage is named by what it measures (the CDU's pump), not "percent".
    const std::string cdu = kData + "/redfish/dmtf-Redfish-Publications__public-cooling-unit";
    const ParseResult hum = parseFile(cdu + "/Chassis/CDU/Sensors/SystemRelativeHumidity/index.json");
    QCOMPARE(unit(hum, "dmtf-Redfish-Publications__public-cooling-unit/CDU/Sensors/SystemRelativeHumidity", "humidity"),
             std::string("ratio"));
    // Properties that carry their unit in their name (Redfish's naming rule) get it.
    const ParseResult psu = parseFile(d + "/PowerSubsystem/PowerSupplies/Bay1/Metrics/index.json");
    bool rail = false;
    for (const auto& s : psu.samples) rail = rail || (s.metric == "rail_current_a" && s.unit == "A");
    QVERIFY(rail);
}

void TstImportIdentity::redfishTimedRecords() {
    // HPE's FastPowerMeter: 10-s records with their own Time (fixture written from HPE's iLO 5 Redfish
    // reference, HpePowerMeter resource). Imported as 0 samples with no warning before.
    const ParseResult r = parseFile(kOwn + "/hpe_fast_power_meter.json");
    const std::string e = "import/1/Power/FastPowerMeter";
    int power = 0;
    for (const auto& s : r.samples) power += s.entity == e && s.metric == "power_w";
    QCOMPARE(power, 3);
    const ImportedSample* first = find(r, e, "power_w");
    QVERIFY(first);
    QCOMPARE(first->t_s, 1709632800.0);  // 2024-03-05T10:00:00Z
    QCOMPARE(first->value, 412.0);
    QCOMPARE(value(r, e, "inlet_c"), 22.0);
    QCOMPARE(value(r, e, "cpu_utilization"), 0.35);
    QVERIFY(r.warnings.empty());
}

void TstImportIdentity::nvidiaSmiFilesWithoutAHostStayApart() {
    NEED_DATA();
    // nvidia-smi -q -x names no host: the twelve telegraf captures all landed on unknown-host/gpu0. Each file
    // is now its own host (its name), its GPU keeps its UUID, and none collides.
    QTemporaryDir dir;
    auto store = TelemetryStore::open(dir.path().toStdString() + "/t.db");
    std::vector<std::pair<std::string, bool>> files;
    for (const auto& f : std::filesystem::directory_iterator(kData + "/nvidia_smi_xml")) files.push_back({f.path().string(), true});
    ImportSession session(store, {});
    session.importFiles(files);
    const ImportSummary sum = session.finish();
    QCOMPARE(sum.written.conflicts, std::int64_t(0));
    QCOMPARE(sum.written.duplicates, std::int64_t(0));
    std::set<std::string> gpus;
    for (const auto& e : sum.entities)
        if (e.kind == "gpu") {
            gpus.insert(e.id);
            QVERIFY2(e.labels.count("uuid"), e.id.c_str());
        }
    QCOMPARE(gpus.size(), files.size());
    QVERIFY(gpus.count("telegraf__tesla-t4/gpu0"));
    // A stream has no file name: unknown-host, as before.
    std::ifstream in(kData + "/nvidia_smi_xml/telegraf__tesla-t4.nvidia-smi-q-x.xml");
    QVERIFY(find(parseNvidiaSmiXml(in, {}, {}, 0), "unknown-host/gpu0", "temp_c"));
}

void TstImportIdentity::nvidiaGpuExporterMatchesTheCsvOfTheSameCapture() {
    NEED_DATA();
    // utkuozdemir/nvidia_gpu_exporter's scrape of an H100 under load (excerpt of its
    // internal/integration/testdata/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.metrics, MIT) and
    // nvidia-smi's CSV of the same capture (shared testdata): the same names, units and values. Before, the
    // nvidia_smi_* series attached to the host and gave no power_w or temp_c.
    ParseOptions o;
    o.host = "h100";
    std::ifstream prom_in(kOwn + "/nvidia_gpu_exporter_h100_load.metrics");
    o.file_name = "exporter";
    o.default_time_s = 1000;
    const ParseResult prom = parsePrometheusText(prom_in, o);
    const ParseResult csv = parseFile(
        kData + "/nvidia_smi_csv/nvidia_gpu_exporter__linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__load.query-gpu.csv", {}, "h100");
    QCOMPARE(value(prom, "h100/gpu0", "power_w"), 631.95);
    QCOMPARE(value(prom, "h100/gpu0", "temp_c"), 59.0);
    std::size_t compared = 0;
    for (const auto& s : prom.samples) {
        // Per-process series have no CSV column; the exporter's own health (command_exit_code) is the host's.
        if (s.metric.find('{') != std::string::npos || s.entity == "h100") continue;
        QCOMPARE(s.entity, std::string("h100/gpu0"));
        const ImportedSample* c = find(csv, "h100/gpu0", s.metric);
        QVERIFY2(c, s.metric.c_str());
        QCOMPARE(c->unit, s.unit);
        QVERIFY2(std::abs(c->value - s.value) <= 1e-9 * std::max(1.0, std::abs(s.value)),
                 (s.metric + " " + std::to_string(s.value) + " vs " + std::to_string(c->value)).c_str());
        ++compared;
    }
    QCOMPARE(compared, std::size_t(12));
    for (const auto& e : prom.entities)
        if (e.id == "h100/gpu0") {
            QCOMPARE(e.name, std::string("NVIDIA H100 80GB HBM3"));
            QCOMPARE(e.labels.at("uuid"), std::string("GPU-00000000-0000-0000-0000-000000000000"));
        }
}

void TstImportIdentity::prometheusSeriesDifferingOnlyInPid() {
    // The exporter's per-process memory: three series on one GPU that differ only in pid (and process name).
    // They collided on (entity, metric, time) and two of three were lost; each is now its own series.
    std::ifstream in(kOwn + "/nvidia_gpu_exporter_h100_load.metrics");
    ParseOptions o;
    o.default_time_s = 1000;
    const ParseResult r = parsePrometheusText(in, o);
    std::map<std::string, double> per_pid;
    for (const auto& s : r.samples)
        if (s.metric.rfind("nvidia_smi_compute_app_used_memory_bytes{", 0) == 0) per_pid[s.metric] = s.value;
    QCOMPARE(per_pid.size(), std::size_t(3));
    QCOMPARE(per_pid.at("nvidia_smi_compute_app_used_memory_bytes{pid=\"11345\",process_name=\"./gpu_burn\"}"), 1.645215744e10);
    // Series with the same value under two label sets (a GPU listed once per pod sharing it) are one reading:
    // no new names, the store counts the repeat.
    const ParseResult pods = parseText(parsePrometheusText,
                                       "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"n1\",pod=\"a\"} 40\n"
                                       "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"n1\",pod=\"b\"} 40\n");
    QCOMPARE(pods.samples.size(), std::size_t(2));
    QCOMPARE(pods.samples[1].metric, std::string("temp_c"));
    // Histogram buckets differ only in le.
    const ParseResult h = parseText(parsePrometheusText, "lat_bucket{le=\"0.1\"} 3\nlat_bucket{le=\"1\"} 7\n");
    QCOMPARE(h.samples[0].metric, std::string("lat_bucket{le=\"0.1\"}"));
}

void TstImportIdentity::oneVocabularyAcrossFormats() {
    NEED_DATA();
    // The same quantity from nvidia-smi CSV, -q -x XML and the DCGM exporter: one name, one unit. Before:
    // "temperature_memory" without a unit (CSV) vs memory_temp_c (DCGM, XML); utilization_memory in % vs a ratio.
    const ParseResult csv = parseText(
        parseNvidiaSmiCsv, "index, temperature.memory, utilization.memory [%], power.draw.instant [W], pstate\n0, 44, 11 %, 80.5 W, P2\n");
    QCOMPARE(unit(csv, "unknown-host/gpu0", "memory_temp_c"), std::string("degC"));
    QCOMPARE(value(csv, "unknown-host/gpu0", "mem_copy_utilization"), 0.11);
    QCOMPARE(value(csv, "unknown-host/gpu0", "power_instant_w"), 80.5);
    QCOMPARE(value(csv, "unknown-host/gpu0", "pstate"), 2.0);
    const ParseResult dcgm =
        parseText(parsePrometheusText, "DCGM_FI_DEV_MEMORY_TEMP{gpu=\"0\"} 44\nDCGM_FI_DEV_MEM_COPY_UTIL{gpu=\"0\"} 11\n");
    QCOMPARE(unit(dcgm, "unknown-host/gpu0", "memory_temp_c"), std::string("degC"));
    QCOMPARE(value(dcgm, "unknown-host/gpu0", "mem_copy_utilization"), 0.11);
    const ParseResult xml = parseFile(kData + "/nvidia_smi_xml/telegraf__a100-sxm4-v12.nvidia-smi-q-x.xml");
    QCOMPARE(value(xml, "telegraf__a100-sxm4-v12/gpu0", "memory_temp_c"), 44.0);
    QCOMPARE(value(xml, "telegraf__a100-sxm4-v12/gpu0", "pstate"), 0.0);
    // v13 has no power_draw: its average is power.draw's value; the instant reading is power_instant_w.
    const ParseResult v13 = parseFile(kData + "/nvidia_smi_xml/telegraf__rtx-3080-v13.nvidia-smi-q-x.xml");
    QCOMPARE(value(v13, "telegraf__rtx-3080-v13/gpu0", "power_w"), 139.62);
    QCOMPARE(value(v13, "telegraf__rtx-3080-v13/gpu0", "power_instant_w"), 142.33);
    // Every row of docs/importers.md's vocabulary table is what the CSV parser does with that field.
    std::ifstream doc(std::string(CT_TEST_DATA_DIR) + "/../../docs/importers.md");
    QVERIFY(doc.good());
    std::string line;
    int rows = 0;
    bool in_table = false;
    while (std::getline(doc, line)) {
        if (line.rfind("| nvidia-smi field |", 0) == 0) in_table = true;
        else if (in_table && line.rfind("| `", 0) != 0 && line.rfind("|---", 0) != 0) in_table = false;
        if (!in_table || line.rfind("| `", 0) != 0) continue;
        std::vector<std::string> cells;
        for (std::size_t p = 1; p < line.size();) {
            const auto e = line.find('|', p);
            std::string c = line.substr(p, e - p);
            c.erase(0, c.find_first_not_of(' '));
            c.erase(c.find_last_not_of(' ') + 1);
            c.erase(std::remove(c.begin(), c.end(), '`'), c.end());
            cells.push_back(c);
            p = e + 1;
        }
        QVERIFY(cells.size() >= 4);
        const std::string field = cells[0], smi_unit = cells[1], metric = cells[2], u = cells[3];
        const std::string header = "index, " + field + (smi_unit.empty() || smi_unit == "C" ? "" : " [" + smi_unit + "]");
        const ParseResult one = parseText(parseNvidiaSmiCsv, header + "\n0, " + (field == "pstate" ? "P3" : "7") + "\n");
        QVERIFY2(find(one, "unknown-host/gpu0", metric), (field + " -> " + metric).c_str());
        const std::string want_unit = u == "(0–15)" ? "" : u;
        QCOMPARE(unit(one, "unknown-host/gpu0", metric), want_unit);
        ++rows;
    }
    QCOMPARE(rows, 28);
    // No GPU metric from any of these formats is without a unit unless it is a count or a state.
    for (const ParseResult* r : {&csv, &dcgm, &xml, &v13})
        for (const auto& s : r->samples) QVERIFY2(!s.unit.empty() || s.metric == "pstate", s.metric.c_str());
}

void TstImportIdentity::cutFilesAreWarned() {
    // A CSV cut inside its header said nothing; a scrape cut inside its last line stored a cut number.
    const ParseResult csv = parseText(parseNvidiaSmiCsv, "index, temperature.gpu, power.dr");
    QVERIFY(hasWarning(csv, "truncated", "header"));
    const ParseResult long_csv = parseText(parseLongCsv, "time,entity,metric,va");
    QVERIFY(hasWarning(long_csv, "truncated", "header"));
    const ParseResult prom = parseText(parsePrometheusText, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 45\nDCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} 4");
    QCOMPARE(prom.samples.size(), std::size_t(1));
    QVERIFY(hasWarning(prom, "truncated", "t:2"));
    // A CSV without a final newline is common and whole (netdata's capture): no warning.
    const ParseResult whole = parseText(parseNvidiaSmiCsv, "index, temperature.gpu\n0, 41");
    QCOMPARE(whole.samples.size(), std::size_t(1));
    QVERIFY(whole.warnings.empty());
}

void TstImportIdentity::slurmMultiLineNodesAndRunningJobs() {
    // scontrol show node without -o: Gres= and CfgTRES= on indented lines (records written after the examples
    // of Slurm's scontrol man page). Before, the continuation lines were skipped and no GPU was created.
    const ParseResult nodes = parseText(parseSlurmNodes,
                                        "NodeName=gpu-a01 Arch=x86_64 CoresPerSocket=32\n"
                                        "   CPUAlloc=64 CPUEfctv=64 CPUTot=64 CPULoad=12.50\n"
                                        "   Gres=gpu:a100:4(S:0-1)\n"
                                        "   State=ALLOCATED ThreadsPerCore=1 TmpDisk=0 Weight=1\n"
                                        "   CfgTRES=cpu=64,mem=500G,billing=64,gres/gpu=4\n"
                                        "   CurrentWatts=1850 AveWatts=1700\n"
                                        "\n"
                                        "NodeName=gpu-h01 Arch=x86_64 CoresPerSocket=56\n"
                                        "   Gres=(null)\n"
                                        "   CfgTRES=cpu=112,mem=2000G,billing=112,gres/gpu=8,gres/gpu:h100=8\n");
    std::map<std::string, int> gpus;
    std::map<std::string, std::string> model;
    for (const auto& e : nodes.entities)
        if (e.kind == "gpu") {
            ++gpus[e.parent];
            model[e.parent] = e.name;
        }
    QCOMPARE(gpus["gpu-a01"], 4);
    QCOMPARE(model["gpu-a01"], std::string("a100"));
    QCOMPARE(gpus["gpu-h01"], 8);
    QCOMPARE(model["gpu-h01"], std::string("h100"));
    QCOMPARE(value(nodes, "gpu-a01", "power_w"), 1850.0);
    QVERIFY(nodes.warnings.empty());
    // squeue: a RUNNING job's END_TIME is its time limit, not a stop; its user is kept.
    QTemporaryDir dir;
    const std::string f = dir.path().toStdString() + "/squeue.txt";
    write(f,
          "JOBID|NAME|USER|PARTITION|STATE|SUBMIT_TIME|START_TIME|END_TIME|NODELIST|TRES_ALLOC\n"
          "4242|train|alice|gpu|RUNNING|2024-03-05T09:00:00|2024-03-05T09:05:00|2024-03-06T09:05:00|gpu-a01|cpu=64,gres/gpu=4\n"
          "4243|eval|bob|gpu|COMPLETED|2024-03-05T08:00:00|2024-03-05T08:01:00|2024-03-05T08:31:00|gpu-a01|cpu=8,gres/gpu=1\n");
    const SlurmResult jobs = parseSlurmFile(f);
    QCOMPARE(jobs.jobs.size(), std::size_t(2));
    QCOMPARE(jobs.jobs[0].user, std::string("alice"));
    QVERIFY(jobs.jobs[0].start_s && !jobs.jobs[0].end_s);
    QCOMPARE(jobs.jobs[0].gpus, 4);
    QVERIFY(jobs.jobs[1].end_s);
    QCOMPARE(*jobs.jobs[1].end_s - *jobs.jobs[1].start_s, 1800.0);
}

void TstImportIdentity::infinibandNamesAndGroupedOutput() {
    // The example of ibnetdiscover's man page (grouped output with its "Non-Chassis Nodes" header, warned
    // about before), with a managed switch whose node description has '/' and ':' (it became the id).
    const ParseResult r =
        parseText(parseIbnetdiscover,
                  "#\n# Topology file: generated on Tue Jun  5 14:15:10 2007\n#\n"
                  "# Max of 3 hops discovered\n# Initiated from node 0008f10403960558 port 0008f10403960559\n\n"
                  "Non-Chassis Nodes\n\n"
                  "vendid=0x8f1\ndevid=0x5a06\nsysimgguid=0x5442ba00003000\n"
                  "switchguid=0x5442ba00003080(5442ba00003080)\n"
                  "Switch  24 \"S-005442ba00003080\"         # \"MF0;ib-sw17:MSB7800/U1\" base port 0 lid 6 lmc 0\n"
                  "[22]    \"H-0008f10403961354\"[1](8f10403961355)         # \"node17 HCA-1\" lid 4 4xSDR\n\n"
                  "vendid=0x2c9\ndevid=0x5a44\ncaguid=0x8f10403961354\n"
                  "Ca      2 \"H-0008f10403961354\"         # \"node17 HCA-1\"\n"
                  "[1](8f10403961355)     \"S-005442ba00003080\"[22]         # lid 4 lmc 0 \"MF0;ib-sw17:MSB7800/U1\" lid 6 4xSDR\n");
    QVERIFY2(r.warnings.empty(), r.warnings.empty() ? "" : r.warnings[0].message.c_str());
    bool sw = false, hca = false;
    for (const auto& e : r.entities) {
        if (e.kind == "ib_switch") {
            sw = e.id == "ibsw-005442ba00003080" && e.labels.at("description") == "MF0;ib-sw17:MSB7800/U1";
            QVERIFY2(e.id.find('/') == std::string::npos && e.id.find(':') == std::string::npos, e.id.c_str());
        }
        hca = hca || (e.id == "node17/hca-1" && e.parent == "node17");
    }
    QVERIFY(sw && hca);
    QCOMPARE(r.links.size(), std::size_t(1));
}

QTEST_GUILESS_MAIN(TstImportIdentity)
#include "tst_import_identity.moc"
