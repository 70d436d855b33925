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

namespace {

/// Nodes and their GPUs from `scontrol show node` (records of a NodeName= line and its indented lines),
/// `sinfo -N -O nodehost,gres` lines or an Alibaba GPU trace's node list ("sn,cpu_milli,memory_mib,gpu,model").
class SlurmNodes {
public:
    SlurmNodes(const ParseOptions& opt, ParseResult& res, const detail::LineReader& reader) : opt_(opt), res_(res), reader_(reader) {}

    void line(const std::string& line) {
        if (reader_.lineno() == 1 && line.rfind("sn,", 0) == 0) return csvHeader(line);
        if (csv_gpu_ >= 0) return csvRow(line);
        // scontrol show node: a record is the NodeName= line and the indented lines after it (Gres=, CfgTRES=,
        // CurrentWatts= come on later lines unless -o put it all on one line).
        if (line.find("NodeName=") != std::string::npos) {
            flush();
            record_ = line;
            record_loc_ = reader_.location();
            return;
        }
        if (line[0] == ' ' || line[0] == '\t') {
            if (!record_.empty()) record_ += " " + line;
            return;
        }
        flush();
        // sinfo -N -O nodehost,gres: "a0001    gpu:a100:4(S:0-3),..."
        const auto sp = line.find_first_of(" \t");
        if (sp == std::string::npos) {
            res_.warnings.push_back({reader_.location(), "syntax", "expected \"host gres\" or NodeName="});
            return;
        }
        int count = 0;
        std::string model;
        detail::gresGpus(line.substr(sp), count, model);
        node(line.substr(0, sp), count, model, reader_.location());
    }

    /// The scontrol record read so far: its node, GPUs (Gres=, else CfgTRES's gres/gpu=) and power.
    void flush() {
        if (record_.empty()) return;
        const auto nn = record_.find("NodeName=");
        const std::string host = record_.substr(nn + 9, record_.find_first_of(" \t", nn) - nn - 9);
        int count = 0;
        std::string model;
        const auto gres = record_.find("Gres=");
        if (gres != std::string::npos)
            detail::gresGpus(record_.substr(gres + 5, record_.find_first_of(" \t", gres) - gres - 5), count, model);
        if (count == 0) detail::gresGpus(record_, count, model);
        if (host.empty()) {
            res_.warnings.push_back({record_loc_, "missing_field", "NodeName= without a name"});
        } else {
            node(host, count, model, record_loc_);
            if (const auto w = record_.find("CurrentWatts="); w != std::string::npos && !std::isnan(opt_.default_time_s)) {
                double v;
                if (detail::parseNumber(record_.substr(w + 13, record_.find(' ', w) - w - 13), v) && v > 0)
                    res_.samples.push_back({host, "power_w", "W", opt_.default_time_s, v});
            }
        }
        record_.clear();
    }

private:
    void csvHeader(const std::string& line) {
        const auto cols = detail::splitOn(line, ",");
        for (std::size_t k = 0; k < cols.size(); ++k) {
            if (cols[k] == "gpu" || cols[k] == "num_gpu") csv_gpu_ = static_cast<int>(k);
            if (cols[k] == "model") csv_model_ = static_cast<int>(k);
        }
        if (csv_gpu_ < 0) res_.warnings.push_back({reader_.location(), "missing_field", "no gpu column"});
    }

    void csvRow(const std::string& line) {
        const auto cells = detail::splitOn(line, ",");
        double n = 0;
        if (cells.size() <= static_cast<std::size_t>(std::max(csv_gpu_, csv_model_)) ||
            !detail::parseNumber(cells[static_cast<std::size_t>(csv_gpu_)], n) || n < 0 || n > 64) {
            res_.warnings.push_back({reader_.location(), "syntax", "bad node row"});
            return;
        }
        node(cells[0], static_cast<int>(n), csv_model_ >= 0 ? cells[static_cast<std::size_t>(csv_model_)] : "", reader_.location());
    }

    void node(const std::string& host, int count, const std::string& model, const std::string& where) {
        if (!seen_.insert(host).second) return;
        if (!detail::plausibleGpuCount(host, count, where, res_.warnings)) count = 0;
        res_.entities.push_back({host, "node", "", host, {}});
        for (int i = 0; i < count; ++i) res_.entities.push_back({host + "/gpu" + std::to_string(i), "gpu", host, model, {}});
    }

    const ParseOptions& opt_;
    ParseResult& res_;
    const detail::LineReader& reader_;
    std::set<std::string> seen_;
    std::string record_, record_loc_;  ///< the scontrol record being read, and where it began
    int csv_gpu_ = -1, csv_model_ = -1;
};

}  // namespace

ParseResult parseSlurmNodes(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    SlurmNodes nodes(opt, res, reader);
    std::string line;
    while (reader.next(line))
        if (!line.empty()) nodes.line(line);
    nodes.flush();
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
        if (line.rfind("sn,", 0) == 0 && line.find("gpu") != std::string_view::npos)
            return {70, "node list with GPU counts (sn,...,gpu,model)"};
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

}  // namespace format_rows

}  // namespace ct::importers
