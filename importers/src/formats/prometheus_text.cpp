
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"

#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace ct::importers {

namespace {

/// [A-Za-z0-9_] without the locale lookups of std::isalnum.
inline bool wordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/// Parses `{a="x",b="y"}` starting at s[i] == '{'; leaves i after '}'. False on a syntax error.
bool parseLabels(const std::string& s, std::size_t& i, detail::Labels& labels, std::string& err) {
    ++i;  // '{'
    for (;;) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
        if (i < s.size() && s[i] == '}') {
            ++i;
            return true;
        }
        const std::size_t k0 = i;
        while (i < s.size() && wordChar(s[i])) ++i;
        if (i == k0 || i >= s.size() || s[i] != '=') {
            err = "expected label=\"value\"";
            return false;
        }
        const std::string_view key(s.data() + k0, i - k0);
        ++i;
        if (i >= s.size() || s[i] != '"') {
            err = "label value must be quoted";
            return false;
        }
        ++i;
        std::string& val = labels.add(key);
        for (;;) {
            // Plain runs are copied whole; escapes one at a time.
            std::size_t j = i;
            while (j < s.size() && s[j] != '"' && s[j] != '\\') ++j;
            val.append(s, i, j - i);
            i = j;
            if (i >= s.size()) {
                err = "unterminated label value";
                return false;
            }
            const char c = s[i++];
            if (c == '"') break;
            if (i < s.size()) {  // a backslash: \n, \\, \"
                const char e = s[i++];
                val += e == 'n' ? '\n' : e;
            }
        }
    }
}

}  // namespace

ParseResult parsePrometheusText(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::PromState state;
    state.default_host = detail::defaultHost(opt, "unknown-host");
    std::string line, metric;
    detail::Labels labels;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    auto warn = [&](std::size_t l, const char* kind, std::string msg) {
        res.warnings.push_back({detail::loc(opt, l), kind, std::move(msg)});
    };
    while (reader.next(line)) {
        const std::size_t lineno = reader.lineno();
        if (line.empty() || line[0] == '#') continue;
        if (reader.unterminated()) {  // exposition lines end in '\n': a last line without one was cut off
            warn(lineno, "truncated", "the file ends inside this line (no newline): sample not read");
            break;
        }
        std::size_t i = 0;
        while (i < line.size() && (wordChar(line[i]) || line[i] == ':')) ++i;
        if (i == 0) {
            warn(lineno, "syntax", "expected a metric name");
            continue;
        }
        metric.assign(line, 0, i);
        labels.clear();
        if (i < line.size() && line[i] == '{') {
            std::string err;
            if (!parseLabels(line, i, labels, err)) {
                warn(lineno, "syntax", metric + ": " + err);
                continue;
            }
        }
        // value [timestamp_ms]
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t v0 = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        double value = 0;
        if (!detail::parseNumber(std::string_view(line).substr(v0, i - v0), value)) {
            warn(lineno, "bad_value", metric + ": not a number: '" + line.substr(v0, i - v0) + "'");
            continue;
        }
        double t = opt.default_time_s;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i < line.size()) {
            double ms = 0;
            if (!detail::parseNumber(std::string_view(line).substr(i), ms) || !std::isfinite(ms)) {
                warn(lineno, "syntax", metric + ": bad timestamp");
                continue;
            }
            t = ms / 1000.0;
        }
        if (std::isnan(t)) {
            warn(lineno, "missing_field", metric + ": no timestamp and no scrape time");
            continue;
        }
        detail::addPromSample(
            metric, labels, t, value, [&] { return detail::loc(opt, lineno); }, res, state);
    }
    detail::finishPromParse(res, state);
    return res;
}

namespace format_rows {

FormatInfo prometheusText() {
    FormatInfo f;
    f.id = "prometheus-text";
    f.label = "DCGM exporter / Prometheus text exposition";
    f.extensions = {".prom", ".metrics"};
    f.extension_score = 60;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        if (h.has("# TYPE DCGM_") || h.has("# HELP DCGM_") || h.has("\nDCGM_FI_") || h.head.rfind("DCGM_FI_", 0) == 0)
            return {95, "DCGM_FI_ metrics"};
        if (h.has("# TYPE ") || h.has("# HELP ")) return {70, "# HELP/# TYPE lines"};
        return {};
    };
    f.parse = parsePrometheusText;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
