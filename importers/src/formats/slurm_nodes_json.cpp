// Slurm node inventories as JSON: sinfo --json / scontrol show nodes --json (both shapes: "nodes" as slurmrestd
// and Slurm up to 22.05 write it, "sinfo" as Slurm 23.02 and later do).
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/slurm.hpp>

#include "../parse_common.hpp"
#include "../slurm_common.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace ct::importers {

using json = nlohmann::json;

namespace {

std::string jsonString(const json& x, const char* k) { return x.contains(k) && x[k].is_string() ? x[k].get<std::string>() : std::string(); }

/// The nodes of `scontrol show nodes --json` or `sinfo --json` (their GPUs from gres/tres) and, from scontrol,
/// their power, CPU load and allocation at the document's time.
class SlurmNodesJson {
public:
    SlurmNodesJson(const ParseOptions& opt, ParseResult& res, double t) : opt_(opt), res_(res), t_(t) {}

    void scontrolNodes(const json& nodes) {
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const std::string p = "/nodes/" + std::to_string(i);
            const json& x = nodes[i];
            if (!x.is_object()) {
                warn(p, "syntax", "a node must be an object");
                continue;
            }
            const std::string host = jsonString(x, "name").empty() ? jsonString(x, "hostname") : jsonString(x, "name");
            if (!node(host, jsonString(x, "gres"), jsonString(x, "tres"), p)) continue;
            // Power where the node reports it (acct_gather_energy), and CPU load (hundredths in the JSON).
            if (x.contains("energy") && x["energy"].is_object() && x["energy"].contains("current_watts")) {
                auto w = detail::slurmNumber(x["energy"]["current_watts"]);
                if (w && *w > 0 && *w < 4294967294.0) sample(host, "power_w", "W", w);
            }
            if (x.contains("cpu_load"))
                if (auto l = detail::slurmNumber(x["cpu_load"]); l && *l >= 0 && *l < 4294967294.0)
                    sample(host, "cpu_load", "", *l / 100.0);
            if (x.contains("alloc_cpus")) sample(host, "cpus_allocated", "", detail::slurmNumber(x["alloc_cpus"]));
            int used = 0;
            std::string m;
            detail::gresGpus(jsonString(x, "gres_used"), used, m);
            if (x.contains("gres_used")) sample(host, "gpus_allocated", "", used);
        }
    }

    void sinfoRows(const json& rows) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::string p = "/sinfo/" + std::to_string(i);
            const json& x = rows[i];
            if (!x.is_object() || !x.contains("nodes") || !x["nodes"].is_object()) {
                warn(p, "missing_field", "an sinfo entry without \"nodes\"");
                continue;
            }
            const json& names = x["nodes"].contains("nodes") ? x["nodes"]["nodes"] : x["nodes"].value("names", json());
            const json& gres = x.contains("gres") && x["gres"].is_object() ? x["gres"] : json::object();
            if (!names.is_array()) {
                warn(p + "/nodes", "missing_field", "no node names");
                continue;
            }
            for (std::size_t k = 0; k < names.size(); ++k) {
                if (!names[k].is_string()) continue;
                std::vector<std::string> hosts;
                try {
                    hosts = expandHostlist(names[k].get<std::string>());  // -N lists one node per entry; without it, a host list
                } catch (const ImportError& e) {
                    warn(p + "/nodes/nodes/" + std::to_string(k), "bad_value", e.what());
                    continue;
                }
                for (const auto& h : hosts) node(h, jsonString(gres, "total"), "", p);
            }
        }
    }

    void warn(const std::string& ptr, const char* kind, std::string msg) {
        res_.warnings.push_back({opt_.file_name + "#" + ptr, kind, std::move(msg)});
    }

private:
    /// A node and its GPUs, once (sinfo lists a node once per partition); false when it is not new.
    bool node(const std::string& host, const std::string& gres, const std::string& tres, const std::string& ptr) {
        if (host.empty()) {
            warn(ptr, "missing_field", "a node without a name");
            return false;
        }
        if (!seen_.insert(host).second) return false;
        int count = 0;
        std::string model;
        detail::gresGpus(gres, count, model);
        if (count == 0) detail::gresGpus(tres, count, model);
        if (!detail::plausibleGpuCount(host, count, opt_.file_name + "#" + ptr, res_.warnings)) count = 0;
        res_.entities.push_back({host, "node", "", host, {}});
        for (int i = 0; i < count; ++i) res_.entities.push_back({host + "/gpu" + std::to_string(i), "gpu", host, model, {}});
        return true;
    }

    void sample(const std::string& host, const char* metric, const char* unit, std::optional<double> v) {
        if (v && std::isfinite(*v) && !std::isnan(t_)) res_.samples.push_back({host, metric, unit, t_, *v});
    }

    const ParseOptions& opt_;
    ParseResult& res_;
    const double t_;
    std::set<std::string> seen_;
};

}  // namespace

ParseResult parseSlurmNodesJson(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t) {
    ParseResult res;
    json doc;
    if (!detail::readSlurmDocument(in, opt, doc, res.warnings)) return res;
    // When the readings were taken: the document's last_update, else the file's time.
    double t = opt.default_time_s;
    if (doc.contains("last_update"))
        if (auto u = detail::slurmEpoch(doc["last_update"])) t = *u;
    SlurmNodesJson nodes(opt, res, t);
    if (doc.contains("nodes") && doc["nodes"].is_array()) nodes.scontrolNodes(doc["nodes"]);
    else if (doc.contains("sinfo") && doc["sinfo"].is_array()) nodes.sinfoRows(doc["sinfo"]);
    else nodes.warn("", "missing_field", "neither a \"nodes\" nor an \"sinfo\" array");
    if (progress) progress(1.0);
    return res;
}

namespace format_rows {

FormatInfo slurmNodesJson() {
    FormatInfo f;
    f.id = "slurm-nodes-json";
    f.label = "Slurm sinfo --json / scontrol show nodes --json";
    f.kind = FormatKind::Inventory;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.json()) return {};
        if (h.has("\"sinfo\"") || (h.has("\"nodes\"") && (h.has("\"gres\"") || h.has("\"real_memory\"") || h.has("\"cpus\""))))
            return {80, "\"sinfo\" or \"nodes\" with gres/cpus"};
        return {};
    };
    f.parse = parseSlurmNodesJson;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
