// A hall's air geometry on an air solver: see hall_air.hpp.
#include "hall_air.hpp"

#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace ct::sim {

namespace {

using model::Facing;

Facing opposite(Facing f) {
    switch (f) {
        case Facing::North:
            return Facing::South;
        case Facing::South:
            return Facing::North;
        case Facing::East:
            return Facing::West;
        default:
            return Facing::East;
    }
}

PortJet along(Facing f) {
    switch (f) {
        case Facing::North:
            return {0, 1, 0, 1};
        case Facing::South:
            return {0, -1, 0, 1};
        case Facing::East:
            return {1, 0, 0, 1};
        default:
            return {-1, 0, 0, 1};
    }
}

/// Connected fluid regions of the grid (6-neighbour), labelled per cell; −1 for solids. The largest region, the
/// room, is labelled 0.
std::vector<int> fluidRegions(const AirModel& air) {
    const int nx = air.nx(), ny = air.ny(), nz = air.nz();
    std::vector<int> label(air.cellCount(), -1);
    std::vector<std::size_t> size;
    std::vector<int> stack;
    for (int start = 0; start < static_cast<int>(label.size()); ++start) {
        if (label[static_cast<std::size_t>(start)] >= 0 || air.solid(start)) continue;
        const int id = static_cast<int>(size.size());
        size.push_back(0);
        label[static_cast<std::size_t>(start)] = id;
        stack.push_back(start);
        while (!stack.empty()) {
            const int c = stack.back();
            stack.pop_back();
            ++size.back();
            const int i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
            const int nb[6][3] = {{i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k}, {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
            for (const auto& n : nb) {
                if (n[0] < 0 || n[1] < 0 || n[2] < 0 || n[0] >= nx || n[1] >= ny || n[2] >= nz) continue;
                const int d = air.index(n[0], n[1], n[2]);
                if (label[static_cast<std::size_t>(d)] >= 0 || air.solid(d)) continue;
                label[static_cast<std::size_t>(d)] = id;
                stack.push_back(d);
            }
        }
    }
    if (size.size() > 1) {
        const int room = static_cast<int>(std::max_element(size.begin(), size.end()) - size.begin());
        for (int& l : label)
            if (l == room) l = 0;
            else if (l == 0) l = room;
    }
    return label;
}

class Builder {
public:
    Builder(const model::Hall& hall, const model::Catalog& cat, AirSolver& s, double margin)
        : hall_(hall), cat_(cat), solver_(s), air_(s.air()), c_(air_.cellM()), margin_(margin) {}

    HallAirPorts build() {
        solids();
        containmentPanels();
        region_ = fluidRegions(air_);
        region_index_[0] = 0;
        out_.regions.emplace_back();
        for (const auto& row : hall_.rows)
            for (const auto& r : row.racks) rack(r);
        for (const auto& u : hall_.cooling_units) unit(u);
        bool perimeter = false;
        for (const auto& u : hall_.cooling_units) perimeter = perimeter || !model::isInRow(u, cat_);
        if (hall_.raised_floor && perimeter) tiles();
        if (hall_.ceiling_return && perimeter) grilles();
        leaks();
        return std::move(out_);
    }

private:
    const model::Hall& hall_;
    const model::Catalog& cat_;
    AirSolver& solver_;
    AirModel& air_;
    double c_, margin_;
    double rack_q_max_ = 0;  // all racks at full fan speed
    HallAirPorts out_;
    std::set<int> used_;       // cells already in a port: a cell belongs to one port at most
    std::vector<int> region_;  // per cell: the connected fluid region (−1 solid); the room is the largest
    std::vector<std::pair<const model::Containment*, model::ContainedAisle>> aisles_;
    bool probing_ = false;  // the rack being built has openings: its levels get pressure probes

    const model::RackModel& rackModel(const model::Rack& r) const {
        const auto* rm = cat_.rack(r.model);
        if (!rm) throw SimError("rack " + r.id + ": unknown rack model " + r.model);
        return *rm;
    }

    void solids() {
        auto box = [&](const model::Box2& b, double height) { solver_.addSolidBox(b.x0, b.y0, 0, b.x1, b.y1, height); };
        for (const auto& row : hall_.rows) {
            for (const auto& r : row.racks) {
                const auto& rm = rackModel(r);
                box(model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing), rm.height_m);
            }
            // A gap between cabinets narrower than a cell is closed here (a cell centre in it would open a whole
            // cell's width); the engine passes its air as an opening of both racks (model::cabinetGaps).
            for (const auto& g : model::cabinetGaps(row, cat_)) {
                if (g.width_m >= c_) continue;
                const model::Rack &a = row.racks[g.a], &b = row.racks[g.b];
                const auto &ma = rackModel(a), &mb = rackModel(b);
                const model::Box2 fa = model::footprint(a.position_m, ma.width_m, ma.depth_m, a.facing);
                const model::Box2 fb = model::footprint(b.position_m, mb.width_m, mb.depth_m, b.facing);
                const bool ns = a.facing == Facing::North || a.facing == Facing::South;
                const double lo = ns ? std::max(fa.y0, fb.y0) : std::max(fa.x0, fb.x0),
                             hi = ns ? std::min(fa.y1, fb.y1) : std::min(fa.x1, fb.x1);
                box(ns ? model::Box2{fa.x1, lo, fb.x0, hi} : model::Box2{lo, fa.y1, hi, fb.y0}, g.height_m);
            }
        }
        for (const auto& u : hall_.cooling_units) {
            const auto* m = cat_.coolingUnit(u.model);
            if (!m) throw SimError("cooling unit " + u.id + ": unknown model " + u.model);
            box(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing), m->height_m);
        }
        for (const auto& cd : hall_.cdus)
            if (const auto* m = cat_.cdu(cd.model)) box(model::footprint(cd.position_m, m->width_m, m->depth_m, cd.facing), m->height_m);
    }

    /// Cells across a footprint's face (along x for a north or south face, else along y): one per grid cell.
    int acrossCells(const model::Box2& b, Facing side) const {
        const bool ns = side == Facing::North || side == Facing::South;
        return std::max(1, static_cast<int>(std::lround((ns ? b.x1 - b.x0 : b.y1 - b.y0) / c_)));
    }

    /// Fluid cells in layer `layer` (1 = touching) outside a face of a footprint, for levels [k0, k1); only the
    /// `column`-th of acrossCells() (from the face's low end) when it is not −1.
    std::vector<int> faceCells(const model::Box2& b, Facing side, int k0, int k1, int layer, bool* blocked, int column = -1) const {
        std::vector<int> cells;
        const bool ns = side == Facing::North || side == Facing::South;
        const double a0 = ns ? b.x0 : b.y0, a1 = ns ? b.x1 : b.y1;
        const int na = acrossCells(b, side);
        const double off = (layer - 0.5) * c_;
        for (int kk = k0; kk < k1; ++kk)
            for (int s = column < 0 ? 0 : column; s < (column < 0 ? na : column + 1); ++s) {
                const double a = a0 + (s + 0.5) * (a1 - a0) / na;
                double x = a, y = a;
                if (side == Facing::North) y = b.y1 + off;
                if (side == Facing::South) y = b.y0 - off;
                if (side == Facing::East) x = b.x1 + off;
                if (side == Facing::West) x = b.x0 - off;
                if (x < 0 || y < 0 || x > hall_.width_m || y > hall_.depth_m) {
                    *blocked = true;
                    continue;
                }
                int i, j, kz;
                air_.cellOf(x, y, (kk + 0.5) * c_, i, j, kz);
                int cell = air_.index(i, j, kz);
                if (air_.solid(cell) && ownCell(b, i, j)) {
                    // The footprint's edge on a cell's centre: the grid gave that cell to the object itself, and
                    // its face is the next cell out.
                    x += side == Facing::East ? c_ / 2 : side == Facing::West ? -c_ / 2 : 0;
                    y += side == Facing::North ? c_ / 2 : side == Facing::South ? -c_ / 2 : 0;
                    if (x < 0 || y < 0 || x > hall_.width_m || y > hall_.depth_m) {
                        *blocked = true;
                        continue;
                    }
                    air_.cellOf(x, y, (kk + 0.5) * c_, i, j, kz);
                    cell = air_.index(i, j, kz);
                }
                if (air_.solid(cell)) {
                    *blocked = true;
                    continue;
                }
                if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
            }
        return cells;
    }

    /// The grid cell (i, j) has its centre on or inside footprint b.
    bool ownCell(const model::Box2& b, int i, int j) const {
        const double x = (i + 0.5) * c_, y = (j + 0.5) * c_, e = 1e-9;
        return x >= b.x0 - e && x <= b.x1 + e && y >= b.y0 - e && y <= b.y1 + e;
    }

    int port(std::vector<int> cells, bool source, const PortJet& jet) {
        for (int cell : cells) used_.insert(cell);
        const int region = regionOf(cells.front());
        const int p = solver_.addPort(cells, source, jet);
        if (static_cast<int>(out_.port_region.size()) <= p) out_.port_region.resize(static_cast<std::size_t>(p) + 1, 0);
        out_.port_region[static_cast<std::size_t>(p)] = region;
        return p;
    }

    /// The hall region (index into out_.regions) of a cell: 0 for the room, a new region the first time a sealed
    /// part of the grid is met.
    int regionOf(int cell) {
        const int g = region_[static_cast<std::size_t>(cell)];
        auto it = region_index_.find(g);
        if (it != region_index_.end()) return it->second;
        const int r = static_cast<int>(out_.regions.size());
        region_index_[g] = r;
        AirRegion reg;
        for (const auto& [c, a] : aisles_) {
            if (regionAt(a) != g) continue;
            reg.containment = c->id;
            reg.cold = c->kind == "cold";
            reg.leakage = model::leakageFraction(*c, cat_);
        }
        out_.regions.push_back(reg);
        return r;
    }
    std::map<int, int> region_index_;

    /// The grid region at an aisle's centre, on the floor.
    int regionAt(const model::ContainedAisle& a) const {
        int i, j, k;
        air_.cellOf((a.box.x0 + a.box.x1) / 2, (a.box.y0 + a.box.y1) / 2, c_ / 2, i, j, k);
        return region_[static_cast<std::size_t>(air_.index(i, j, k))];
    }

    double jetMs(double q, std::size_t cells, double open = 1.0) const {
        return cells ? q / (static_cast<double>(cells) * c_ * c_ * open) : 0.0;
    }

    /// A rack's ports: an intake (front) and an exhaust (back) per level of the grid, and per column across the
    /// rack's width when servers stand side by side in it (one column per grid cell across, so that each sled
    /// breathes the air in front of it); every node's airflow shared over the (level, column) pairs it covers.
    void rack(const model::Rack& r) {
        const auto& rm = rackModel(r);
        const model::Box2 b = model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing);
        const int levels = std::clamp(static_cast<int>(std::lround(rm.height_m / c_)), 1, air_.nz());
        bool sliced = false;
        for (const auto& n : r.nodes) {
            const auto* sm = cat_.server(n.model);
            if (!sm) throw SimError("node " + n.id + ": unknown server model " + n.model);
            sliced = sliced || sm->slot_count > 1;
        }
        const int cols = sliced ? acrossCells(b, r.facing) : 1;
        // Nodes occupy levels by their U span (1U = 44.45 mm from the rack floor), columns by their slot.
        std::vector<double> cell_q(static_cast<std::size_t>(levels * cols), 0.0);
        std::vector<std::vector<std::pair<int, double>>> node_cells;
        for (const auto& n : r.nodes) {
            const auto* sm = cat_.server(n.model);
            const double z0 = (n.u_position - 1) * model::units::kRackUnitM;
            const double z1 = z0 + sm->height_u * model::units::kRackUnitM;
            const model::WidthSpan w = model::widthSpan(n.slot, sm->slot_count);
            std::vector<std::pair<int, double>> share;
            for (int kk = 0; kk < levels; ++kk) {
                const double lo = std::max(z0, kk * c_), hi = std::min(z1, (kk + 1) * c_);
                if (hi <= lo) continue;
                for (int c = 0; c < cols; ++c) {  // c from the left, seen from the front
                    const double l = std::max(w.left, static_cast<double>(c) / cols), rr = std::min(w.right, (c + 1.0) / cols);
                    if (rr > l) share.emplace_back(kk * cols + c, (hi - lo) / (z1 - z0) * (rr - l) / (w.right - w.left));
                }
            }
            if (share.empty()) share.emplace_back((levels - 1) * cols, 1.0);
            for (const auto& [cell, f] : share) cell_q[static_cast<std::size_t>(cell)] += sm->airflow_m3s * f;
            rack_q_max_ += sm->airflow_m3s;
            node_cells.push_back(std::move(share));
        }
        RackAirPorts ra;
        // Only a rack with openings (its own, or a gap beside it) needs the pressure across it.
        probing_ = !r.blanking.empty() && !model::fixedRecirculation(r, cat_);
        std::vector<int> entry(static_cast<std::size_t>(levels * cols), -1);  // (level, column) → its port pair
        std::vector<std::size_t> exhaust_cells;                               // per port pair
        for (int kk = 0; kk < levels; ++kk) rackLevel(r, b, kk, cols, cell_q, entry, exhaust_cells, ra);
        for (auto& share : node_cells) {
            std::map<int, double> merged;  // columns that share a port pair add up
            for (const auto& [cell, f] : share) merged[entry[static_cast<std::size_t>(cell)]] += f;
            ra.node_levels.emplace_back(merged.begin(), merged.end());
        }
        out_.racks.push_back(std::move(ra));
    }

