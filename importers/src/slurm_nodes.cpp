// Slurm node inventories: scontrol show node (multi-line or -o), sinfo -N -O nodehost,gres, the Alibaba GPU
// trace's node list, and the JSON of sinfo --json / scontrol show nodes --json (both shapes: "nodes" as
// slurmrestd and Slurm up to 22.05 write it, "sinfo" as Slurm 23.02 and later do).
#include <clustertwin/importers/slurm.hpp>

#include "parse_common.hpp"
#include "slurm_common.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace ct::importers {

ParseResult parseSlurmNodes(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    std::string line;
    std::set<std::string> seen;
    auto node = [&](const std::string& host, int count, const std::string& model, const std::string& where) {
        if (!seen.insert(host).second) return;
        if (!detail::plausibleGpuCount(host, count, where, res.warnings)) count = 0;
        res.entities.push_back({host, "node", "", host, {}});
        for (int i = 0; i < count; ++i) res.entities.push_back({host + "/gpu" + std::to_string(i), "gpu", host, model, {}});
    };
    std::string record, record_loc;  // the scontrol record being read, and where it began
    auto flush_record = [&] {
        if (record.empty()) return;
        const auto nn = record.find("NodeName=");
        const std::string host = record.substr(nn + 9, record.find_first_of(" \t", nn) - nn - 9);
        int count = 0;
        std::string model;
        // Gres= names the GPUs; CfgTRES (gres/gpu=) is read only when Gres does not say.
        const auto gres = record.find("Gres=");
        if (gres != std::string::npos) detail::gresGpus(record.substr(gres + 5, record.find_first_of(" \t", gres) - gres - 5), count, model);
        if (count == 0) detail::gresGpus(record, count, model);
        if (host.empty()) {
            res.warnings.push_back({record_loc, "missing_field", "NodeName= without a name"});
        } else {
            node(host, count, model, record_loc);
            if (const auto w = record.find("CurrentWatts="); w != std::string::npos && !std::isnan(opt.default_time_s)) {
                double v;
                if (detail::parseNumber(record.substr(w + 13, record.find(' ', w) - w - 13), v) && v > 0)
                    res.samples.push_back({host, "power_w", "W", opt.default_time_s, v});
            }
        }
        record.clear();
    };
    int csv_gpu = -1, csv_model = -1;  // Alibaba GPU trace node list: "sn,cpu_milli,memory_mib,gpu,model"
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (reader.lineno() == 1 && line.rfind("sn,", 0) == 0) {
            const auto cols = detail::splitOn(line, ",");
            for (std::size_t k = 0; k < cols.size(); ++k) {
                if (cols[k] == "gpu" || cols[k] == "num_gpu") csv_gpu = static_cast<int>(k);
                if (cols[k] == "model") csv_model = static_cast<int>(k);
            }
            if (csv_gpu < 0) res.warnings.push_back({reader.location(), "missing_field", "no gpu column"});
            continue;
        }
        if (csv_gpu >= 0) {
            const auto cells = detail::splitOn(line, ",");
            double n = 0;
            if (cells.size() <= static_cast<std::size_t>(std::max(csv_gpu, csv_model)) || !detail::parseNumber(cells[static_cast<std::size_t>(csv_gpu)], n) ||
                n < 0 || n > 64) {
                res.warnings.push_back({reader.location(), "syntax", "bad node row"});
                continue;
            }
            node(cells[0], static_cast<int>(n), csv_model >= 0 ? cells[static_cast<std::size_t>(csv_model)] : "", reader.location());
            continue;
        }
        // scontrol show node: a record is the NodeName= line and the indented lines after it (Gres=, CfgTRES=,
        // CurrentWatts= come on later lines unless -o put it all on one line).
        if (line.find("NodeName=") != std::string::npos) {
            flush_record();
            record = line;
            record_loc = reader.location();
            continue;
        }
        if (line[0] == ' ' || line[0] == '\t') {
            if (!record.empty()) record += " " + line;
            continue;
        }
        flush_record();
        // sinfo -N -O nodehost,gres: "a0001    gpu:a100:4(S:0-3),..."
        const auto sp = line.find_first_of(" \t");
        if (sp == std::string::npos) {
            res.warnings.push_back({reader.location(), "syntax", "expected \"host gres\" or NodeName="});
            continue;
        }
        int count = 0;
        std::string model;
        detail::gresGpus(line.substr(sp), count, model);
        node(line.substr(0, sp), count, model, reader.location());
    }
    flush_record();
    return res;
}

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

} // namespace ct::importers
