// Mellanox ibswinfo: an unmanaged switch's PSU power and status, temperature, fans, uptime.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace ct::importers {

using detail::trim;

ParseResult parseIbswinfo(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    std::string line, desc, entity, psu;
    struct Row {
        std::string key, value, location;
    };
    std::vector<Row> rows;
    bool in_title = false;
    while (reader.next(line)) {
        const std::string t = trim(line);
        if (t.empty()) continue;
        if (t.find_first_not_of('=') == std::string::npos) {
            in_title = !in_title;
            continue;
        }
        if (t.find_first_not_of('-') == std::string::npos) continue;
        if (in_title) {
            desc = t;
            continue;
        }
        const auto bar = line.find('|');
        if (bar == std::string::npos) {
            res.warnings.push_back({reader.location(), "syntax", "expected \"key | value\""});
            continue;
        }
        // Indented keys belong to the PSU above them ("     power (W)     | 72").
        const bool indented = !line.empty() && (line[0] == ' ' || line[0] == '\t');
        std::string key = trim(line.substr(0, bar));
        if (!indented) psu.clear();
        if (key.rfind("PSU", 0) == 0 && key.find(" status") != std::string::npos) psu = key.substr(0, key.find(' '));
        if (indented && !psu.empty()) key = psu + "/" + key;
        rows.push_back({key, trim(line.substr(bar + 1)), reader.location()});
    }
    std::string guid;
    for (const auto& r : rows)
        if (r.key == "GUID") guid = r.value;
    if (guid.empty()) {
        res.warnings.push_back({detail::loc(opt, 1), "missing_field", "no GUID row; the switch cannot be named"});
        return res;
    }
    std::string hex = guid.rfind("0x", 0) == 0 ? guid.substr(2) : guid;
    while (hex.size() < 16) hex = "0" + hex;
    entity = "ibsw-" + hex;
    res.entities.push_back({entity, "ib_switch", "", desc, {{"guid", "0x" + hex}, {"description", desc}}});
    const double t = opt.default_time_s;
    auto add = [&](const std::string& ent, const char* metric, const char* unit, const Row& r, double scale = 1) {
        double v;
        if (!detail::parseNumber(r.value, v)) {
            res.warnings.push_back({r.location, "bad_value", r.key + ": \"" + r.value + "\" is not a number"});
            return;
        }
        res.samples.push_back({ent, metric, unit, t, v * scale});
    };
    for (const auto& r : rows) {
        if (r.key == "temperature (C)") add(entity, "temp_c", "degC", r);
        else if (r.key == "max temp (C)") add(entity, "temp_max_c", "degC", r);
        else if (r.key.rfind("fan#", 0) == 0 && r.key.find("(rpm)") != std::string::npos)
            add(entity + "/fan" + r.key.substr(4, r.key.find(' ') - 4), "fan_rpm", "RPM", r);
        else if (r.key.find("/power (W)") != std::string::npos) add(entity + "/" + r.key.substr(0, r.key.find('/')), "power_w", "W", r);
        else if (r.key.rfind("uptime", 0) == 0) {
            int d = 0, h = 0, m = 0, s = 0;
            if (std::sscanf(r.value.c_str(), "%dd-%d:%d:%d", &d, &h, &m, &s) == 4)
                res.samples.push_back({entity, "uptime_s", "s", t, d * 86400.0 + h * 3600.0 + m * 60.0 + s});
            else res.warnings.push_back({r.location, "bad_value", "uptime \"" + r.value + "\" is not d-h:m:s"});
        } else if (r.key.size() > 7 && r.key.compare(r.key.size() - 7, 7, " status") == 0) {
            // "PSU0 status", "PSU0/fan status", "fan status": OK or not, a fault flag on the PSU or the switch.
            const bool of_psu = r.key.rfind("PSU", 0) == 0;
            const std::string unit = of_psu ? entity + "/" + r.key.substr(0, r.key.find_first_of(" /")) : entity;
            const bool fan = r.key.find("fan status") != std::string::npos;
            res.samples.push_back({unit, fan ? "fan_fault" : "psu_fault", "bool", t, r.value == "OK" ? 0.0 : 1.0});
        }
    }
    if (std::isnan(t)) {
        res.samples.clear();
        res.warnings.push_back({detail::loc(opt, 1), "missing_field", "no time for the readings (no default time)"});
    }
    return res;
}

namespace format_rows {

FormatInfo ibSwinfo() {
    FormatInfo f;
    f.id = "ib-swinfo";
    f.label = "Mellanox ibswinfo (unmanaged switch health)";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.text() && ((h.has("\nGUID ") && h.has("\nfirmware version")) || (h.has("=====\n") && h.has("\npart number "))))
            return {80, "ibswinfo key | value table"};
        return {};
    };
    f.parse = parseIbswinfo;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
