#pragma once
// Looking into a ParseResult in the importer tests: a sample by entity and metric, its value and unit, an
// entity, a warning; a parser run on text with a fixed scrape time.
#include <clustertwin/importers/parse.hpp>

#include <QtGlobal>

#include <cmath>
#include <sstream>
#include <string>

namespace parse_checks {

using namespace ct::importers;

inline const ImportedSample* find(const ParseResult& r, const std::string& entity, const std::string& metric) {
    for (const auto& s : r.samples)
        if (s.entity == entity && s.metric == metric) return &s;
    return nullptr;
}
/// The value, or NaN (with a warning naming what is missing) when there is none.
inline double value(const ParseResult& r, const std::string& entity, const std::string& metric) {
    const ImportedSample* s = find(r, entity, metric);
    if (!s) qWarning("no %s %s", entity.c_str(), metric.c_str());
    return s ? s->value : std::nan("");
}
inline std::string unit(const ParseResult& r, const std::string& entity, const std::string& metric) {
    const ImportedSample* s = find(r, entity, metric);
    return s ? s->unit : "<none>";
}
inline bool hasEntity(const ParseResult& r, const std::string& id) {
    for (const auto& e : r.entities)
        if (e.id == id) return true;
    return false;
}
/// A warning of `kind` whose message or location contains `text`.
inline bool hasWarning(const ParseResult& r, const std::string& kind, const std::string& text) {
    for (const auto& w : r.warnings)
        if (w.kind == kind && (w.message + w.location).find(text) != std::string::npos) return true;
    return false;
}
using Parser = ParseResult (*)(std::istream&, const ParseOptions&, const Progress&, std::size_t);
/// `fn` on `text` as a file named `name` scraped at t = 1000 s.
inline ParseResult parseText(Parser fn, const std::string& text, const std::string& name = "t") {
    std::istringstream in(text);
    ParseOptions o;
    o.file_name = name;
    o.default_time_s = 1000;
    return fn(in, o, {}, text.size());
}

}  // namespace parse_checks
