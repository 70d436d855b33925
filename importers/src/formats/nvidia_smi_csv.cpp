// nvidia-smi --query-gpu CSV.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"
#include "../vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ct::importers {

namespace {

std::vector<std::string> splitComma(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == ',') {
            out.push_back(detail::trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(detail::trim(cur));
    return out;
}

}  // namespace

ParseResult parseNvidiaSmiCsv(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    std::string line;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    std::vector<std::string> fields, units;
    std::set<std::string> seen;
    while (reader.next(line)) {
        const std::size_t lineno = reader.lineno();
        if (line.empty()) continue;
        auto cells = splitComma(line);
        if (fields.empty()) {  // header: "power.draw [W]" or plain "power.draw" (nounits)
            for (auto& c : cells) {
                const auto b = c.find(" [");
                fields.push_back(b == std::string::npos ? c : c.substr(0, b));
                units.push_back(b == std::string::npos ? "" : c.substr(b + 2, c.size() - b - 3));
            }
            if (reader.unterminated())  // the file ends inside its header: the last column name may be cut
                res.warnings.push_back(
                    {detail::loc(opt, lineno), "truncated", "the file ends inside its header line (no newline, no rows)"});
            continue;
        }
        if (cells.size() != fields.size()) {
            res.warnings.push_back({detail::loc(opt, lineno), "syntax",
                                    "expected " + std::to_string(fields.size()) + " fields, got " + std::to_string(cells.size())});
            continue;
        }
        double t = opt.default_time_s;
        std::string host, index = std::to_string(res.entities.size()), model, uuid;
        for (std::size_t k = 0; k < fields.size(); ++k) {
            if (fields[k] == "timestamp") {
                std::string ts = cells[k];
                std::replace(ts.begin(), ts.end(), '/', '-');
                double v = 0;
                if (detail::parseIsoTime(ts, v, opt.tz_offset_s)) t = v;
            } else if (fields[k] == "index") {
                index = cells[k];
            } else if (fields[k] == "name") {
                model = cells[k];
            } else if (fields[k] == "uuid" && !cells[k].empty() && cells[k].front() != '[') {
                uuid = cells[k];
            } else if (fields[k] == "hostname" && !cells[k].empty() && cells[k].front() != '[') {
                host = cells[k];
            }
        }
        if (host.empty()) host = detail::defaultHost(opt, "unknown-host");
        const std::string gpu = host + "/gpu" + index;
        if (seen.insert(gpu).second) {
            if (seen.insert(host).second) res.entities.push_back({host, "node", "", host, {}});
            std::map<std::string, std::string> labels;
            if (!uuid.empty()) labels["uuid"] = uuid;
            res.entities.push_back({gpu, "gpu", host, model, labels});
        }
        if (std::isnan(t)) {
            res.warnings.push_back({detail::loc(opt, lineno), "missing_field", "no timestamp column and no file time: row dropped"});
            continue;
        }
        for (std::size_t k = 0; k < fields.size(); ++k) {
            const std::string& v = cells[k];
            if (v.empty() || v.front() == '[') continue;        // [N/A], [Not Supported], [Requested functionality has been deprecated]
            if (detail::smiIdentityField(fields[k])) continue;  // index, serial, versions: labels, not readings
            // "28.16 W", "100 %", "1980 MHz": the unit after the number, when the header does not give it.
            const auto sp = v.find(' ');
            const std::string num = sp == std::string::npos ? v : v.substr(0, sp);
            std::string unit = units[k];
            if (unit.empty() && sp != std::string::npos) unit = v.substr(sp + 1);
            double x = 0;
            if (!detail::parseNumber(num, x) && !(fields[k] == "pstate" && detail::parsePstate(num, x))) continue;  // text fields
            if (const auto term = detail::smiTerm(fields[k], unit)) {
                res.samples.push_back({gpu, std::string(term->metric), std::string(term->unit), t, x * term->scale});
            } else {
                const detail::OwnTerm own = detail::smiOwnTerm(fields[k], unit);
                res.samples.push_back({gpu, own.metric, own.unit, t, x * own.scale});
            }
        }
    }
    if (fields.empty())
        res.warnings.push_back({detail::loc(opt, std::max<std::size_t>(1, reader.lineno())), "missing_field", "no header line"});
    return res;
}

namespace format_rows {

FormatInfo nvidiaSmiCsv() {
    FormatInfo f;
    f.id = "nvidia-smi-csv";
    f.label = "nvidia-smi --query-gpu CSV";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        const std::string& l = h.first_line_lower;
        auto has = [&](const char* s) { return l.find(s) != std::string::npos; };
        if (has("pci.bus_id") || has("utilization.gpu") || has("temperature.gpu") || has("power.draw") ||
            (has("name") && has("memory.total")))
            return {85, "nvidia-smi query-gpu header"};
        return {};
    };
    f.parse = parseNvidiaSmiCsv;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
