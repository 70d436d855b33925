// A hall's air geometry on an air solver: see hall_air.hpp.
#include "hall_air.hpp"

#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

namespace ct::sim {

namespace {

using model::Facing;

Facing opposite(Facing f) {
    switch (f) {
    case Facing::North: return Facing::South;
    case Facing::South: return Facing::North;
    case Facing::East: return Facing::West;
    default: return Facing::East;
    }
}

PortJet along(Facing f) {
    switch (f) {
    case Facing::North: return {0, 1, 0, 1};
    case Facing::South: return {0, -1, 0, 1};
    case Facing::East: return {1, 0, 0, 1};
    default: return {-1, 0, 0, 1};
    }
}

class Builder {
public:
    Builder(const model::Hall& hall, const model::Catalog& cat, AirSolver& s, double margin)
        : hall_(hall), cat_(cat), solver_(s), air_(s.air()), c_(air_.cellM()), margin_(margin) {}

    HallAirPorts build() {
        solids();
        for (const auto& row : hall_.rows)
            for (const auto& r : row.racks) rack(r);
        for (const auto& u : hall_.cooling_units) unit(u);
        if (hall_.raised_floor && !hall_.cooling_units.empty()) tiles();
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
    std::set<int> used_;  // cells already in a port: a cell belongs to one port at most

    const model::RackModel& rackModel(const model::Rack& r) const {
        const auto* rm = cat_.rack(r.model);
        if (!rm) throw SimError("rack " + r.id + ": unknown rack model " + r.model);
        return *rm;
    }

    void solids() {
        auto box = [&](const model::Box2& b, double height) { solver_.addSolidBox(b.x0, b.y0, 0, b.x1, b.y1, height); };
        for (const auto& row : hall_.rows)
            for (const auto& r : row.racks) {
                const auto& rm = rackModel(r);
                box(model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing), rm.height_m);
            }
        for (const auto& u : hall_.cooling_units) {
            const auto* m = cat_.coolingUnit(u.model);
            if (!m) throw SimError("cooling unit " + u.id + ": unknown model " + u.model);
            box(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing), m->height_m);
        }
        for (const auto& cd : hall_.cdus)
            if (const auto* m = cat_.cdu(cd.model)) box(model::footprint(cd.position_m, m->width_m, m->depth_m, cd.facing), m->height_m);
    }

    /// Fluid cells in layer `layer` (1 = touching) outside a face of a footprint, for levels [k0, k1).
    std::vector<int> faceCells(const model::Box2& b, Facing side, int k0, int k1, int layer, bool* blocked) const {
        std::vector<int> cells;
        const bool ns = side == Facing::North || side == Facing::South;
        const double a0 = ns ? b.x0 : b.y0, a1 = ns ? b.x1 : b.y1;
        const int na = std::max(1, static_cast<int>(std::lround((a1 - a0) / c_)));
        const double off = (layer - 0.5) * c_;
        for (int kk = k0; kk < k1; ++kk)
            for (int s = 0; s < na; ++s) {
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
                const int cell = air_.index(i, j, kz);
                if (air_.solid(cell)) {
                    *blocked = true;
                    continue;
                }
                if (std::find(cells.begin(), cells.end(), cell) == cells.end()) cells.push_back(cell);
            }
        return cells;
    }

    int port(std::vector<int> cells, bool source, const PortJet& jet) {
        for (int cell : cells) used_.insert(cell);
        return solver_.addPort(cells, source, jet);
    }

    double jetMs(double q, std::size_t cells, double open = 1.0) const {
        return cells ? q / (static_cast<double>(cells) * c_ * c_ * open) : 0.0;
    }

