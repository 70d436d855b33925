// A scenario's racks and devices as NetBox bulk-import CSV: see netbox.hpp.
#include <clustertwin/inventory/netbox.hpp>

#include <clustertwin/model/units.hpp>

#include <cmath>
#include <sstream>

namespace ct::inventory {

namespace {

/// RFC 4180: quoted when it holds a comma, quote or line break.
std::string field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string line(std::initializer_list<std::string> fields) {
    std::string out;
    for (const auto& f : fields) {
        if (!out.empty()) out += ',';
        out += field(f);
    }
    return out + "\r\n";
}

std::string mm(double m) { return std::to_string(static_cast<long>(std::lround(m * 1000))); }

/// A catalog name's maker and model: "NVIDIA DGX H100" → ("NVIDIA", "DGX H100").
std::pair<std::string, std::string> makerAndModel(const std::string& name) {
    const auto sp = name.find(' ');
    if (sp == std::string::npos) return {"Generic", name};
    return {name.substr(0, sp), name.substr(sp + 1)};
}

}  // namespace

std::string netboxRacksCsv(const model::Scenario& s, const model::Catalog& c) {
    std::string out =
        line({"site", "location", "name", "status", "width", "u_height", "outer_width", "outer_depth", "outer_unit", "comments"});
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks) {
                const auto* rm = c.rack(r.model);
                std::ostringstream where;
                where << "ClusterTwin " << r.id << " in " << row.id << " at (" << r.position_m.x_m << ", " << r.position_m.y_m
                      << ") m facing " << model::toString(r.facing);
                out += line({s.site.name.empty() ? s.id : s.site.name, h.name.empty() ? h.id : h.name, r.name.empty() ? r.id : r.name,
                             "active", "19", rm ? std::to_string(rm->height_u) : "42", rm ? mm(rm->width_m) : "", rm ? mm(rm->depth_m) : "",
                             "mm", where.str()});
            }
    return out;
}

std::string netboxDevicesCsv(const model::Scenario& s, const model::Catalog& c) {
    std::string out = line({"name", "role", "manufacturer", "device_type", "site", "location", "rack", "position", "face", "status"});
    for (const auto& h : s.halls)
        for (const auto& row : h.rows)
            for (const auto& r : row.racks)
                for (const auto& n : r.nodes) {
                    const auto* sm = c.server(n.model);
                    const auto [maker, type] = makerAndModel(sm ? sm->name : n.model);
                    out += line({n.hostname.empty() ? n.id : n.hostname, "GPU server", maker, type,
                                 s.site.name.empty() ? s.id : s.site.name, h.name.empty() ? h.id : h.name, r.name.empty() ? r.id : r.name,
                                 std::to_string(n.u_position), "front", "active"});
                }
    return out;
}

}  // namespace ct::inventory
