// Loading a scenario with its own catalog section and validating it (validate.hpp); the checks themselves are in
// validate.cpp and validate_cooling.cpp.
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include "json_util.hpp"

#include <set>

namespace ct::model {

using detail::ptrJoin;

Catalog effectiveCatalog(const Scenario& s, const Catalog& base, Diagnostics& diags) {
    Catalog c = base;
    if (s.catalog_json.empty()) return c;
    Diagnostics local;
    c.merge(s.catalog_json, "/catalog", local);
    // Integrity of the merged catalog; the built-in part is known clean, so every finding comes from the
    // scenario's section. check() names entries by id; turn that into the section's JSON pointer.
    const auto section = detail::json::parse(s.catalog_json);
    for (auto d : c.check()) {
        const auto slash1 = d.location.find('/');
        const auto slash2 = d.location.find('/', slash1 + 1);
        if (slash1 != std::string::npos) {
            const std::string sec = d.location.substr(0, slash1);
            const std::string id = d.location.substr(slash1 + 1, slash2 == std::string::npos ? std::string::npos : slash2 - slash1 - 1);
            const std::string rest = slash2 == std::string::npos ? "" : d.location.substr(slash2);
            std::string ptr = "/catalog/" + sec;
            if (section.contains(sec) && section[sec].is_array()) {
                for (std::size_t i = 0; i < section[sec].size(); ++i) {
                    const auto& e = section[sec][i];
                    if (e.is_object() && e.value("id", std::string()) == id) {
                        ptr = ptrJoin(ptrJoin("/catalog", sec), i) + rest;
                        break;
                    }
                }
            }
            d.location = ptr;
        }
        local.push_back(std::move(d));
    }
    diags.insert(diags.end(), local.begin(), local.end());
    return c;
}

namespace {
ValidationReport validated(LoadResult lr, const Catalog& base) {
    ValidationReport rep;
    rep.scenario = std::move(lr.scenario);
    rep.diagnostics = std::move(lr.diagnostics);
    rep.catalog = effectiveCatalog(rep.scenario, base, rep.diagnostics);
    // Semantic checks would only repeat a structural error in other words ("must be > 0 (is 0)" after
    // "expected a number"), so findings at a location that already has an error are left out.
    std::set<std::string> broken;
    for (const auto& d : rep.diagnostics)
        if (d.severity == Severity::Error) broken.insert(d.location);
    if (broken.count("/")) return rep;  // not a scenario object at all
    for (auto& d : validateScenario(rep.scenario, rep.catalog))
        if (!broken.count(d.location)) rep.diagnostics.push_back(std::move(d));
    return rep;
}
}  // namespace

ValidationReport loadAndValidate(const std::string& path, const Catalog& base) { return validated(loadScenarioFile(path), base); }

ValidationReport parseAndValidate(std::string_view json_text, const std::string& name, const Catalog& base) {
    return validated(parseScenario(json_text, name), base);
}

}  // namespace ct::model
