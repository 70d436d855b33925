// The Alibaba GPU cluster trace's pod list (cluster-trace-gpu-v2023): jobs with their GPU demand, times from the
// trace's start.
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

ParseResult parseAlibabaPods(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    std::map<std::string, std::size_t> col;
    std::string line;
    auto cell = [&](const std::vector<std::string>& c, const char* name) -> std::string {
        auto it = col.find(name);
        return it == col.end() || it->second >= c.size() ? std::string() : c[it->second];
    };
    while (reader.next(line)) {
        if (line.empty()) continue;
        const auto c = detail::splitOn(line, ",");
        if (col.empty()) {
            for (std::size_t k = 0; k < c.size(); ++k) col[c[k]] = k;
            for (const char* need : {"name", "num_gpu", "creation_time"})
                if (!col.count(need)) {
                    res.warnings.push_back({reader.location(), "missing_field", std::string("no ") + need + " column"});
                    return res;
                }
            continue;
        }
        if (c.size() != col.size()) {
            res.warnings.push_back(
                {reader.location(), "syntax", "expected " + std::to_string(col.size()) + " fields, got " + std::to_string(c.size())});
            continue;
        }
        SlurmJob j;
        j.id = j.name = cell(c, "name");
        j.partition = cell(c, "qos");
        j.state = cell(c, "pod_phase");
        std::transform(j.state.begin(), j.state.end(), j.state.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
        double gpus = 0, milli = 1000;
        if (!detail::parseNumber(cell(c, "num_gpu"), gpus) || gpus < 0 || gpus > 1024 || gpus != std::floor(gpus)) {
            res.warnings.push_back({reader.location(), "bad_value", "num_gpu '" + cell(c, "num_gpu") + "' is not a GPU count"});
            continue;
        }
        j.gpus = static_cast<int>(gpus);
        const std::string gm = cell(c, "gpu_milli");
        if (!gm.empty() && (!detail::parseNumber(gm, milli) || milli < 0 || milli > 1000)) {
            res.warnings.push_back({reader.location(), "bad_value", "gpu_milli '" + gm + "' is not 0..1000"});
            continue;
        }
        if (j.gpus > 0 && milli > 0) j.gpu_share = milli / 1000.0;
        bool bad = false;
        auto time = [&](const char* name) -> std::optional<double> {
            const std::string v = cell(c, name);
            double x = 0;
            if (v.empty()) return std::nullopt;  // a pod never scheduled, or not deleted within the trace
            if (!detail::parseNumber(v, x) || x < 0 || !std::isfinite(x)) {
                res.warnings.push_back({reader.location(), "bad_value", std::string(name) + " '" + v + "' is not seconds"});
                bad = true;
                return std::nullopt;
            }
            return opt.trace_start_s + x;
        };
        j.submit_s = time("creation_time");
        j.start_s = time("scheduled_time");
        j.end_s = time("deletion_time");
        if (bad) continue;
        if (j.end_s && j.start_s && *j.end_s < *j.start_s) {
            res.warnings.push_back({reader.location(), "bad_value", "deleted before it was scheduled"});
            continue;
        }
        res.jobs.push_back(std::move(j));
    }
    return res;
}

namespace format_rows {

FormatInfo alibabaPods() {
    FormatInfo f;
    f.id = "alibaba-pods";
    f.label = "Alibaba GPU trace pod list (cluster-trace-gpu-v2023)";
    f.kind = FormatKind::Jobs;
    f.sniff = [](const FileHead& h) -> Sniff {
        const std::string_view line = h.first_line;
        if (h.text() && line.rfind("name,", 0) == 0 && line.find("num_gpu") != std::string_view::npos &&
            line.find("creation_time") != std::string_view::npos)
            return {85, "Alibaba GPU trace pod list (name, num_gpu, creation_time)"};
        return {};
    };
    f.parse = parseAlibabaPods;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
