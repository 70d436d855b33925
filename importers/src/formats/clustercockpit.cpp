// ClusterCockpit's job archive (meta.json + data.json[.gz], cc-backend's exchange format): a job and its per-node,
// per-socket, per-core and per-accelerator metrics at a fixed timestep.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../input.hpp"
#include "../parse_common.hpp"
#include "../slurm_common.hpp"
#include "../vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace ct::importers {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

json readJson(const std::string& path, ParseResult& res) {
    detail::InputFile f(path);
    const std::string text((std::istreambuf_iterator<char>(f.stream())), std::istreambuf_iterator<char>());
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        ParseOptions o;
        o.file_name = path;
        res.warnings.push_back({detail::loc(o, detail::jsonErrorLine(text, e)), "syntax", std::string("not valid JSON: ") + e.what()});
        return json();
    }
}

/// ClusterCockpit's unit {base, prefix} as one string ("GB/s").
std::string ccUnit(const json& u) {
    if (!u.is_object()) return {};
    return detail::jsonText(u, "prefix") + detail::jsonText(u, "base");
}

/// ClusterCockpit metric → the vocabulary where it measures an nvidia-smi quantity. Its GPU percentages carry
/// no unit (base "") and run 0..100.
struct CcTerm {
    std::string metric, unit;
    double scale = 1;
};
CcTerm ccTerm(const std::string& name, const std::string& unit) {
    static const std::map<std::string, std::pair<std::string_view, std::string_view>> smi = {
        {"acc_power", {"power.draw", "W"}},
        {"nv_power", {"power.draw", "W"}},
        {"nv_temp", {"temperature.gpu", "C"}},
        {"acc_temp", {"temperature.gpu", "C"}},
        {"acc_utilization", {"utilization.gpu", "%"}},
        {"nv_util", {"utilization.gpu", "%"}},
        {"nv_mem_util", {"utilization.memory", "%"}},
        {"nv_sm_clock", {"clocks.current.sm", "MHz"}},
        {"nv_mem_clock", {"clocks.current.memory", "MHz"}}};
    if (auto it = smi.find(name); it != smi.end()) {
        std::string_view from = it->second.second;
        if (!unit.empty() && unit != "°C") from = unit;  // a unit the file states wins over the usual one
        if (auto t = detail::smiTerm(it->second.first, from)) return {std::string(t->metric), std::string(t->unit), t->scale};
    }
    if (name == "acc_mem_used" && (unit == "GB" || unit == "MB")) return {"fb_used_mib", "MiB", (unit == "GB" ? 1e9 : 1e6) / 1048576.0};
    if (unit == "W" && name.size() > 6 && name.compare(name.size() - 6, 6, "_power") == 0)
        return {name + "_w", "W", 1};  // cpu_power → cpu_power_w
    return {name, unit, 1};
}

/// The scope's part of an entity id ("socket" → "socket1"); accelerators are handled by the caller.
std::string scopeEntity(const std::string& scope, const std::string& id) {
    if (scope == "hwthread") return "cpu" + id;
    if (scope == "memoryDomain") return "memdomain" + id;
    return scope + id;
}

/// The node's accelerator ids in device order, from the cluster.json of the archive (three directories up
/// from a job's: <cluster>/<id/1000>/<id%1000>/<start>/meta.json), for the job's subcluster.
std::vector<std::string> clusterAccelerators(const fs::path& job_dir, const std::string& sub_cluster, ParseResult& res) {
    const fs::path cj = job_dir.parent_path().parent_path().parent_path() / "cluster.json";
    std::error_code ec;
    if (!fs::is_regular_file(cj, ec)) return {};
    const json c = readJson(cj.string(), res);
    std::vector<std::string> ids;
    if (!c.is_object() || !c.contains("subClusters") || !c["subClusters"].is_array()) return ids;
    for (const auto& sc : c["subClusters"]) {
        if (!sc.is_object() || (!sub_cluster.empty() && detail::jsonText(sc, "name") != sub_cluster)) continue;
        if (sc.contains("topology") && sc["topology"].is_object() && sc["topology"].contains("accelerators") &&
            sc["topology"]["accelerators"].is_array())
            for (const auto& a : sc["topology"]["accelerators"])
                if (a.is_object() && a.contains("id") && a["id"].is_string()) ids.push_back(a["id"].get<std::string>());
    }
    return ids;
}

std::string jsonString(const json& x, const char* k) {
    return x.is_object() && x.contains(k) && x[k].is_string() ? x[k].get<std::string>() : std::string();
}

/// A warning at a JSON pointer of a file.
void warnAt(ParseResult& res, const std::string& file, const std::string& ptr, const char* kind, std::string msg) {
    res.warnings.push_back({file + "#" + ptr, kind, std::move(msg)});
}