    /// Level kk of a rack: a port pair per column (a column whose cells are blocked or fall in its neighbour's
    /// grid cell joins the nearest one that has its own), `entry` set for each of its (level, column) pairs.
    void rackLevel(const model::Rack& r, const model::Box2& b, int kk, int cols, const std::vector<double>& cell_q, std::vector<int>& entry,
                   std::vector<std::size_t>& exhaust_cells, RackAirPorts& ra) {
        const bool high = model::leftIsHighEnd(r.facing);
        std::vector<int> own(static_cast<std::size_t>(cols), -1);  // the entry of each column with cells of its own
        std::set<int> seen;
        bool blocked = false, no_intake = true;
        for (int c = 0; c < cols; ++c) {
            const int face = cols == 1 ? -1 : (high ? cols - 1 - c : c);  // the column in the face's order
            auto in = faceCells(b, r.facing, kk, kk + 1, 1, &blocked, face);
            auto out = faceCells(b, opposite(r.facing), kk, kk + 1, 1, &blocked, face);
            no_intake = no_intake && in.empty();
            if (in.empty() || out.empty() || seen.count(in.front()) || seen.count(out.front())) continue;
            seen.insert(in.begin(), in.end());
            seen.insert(out.begin(), out.end());
            ra.front_probe.push_back(probe(b, r.facing, kk, face, in));
            ra.back_probe.push_back(probe(b, opposite(r.facing), kk, face, out));
            own[static_cast<std::size_t>(c)] = static_cast<int>(ra.intake.size());
            ra.intake.push_back(port(std::move(in), false, {}));
            exhaust_cells.push_back(out.size());
            ra.exhaust.push_back(port(std::move(out), true, along(opposite(r.facing))));
            ra.level_z_m.push_back((kk + 0.5) * c_);
        }
        const std::size_t first = ra.columns.size();
        ra.columns.resize(ra.intake.size(), static_cast<int>(ra.intake.size() - first));
        if (std::all_of(own.begin(), own.end(), [](int e) { return e < 0; }))
            throw SimError("rack " + r.id + ": its " + std::string(no_intake ? "intake (front)" : "exhaust (back)") +
                           " is blocked by a wall or equipment at " + std::to_string((kk + 0.5) * c_) + " m");
        std::vector<double> q(ra.intake.size(), 0.0);
        auto at = [](int i) { return static_cast<std::size_t>(i); };
        for (int c = 0; c < cols; ++c) {
            int e = own[at(c)];
            for (int d = 1; e < 0; ++d) {  // the nearest column with its own ports, left first
                const int left = c - d, right = c + d;
                if (left >= 0 && own[at(left)] >= 0) e = own[at(left)];
                else if (right < cols && own[at(right)] >= 0) e = own[at(right)];
            }
            const int cell = kk * cols + c;
            entry[at(cell)] = e;
            q[at(e)] += cell_q[at(cell)];
        }
        for (std::size_t e = 0; e < q.size(); ++e)
            if (q[e] > 0) out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(q[e], exhaust_cells[e]));
    }

    /// A pressure probe in the aisle off a rack's face at level kk: the second cells out (past the port, whose
    /// own cells the port's mass source or sink disturbs), else the port's cells.
    int probe(const model::Box2& b, Facing side, int kk, int column, const std::vector<int>& port_cells) {
        if (!probing_) return -1;
        bool blocked = false;
        auto cells = faceCells(b, side, kk, kk + 1, 2, &blocked, column);
        return solver_.addProbe(blocked || cells.empty() ? port_cells : cells);
    }

    void unit(const model::CoolingUnit& u) {
        const auto& m = *cat_.coolingUnit(u.model);
        const model::Box2 b = model::footprint(u.position_m, m.width_m, m.depth_m, u.facing);
        const int levels = std::clamp(static_cast<int>(std::lround(m.height_m / c_)), 1, air_.nz());
        if (!model::isInRow(u, cat_)) {
            perimeterUnit(u, m, b, levels);
            return;
        }
        // In a row: the hot aisle's air in through the back, cooled air out of the front, over its height.
        bool blocked = false;
        UnitAirPorts up;
        auto supply = faceCells(b, u.facing, 0, levels, 1, &blocked);
        auto ret = faceCells(b, opposite(u.facing), 0, levels, 1, &blocked);
        if (supply.empty() || ret.empty())
            throw SimError("in-row cooler " + u.id + ": its " + (supply.empty() ? "front" : "back") + " is blocked");
        out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(m.airflow_m3s, supply.size()));
        up.supply = port(std::move(supply), true, along(u.facing));
        up.ret = port(std::move(ret), false, {});
        out_.units.push_back(up);
    }

    /// A perimeter unit: its supply grille (low at the front unless its catalog model says otherwise) blowing
    /// forwards, its return through the top (the upper back where it reaches the ceiling) or a grille on its
    /// front or back; none of its own behind a ducted ceiling return.
    void perimeterUnit(const model::CoolingUnit& u, const model::CoolingUnitModel& m, const model::Box2& b, int levels) {
        bool blocked = false;
        UnitAirPorts up;
        // The catalog's openings as grid levels: the supply grille low at the front unless it says otherwise.
        auto span = [&](double from, double to, int lo, int hi) {
            if (to <= 0) return std::make_pair(lo, hi);
            const int a = std::clamp(static_cast<int>(std::lround(from / c_)), 0, levels - 1);
            return std::make_pair(a, std::clamp(static_cast<int>(std::lround(to / c_)), a + 1, levels));
        };
        const auto [s0, s1] = span(m.supply_from_m, m.supply_to_m, 0, std::max(1, levels / 2));
        auto supply = faceCells(b, u.facing, s0, s1, 1, &blocked);
        std::vector<int> ret;
        if (m.return_side != "top") {
            auto [r0, r1] = span(m.return_from_m, m.return_to_m, levels / 2, levels);
            if (m.return_side == "front" && r0 < s1 && s0 < r1) {  // apart at this grid too: the return gives way
                if (r0 >= s0) r0 = s1;
                else r1 = s0;
            }
            if (r1 <= r0)
                throw SimError("cooling unit " + u.id + ": its front return and supply fall in the same cells of a " +
                               std::to_string(c_).substr(0, 4) + " m grid; use a finer --cell");
            ret = faceCells(b, m.return_side == "front" ? u.facing : opposite(u.facing), r0, r1, 1, &blocked);
        } else if (levels < air_.nz()) {
            int i0, j0, k0, i1, j1, k1;
            air_.cellOf(b.x0 + c_ / 2, b.y0 + c_ / 2, (levels + 0.5) * c_, i0, j0, k0);
            air_.cellOf(b.x1 - c_ / 2, b.y1 - c_ / 2, (levels + 0.5) * c_, i1, j1, k1);
            for (int j = j0; j <= j1; ++j)
                for (int i = i0; i <= i1; ++i)
                    if (!air_.solid(air_.index(i, j, k0))) ret.push_back(air_.index(i, j, k0));
        }
        if (ret.empty() && m.return_side == "top") ret = faceCells(b, opposite(u.facing), levels / 2, levels, 1, &blocked);
        if (supply.empty() || (ret.empty() && !hall_.ceiling_return))
            throw SimError("cooling unit " + u.id + ": its supply or return is blocked");
        // A unit held at a fan speed blows that share of its rating, else at most the racks' air by the margin.
        const double q = u.fan_speed ? *u.fan_speed * m.airflow_m3s : std::min(m.airflow_m3s, margin_ * rack_q_max_);
        if (!hall_.raised_floor) out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(q, supply.size()));
        up.supply = port(std::move(supply), true, along(u.facing));
        if (!hall_.ceiling_return) up.ret = port(std::move(ret), false, {});  // else it draws from the grilles
        out_.units.push_back(up);
    }

    double perimeterAirflow() const {
        double q = 0;
        for (const auto& u : hall_.cooling_units)
            if (!model::isInRow(u, cat_)) q += cat_.coolingUnit(u.model)->airflow_m3s;
        return std::min(q, margin_ * rack_q_max_);
    }

    /// Raised floor: the units blow into the plenum, which mixes their air and feeds the tiles: one row of
    /// tiles in front of every rack (floor cells within a tile's depth of its front, beyond its intake), each
    /// tile's jet leaving upwards through the tile's open area. One port per region (a contained cold aisle's
    /// tiles are fed on their own).
    void tiles() {
        const auto* tile = cat_.floorTile(hall_.raised_floor->tile);
        if (!tile) throw SimError("hall " + hall_.id + ": unknown floor tile " + hall_.raised_floor->tile);
        std::map<int, std::vector<int>> cells;
        std::map<int, double> open_area;
        for (const auto& row : hall_.rows)
            for (const auto& r : row.racks) {
                const auto& rm = rackModel(r);
                const model::Box2 b = model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing);
                const int layers = std::max(2, 1 + static_cast<int>(std::lround(tile->size_m / c_)));
                int region = -1;
                for (int layer = 2; layer <= layers; ++layer) {
                    bool blocked = false;
                    for (int cell : faceCells(b, r.facing, 0, 1, layer, &blocked))
                        if (used_.insert(cell).second) {  // not another port's, not twice
                            region = regionOf(cell);
                            cells[region].push_back(cell);
                        }
                }
                if (region >= 0) open_area[region] += rm.width_m * tile->size_m * tile->open_fraction;
            }
        const double q_max = perimeterAirflow();
        for (auto& [region, list] : cells) {
            // The jet speed is the tiles' (flow / open area), whatever share of the floor cells they cover. The
            // holes' jets merge within a few hole pitches, far below a cell, keeping their momentum: the fastest
            // air the lattice carries over the tile is q·u_jet = A·U², U = √φ·u_jet (φ the open share).
            const double cell_area = static_cast<double>(list.size()) * c_ * c_;
            const double open = std::clamp(open_area[region] / cell_area, 1e-3, 1.0);
            out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(q_max, list.size(), std::sqrt(open)));
            for (int cell : list) used_.erase(cell);
            out_.tiles.push_back(port(std::move(list), true, {0, 0, 1, open}));
        }
    }

    /// Ducted ceiling return: grilles over the hot aisles, two cells deep behind every rack: in the ceiling over an
    /// open aisle, under the roof of a contained hot aisle (its chimney). One port per region.
    void grilles() {
        std::map<int, std::vector<int>> cells;
        for (const auto& row : hall_.rows)
            for (const auto& r : row.racks) {
                const auto& rm = rackModel(r);
                const model::Box2 b = model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing);
                const int levels = std::clamp(static_cast<int>(std::lround(rm.height_m / c_)), 1, air_.nz());
                bool blocked = false;
                const auto probe = faceCells(b, opposite(r.facing), levels - 1, levels, 2, &blocked);
                const bool sealed = !probe.empty() && region_[static_cast<std::size_t>(probe.front())] != 0;
                const int k = sealed ? levels - 1 : air_.nz() - 1;
                for (int layer = 2; layer <= 3; ++layer)
                    for (int cell : faceCells(b, opposite(r.facing), k, k + 1, layer, &blocked))
                        if (used_.insert(cell).second) cells[regionOf(cell)].push_back(cell);
            }
        if (cells.empty()) throw SimError("hall " + hall_.id + ": the ceiling return finds no room for grilles over the hot aisles");
        for (auto& [region, list] : cells) {
            for (int cell : list) used_.erase(cell);
            out_.grilles.push_back(port(std::move(list), false, {}));
        }
    }

    /// Containment: the rows' gaps closed up to the roof (a shorter row continued by a panel), the roof over the
    /// aisle and a door at each end, each one cell thick.
    void containmentPanels() {
        for (const auto& c : hall_.containments) {
            std::string why;
            for (const auto& a : model::containedAisles(hall_, c, cat_, &why)) {
                aisles_.emplace_back(&c, a);
                for (const std::string& row_id : {a.row_a, a.row_b})
                    for (const auto& row : hall_.rows) {
                        if (row.id != row_id) continue;
                        const auto line = model::rowLine(hall_, row, cat_);
                        if (!line) continue;
                        model::Box2 band = line->core;
                        if (a.along_x) band.x0 = a.box.x0, band.x1 = a.box.x1;
                        else band.y0 = a.box.y0, band.y1 = a.box.y1;
                        solver_.addSolidBox(band.x0, band.y0, 0, band.x1, band.y1, a.roof_m);
                    }
                const double top = a.roof_m + c_;
                if (c.roof) {
                    if (a.along_x) solver_.addSolidBox(a.box.x0, a.box.y0 - c_, a.roof_m, a.box.x1, a.box.y1 + c_, top);
                    else solver_.addSolidBox(a.box.x0 - c_, a.box.y0, a.roof_m, a.box.x1 + c_, a.box.y1, top);
                }
                if (c.end_doors) {
                    if (a.along_x) {
                        solver_.addSolidBox(a.box.x0 - c_, a.box.y0 - c_, 0, a.box.x0, a.box.y1 + c_, top);
                        solver_.addSolidBox(a.box.x1, a.box.y0 - c_, 0, a.box.x1 + c_, a.box.y1 + c_, top);
                    } else {
                        solver_.addSolidBox(a.box.x0 - c_, a.box.y0 - c_, 0, a.box.x1 + c_, a.box.y0, top);
                        solver_.addSolidBox(a.box.x0 - c_, a.box.y1, 0, a.box.x1 + c_, a.box.y1 + c_, top);
                    }
                }
            }
        }
    }

    /// Fluid, unused cells of region `g` (grid label) whose centres lie in the box, below `z1`.
    std::vector<int> cellsIn(double x0, double y0, double x1, double y1, double z0, double z1, int g, bool in) const {
        std::vector<int> out;
        int i0, j0, k0, i1, j1, k1;
        air_.cellOf(x0, y0, z0, i0, j0, k0);
        air_.cellOf(x1, y1, z1, i1, j1, k1);
        for (int k = k0; k <= k1; ++k)
            for (int j = j0; j <= j1; ++j)
                for (int i = i0; i <= i1; ++i) {
                    const int cell = air_.index(i, j, k);
                    const int r = region_[static_cast<std::size_t>(cell)];
                    if (r < 0 || used_.count(cell) || (in ? r != g : r != 0)) continue;
                    out.push_back(cell);
                }
        return out;
    }

    /// Leak ports of every sealed aisle, spread along it as the gaps of its panels are: inside, the aisle's top
    /// free layer under the roof; outside, the room just above the roof. Where the roof is at the ceiling, through
    /// the end doors instead (inside: the aisle's end columns; outside: the floor beyond the doors).
    void leaks() {
        std::set<int> done;
        for (const auto& [c, a] : aisles_) {
            const int g = regionAt(a);
            if (g <= 0) {
                out_.unsealed.push_back(c->id);
                continue;
            }
            if (!done.insert(g).second) continue;
            int i, j, k_roof;
            air_.cellOf(a.box.x0, a.box.y0, a.roof_m + c_ / 2, i, j, k_roof);
            std::vector<int> in, out;
            const auto& box = a.box;  // a name to capture: a structured binding cannot be (before C++20 in clang 14)
            auto layer = [&](int k, bool inside) {
                const double z = (k + 0.5) * c_;
                return cellsIn(box.x0, box.y0, box.x1, box.y1, z, z, g, inside);
            };
            if (k_roof + 1 < air_.nz()) {
                for (int k = k_roof - 1; k >= std::max(0, k_roof - 2) && in.empty(); --k) in = layer(k, true);
                out = layer(k_roof + 1, false);
            }
            if (in.empty() || out.empty()) {
                in.clear();
                out.clear();
                const double h = c_ * 0.49, z1 = a.roof_m - c_ / 2;
                if (a.along_x) {
                    for (double x : {a.box.x0 + h, a.box.x1 - h}) append(in, cellsIn(x, a.box.y0, x, a.box.y1, 0, z1, g, true));
                    for (double x : {a.box.x0 - 1.5 * c_, a.box.x1 + 1.5 * c_})
                        if (x > 0 && x < hall_.width_m) append(out, cellsIn(x, a.box.y0, x, a.box.y1, 0, z1, g, false));
                } else {
                    for (double y : {a.box.y0 + h, a.box.y1 - h}) append(in, cellsIn(a.box.x0, y, a.box.x1, y, 0, z1, g, true));
                    for (double y : {a.box.y0 - 1.5 * c_, a.box.y1 + 1.5 * c_})
                        if (y > 0 && y < hall_.depth_m) append(out, cellsIn(a.box.x0, y, a.box.x1, y, 0, z1, g, false));
                }
            }
            if (in.empty() || out.empty())
                throw SimError("containment " + c->id + ": no room for the air leaking through its panels at a " + std::to_string(c_) +
                               " m grid (its aisle is too small or closed in); use a finer --cell");
            // Alternate cells between the two directions, so every cell stays in one port.
            std::vector<int> in_a, in_b, out_a, out_b;
            split(in, in_a, in_b);
            split(out, out_a, out_b);
            const int r = regionOf(in.front());
            AirRegion& reg = out_.regions[static_cast<std::size_t>(r)];
            const PortJet slow{0, 0, 0, 1};
            reg.leak_in_sink = port(std::move(out_a), false, {});
            reg.leak_in_source = port(std::move(in_a), true, slow);
            reg.leak_out_sink = port(std::move(in_b), false, {});
            reg.leak_out_source = port(std::move(out_b), true, slow);
        }
    }

    static void append(std::vector<int>& to, const std::vector<int>& from) {
        for (int x : from)
            if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
    }

    /// Alternate cells into two halves; a single cell goes to both (a sink and a source may share it).
    static void split(const std::vector<int>& all, std::vector<int>& a, std::vector<int>& b) {
        for (std::size_t i = 0; i < all.size(); ++i) (i % 2 == 0 ? a : b).push_back(all[i]);
        if (b.empty()) b = a;
    }
};

}  // namespace

HallAirPorts buildHallAir(const model::Hall& hall, const model::Catalog& catalog, AirSolver& solver, double unit_airflow_margin) {
    return Builder(hall, catalog, solver, unit_airflow_margin).build();
}

}  // namespace ct::sim
