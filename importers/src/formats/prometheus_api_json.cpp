// The Prometheus HTTP API's JSON (query, query_range) or a bare result array.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"
#include "../vocabulary.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ct::importers {

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
            detail::addPromSample(
                name, labels, t, v, [&where] { return std::string(where); }, res, state);
        }
    }
    detail::finishPromParse(res, state);
    return res;
}

namespace format_rows {

FormatInfo prometheusApiJson() {
    FormatInfo f;
    f.id = "prometheus-api-json";
    f.label = "Prometheus HTTP API JSON (query, query_range)";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.json()) return {};
        if (h.has("\"resultType\"") && h.has("\"result\"")) return {90, "\"resultType\" and \"result\""};
        // A bare result array as some clients save it: [{"metric": {...}, "values"|"value": ...}]
        if (h.first == '[' && h.has("\"metric\"") && (h.has("\"values\"") || h.has("\"value\""))) return {75, "array of {metric, values}"};
        return {};
    };
    f.parse = parsePrometheusApiJson;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
