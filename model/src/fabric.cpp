#include <clustertwin/model/fabric.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

namespace ct::model {

namespace {
std::string ratio(double o) {
    std::ostringstream s;
    s << o << ":1";
    return s.str();
}
}  // namespace

FatTreeShape fatTreeShape(int radix, int levels, double o) {
    FatTreeShape f;
    if (radix < 4 || radix % 2) {
        f.error = "radix must be an even number >= 4 (is " + std::to_string(radix) + ")";
        return f;
    }
    if (levels != 2 && levels != 3) {
        f.error = "levels must be 2 or 3 (is " + std::to_string(levels) + ")";
        return f;
    }
    if (!(o >= 1) || !std::isfinite(o)) {
        f.error = "oversubscription must be >= 1 (1 = full bisection)";
        return f;
    }
    for (int up = radix / 2; up >= 1; --up) {
        const double down = o * up;
        if (std::fabs(down - std::round(down)) > 1e-9 * down) continue;
        if (up + std::lround(down) > radix) continue;
        f.up = up;
        f.down = static_cast<int>(std::lround(down));
        break;
    }
    if (f.up == 0) {
        // Say what this radix can do: the whole-number ratios that fit, the nearest first.
        std::ostringstream s;
        s << "a radix-" << radix << " leaf cannot split its ports exactly " << ratio(o) << " (down = " << o
          << " x up must be a whole number with down + up <= " << radix << "); ";
        const int lo = static_cast<int>(std::floor(o)), hi = lo + 1;
        s << "for example " << ratio(lo) << " (" << (radix / (lo + 1)) * lo << " down, " << radix / (lo + 1) << " up) or " << ratio(hi)
          << " (" << (radix / (hi + 1)) * hi << " down, " << radix / (hi + 1) << " up)";
        f.error = s.str();
        return f;
    }
    f.max_hosts = levels == 2 ? static_cast<long long>(radix) * f.down : static_cast<long long>(radix) * (radix / 2) * f.down;
    return f;
}

std::string fatTreeCapacityError(const FatTreeShape& f, int radix, int levels, double o, long long hosts) {
    if (!f.error.empty() || hosts <= f.max_hosts) return {};
    std::ostringstream s;
    s << "radix " << radix << " connects at most " << f.max_hosts << " NIC ports in " << levels << " levels at " << ratio(o) << " ("
      << f.down << " down, " << f.up << " up per leaf); the fabric has " << hosts;
    if (levels == 2) s << "; use 3 levels or a larger radix";
    else s << "; use a larger radix";
    return s.str();
}

std::vector<NodeRef> nodesInCablingOrder(const Scenario& s) {
    std::vector<NodeRef> out;
    for (std::size_t h = 0; h < s.halls.size(); ++h) {
        const Hall& hall = s.halls[h];
        // A row runs along x when its racks spread more in x than in y; rows are ordered by where they stand
        // across that direction, racks by where they stand along it. Positions are rounded to 1 mm.
        struct RowKey {
            std::size_t row;
            long long across, along0;
            bool along_x;
        };
        auto mm = [](double m) { return std::llround(m * 1000); };
        std::vector<RowKey> rows;
        for (std::size_t r = 0; r < hall.rows.size(); ++r) {
            const Row& row = hall.rows[r];
            if (row.racks.empty()) continue;
            double minx = 1e300, maxx = -1e300, miny = 1e300, maxy = -1e300, cx = 0, cy = 0;
            for (const Rack& k : row.racks) {
                minx = std::min(minx, k.position_m.x_m), maxx = std::max(maxx, k.position_m.x_m);
                miny = std::min(miny, k.position_m.y_m), maxy = std::max(maxy, k.position_m.y_m);
                cx += k.position_m.x_m / row.racks.size();
                cy += k.position_m.y_m / row.racks.size();
            }
            const bool along_x = maxx - minx >= maxy - miny;
            rows.push_back({r, mm(along_x ? cy : cx), mm(along_x ? minx : miny), along_x});
        }
        std::stable_sort(rows.begin(), rows.end(),
                         [](const RowKey& a, const RowKey& b) { return std::tie(a.across, a.along0) < std::tie(b.across, b.along0); });
        for (const RowKey& rk : rows) {
            const Row& row = hall.rows[rk.row];
            std::vector<std::size_t> racks(row.racks.size());
            for (std::size_t i = 0; i < racks.size(); ++i) racks[i] = i;
            auto key = [&](std::size_t i) {
                const Vec2& p = row.racks[i].position_m;
                return rk.along_x ? std::make_pair(mm(p.x_m), mm(p.y_m)) : std::make_pair(mm(p.y_m), mm(p.x_m));
            };
            std::stable_sort(racks.begin(), racks.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
            for (std::size_t k : racks) {
                const Rack& rack = row.racks[k];
                std::vector<std::size_t> nodes(rack.nodes.size());
                for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i] = i;
                std::stable_sort(nodes.begin(), nodes.end(),
                                 [&](std::size_t a, std::size_t b) { return rack.nodes[a].u_position < rack.nodes[b].u_position; });
                for (std::size_t n : nodes) out.push_back({h, rk.row, k, n});
            }
        }
    }
    return out;
}

CableName parseCableId(const std::string& id) {
    CableName c;
    const auto sep = id.find("<->");
    if (sep == std::string::npos) return c;
    c.a = id.substr(0, sep);
    c.b = id.substr(sep + 3);
    const auto hash = c.b.rfind('#');
    if (hash != std::string::npos && hash + 1 < c.b.size() && hash + 9 > c.b.size() &&
        c.b.find_first_not_of("0123456789", hash + 1) == std::string::npos) {
        c.ordinal = std::stoi(c.b.substr(hash + 1));
        c.b.resize(hash);
    }
    c.valid = !c.a.empty() && !c.b.empty();
    return c;
}

std::string cableLabel(const std::string& id) {
    const CableName c = parseCableId(id);
    if (!c.valid) return id;
    std::string out = c.a + " ↔ " + c.b;
    if (c.ordinal > 1) out += ", cable " + std::to_string(c.ordinal);
    return out;
}

}  // namespace ct::model
