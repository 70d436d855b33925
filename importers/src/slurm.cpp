#include <clustertwin/importers/slurm.hpp>

#include "input.hpp"
#include "parse_common.hpp"
#include "slurm_common.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

namespace ct::importers {

namespace detail {

std::vector<std::string> splitOn(const std::string& s, const std::string& delim) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto p = s.find(delim, start);
        if (p == std::string::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, p - start));
        start = p + delim.size();
    }
}

std::optional<double> slurmTime(const std::string& s, double tz_offset_s) {
    double t = 0;
    if (s.empty() || s == "Unknown" || s == "None" || s == "(null)" || s == "N/A") return std::nullopt;
    if (parseIsoTime(s, t, tz_offset_s)) return t;
    return std::nullopt;
}

std::optional<double> slurmNumber(const nlohmann::json& v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_object()) {
        if (!jsonFlag(v, "set", true) || jsonFlag(v, "infinite", false)) return std::nullopt;
        if (v.contains("number") && v["number"].is_number()) return v["number"].get<double>();
    }
    return std::nullopt;
}

std::optional<long long> slurmWhole(const nlohmann::json& v, double max) {
    const auto x = slurmNumber(v);
    if (!x || !std::isfinite(*x) || *x < 0 || *x > max || *x != std::floor(*x)) return std::nullopt;
    return static_cast<long long>(*x);
}

std::optional<double> slurmEpoch(const nlohmann::json& v) {
    auto t = slurmNumber(v);
    if (t && *t <= 0) return std::nullopt;
    return t;
}

void gresGpus(const std::string& text, int& count, std::string& model) {
    for (std::size_t p = text.find("gpu:"); p != std::string::npos; p = text.find("gpu:", p + 4)) {
        const std::string item = text.substr(p + 4, text.find_first_of(",( ", p) - p - 4);  // "a100:4" or "4"
        if (p > 0 && text[p - 1] == '/' && item.find('=') != std::string::npos) continue;   // gres/gpu:a100=4 is read below
        const auto colon = item.rfind(':');
        const std::string n = colon == std::string::npos ? item : item.substr(colon + 1);
        if (!n.empty() && n.size() < 5 && n.find_first_not_of("0123456789") == std::string::npos) {
            count = std::max(count, std::stoi(n));
            if (colon != std::string::npos) model = item.substr(0, colon);
        }
    }
    if (const auto g = text.find("gres/gpu="); g != std::string::npos && count == 0) {
        const std::string n = text.substr(g + 9, text.find_first_of(", ", g) - g - 9);
        if (!n.empty() && n.size() < 5 && n.find_first_not_of("0123456789") == std::string::npos) count = std::stoi(n);
    }
    if (const auto g = text.find("gres/gpu:"); g != std::string::npos && model.empty())
        model = text.substr(g + 9, text.find('=', g) - g - 9);
}

bool plausibleGpuCount(const std::string& host, int count, const std::string& where, std::vector<ImportWarning>& warnings) {
    if (count <= kMaxGpusPerNode) return true;
    warnings.push_back({where, "bad_value",
                        host + ": " + std::to_string(count) + " GPUs on one node is more than any node has (at most " +
                            std::to_string(kMaxGpusPerNode) + "); its GPUs are not created"});
    return false;
}

bool readSlurmDocument(std::istream& in, const ParseOptions& opt, nlohmann::json& doc, std::vector<ImportWarning>& warnings) {
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 6E1226
        warnings.push_back({loc(opt, jsonErrorLine(text, e)), "syntax", std::string("not valid JSON: ") + e.what()});
        return false;
    }
    if (!doc.is_object()) {
        warnings.push_back({opt.file_name + "#", "syntax", "expected a JSON object"});
        return false;
    }
    if (doc.contains("errors") && doc["errors"].is_array())
        for (std::size_t i = 0; i < doc["errors"].size(); ++i) {
            const nlohmann::json& e = doc["errors"][i];
            warnings.push_back({opt.file_name + "#/errors/" + std::to_string(i), "source_error", detail::jsonText(e, "error", e.dump())});
        }
    return true;
}

bool liveJobState(const std::string& state) {
    static const std::set<std::string> live = {"RUNNING",  "PENDING", "SUSPENDED", "CONFIGURING", "COMPLETING", "REQUEUED",
                                               "RESIZING", "R",       "PD",        "S",           "CF",         "CG"};
    return live.count(state) > 0;
}

}  // namespace detail

using detail::slurmEpoch;
using detail::slurmNumber;
using detail::slurmTime;
using detail::slurmWhole;
using detail::splitOn;

std::vector<std::string> expandHostlist(const std::string& list) {
    std::vector<std::string> out;
    if (list.empty() || list == "None assigned" || list == "(null)") return out;
    // Split on commas outside brackets.
    std::vector<std::string> parts;
    std::string cur;
    int depth = 0;
    for (char c : list) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (depth < 0) throw ImportError("host list '" + list + "': unbalanced ']'");
        if (c == ',' && depth == 0) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (depth != 0) throw ImportError("host list '" + list + "': unbalanced '['");
    parts.push_back(cur);
    for (const auto& p : parts) {
        const auto lb = p.find('[');
        if (lb == std::string::npos) {
            if (!p.empty()) out.push_back(p);
            continue;
        }
        const auto rb = p.find(']', lb);
        const std::string prefix = p.substr(0, lb), suffix = p.substr(rb + 1), body = p.substr(lb + 1, rb - lb - 1);
        for (const auto& range : splitOn(body, ",")) {
            const auto dash = range.find('-');
            const std::string a = range.substr(0, dash), b = dash == std::string::npos ? a : range.substr(dash + 1);
            if (a.empty() || b.empty() || a.find_first_not_of("0123456789") != std::string::npos ||
                b.find_first_not_of("0123456789") != std::string::npos)
                throw ImportError("host list '" + list + "': bad range '" + range + "'");
            if (a.size() > 9 || b.size() > 9) throw ImportError("host list '" + list + "': number too long in '" + range + "'");
            const long lo = std::stol(a), hi = std::stol(b);
            if (hi < lo || hi - lo > 100000 || out.size() + static_cast<std::size_t>(hi - lo) > 1000000)
                throw ImportError("host list '" + list + "': bad range '" + range + "'");
            for (long v = lo; v <= hi; ++v) {
                std::string n = std::to_string(v);
                if (n.size() < a.size()) n.insert(0, a.size() - n.size(), '0');  // keep zero padding
                out.push_back(prefix + n + suffix);
            }
        }
    }
    return out;
}

SlurmResult parseSlurmFile(const std::string& path, const std::string& fields, double tz_offset_s) {
    const Detection det = detectFileFormat(path);
    detail::InputFile file(path);
    std::istream& in = file.stream();
    ParseOptions opt;
    opt.file_name = path;
    opt.tz_offset_s = tz_offset_s;
    if (det.is("slurm-json")) return parseSlurmJson(in, opt);
    if (det.is("slurm-sacct") || !fields.empty()) return parseSacct(in, opt, fields);
    throw ImportError(path + ": not Slurm accounting (" + std::string(det.id()) + "); for sacct without a header pass its --format list");
}

}  // namespace ct::importers
