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

ParseResult parseSlurmNodesJson(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t) {
    ParseResult res;
    auto warn = [&](const std::string& ptr, const char* kind, std::string msg) { res.warnings.push_back({opt.file_name + "#" + ptr, kind, std::move(msg)}); };
    json doc;
    if (!detail::readSlurmDocument(in, opt, doc, res.warnings)) return res;
    // When the readings were taken: the document's last_update, else the file's time.
    double t = opt.default_time_s;
    if (doc.contains("last_update"))
        if (auto u = detail::slurmEpoch(doc["last_update"])) t = *u;
    std::set<std::string> seen;
    auto str = [](const json& x, const char* k) { return x.contains(k) && x[k].is_string() ? x[k].get<std::string>() : std::string(); };
    auto node = [&](const std::string& host, const std::string& gres, const std::string& tres, const std::string& ptr) {
        if (host.empty()) {
            warn(ptr, "missing_field", "a node without a name");
            return false;
        }
        if (!seen.insert(host).second) return false;  // sinfo lists a node once per partition
        int count = 0;
        std::string model;
        detail::gresGpus(gres, count, model);
        if (count == 0) detail::gresGpus(tres, count, model);
        if (!detail::plausibleGpuCount(host, count, opt.file_name + "#" + ptr, res.warnings)) count = 0;
        res.entities.push_back({host, "node", "", host, {}});
        for (int i = 0; i < count; ++i) res.entities.push_back({host + "/gpu" + std::to_string(i), "gpu", host, model, {}});
        return true;
    };
    auto sample = [&](const std::string& host, const char* metric, const char* unit, std::optional<double> v) {
        if (v && std::isfinite(*v) && !std::isnan(t)) res.samples.push_back({host, metric, unit, t, *v});
    };
    if (doc.contains("nodes") && doc["nodes"].is_array()) {
        const json& nodes = doc["nodes"];
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const std::string p = "/nodes/" + std::to_string(i);
            const json& x = nodes[i];
            if (!x.is_object()) {
                warn(p, "syntax", "a node must be an object");
                continue;
            }
            const std::string host = str(x, "name").empty() ? str(x, "hostname") : str(x, "name");
            if (!node(host, str(x, "gres"), str(x, "tres"), p)) continue;
            // Power where the node reports it (acct_gather_energy), and CPU load (hundredths in the JSON).
            if (x.contains("energy") && x["energy"].is_object() && x["energy"].contains("current_watts")) {
                auto w = detail::slurmNumber(x["energy"]["current_watts"]);
                if (w && *w > 0 && *w < 4294967294.0) sample(host, "power_w", "W", w);
            }
            if (x.contains("cpu_load"))
                if (auto l = detail::slurmNumber(x["cpu_load"]); l && *l >= 0 && *l < 4294967294.0) sample(host, "cpu_load", "", *l / 100.0);
            if (x.contains("alloc_cpus")) sample(host, "cpus_allocated", "", detail::slurmNumber(x["alloc_cpus"]));
            int used = 0;
            std::string m;
            detail::gresGpus(str(x, "gres_used"), used, m);
            if (x.contains("gres_used")) sample(host, "gpus_allocated", "", used);
        }
    } else if (doc.contains("sinfo") && doc["sinfo"].is_array()) {
        const json& rows = doc["sinfo"];
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
                std::string host = names[k].get<std::string>();
                std::vector<std::string> hosts;
                try {
                    hosts = expandHostlist(host);  // -N lists one node per entry; without it, a host list
                } catch (const ImportError& e) {
                    warn(p + "/nodes/nodes/" + std::to_string(k), "bad_value", e.what());
                    continue;
                }
                for (const auto& h : hosts) node(h, str(gres, "total"), "", p);
            }
        }
    } else {
        warn("", "missing_field", "neither a \"nodes\" nor an \"sinfo\" array");
    }
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

} // namespace format_rows

} // namespace ct::importers
