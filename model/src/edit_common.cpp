// Helpers shared by the layout edits: see edit_parts.hpp.
#include "edit_parts.hpp"

#include <clustertwin/model/error.hpp>

#include <cmath>
#include <stdexcept>

namespace ct::model::detail {

/// Every id in use, so new ones are unique across kinds.
std::set<std::string> allIds(const Scenario& s) {
    std::set<std::string> ids{s.id};
    for (const auto& h : s.halls) {
        ids.insert(h.id);
        for (const auto& row : h.rows) {
            ids.insert(row.id);
            for (const auto& r : row.racks) {
                ids.insert(r.id);
                for (const auto& n : r.nodes) ids.insert(n.id);
                for (const auto& p : r.pdus) ids.insert(p.id);
            }
        }
        for (const auto& u : h.cooling_units) ids.insert(u.id);
        for (const auto& u : h.cdus) ids.insert(u.id);
        for (const auto& x : h.sensors) ids.insert(x.id);
    }
    for (const auto& h : s.halls)
        for (const auto& c : h.containments) ids.insert(c.id);
    for (const auto& f : s.power.feeds) ids.insert(f.id);
    for (const auto& t : s.power.transformers) ids.insert(t.id);
    for (const auto& l : s.plant.loops) ids.insert(l.id);
    for (const auto& u : s.power.ups) ids.insert(u.id);
    for (const auto& p : s.power.pdus) ids.insert(p.id);
    for (const auto& j : s.jobs) ids.insert(j.id);
    return ids;
}

std::string fresh(std::set<std::string>& used, const std::string& base) {
    if (!used.count(base)) {
        used.insert(base);
        return base;
    }
    for (int i = 2;; ++i) {
        std::string id = base + "-" + std::to_string(i);
        if (!used.count(id)) {
            used.insert(id);
            return id;
        }
    }
}

double number(const std::string& key, const std::string& v) {
    try {
        std::size_t used = 0;
        const double d = std::stod(v, &used);
        if (used != v.size() || !std::isfinite(d)) throw std::invalid_argument(v);
        return d;
    } catch (const std::exception&) {
        throw ModelError(key + ": '" + v + "' is not a number");
    }
}

Where find(Scenario& s, const std::string& id) {
    for (auto& h : s.halls) {
        for (auto& row : h.rows) {
            if (row.id == id) return {&h, &row};
            for (auto& r : row.racks) {
                if (r.id == id) return {&h, &row, &r};
                for (auto& n : r.nodes)
                    if (n.id == id) return {&h, &row, &r, &n};
            }
        }
        for (auto& u : h.cooling_units)
            if (u.id == id) return {&h, nullptr, nullptr, nullptr, &u};
        for (auto& u : h.cdus)
            if (u.id == id) return {&h, nullptr, nullptr, nullptr, nullptr, &u};
        for (auto& x : h.sensors)
            if (x.id == id) return {&h, nullptr, nullptr, nullptr, nullptr, nullptr, &x};
    }
    return {};
}

Where require(Scenario& s, const std::string& id) {
    Where w = find(s, id);
    if (!w.hall) throw ModelError("no rack, row, node, cooling unit, CDU or sensor with id '" + id + "'");
    return w;
}

}  // namespace ct::model::detail
