// nvidia-smi --query-gpu CSV, Prometheus HTTP API JSON, InfiniBand perfquery counters.
#include <clustertwin/importers/parse.hpp>

#include "parse_common.hpp"

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

struct SmiField {
    const char* name;
    const char* unit;
    double scale;
};

/// nvidia-smi fields with engine names; others become their own name with '.' → '_'.
const SmiField* smiName(const std::string& field) {
    static const std::map<std::string, SmiField> m = {
        {"temperature.gpu", {"temp_c", "degC", 1}},     {"power.draw", {"power_w", "W", 1}},
        {"utilization.gpu", {"utilization", "ratio", 0.01}}, {"clocks.current.sm", {"sm_clock_mhz", "MHz", 1}},
        {"clocks.sm", {"sm_clock_mhz", "MHz", 1}},      {"memory.used", {"fb_used_mib", "MiB", 1}},
        {"fan.speed", {"fan_speed", "ratio", 0.01}},
    };
    auto it = m.find(field);
    return it == m.end() ? nullptr : &it->second;
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
            continue;
        }
        if (cells.size() != fields.size()) {
            res.warnings.push_back({detail::loc(opt, lineno), "syntax", "expected " + std::to_string(fields.size()) + " fields, got " + std::to_string(cells.size())});
            continue;
        }
        double t = opt.default_time_s;
        std::string host, index = std::to_string(res.entities.size()), model;
        for (std::size_t k = 0; k < fields.size(); ++k) {
            if (fields[k] == "timestamp") {
                std::string ts = cells[k];
                std::replace(ts.begin(), ts.end(), '/', '-');
                double v = 0;
                if (detail::parseIsoTime(ts, v)) t = v;
            } else if (fields[k] == "index") {
                index = cells[k];
            } else if (fields[k] == "name") {
                model = cells[k];
            } else if (fields[k] == "hostname" && cells[k].front() != '[') {
                host = cells[k];
            }
        }
        if (host.empty()) host = "unknown-host";
        const std::string gpu = host + "/gpu" + index;
        if (seen.insert(gpu).second) {
            if (seen.insert(host).second) res.entities.push_back({host, "node", "", host, {}});
            res.entities.push_back({gpu, "gpu", host, model, {}});
        }
        for (std::size_t k = 0; k < fields.size(); ++k) {
            std::string v = cells[k];
            if (v.empty()) continue;
            if (v.front() == '[') {  // [N/A], [Not Supported], [Requested functionality has been deprecated]
                continue;
            }
            // "28.16 W", "100 %", "1980 MHz": drop the unit after the number.
            const auto sp = v.find(' ');
            std::string num = sp == std::string::npos ? v : v.substr(0, sp);
            double x = 0;
            if (!detail::parseNumber(num, x)) continue;  // text fields (names, P-states, "Not Active")
            const SmiField* f = smiName(fields[k]);
            std::string metric = fields[k];
            std::replace(metric.begin(), metric.end(), '.', '_');
            res.samples.push_back({gpu, f ? f->name : metric, f ? f->unit : units[k], t, f ? x * f->scale : x});
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
    if (doc.is_object() && doc.value("status", "success") != "success")
        res.warnings.push_back({opt.file_name, "no_data", "status is " + doc.value("status", std::string("?"))});
    detail::PromState state;
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
