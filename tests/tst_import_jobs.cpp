// Issue 17, formats that were not read at all: nvidia-smi dmon, scontrol show job, sinfo --json, ClusterCockpit
// job archives, the Alibaba GPU trace (as a job replay source), and gzip for each. Real files where one exists
// (../shared/testdata, cc-backend's test archive); the rest written from the tools' documentation
// (tests/data/import/SOURCES.md says which).
#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/importers/slurm.hpp>
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/catalog.hpp>
#include <clustertwin/runs/chunk_codec.hpp>
#include <clustertwin/runs/store.hpp>

#include "parse_checks.hpp"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include "test_paths.hpp"

using namespace ct::importers;
using namespace ct::runs;
using namespace parse_checks;
namespace fs = std::filesystem;

namespace {
const std::string kData = CT_SHARED_TESTDATA_DIR;
const std::string kOwn = std::string(CT_TEST_DATA_DIR) + "/import";
const std::string kPods = kData + "/jobs_trace/alibaba-clusterdata__gpu-v2023__openb_pod_list_default.csv";
#define NEED_DATA() \
    if (!QDir(CT_SHARED_TESTDATA_DIR).exists()) QSKIP("shared/testdata not found beside the checkout")

/// The samples of one series, by time.
std::vector<std::pair<double, double>> series(const ParseResult& r, const std::string& entity, const std::string& metric) {
    std::vector<std::pair<double, double>> out;
    for (const auto& s : r.samples)
        if (s.entity == entity && s.metric == metric) out.push_back({s.t_s, s.value});
    std::sort(out.begin(), out.end());
    return out;
}
const SlurmJob* job(const std::vector<SlurmJob>& jobs, const std::string& id) {
    for (const auto& j : jobs)
        if (j.id == id) return &j;
    return nullptr;
}
void gzipFile(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    gzFile out = gzopen(to.c_str(), "wb");
    QVERIFY(out);
    QCOMPARE(gzwrite(out, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
    gzclose(out);
}
/// Samples as comparable tuples.
std::vector<std::tuple<std::string, std::string, double, double>> keys(const ParseResult& r) {
    std::vector<std::tuple<std::string, std::string, double, double>> k;
    for (const auto& s : r.samples) k.emplace_back(s.entity, s.metric, s.t_s, s.value);
    std::sort(k.begin(), k.end());
    return k;
}
}  // namespace

class TstImportJobs : public QObject {
    Q_OBJECT
private slots:
    void dmonWithoutTimes();
    void dmonWithDateAndTime();
    void dmonTimeOfDayOnly();
    void scontrolShowJob();
    void sinfoJsonNodes();
    void sinfoJsonEntries();
    void clusterCockpitCpuJob();
    void clusterCockpitGpuJob();
    void clusterCockpitDirectoryImportsEachJobOnce();
    void alibabaPodsAreJobs();
    void alibabaReplayNeverOverfillsANode();
    void gzipForEveryFormat();
    void fuzzFindingsStayFixed();
};

void TstImportJobs::dmonWithoutTimes() {
    // nvidia-smi dmon's default columns (-s puc) for two H100s, three intervals, no -o T: rows of a GPU are a
    // second apart from the file's time; '-' (jpg/ofa not read) is counted, not stored as 0.
    const ParseResult r = parseFile(kOwn + "/dgx-h100-07.dmon.txt");
    QVERIFY(hasEntity(r, "dgx-h100-07/gpu0") && hasEntity(r, "dgx-h100-07/gpu1"));
    const auto p = series(r, "dgx-h100-07/gpu0", "power_w");
    QCOMPARE(p.size(), std::size_t(3));
    QCOMPARE(p[0].second, 69.0);
    QCOMPARE(p[2].second, 655.0);
    QCOMPARE(p[1].first - p[0].first, 1.0);
    QCOMPARE(unit(r, "dgx-h100-07/gpu0", "temp_c"), std::string("degC"));
    QCOMPARE(series(r, "dgx-h100-07/gpu1", "memory_temp_c")[2].second, 65.0);
    QCOMPARE(series(r, "dgx-h100-07/gpu0", "utilization")[1].second, 0.98);  // sm % → the vocabulary's ratio
    QCOMPARE(unit(r, "dgx-h100-07/gpu0", "mem_clock_mhz"), std::string("MHz"));
    QCOMPARE(series(r, "dgx-h100-07/gpu0", "graphics_clock_mhz")[2].second, 1980.0);  // pclk
    QCOMPARE(r.samples.size(), std::size_t(6 * 11 - 8));
    QVERIFY(hasWarning(r, "no_data", "8 value(s)"));
    QVERIFY(hasWarning(r, "note", "no time"));
    QVERIFY(series(r, "dgx-h100-07/gpu0", "jpeg_utilization").size() == 1);  // the idle row read 0
}

void TstImportJobs::dmonWithDateAndTime() {
    // -o DT: Date and Time columns in local time; the header repeats; a bad value and a cut row are named.
    ParseOptions base;
    base.host_from_path = true;
    ParseResult r = parseFile(kOwn + "/gpu-node-3.dmon-dt.txt", base);
    const auto p = series(r, "gpu-node-3/gpu0", "power_w");
    QCOMPARE(p.size(), std::size_t(3));
    QCOMPARE(p[0].first, 1718100901.0);  // 2024-06-11T10:15:01Z
    QCOMPARE(p[2].second, 320.0);
    QVERIFY(hasWarning(r, "bad_value", "dmon-dt.txt:6"));
    QVERIFY(hasWarning(r, "syntax", "dmon-dt.txt:10"));
    QCOMPARE(series(r, "gpu-node-3/gpu1", "power_w").size(), std::size_t(1));  // xyz and the cut row skipped
    base.tz_offset_s = 2 * 3600;                                               // the machine ran at UTC+2
    r = parseFile(kOwn + "/gpu-node-3.dmon-dt.txt", base);
    QCOMPARE(series(r, "gpu-node-3/gpu0", "power_w")[0].first, 1718100901.0 - 7200);
}

void TstImportJobs::dmonTimeOfDayOnly() {
    // -o T alone: the time of day, on the day of the file's time; --format csv writes commas.
    const std::string text = "#Time, gpu, pwr, gtemp\n#HH:MM:SS, Idx, W, C\n 23:59:59, 0, 250, 60\n";
    std::istringstream in(text);
    ParseOptions o;
    o.file_name = "x.dmon";
    o.host = "h";
    o.default_time_s = 1718100901;  // 2024-06-11T10:15:01Z
    const ParseResult r = parseNvidiaSmiDmon(in, o);
    QCOMPARE(value(r, "h/gpu0", "power_w"), 250.0);
    QCOMPARE(find(r, "h/gpu0", "power_w")->t_s, 1718064000.0 + 86399);  // 2024-06-11T23:59:59Z
    QVERIFY(r.warnings.empty());
}

void TstImportJobs::scontrolShowJob() {
    // The first record is the real one ClusterCockpit keeps for job 398759 (fritz), the others are written
    // from scontrol's man page: an array task running on three H100 nodes, and a queued job.
    const ParseResult r = parseFile(kOwn + "/scontrol_show_job.txt");
    QCOMPARE(r.jobs.size(), std::size_t(3));
    QVERIFY(r.warnings.empty());
    const SlurmJob* a = job(r.jobs, "398759");
    QVERIFY(a);
    QCOMPARE(a->user, std::string("k106eb10"));
    QCOMPARE(a->state, std::string("COMPLETED"));
    QCOMPARE(a->nodes, std::vector<std::string>{"f1039"});
    QCOMPARE(*a->start_s, 1675954289.0);  // what ClusterCockpit's meta.json of the same job says
    QCOMPARE(*a->end_s - *a->start_s, 456.0);
    const SlurmJob* b = job(r.jobs, "5908801_2");
    QVERIFY(b);
    QCOMPARE(b->gpus, 24);
    QCOMPARE(b->nodes, (std::vector<std::string>{"dgx001", "dgx002", "dgx004"}));
    QVERIFY(!b->end_s);  // running: its EndTime is the limit
    QCOMPARE(b->user, std::string("alice"));
    const SlurmJob* c = job(r.jobs, "5908900");
    QVERIFY(c);
    QVERIFY(!c->start_s && !c->end_s);  // pending: its StartTime is an estimate
    QCOMPARE(c->gpus, 1);               // TresPerNode gres/gpu:1 on one node
}

void TstImportJobs::sinfoJsonNodes() {
    // The "nodes" shape (scontrol show nodes --json, slurmrestd, sinfo --json up to 22.05), numbers plain and
    // wrapped, written after the node example in slurmrestd's man page (Slurm 24.11).
    const ParseResult r = parseFile(kOwn + "/sinfo_nodes.json");
    QVERIFY(hasEntity(r, "dgx001/gpu7") && !hasEntity(r, "dgx001/gpu8"));
    QVERIFY(hasEntity(r, "dgx002/gpu7"));  // gres empty: the GPUs from tres gres/gpu=8
    QVERIFY(hasEntity(r, "login1") && !hasEntity(r, "login1/gpu0"));
    for (const auto& e : r.entities)
        if (e.id == "dgx001/gpu0") QCOMPARE(e.name, std::string("h100"));
    QCOMPARE(value(r, "dgx001", "power_w"), 6120.0);
    QCOMPARE(find(r, "dgx001", "power_w")->t_s, 1722010273.0);  // last_update
    QVERIFY(!find(r, "dgx002", "power_w"));                     // current_watts not set
    QCOMPARE(value(r, "dgx001", "cpu_load"), 18.4);
    QCOMPARE(value(r, "dgx001", "gpus_allocated"), 8.0);
    QCOMPARE(value(r, "dgx002", "gpus_allocated"), 0.0);
    QVERIFY(hasWarning(r, "missing_field", "#/nodes/3"));
}

void TstImportJobs::sinfoJsonEntries() {
    // The "sinfo" shape of Slurm 23.02 and later: a node listed once per partition, names as host lists.
    const ParseResult r = parseFile(kOwn + "/sinfo_entries.json");
    std::size_t nodes = 0;
    for (const auto& e : r.entities) nodes += e.kind == "node";
    QCOMPARE(nodes, std::size_t(2));
    QVERIFY(hasEntity(r, "gh001/gpu0") && hasEntity(r, "gh002/gpu0") && !hasEntity(r, "gh001/gpu1"));
    QVERIFY(hasWarning(r, "missing_field", "#/sinfo/2"));
}

void TstImportJobs::clusterCockpitCpuJob() {
    // cc-backend's own test archive (fritz job 398759, an excerpt of its data.json): the job, node metrics at
    // startTime + k·timestep, core and socket series under their own entities; the archive's two socket series
    // that both claim id 0 are both kept, and said.
    const ParseResult r = parseFile(kOwn + "/clustercockpit/fritz/398/759/1675954289/meta.json");
    QCOMPARE(r.jobs.size(), std::size_t(1));
    QCOMPARE(r.jobs[0].id, std::string("398759"));
    QCOMPARE(r.jobs[0].name, std::string("ams_pipeline"));
    QCOMPARE(r.jobs[0].nodes, std::vector<std::string>{"f1039"});
    QCOMPARE(*r.jobs[0].end_s, 1675954289.0 + 456);
    const auto load = series(r, "f1039", "cpu_load");
    QCOMPARE(load.size(), std::size_t(8));
    QCOMPARE(load[0], std::make_pair(1675954289.0, 28.14));
    QCOMPARE(load[7], std::make_pair(1675954289.0 + 7 * 60, 69.65));
    QCOMPARE(unit(r, "f1039", "clock"), std::string("MHz"));
    QCOMPARE(series(r, "f1039/core49", "clock")[4].second, 2800.63);
    QCOMPARE(series(r, "f1039", "cpu_power_w")[6].second, 504.19);
    QCOMPARE(series(r, "f1039/socket0", "cpu_power_w")[0].second, 92.71);
    QCOMPARE(series(r, "f1039/socket0-2", "cpu_power_w")[0].second, 85.08);
    QVERIFY(hasWarning(r, "note", "socket0-2"));
    // data.json given alone is read through its meta.json: the same samples.
    const ParseResult d = parseFile(kOwn + "/clustercockpit/fritz/398/759/1675954289/data.json");
    QCOMPARE(keys(d), keys(r));
}

void TstImportJobs::clusterCockpitGpuJob() {
    // A two-GPU job on an A40 node of alex, written from the archive schema, data.json gzip-compressed:
    // accelerators are numbered by the cluster's topology (00000000:41:00.0 is the third device, gpu2), GPU
    // metrics in the vocabulary, null = missing.
    const std::string dir = kOwn + "/clustercockpit/alex/1234/567/1700000000";
    const ParseResult r = parseFile(dir + "/meta.json");
    QVERIFY(hasEntity(r, "a0122/gpu2") && hasEntity(r, "a0122/gpu5"));
    QCOMPARE(series(r, "a0122/gpu2", "power_w")[2], std::make_pair(1700000120.0, 298.6));
    QCOMPARE(series(r, "a0122/gpu5", "power_w").size(), std::size_t(3));  // one null
    QCOMPARE(unit(r, "a0122/gpu2", "temp_c"), std::string("degC"));
    QCOMPARE(series(r, "a0122/gpu2", "utilization")[1].second, 0.97);
    QCOMPARE(series(r, "a0122/gpu2", "fb_used_mib")[1].second, 31.2e9 / 1048576.0);
    QVERIFY(hasWarning(r, "no_data", "4 sample(s)"));
    QCOMPARE(r.jobs.size(), std::size_t(1));
    QCOMPARE(r.jobs[0].gpus, 2);
    // Without the archive's cluster.json the device order is unknown: the job's GPUs in PCI order, said.
    QTemporaryDir tmp;
    const fs::path job = fs::path(tmp.path().toStdString()) / "alex/1234/567/1700000000";
    fs::create_directories(job);
    for (const char* f : {"meta.json", "data.json.gz"}) fs::copy_file(fs::path(dir) / f, job / f);
    const ParseResult loose = parseFile((job / "meta.json").string());
    QVERIFY(hasEntity(loose, "a0122/gpu0") && hasEntity(loose, "a0122/gpu1"));
    QVERIFY(hasWarning(loose, "note", "PCI order"));
}

void TstImportJobs::clusterCockpitDirectoryImportsEachJobOnce() {
    // Walking an archive: each job is read once through its meta.json (data files and cluster.json skipped),
    // and what the summary says is what the store holds.
    QTemporaryDir tmp;
    auto store = TelemetryStore::open(tmp.filePath("t.db").toStdString());
    ImportSession s(store, {});
    std::vector<std::pair<std::string, bool>> files;
    for (const auto& e : fs::recursive_directory_iterator(kOwn + "/clustercockpit"))
        if (e.is_regular_file()) files.push_back({e.path().string(), true});
    std::sort(files.begin(), files.end());
    s.importFiles(files);
    const ImportSummary sum = s.finish();
    QCOMPARE(sum.files, std::size_t(2));
    QCOMPARE(sum.skipped_files, std::size_t(3));
    QCOMPARE(sum.jobs.size(), std::size_t(2));
    QCOMPARE(sum.written.stored, sum.samples_read);
    QCOMPARE(sum.exitCode(), 0);
    QCOMPARE(store.seriesSummary(sum.run).size(), sum.series);
}

void TstImportJobs::alibabaPodsAreJobs() {
    NEED_DATA();
    ParseOptions base;
    base.trace_start_s = 1704067200;  // 2024-01-01T00:00:00Z
    const ParseResult r = parseFile(kPods, base);
    QVERIFY(r.warnings.empty());
    QCOMPARE(r.jobs.size(), std::size_t(8152));
    const SlurmJob* p1 = job(r.jobs, "openb-pod-0001");  // 1 GPU at 460 milli-GPU, scheduled at creation
    QVERIFY(p1);
    QCOMPARE(p1->gpus, 1);
    QCOMPARE(p1->gpu_share, 0.46);
    QCOMPARE(*p1->start_s, 1704067200.0 + 427061);
    QCOMPARE(*p1->end_s, 1704067200.0 + 12902960);
    QCOMPARE(p1->partition, std::string("LS"));
    std::size_t pending = 0, cpu_only = 0;
    for (const auto& j : r.jobs) {
        pending += !j.start_s;
        cpu_only += j.gpus == 0;
        if (j.start_s && j.end_s) QVERIFY(*j.end_s >= *j.start_s);
    }
    QCOMPARE(pending, std::size_t(897));  // Pending pods: never scheduled
    QCOMPARE(cpu_only, std::size_t(1088));
}

void TstImportJobs::alibabaReplayNeverOverfillsANode() {
    NEED_DATA();
    // The trace's pods replayed on a small hall (2 nodes, 16 GPUs; the trace's cluster held up to 71 GPUs at
    // once): every pod with GPUs that started is placed, those that found no room wait, and at no time does a
    // node hold more GPUs than it has.
    const ParseResult r = parseFile(kPods);
    ct::model::HallParams hp;
    hp.rows = 1;
    hp.racks_per_row = 1;
    hp.nodes_per_rack = 2;
    hp.topology = "none";
    const ct::model::Scenario s = ct::model::buildHall(hp);
    EntityMapper mapper(s);
    ReplayJobs rj = slurmToJobs(r.jobs, mapper);
    std::size_t gpu_started = 0;
    for (const auto& j : r.jobs) gpu_started += j.start_s && j.gpus > 0;
    const std::size_t placed = placeTraceJobs(rj, s, ct::model::Catalog::builtin());
    std::size_t too_big = 0, waited = 0;
    for (const auto& w : rj.skipped) too_big += w.kind == "too_big";
    QCOMPARE(placed + too_big, gpu_started);
    QCOMPARE(rj.jobs.size(), placed);
    std::map<std::string, std::vector<std::pair<double, int>>> deltas;  // node → (t, ±GPUs)
    for (const auto& j : rj.jobs) {
        QCOMPARE(j.nodes.size(), std::size_t(1));  // no pod wants more than one 8-GPU node
        const int g = std::stoi(j.extra.at("trace_gpus"));
        deltas[j.nodes[0]].push_back({j.start_s, g});
        if (j.end_s) deltas[j.nodes[0]].push_back({*j.end_s, -g});
        waited += j.extra.count("queued_s");
        QVERIFY(j.utilization > 0 && j.utilization <= 0.9);
    }
    QVERIFY(waited > 0);
    for (auto& [node, d] : deltas) {
        std::sort(d.begin(), d.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
        int held = 0;
        for (const auto& [t, g] : d) {
            held += g;
            QVERIFY2(held <= 8, (node + " holds " + std::to_string(held) + " GPUs at t=" + std::to_string(t)).c_str());
        }
    }
}

void TstImportJobs::gzipForEveryFormat() {
    NEED_DATA();
    // Every format reads the same compressed as plain, Slurm's accounting included.
    QTemporaryDir tmp;
    const std::vector<std::string> files = {
        kOwn + "/dgx-h100-07.dmon.txt",
        kOwn + "/scontrol_show_job.txt",
        kOwn + "/sinfo_nodes.json",
        kData + "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-kops__1x-nvidia-l4__drv580.105.08.metrics.prom",
        kData + "/nvidia_smi_xml/telegraf__tesla-t4.nvidia-smi-q-x.xml",
        kData + "/nvidia_smi_csv/netdata-go.d__tesla-p100.query-gpu.csv",
        kData + "/redfish/telegraf-testdata/dell/dell_power.json",
        kData + "/infiniband/infiniband_exporter__ibnetdiscover_test.out",
        kData + "/infiniband/infiniband_exporter__perfquery_0x506b4b03005c2740.out",
        kData + "/prometheus_query/prometheus-docs__api-v1-query_range__matrix__up__example.json",
        kData + "/slurm/hb-jobinfo__habrok__scontrol.txt",
        kData + "/jobs_trace/alibaba-clusterdata__gpu-v2023__openb_node_list_gpu_node.csv",
    };
    for (const auto& f : files) {
        const std::string name = fs::path(f).filename().string();
        const std::string plain = tmp.filePath(QString::fromStdString(name)).toStdString();
        fs::copy_file(f, plain);
        const std::string gz = plain + ".gz";
        gzipFile(f, gz);
        fs::last_write_time(gz, fs::last_write_time(plain));  // scrapes without times take the file's
        const ParseResult a = parseFile(plain), b = parseFile(gz);
        QVERIFY2(!a.samples.empty() || !a.jobs.empty() || !a.entities.empty(), name.c_str());
        QVERIFY2(keys(a) == keys(b), name.c_str());
        QCOMPARE(a.jobs.size(), b.jobs.size());
        QCOMPARE(a.entities.size(), b.entities.size());
    }
    const std::string sacct = kData + "/slurm/hb-jobinfo__habrok__sacct.txt";
    gzipFile(sacct, tmp.filePath("sacct.txt.gz").toStdString());
    const std::string fields =  // hb-jobinfo's --format list (its jobinfo script)
        "JobID,JobName,User,Partition,NodeList,NNodes,NCPUs,NTasks,State,Submit,Start,End,Timelimit,Elapsed,TotalCPU,CPUTime,UserCPU,"
        "SystemCPU,ReqMem,MaxRSS,MaxVMSize,ReqTRES,AllocTRES,TRESUsageInMax,TRESUsageInMax,TRESUsageInTot,TRESUsageInTot,TRESUsageOutTot,"
        "MaxDiskRead,MaxDiskWrite,MaxRSSNode,MaxRSSTask,MaxVMSizeNode,MaxVMSizeTask,MaxDiskReadNode,MaxDiskReadTask,MaxDiskWriteNode,"
        "MaxDiskWriteTask";
    const SlurmResult a = parseSlurmFile(sacct, fields), b = parseSlurmFile(tmp.filePath("sacct.txt.gz").toStdString(), fields);
    QVERIFY(!a.jobs.empty());
    QCOMPARE(a.jobs.size(), b.jobs.size());
    QCOMPARE(a.jobs.front().start_s, b.jobs.front().start_s);
}

void TstImportJobs::fuzzFindingsStayFixed() {
    // Inputs the fuzz targets (scripts/fuzz) crashed on, and their seeds, kept under tests/data/fuzz/<target>:
    // each parser reads them without crashing, hanging or throwing anything but ImportError.
    const std::map<std::string, Parser> parsers = {{"prometheus_text", parsePrometheusText},
                                                   {"long_csv", parseLongCsv},
                                                   {"nvidia_smi_csv", parseNvidiaSmiCsv},
                                                   {"nvidia_smi_xml", parseNvidiaSmiXml},
                                                   {"prometheus_api", parsePrometheusApiJson},
                                                   {"redfish", parseRedfishJson},
                                                   {"perfquery", parsePerfquery},
                                                   {"ibnetdiscover", parseIbnetdiscover},
                                                   {"ibswinfo", parseIbswinfo},
                                                   {"slurm_nodes", parseSlurmNodes},
                                                   {"nvidia_smi_dmon", parseNvidiaSmiDmon},
                                                   {"scontrol_jobs", parseScontrolJobs},
                                                   {"slurm_nodes_json", parseSlurmNodesJson},
                                                   {"alibaba_pods", parseAlibabaPods}};
    const std::string root = std::string(CT_TEST_DATA_DIR) + "/fuzz";
    std::size_t inputs = 0;
    for (const auto& dir : fs::directory_iterator(root)) {
        const std::string target = dir.path().filename().string();
        for (const auto& f : fs::directory_iterator(dir.path())) {
            std::ifstream in(f.path(), std::ios::binary);
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            ++inputs;
            try {
                if (target == "chunk_decode") {
                    std::vector<std::pair<double, double>> points;
                    ct::runs::chunk::decode(text.data(), text.size(), points);
                    QVERIFY(!points.empty());
                } else if (target == "clustercockpit") {  // meta.json NUL data.json, as the target writes them
                    QTemporaryDir job;
                    const auto nul = text.find('\0');
                    std::ofstream(job.filePath("meta.json").toStdString(), std::ios::binary) << text.substr(0, nul);
                    std::ofstream(job.filePath("data.json").toStdString(), std::ios::binary)
                        << (nul == std::string::npos ? std::string() : text.substr(nul + 1));
                    const ParseResult r = parseClusterCockpitJob(job.filePath("meta.json").toStdString(), {}, {});
                    if (f.path().filename() == "jobid-4e61") {  // a job id no integer holds: named, not converted
                        QVERIFY(r.jobs.empty());
                        QVERIFY(hasWarning(r, "bad_value", "/jobId"));
                    }
                } else if (target == "sacct") {
                    std::istringstream doc(text);
                    (void)parseSacct(doc, {}, "JobID,JobName,User,Partition,NodeList,State,Submit,Start,End,AllocTRES");
                } else if (target == "slurm_json") {
                    std::istringstream doc(text);
                    const SlurmResult r = parseSlurmJson(doc, {});
                    if (f.path().filename() == "job-id-4e61.json") {
                        QVERIFY(r.jobs.empty());
                        QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [](const ImportWarning& w) {
                            return w.kind == "bad_value" && w.location.find("job_id") != std::string::npos;
                        }));
                    }
                } else if (auto it = parsers.find(target); it != parsers.end()) {
                    const ParseResult r = parseText(it->second, text, f.path().filename().string());
                    if (f.path().filename() == "gres-3331-gpus.json") {  // 2,511 nodes of 3,331 GPUs each: not created
                        QVERIFY(hasWarning(r, "bad_value", "3331 GPUs on one node"));
                        QVERIFY(r.entities.size() < 10000);
                    }
                } else {
                    QFAIL(("tests/data/fuzz/" + target + ": no such fuzz target").c_str());
                }
            } catch (const ImportError&) {}
        }
    }
    QVERIFY(inputs > 0);
}

QTEST_GUILESS_MAIN(TstImportJobs)
#include "tst_import_jobs.moc"