    void rack(const model::Rack& r) {
        const auto& rm = rackModel(r);
        const model::Box2 b = model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing);
        const int levels = std::clamp(static_cast<int>(std::lround(rm.height_m / c_)), 1, air_.nz());
        RackAirPorts ra;
        // Nodes occupy levels by their U span (1U = 44.45 mm from the rack floor).
        std::vector<double> level_q(static_cast<std::size_t>(levels), 0.0);
        for (const auto& n : r.nodes) {
            const auto* sm = cat_.server(n.model);
            if (!sm) throw SimError("node " + n.id + ": unknown server model " + n.model);
            const double z0 = (n.u_position - 1) * model::units::kRackUnitM;
            const double z1 = z0 + sm->height_u * model::units::kRackUnitM;
            std::vector<std::pair<int, double>> share;
            for (int kk = 0; kk < levels; ++kk) {
                const double lo = std::max(z0, kk * c_), hi = std::min(z1, (kk + 1) * c_);
                if (hi > lo) share.emplace_back(kk, (hi - lo) / (z1 - z0));
            }
            if (share.empty()) share.emplace_back(levels - 1, 1.0);
            for (const auto& [kk, f] : share) level_q[static_cast<std::size_t>(kk)] += sm->airflow_m3s * f;
            rack_q_max_ += sm->airflow_m3s;
            ra.node_levels.push_back(std::move(share));
        }
        for (int kk = 0; kk < levels; ++kk) {
            bool blocked_in = false, blocked_out = false;
            auto in = faceCells(b, r.facing, kk, kk + 1, 1, &blocked_in);
            auto out = faceCells(b, opposite(r.facing), kk, kk + 1, 1, &blocked_out);
            if (in.empty() || out.empty())
                throw SimError("rack " + r.id + ": its " + std::string(in.empty() ? "intake (front)" : "exhaust (back)") +
                               " is blocked by a wall or equipment at " + std::to_string((kk + 0.5) * c_) + " m");
            out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(level_q[static_cast<std::size_t>(kk)], out.size()));
            ra.intake.push_back(port(std::move(in), false, {}));
            ra.exhaust.push_back(port(std::move(out), true, along(opposite(r.facing))));
            ra.level_z_m.push_back((kk + 0.5) * c_);
        }
        out_.racks.push_back(std::move(ra));
    }

    void unit(const model::CoolingUnit& u) {
        const auto& m = *cat_.coolingUnit(u.model);
        const model::Box2 b = model::footprint(u.position_m, m.width_m, m.depth_m, u.facing);
        const int levels = std::clamp(static_cast<int>(std::lround(m.height_m / c_)), 1, air_.nz());
        bool blocked = false;
        auto supply = faceCells(b, u.facing, 0, std::max(1, levels / 2), 1, &blocked);
        std::vector<int> ret;
        if (levels < air_.nz()) {
            int i0, j0, k0, i1, j1, k1;
            air_.cellOf(b.x0 + c_ / 2, b.y0 + c_ / 2, (levels + 0.5) * c_, i0, j0, k0);
            air_.cellOf(b.x1 - c_ / 2, b.y1 - c_ / 2, (levels + 0.5) * c_, i1, j1, k1);
            for (int j = j0; j <= j1; ++j)
                for (int i = i0; i <= i1; ++i)
                    if (!air_.solid(air_.index(i, j, k0))) ret.push_back(air_.index(i, j, k0));
        }
        if (ret.empty()) ret = faceCells(b, opposite(u.facing), levels / 2, levels, 1, &blocked);
        if (supply.empty() || ret.empty()) throw SimError("cooling unit " + u.id + ": its supply or return is blocked");
        UnitAirPorts up;
        if (!hall_.raised_floor)
            out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(std::min(m.airflow_m3s, margin_ * rack_q_max_), supply.size()));
        up.supply = port(std::move(supply), true, along(u.facing));
        up.ret = port(std::move(ret), false, {});
        out_.units.push_back(up);
    }

    /// Raised floor: the units blow into the plenum, which mixes their air and feeds the tiles: one row of
    /// tiles in front of every rack (floor cells within a tile's depth of its front, beyond its intake), each
    /// tile's jet leaving upwards through the tile's open area.
    void tiles() {
        const auto* tile = cat_.floorTile(hall_.raised_floor->tile);
        if (!tile) throw SimError("hall " + hall_.id + ": unknown floor tile " + hall_.raised_floor->tile);
        std::vector<int> cells;
        double open_area = 0;
        for (const auto& row : hall_.rows)
            for (const auto& r : row.racks) {
                const auto& rm = rackModel(r);
                const model::Box2 b = model::footprint(r.position_m, rm.width_m, rm.depth_m, r.facing);
                const int layers = std::max(2, 1 + static_cast<int>(std::lround(tile->size_m / c_)));
                for (int layer = 2; layer <= layers; ++layer) {
                    bool blocked = false;
                    for (int cell : faceCells(b, r.facing, 0, 1, layer, &blocked))
                        if (used_.insert(cell).second) cells.push_back(cell);  // not another port's, not twice
                }
                open_area += rm.width_m * tile->size_m * tile->open_fraction;
            }
        if (cells.empty()) return;
        // The jet speed is the tiles' (flow / open area), whatever share of the floor cells they cover.
        const double cell_area = static_cast<double>(cells.size()) * c_ * c_;
        const double open = std::clamp(open_area / cell_area, 1e-3, 1.0);
        double q_max = 0;
        for (const auto& u : hall_.cooling_units) q_max += cat_.coolingUnit(u.model)->airflow_m3s;
        q_max = std::min(q_max, margin_ * rack_q_max_);
        out_.fastest_jet_ms = std::max(out_.fastest_jet_ms, jetMs(q_max, cells.size(), open));
        out_.tiles = port(std::move(cells), true, {0, 0, 1, open});
    }
};

} // namespace

HallAirPorts buildHallAir(const model::Hall& hall, const model::Catalog& catalog, AirSolver& solver, double unit_airflow_margin) {
    return Builder(hall, catalog, solver, unit_airflow_margin).build();
}

} // namespace ct::sim
