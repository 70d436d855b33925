// Slurm node inventories as text: scontrol show node (multi-line or -o), sinfo -N -O nodehost,gres, the Alibaba
// GPU trace's node list.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/slurm.hpp>

#include "../parse_common.hpp"
#include "../slurm_common.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
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

namespace format_rows {

FormatInfo slurmNodes() {
    FormatInfo f;
    f.id = "slurm-nodes";
    f.label = "Slurm scontrol show node / sinfo node list";
    f.kind = FormatKind::Inventory;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        const std::string_view line = h.first_line;
        if (line.rfind("NodeName=", 0) == 0) return {85, "scontrol show node"};
        if (line.rfind("sn,", 0) == 0 && line.find("gpu") != std::string_view::npos) return {70, "node list with GPU counts (sn,...,gpu,model)"};
        const auto sp = line.find_first_of(" \t");
        if (sp != std::string_view::npos && sp > 0) {
            const auto v = line.find_first_not_of(" \t", sp);
            if (v != std::string_view::npos && line.substr(v).rfind("gpu:", 0) == 0) return {70, "sinfo host and gres columns"};
        }
        return {};
    };
    f.parse = parseSlurmNodes;
    return f;
}

} // namespace format_rows

} // namespace ct::importers
