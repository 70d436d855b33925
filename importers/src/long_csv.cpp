#include <clustertwin/importers/parse.hpp>

#include "input.hpp"
#include "parse_common.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

namespace ct::importers {

namespace {

/// Splits one CSV line (RFC 4180 quotes, no embedded newlines).
std::vector<std::string> splitCsv(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool q = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (q) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                q = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            q = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    for (auto& f : out) {
        while (!f.empty() && std::isspace(static_cast<unsigned char>(f.back()))) f.pop_back();
        while (!f.empty() && std::isspace(static_cast<unsigned char>(f.front()))) f.erase(f.begin());
    }
    return out;
}

} // namespace

ParseResult parseLongCsv(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    std::string line;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    int ti = -1, ei = -1, mi = -1, vi = -1, ui = -1;
    auto warn = [&](std::size_t l, const char* kind, std::string msg) { res.warnings.push_back({detail::loc(opt, l), kind, std::move(msg)}); };
    while (reader.next(line)) {
        const std::size_t lineno = reader.lineno();
        if (line.empty()) continue;
        const auto f = splitCsv(line);
        if (ti < 0) {  // the header
            for (int k = 0; k < static_cast<int>(f.size()); ++k) {
                std::string h = f[k];
                std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                if (h == "time" || h == "timestamp" || h == "time_s") ti = k;
                else if (h == "entity") ei = k;
                else if (h == "metric") mi = k;
                else if (h == "value") vi = k;
                else if (h == "unit") ui = k;
            }
            if (reader.unterminated()) {
                warn(lineno, "truncated", "the file ends inside its header line (no newline, no rows)");
                return res;
            }
            if (ti < 0 || ei < 0 || mi < 0 || vi < 0) {
                warn(lineno, "missing_field", "header must name time, entity, metric and value");
                return res;
            }
            continue;
        }
        const int need = std::max({ti, ei, mi, vi});
        if (static_cast<int>(f.size()) <= need) {
            warn(lineno, "syntax", "expected at least " + std::to_string(need + 1) + " fields, got " + std::to_string(f.size()));
            continue;
        }
        double t = 0, v = 0;
        if (!detail::parseNumber(f[ti], t) && !detail::parseIsoTime(f[ti], t, opt.tz_offset_s)) {
            warn(lineno, "bad_value", "bad time '" + f[ti] + "'");
            continue;
        }
        if (!detail::parseNumber(f[vi], v)) {
            warn(lineno, "bad_value", "bad value '" + f[vi] + "'");
            continue;
        }
        if (f[ei].empty() || f[mi].empty()) {
            warn(lineno, "missing_field", "empty entity or metric");
            continue;
        }
        res.samples.push_back({f[ei], f[mi], ui >= 0 && ui < static_cast<int>(f.size()) ? f[ui] : "", t, v});
    }
    return res;
}

ParseResult parseFile(const std::string& path, const Progress& progress, const std::string& host) {
    ParseOptions base;
    base.host = host;
    base.host_from_path = true;
    return parseFile(path, base, progress);
}

ParseResult parseFile(const std::string& path, const ParseOptions& base, const Progress& progress) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) throw ImportError(path + ": cannot read: " + ec.message());
    if (size == 0) {  // a tool that failed (perfquery prints nothing): not an error, nothing to import
        ParseResult empty;
        empty.warnings.push_back({path + ":1", "empty", "file is empty"});
        return empty;
    }
    const Detection det = detectFileFormat(path);
    detail::InputFile file(path);
    std::istream& in = file.stream();
    const std::size_t size_hint = file.sizeHint();
    ParseOptions opt = base;
    opt.file_name = path;
    const auto mtime = fs::last_write_time(path, ec);
    if (!ec) {
        const auto sys = std::chrono::time_point_cast<std::chrono::seconds>(
            mtime - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
        opt.default_time_s = static_cast<double>(sys.time_since_epoch().count());
    }
    switch (det.format) {
    case Format::PrometheusText: return parsePrometheusText(in, opt, progress, size_hint);
    case Format::LongCsv: return parseLongCsv(in, opt, progress, size_hint);
    case Format::NvidiaSmiCsv: return parseNvidiaSmiCsv(in, opt, progress, size_hint);
    case Format::PrometheusApiJson: return parsePrometheusApiJson(in, opt, progress, size_hint);
    case Format::IbPerfquery: return parsePerfquery(in, opt, progress, size_hint);
    case Format::NvidiaSmiXml: return parseNvidiaSmiXml(in, opt, progress, size_hint);
    case Format::RedfishJson: return parseRedfishJson(in, opt, progress, size_hint);
    case Format::IbNetdiscover: return parseIbnetdiscover(in, opt, progress, size_hint);
    case Format::IbSwinfo: return parseIbswinfo(in, opt, progress, size_hint);
    case Format::SlurmNodes: return parseSlurmNodes(in, opt, progress, size_hint);
    case Format::NvidiaSmiDmon: return parseNvidiaSmiDmon(in, opt, progress, size_hint);
    case Format::SlurmJobs: return parseScontrolJobs(in, opt, progress, size_hint);
    case Format::SlurmNodesJson: return parseSlurmNodesJson(in, opt, progress, size_hint);
    case Format::AlibabaPods: return parseAlibabaPods(in, opt, progress, size_hint);
    case Format::ClusterCockpitJob: return parseClusterCockpitJob(path, opt, progress);
    case Format::ClusterCockpitData: {
        const auto meta = fs::path(path).parent_path() / "meta.json";
        if (!fs::is_regular_file(meta, ec))
            throw ImportError(path + ": a ClusterCockpit data.json is read with the meta.json beside it (its start time and hosts), and there is none");
        return parseClusterCockpitJob(meta.string(), opt, progress);
    }
    case Format::SlurmSacct:
    case Format::SlurmJson: throw ImportError(path + ": Slurm accounting holds jobs, not samples (read it with parseSlurmFile)");
    case Format::Unknown:
        throw ImportError(path + ": format not recognised" + (det.reason.empty() ? std::string() : " (" + det.reason + ")"));
    }
    throw ImportError(path + ": format not recognised");
}

} // namespace ct::importers
