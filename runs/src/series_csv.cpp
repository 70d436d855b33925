#include <clustertwin/runs/series_csv.hpp>

#include <clustertwin/model/error.hpp>
#include <clustertwin/model/time.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace ct::runs {

std::string csvField(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

std::string seriesCsvRecord(double t_s, std::string_view entity, std::string_view metric, double value, std::string_view unit) {
    char t[48], v[48] = "";
    std::snprintf(t, sizeof t, "%.3f", t_s);
    if (!std::isnan(value)) std::snprintf(v, sizeof v, "%.10g", value);
    std::string out = t;
    out += ',';
    out += csvField(entity);
    out += ',';
    out += csvField(metric);
    out += ',';
    out += v;
    out += ',';
    out += csvField(unit);
    out += "\r\n";
    return out;
}

std::optional<double> parseTimeSpec(std::string_view text, double run_start_s) {
    if (text.empty()) return std::nullopt;
    double t = 0;
    // A plain number is a time as stored; "-5" (before a simulated run's start) is allowed too.
    const char* b = text.data() + (text.front() == '+' ? 1 : 0);
    const auto r = std::from_chars(b, text.data() + text.size(), t);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size() && std::isfinite(t)) return t;
    if (model::parseIsoTime(text, t)) return t;
    try {
        return run_start_s + model::parseDurationS(text);
    } catch (const model::ModelError&) {
        return std::nullopt;
    }
}

}  // namespace ct::runs
