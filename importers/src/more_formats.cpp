// nvidia-smi --query-gpu CSV, Prometheus HTTP API JSON, InfiniBand perfquery counters.
#include <clustertwin/importers/parse.hpp>

#include "parse_common.hpp"
#include "vocabulary.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ct::importers {

namespace {

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

std::vector<std::string> splitComma(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : line) {
        if (c == ',') {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(trim(cur));
    return out;
}

} // namespace

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
                res.warnings.push_back({detail::loc(opt, lineno), "truncated", "the file ends inside its header line (no newline, no rows)"});
            continue;
        }
        if (cells.size() != fields.size()) {
            res.warnings.push_back({detail::loc(opt, lineno), "syntax", "expected " + std::to_string(fields.size()) + " fields, got " + std::to_string(cells.size())});
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
            if (v.empty() || v.front() == '[') continue;  // [N/A], [Not Supported], [Requested functionality has been deprecated]
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
    if (fields.empty()) res.warnings.push_back({detail::loc(opt, std::max<std::size_t>(1, reader.lineno())), "missing_field", "no header line"});
    return res;
}

ParseResult parsePrometheusApiJson(std::istream& in, const ParseOptions& opt, const Progress&, std::size_t) {
    ParseResult res;
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 6E1226
        res.warnings.push_back({detail::loc(opt, detail::jsonErrorLine(text, e)), "syntax", std::string("not valid JSON: ") + e.what()});
        return res;
    }
    const nlohmann::json* result = nullptr;
    if (doc.is_array()) result = &doc;
    else if (doc.is_object() && doc.contains("data") && doc["data"].is_object() && doc["data"].contains("result"))
        result = &doc["data"]["result"];
    if (!result || !result->is_array()) {
        res.warnings.push_back({opt.file_name, "missing_field", "no data.result array"});
        return res;
    }
    if (doc.is_object() && detail::jsonText(doc, "status", "success") != "success")
        res.warnings.push_back({opt.file_name, "no_data", "status is " + detail::jsonText(doc, "status", "?")});
    detail::PromState state;
    state.default_host = detail::defaultHost(opt, "unknown-host");
    for (std::size_t i = 0; i < result->size(); ++i) {
        const auto& series = (*result)[i];
        const std::string where = opt.file_name + "#/data/result/" + std::to_string(i);
        if (!series.is_object() || !series.contains("metric") || !series["metric"].is_object()) {
            res.warnings.push_back({where, "missing_field", "series without a metric object"});
            continue;
        }
        detail::Labels labels;
        for (auto it = series["metric"].begin(); it != series["metric"].end(); ++it)
            if (it.value().is_string()) labels.add(it.key()) = it.value().get<std::string>();
        const std::string name = labels.find("__name__") ? *labels.find("__name__") : "value";
        std::vector<const nlohmann::json*> points;
        if (series.contains("values") && series["values"].is_array())
            for (const auto& p : series["values"]) points.push_back(&p);
        if (series.contains("value")) points.push_back(&series["value"]);
        for (std::size_t k = 0; k < points.size(); ++k) {
            const auto& p = *points[k];
            double t = 0, v = 0;
            if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !(p[1].is_string() || p[1].is_number())) {
                res.warnings.push_back({where + "/values/" + std::to_string(k), "syntax", "expected [time, \"value\"]"});
                continue;
            }
            t = p[0].get<double>();
            if (p[1].is_number()) v = p[1].get<double>();
            else if (!detail::parseNumber(p[1].get<std::string>(), v)) {
                res.warnings.push_back({where + "/values/" + std::to_string(k), "bad_value", "not a number: " + p[1].dump()});
                continue;
            }
            detail::addPromSample(name, labels, t, v, [&] { return where; }, res, state);
        }
    }
    detail::finishPromParse(res, state);
    return res;
}

ParseResult parsePerfquery(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    std::string line, entity = "ib-unknown";
    detail::LineReader reader(in, opt, progress, size_hint, res);
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (line.rfind("ibwarn:", 0) == 0) {  // the tool's own complaint: said, not a counter
            res.warnings.push_back({reader.location(), "source_error", line});
            continue;
        }
        if (line.rfind("# Port", 0) == 0) {
            int lid = -1, port = -1;
            const auto l = line.find("Lid "), p = line.find(" port ");
            if (l != std::string::npos) lid = std::atoi(line.c_str() + l + 4);
            if (p != std::string::npos) port = std::atoi(line.c_str() + p + 6);
            entity = "ib-lid" + std::to_string(lid) + "/port" + std::to_string(port);
            res.entities.push_back({entity, "ib_port", "ib-lid" + std::to_string(lid), "", {}});
            continue;
        }
        const auto colon = line.find(':');
        if (line[0] == '#') continue;
        if (colon == std::string::npos) {
            res.warnings.push_back({reader.location(), "syntax", "expected Name:....value"});
            continue;
        }
        const std::string key = line.substr(0, colon);
        std::string val = line.substr(colon + 1);
        val.erase(0, val.find_first_not_of('.'));
        double v = 0;
        if (val.rfind("0x", 0) == 0) continue;  // selects and masks are not counters
        if (!detail::parseNumber(val, v) || !std::isfinite(v)) {
            res.warnings.push_back({reader.location(), "bad_value", key + ": \"" + val + "\" is not a counter"});
            continue;
        }
        // Data counters count 4-byte words.
        if (key == "PortXmitData" || key == "PortRcvData") {
            res.samples.push_back({entity, key == "PortXmitData" ? "xmit_bytes" : "rcv_bytes", "B", opt.default_time_s, v * 4});
        } else {
            std::string m;
            for (char c : key) {
                if (std::isupper(static_cast<unsigned char>(c)) && !m.empty()) m += '_';
                m += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            }
            res.samples.push_back({entity, m, "count", opt.default_time_s, v});
        }
    }
    return res;
}

} // namespace ct::importers
