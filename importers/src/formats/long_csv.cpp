// Long CSV: time, entity, metric, value[, unit] for everything else.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../input.hpp"
#include "../parse_common.hpp"

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
    for (auto& f : out) f = detail::trim(f);
    return out;
}

}  // namespace

ParseResult parseLongCsv(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    std::string line;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    int ti = -1, ei = -1, mi = -1, vi = -1, ui = -1;
    auto warn = [&](std::size_t l, const char* kind, std::string msg) {
        res.warnings.push_back({detail::loc(opt, l), kind, std::move(msg)});
    };
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

namespace format_rows {

FormatInfo longCsv() {
    FormatInfo f;
    f.id = "long-csv";
    f.label = "long CSV (time, entity, metric, value[, unit])";
    f.sniff = [](const FileHead& h) -> Sniff {
        const std::string& l = h.first_line_lower;
        auto has = [&](const char* s) { return l.find(s) != std::string::npos; };
        if (h.text() && has("time") && has("entity") && has("metric") && has("value")) return {80, "time,entity,metric,value header"};
        return {};
    };
    f.parse = parseLongCsv;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