/// The job of a meta.json (its start time given), and the accelerators it had on each host.
SlurmJob readJob(const json& meta, const std::string& meta_path, double start, ParseResult& res,
                 std::map<std::string, std::vector<std::string>>& job_accs) {
    SlurmJob job;
    const auto job_id = meta.contains("jobId") ? detail::slurmWhole(meta["jobId"]) : std::nullopt;
    if (job_id) job.id = std::to_string(*job_id);
    else if (meta.contains("jobId")) warnAt(res, meta_path, "/jobId", "bad_value", "the job id is not a whole number");
    else warnAt(res, meta_path, "/jobId", "missing_field", "no job id");
    job.name = meta.contains("metaData") ? jsonString(meta["metaData"], "jobName") : std::string();
    job.user = jsonString(meta, "user");
    job.partition = jsonString(meta, "partition");
    job.state = jsonString(meta, "jobState");
    std::transform(job.state.begin(), job.state.end(), job.state.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    job.start_s = start;
    if (job.state != "RUNNING" && meta.contains("duration") && meta["duration"].is_number())
        job.end_s = start + meta["duration"].get<double>();
    if (meta.contains("numAcc")) {
        const auto n = detail::slurmWhole(meta["numAcc"], 1e6);
        if (n) job.gpus = static_cast<int>(*n);
        else warnAt(res, meta_path, "/numAcc", "bad_value", "the accelerator count is not a whole number from 0 to 1,000,000");
    }
    if (meta.contains("resources") && meta["resources"].is_array())
        for (const auto& r : meta["resources"]) {
            const std::string h = jsonString(r, "hostname");
            if (h.empty()) continue;
            job.nodes.push_back(h);
            if (r.contains("accelerators") && r["accelerators"].is_array())
                for (const auto& a : r["accelerators"])
                    if (a.is_string()) job_accs[h].push_back(a.get<std::string>());
        }
    return job;
}

/// The job's data.json: every metric and scope, series by series, into samples of its hosts and their parts.
class CcData {
public:
    CcData(ParseResult& res, std::string data_path, double start, std::vector<std::string> cluster_accs,
           std::map<std::string, std::vector<std::string>> job_accs)
        : res_(res), path_(std::move(data_path)), start_(start), cluster_accs_(std::move(cluster_accs)), job_accs_(std::move(job_accs)) {}

    void read(const json& data) {
        for (const auto& [metric, scopes] : data.items()) {
            if (!scopes.is_object()) {
                warnAt(res_, path_, "/" + metric, "syntax", "a metric must be an object of scopes");
                continue;
            }
            for (const auto& [scope, m] : scopes.items()) readScope(metric, scope, m);
        }
        if (missing_ > 0)
            res_.warnings.push_back({path_, "no_data", std::to_string(missing_) + " sample(s) the archive marks missing (null)"});
    }

private:
    void readScope(const std::string& metric, const std::string& scope, const json& m) {
        const std::string ptr = "/" + metric + "/" + scope;
        if (!m.is_object() || !m.contains("series") || !m["series"].is_array()) {
            warnAt(res_, path_, ptr, "missing_field", "no \"series\"");
            return;
        }
        const auto step = m.contains("timestep") ? detail::slurmNumber(m["timestep"]) : std::nullopt;
        if (!step || *step <= 0) {
            warnAt(res_, path_, ptr + "/timestep", "missing_field", "no positive timestep");
            return;
        }
        const CcTerm term = ccTerm(metric, ccUnit(m.value("unit", json())));
        std::map<std::string, int> used;  // entity → times seen in this metric and scope
        const json& series = m["series"];
        for (std::size_t si = 0; si < series.size(); ++si) {
            const json& s = series[si];
            const std::string sp = ptr + "/series/" + std::to_string(si);
            const std::string host = jsonString(s, "hostname");
            if (host.empty() || !s.contains("data") || !s["data"].is_array()) {
                warnAt(res_, path_, sp, "missing_field", "a series needs hostname and data");
                continue;
            }
            entity(host, "node", "");
            const std::string id = s.contains("id") ? (s["id"].is_string() ? s["id"].get<std::string>() : s["id"].dump()) : std::string();
            std::string ent = entityOf(scope, host, id, sp);
            if (const int n = used[ent]++; n > 0) {  // two series claim one host and id (seen in real archives)
                warnAt(res_, path_, sp, "note",
                       "repeats the host and id of an earlier series of " + metric + "/" + scope + "; kept as " + ent + "-" +
                           std::to_string(n + 1));
                ent += "-" + std::to_string(n + 1);
                entity(ent, scope.c_str(), host);
            }
            samples(s["data"], ent, term, *step, sp);
        }
    }

    /// The entity a series of `scope` on `host` with `id` belongs to (registered on first sight).
    std::string entityOf(const std::string& scope, const std::string& host, const std::string& id, const std::string& sp) {
        if (scope == "accelerator") {
            std::string ent = host + "/gpu" + std::to_string(acceleratorIndex(host, id, sp));
            entity(ent, "gpu", host, {{"pci_bus_id", id}});
            return ent;
        }
        if (scope == "node") return host;
        std::string ent = host + "/" + scopeEntity(scope, id);
        entity(ent, scope == "hwthread" ? "cpu" : scope.c_str(), host);
        return ent;
    }

    /// The device index: the id itself when it is one, its place in the cluster's topology, else its place among
    /// the accelerators the job had on the host.
    long acceleratorIndex(const std::string& host, const std::string& id, const std::string& sp) {
        if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos && id.size() < 4) return std::stol(id);
        if (auto it = std::find(cluster_accs_.begin(), cluster_accs_.end(), id); it != cluster_accs_.end())
            return it - cluster_accs_.begin();
        auto& accs = job_accs_[host];
        if (std::find(accs.begin(), accs.end(), id) == accs.end()) accs.push_back(id);
        std::vector<std::string> sorted = accs;
        std::sort(sorted.begin(), sorted.end());
        if (!relative_index_noted_) {
            res_.warnings.push_back({path_ + "#" + sp, "note",
                                     "no cluster.json names the node's accelerators: GPUs numbered in PCI order among the job's own"});
            relative_index_noted_ = true;
        }
        return std::find(sorted.begin(), sorted.end(), id) - sorted.begin();
    }

    void samples(const json& values, const std::string& ent, const CcTerm& term, double step, const std::string& sp) {
        for (std::size_t k = 0; k < values.size(); ++k) {
            if (!values[k].is_number()) {
                if (values[k].is_null()) ++missing_;
                else warnAt(res_, path_, sp + "/data/" + std::to_string(k), "bad_value", "not a number: " + values[k].dump());
                continue;
            }
            res_.samples.push_back(
                {ent, term.metric, term.unit, start_ + static_cast<double>(k) * step, values[k].get<double>() * term.scale});
        }
    }

    void entity(const std::string& id, const char* kind, const std::string& parent, std::map<std::string, std::string> labels = {}) {
        if (entities_seen_.insert(id).second) res_.entities.push_back({id, kind, parent, id.substr(id.rfind('/') + 1), std::move(labels)});
    }

    ParseResult& res_;
    const std::string path_;
    const double start_;
    const std::vector<std::string> cluster_accs_;
    std::map<std::string, std::vector<std::string>> job_accs_;  ///< host → the accelerators the job had there
    std::set<std::string> entities_seen_;
    std::size_t missing_ = 0;
    bool relative_index_noted_ = false;
};

}  // namespace

