#include "capacity.hpp"

#include <clustertwin/model/capacity.hpp>
#include <clustertwin/model/validate.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace ct::cli {

using json = nlohmann::ordered_json;

const char* kCapacityHelp = R"(Usage: clustertwin-cli capacity SCENARIO [--kind K] [--json]
       clustertwin-cli capacity SCENARIO --place N --rack-model R [--server S --servers K] [--json]

How much more the hall can take, at nameplate load (every server at its published maximum), with its redundancy
respected: each rack's space (U) and power (its weakest side's breakers at 80 % carrying the whole rack, as when
the other side has failed), each row's sums, each floor PDU, UPS and utility feed (capacity against the load it
carries with the other side failed) and each hall's air cooling with its largest unit out (N+1).
With --place: where N racks of model R, each with K servers of model S, could go — every row of every hall and a
new row per hall, the racks added side by side as Edit > Add rack places and powers them; a place fits when each
rack has room and breakers, the power chain still carries everything with one side failed and the hall's cooling
still covers its heat at N+1. Places that fit come with the headroom they leave (least first, most headroom
first); the others with why not.
  --kind K         only rack, row, floor_pdu, ups, feed or hall
  --place N        racks to place
  --rack-model R   their rack model (catalog id, e.g. rack-48u-600x1200)
  --server S       their server model (catalog id, e.g. dgx-h100); without it the racks are empty
  --servers K      servers per rack (default 4 with --server)
  --json           {"headroom": [{id, kind, what, capacity, used, left, unit, basis}]} or {"fits": [...], "refused": [...]}
Exit codes: 0 answered (also when nothing fits), 2 usage error or invalid scenario.
)";

namespace {

std::string amount(double v, const std::string& unit) {
    char b[64];
    if (unit == "W") std::snprintf(b, sizeof b, "%.1f kW", v / 1e3);
    else std::snprintf(b, sizeof b, "%.0f %s", v, unit.c_str());
    return b;
}

int place(const model::ValidationReport& rep, const Args& a) {
    const int n = static_cast<int>(a.getInt("place", 0));
    if (n < 1) throw UsageError("--place needs a number of racks of 1 or more");
    if (!a.has("rack-model")) throw UsageError("--place needs --rack-model");
    const std::string server = a.get("server");
    const int per = server.empty() ? 0 : static_cast<int>(a.has("servers") ? a.getInt("servers", 4) : 4);
    if (!server.empty() && per < 1) throw UsageError("--servers must be 1 or more");
    const model::PlacementAnswer ans = model::placeRacks(rep.scenario, rep.catalog, n, a.get("rack-model"), server, per);
    if (a.flag("json")) {
        json fits = json::array();
        for (const auto& p : ans.fits) {
            json pos = json::array();
            for (const auto& v : p.positions) pos.push_back({v.x_m, v.y_m});
            fits.push_back({{"hall", p.hall_id},
                            {"row", p.row_id.empty() ? json(nullptr) : json(p.row_id)},
                            {"new_row", p.new_row_name},
                            {"positions_m", pos},
                            {"floor_pdus", {p.floor_pdu_a, p.floor_pdu_b}},
                            {"power_left_w", p.power_left_w},
                            {"tightest", p.tightest},
                            {"cooling_left_w", p.cooling_left_w},
                            {"warning", p.warning}});
        }
        std::cout << json{{"racks", n},       {"rack_model", a.get("rack-model")},
                          {"server", server}, {"servers", per},
                          {"fits", fits},     {"refused", ans.refused}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::cout << n << " rack(s) of " << a.get("rack-model")
              << (server.empty() ? std::string(" (empty)") : " with " + std::to_string(per) + " × " + server) << ":\n";
    if (ans.fits.empty()) std::cout << "  fit nowhere\n";
    for (const auto& p : ans.fits) {
        char pos[64];
        std::snprintf(pos, sizeof pos, "from (%.2f, %.2f) m", p.positions.front().x_m, p.positions.front().y_m);
        std::cout << "  fits in " << p.hall_id << "/" << (p.row_id.empty() ? "a new row (" + p.new_row_name + ")" : p.row_id) << " " << pos
                  << ", on floor PDUs " << p.floor_pdu_a << " and " << p.floor_pdu_b << "; leaves " << amount(p.power_left_w, "W")
                  << " of power (" << p.tightest << ", the other side failed) and " << amount(p.cooling_left_w, "W")
                  << " of air cooling at N+1\n";
        if (!p.warning.empty()) std::cout << "    but: " << p.warning << "\n";
    }
    for (const auto& r : ans.refused) std::cout << "  not in " << r << "\n";
    return 0;
}

}  // namespace

int cmdCapacity(const Args& a) {
    if (a.positional().size() != 1) throw UsageError("expected exactly one scenario file");
    const std::string file = a.positional()[0];
    const model::ValidationReport rep = model::loadAndValidate(file);
    for (const auto& d : rep.diagnostics)
        if (d.severity == model::Severity::Error) std::cerr << file << ": " << d.toString() << "\n";
    if (model::hasErrors(rep.diagnostics)) return 2;
    if (a.has("place")) return place(rep, a);
    const std::string kind = a.get("kind");
    if (!kind.empty() && kind != "rack" && kind != "row" && kind != "floor_pdu" && kind != "ups" && kind != "feed" && kind != "hall")
        throw UsageError("--kind must be rack, row, floor_pdu, ups, feed or hall");
    const auto all = model::capacityHeadroom(rep.scenario, rep.catalog);
    if (a.flag("json")) {
        json arr = json::array();
        for (const auto& h : all)
            if (kind.empty() || h.kind == kind)
                arr.push_back({{"id", h.id},
                               {"kind", h.kind},
                               {"what", h.what},
                               {"capacity", h.capacity},
                               {"used", h.used},
                               {"left", h.left()},
                               {"unit", h.unit},
                               {"basis", h.basis}});
        std::cout << json{{"scenario", rep.scenario.id}, {"headroom", arr}}.dump(2) << "\n";
        return 0;
    }
    std::printf("%-16s %-10s %-8s %12s %12s %12s  %s\n", "entity", "kind", "what", "capacity", "used", "left", "");
    for (const auto& h : all) {
        if (!kind.empty() && h.kind != kind) continue;
        std::printf("%-16s %-10s %-8s %12s %12s %12s%s\n", h.id.c_str(), h.kind.c_str(), h.what.c_str(), amount(h.capacity, h.unit).c_str(),
                    amount(h.used, h.unit).c_str(), amount(h.left(), h.unit).c_str(), h.left() < 0 ? "  OVER" : "");
    }
    std::printf("(at nameplate load; power with the other side failed, cooling with the largest unit out: --json says each basis)\n");
    return 0;
}

}  // namespace ct::cli