ParseResult parseClusterCockpitJob(const std::string& meta_path, const ParseOptions&, const Progress& progress) {
    ParseResult res;
    const fs::path dir = fs::path(meta_path).parent_path();
    const json meta = readJson(meta_path, res);
    if (!meta.is_object()) return res;
    const auto start = meta.contains("startTime") ? detail::slurmEpoch(meta["startTime"]) : std::nullopt;
    if (!start) {
        warnAt(res, meta_path, "/startTime", "missing_field", "a job without its start time");
        return res;
    }
    std::map<std::string, std::vector<std::string>> job_accs;
    SlurmJob job = readJob(meta, meta_path, *start, res, job_accs);
    if (!job.id.empty()) res.jobs.push_back(std::move(job));

    // Its metrics.
    std::string data_path;
    for (const char* name : {"data.json", "data.json.gz"})
        if (std::error_code ec; fs::is_regular_file(dir / name, ec)) {
            data_path = (dir / name).string();
            break;
        }
    if (data_path.empty()) {
        res.warnings.push_back({meta_path, "no_data", "no data.json or data.json.gz beside it: the job without its metrics"});
        return res;
    }
    if (progress && !progress(0.3)) {
        res.cancelled = true;
        return res;
    }
    const json data = readJson(data_path, res);
    if (!data.is_object()) return res;
    CcData(res, data_path, *start, clusterAccelerators(dir, jsonString(meta, "subCluster"), res), std::move(job_accs)).read(data);
    if (progress) progress(1.0);
    return res;
}

namespace format_rows {

FormatInfo clusterCockpitJob() {
    FormatInfo f;
    f.id = "clustercockpit-job";
    f.label = "ClusterCockpit job archive (meta.json with data.json beside it)";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.json() && h.has("\"jobId\"") && h.has("\"startTime\"") && h.has("\"resources\""))
            return {85, "\"jobId\", \"startTime\" and \"resources\" (ClusterCockpit meta.json)"};
        return {};
    };
    f.parse_path = parseClusterCockpitJob;
    return f;
}

/// A job archive's data.json: the same archive, read through the meta.json beside it (its start time, hosts).
FormatInfo clusterCockpitData() {
    FormatInfo f;
    f.id = "clustercockpit-data";
    f.label = "ClusterCockpit job archive (data.json, read through its meta.json)";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.json() && h.has("\"timestep\"") && h.has("\"series\"") && h.has("\"unit\""))
            return {80, "metrics with \"timestep\" and \"series\" (ClusterCockpit data.json)"};
        return {};
    };
    f.parse_path = [](const std::string& path, const ParseOptions& opt, const Progress& progress) {
        namespace fs = std::filesystem;
        std::error_code ec;
        const auto meta = fs::path(path).parent_path() / "meta.json";
        if (!fs::is_regular_file(meta, ec))
            throw ImportError(
                path + ": a ClusterCockpit data.json is read with the meta.json beside it (its start time and hosts), and there is none");
        return parseClusterCockpitJob(meta.string(), opt, progress);
    };
    f.read_through = "meta.json";
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
