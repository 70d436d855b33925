#include <clustertwin/model/containment.hpp>
#include <clustertwin/model/units.hpp>

#include <algorithm>
#include <cmath>

namespace ct::model {

namespace {

const Row* findRow(const Hall& h, const std::string& id) {
    for (const Row& r : h.rows)
        if (r.id == id) return &r;
    return nullptr;
}

Box2 unite(const Box2& a, const Box2& b) {
    return {std::min(a.x0, b.x0), std::min(a.y0, b.y0), std::max(a.x1, b.x1), std::max(a.y1, b.y1)};
}

/// Does row `a`'s front (`front` true) or back face +axis (towards larger y for rows along x)?
bool facesPlus(Facing f, bool along_x) { return along_x ? f == Facing::North : f == Facing::East; }

}  // namespace

std::optional<RowLine> rowLine(const Hall& h, const Row& row, const Catalog& c) {
    if (row.racks.empty()) return std::nullopt;
    RowLine line;
    bool first = true;
    for (const Rack& r : row.racks) {
        const RackModel* rm = c.rack(r.model);
        if (!rm) return std::nullopt;
        const Box2 b = footprint(r.position_m, rm->width_m, rm->depth_m, r.facing);
        if (first) {
            line.extent = line.core = b;
            line.facing = r.facing;
            line.along_x = r.facing == Facing::North || r.facing == Facing::South;
            first = false;
        } else {
            line.uniform = line.uniform && r.facing == line.facing;
            line.extent = unite(line.extent, b);
            if (line.along_x) {
                line.core.y0 = std::max(line.core.y0, b.y0);
                line.core.y1 = std::min(line.core.y1, b.y1);
            } else {
                line.core.x0 = std::max(line.core.x0, b.x0);
                line.core.x1 = std::min(line.core.x1, b.x1);
            }
        }
        line.height_m = std::max(line.height_m, rm->height_m);
    }
    for (const CoolingUnit& u : h.cooling_units) {
        if (u.row != row.id) continue;
        if (const CoolingUnitModel* m = c.coolingUnit(u.model))
            line.extent = unite(line.extent, footprint(u.position_m, m->width_m, m->depth_m, u.facing));
    }
    if (line.along_x) {
        line.core.x0 = line.extent.x0;
        line.core.x1 = line.extent.x1;
    } else {
        line.core.y0 = line.extent.y0;
        line.core.y1 = line.extent.y1;
    }
    return line;
}

std::vector<ContainedAisle> containedAisles(const Hall& h, const Containment& c, const Catalog& cat, std::string* problem) {
    std::vector<ContainedAisle> out;
    auto fail = [&](const std::string& why) {
        if (problem) *problem = why;
        out.clear();
        return out;
    };
    if (c.kind != "hot" && c.kind != "cold") return fail("kind must be 'hot' or 'cold'");
    if (c.rows.size() < 2) return fail("a containment closes the aisle between at least two rows");
    std::vector<RowLine> lines;
    for (const std::string& id : c.rows) {
        const Row* row = findRow(h, id);
        if (!row) return fail("row '" + id + "' is not in hall " + h.id);
        const auto line = rowLine(h, *row, cat);
        if (!line) return fail("row '" + id + "' has no racks (or one of unknown model)");
        if (!line->uniform) return fail("the racks of row '" + id + "' do not all face the same way");
        lines.push_back(*line);
    }
    const bool cold = c.kind == "cold";
    for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
        const RowLine& a0 = lines[i];
        const RowLine& b0 = lines[i + 1];
        if (a0.along_x != b0.along_x) return fail("rows '" + c.rows[i] + "' and '" + c.rows[i + 1] + "' are not parallel");
        const bool ax = a0.along_x;
        // a: the row on the minus side of the aisle, b on the plus side.
        const bool swap = ax ? a0.extent.y0 > b0.extent.y0 : a0.extent.x0 > b0.extent.x0;
        const RowLine& a = swap ? b0 : a0;
        const RowLine& b = swap ? a0 : b0;
        // The faces towards the aisle: a's plus side and b's minus side. Front faces plus: the front is there.
        const bool a_front = facesPlus(a.facing, ax);
        const bool b_front = !facesPlus(b.facing, ax);
        if (a_front != b_front) continue;  // a front faces a back: not an aisle to contain
        if (a_front != cold) continue;     // an aisle of the other kind (pods alternate)
        ContainedAisle ca;
        ca.along_x = ax;
        ca.row_a = swap ? c.rows[i + 1] : c.rows[i];
        ca.row_b = swap ? c.rows[i] : c.rows[i + 1];
        ca.roof_m = std::max(a.height_m, b.height_m);
        if (ax) ca.box = {std::min(a.extent.x0, b.extent.x0), a.extent.y1, std::max(a.extent.x1, b.extent.x1), b.extent.y0};
        else ca.box = {a.extent.x1, std::min(a.extent.y0, b.extent.y0), b.extent.x0, std::max(a.extent.y1, b.extent.y1)};
        if ((ax ? ca.box.depth() : ca.box.width()) <= 0.05)
            return fail("rows '" + c.rows[i] + "' and '" + c.rows[i + 1] + "' leave no aisle between them");
        out.push_back(ca);
    }
    if (out.empty())
        return fail("no " + c.kind + " aisle between its rows: a " + c.kind + " aisle is where the racks' " + (cold ? "fronts" : "backs") +
                    " face each other");
    return out;
}

double leakageFraction(const Containment& c, const Catalog& cat) {
    if (c.leakage_fraction) return std::clamp(*c.leakage_fraction, 0.0, 0.99);
    const ContainmentModel* m = cat.containment(c.model);
    return m ? m->leakage_fraction : 0.0;
}

std::optional<double> fixedRecirculation(const Rack& r, const Catalog& cat) {
    if (r.recirculation_fraction) return std::clamp(*r.recirculation_fraction, 0.0, 0.9);
    const BlankingModel* m = r.blanking.empty() ? nullptr : cat.blanking(r.blanking);
    if (m && m->recirculation_fraction) return std::clamp(*m->recirculation_fraction, 0.0, 0.9);
    return std::nullopt;
}

namespace {
constexpr double kRailOpeningM = 0.450;   // EIA-310: clear width between a 19" rack's rails
constexpr double kRailFlangesM = 0.4826;  // EIA-310: the 19" panel width over the rails' flanges
constexpr double kSidePanelM = 0.020;     // a cabinet's side panel with its frame, each side
}  // namespace

std::vector<RackOpening> rackOpenings(const Rack& r, const Catalog& cat, const std::vector<CabinetGap>& beside) {
    std::vector<RackOpening> out;
    const BlankingModel* b = r.blanking.empty() ? nullptr : cat.blanking(r.blanking);
    const RackModel* rm = cat.rack(r.model);
    if (!b || !rm || fixedRecirculation(r, cat) || rm->height_u < 1) return out;
    // The share of each U's width its equipment covers (a chassis's sleds each their slot's share).
    std::vector<double> covered(static_cast<std::size_t>(rm->height_u), 0.0);
    for (const auto& n : r.nodes) {
        const ServerModel* sm = cat.server(n.model);
        const int h = sm ? sm->height_u : 1;
        const double w = sm && sm->slot_count > 1 ? 1.0 / sm->slot_count : 1.0;
        for (int u = std::max(1, n.u_position); u < n.u_position + h && u <= rm->height_u; ++u)
            covered[static_cast<std::size_t>(u - 1)] = std::min(1.0, covered[static_cast<std::size_t>(u - 1)] + w);
    }
    const double per_u = kRailOpeningM * units::kRackUnitM * b->open_share;
    double last = -1;  // the open area of the U below, to join runs of equally open U into one band
    for (int u = 0; u < rm->height_u; ++u) {
        const double a = per_u * (1.0 - covered[static_cast<std::size_t>(u)]);
        const double z0 = u * units::kRackUnitM, z1 = z0 + units::kRackUnitM;
        if (a <= 1e-12) {
            last = -1;
        } else if (std::fabs(a - last) < 1e-12) {
            out.back().z1_m = z1;
            out.back().area_m2 += a;
        } else {
            out.push_back({z0, z1, a});
            last = a;
        }
    }
    const double gap = rm->width_m - 2 * kSidePanelM - kRailFlangesM;
    if (!b->sides_sealed && gap > 0) out.push_back({0.0, rm->height_u * units::kRackUnitM, gap * rm->height_u * units::kRackUnitM});
    const double under = r.floor_gap_m.value_or(rm->floor_gap_m);
    if (!b->gaps_sealed && under > 0) out.push_back({0.0, under, under * rm->width_m, slotDischarge(under, rm->depth_m)});
    if (!b->gaps_sealed)
        for (const auto& g : beside)
            if (g.width_m > 0 && g.height_m > 0)
                out.push_back({0.0, g.height_m, 0.5 * g.width_m * g.height_m, slotDischarge(g.width_m, g.depth_m)});
    return out;
}

std::vector<CabinetGap> cabinetGaps(const Row& row, const Catalog& cat) {
    std::vector<CabinetGap> out;
    std::vector<Box2> box(row.racks.size());
    std::vector<const RackModel*> model(row.racks.size());
    for (std::size_t i = 0; i < row.racks.size(); ++i) {
        const Rack& r = row.racks[i];
        model[i] = cat.rack(r.model);
        if (model[i]) box[i] = footprint(r.position_m, model[i]->width_m, model[i]->depth_m, r.facing);
    }
    for (std::size_t i = 0; i < row.racks.size(); ++i) {
        if (!model[i]) continue;
        const bool ns = row.racks[i].facing == Facing::North || row.racks[i].facing == Facing::South;
        // The nearest cabinet on the high side of i along the row, facing the same way and overlapping in depth.
        std::size_t best = row.racks.size();
        double gap = kMaxCabinetGapM + 1e-9, depth = 0;
        for (std::size_t j = 0; j < row.racks.size(); ++j) {
            if (j == i || !model[j] || row.racks[j].facing != row.racks[i].facing) continue;
            const Box2 &a = box[i], &b = box[j];
            const double w = ns ? b.x0 - a.x1 : b.y0 - a.y1;
            const double d = ns ? std::min(a.y1, b.y1) - std::max(a.y0, b.y0) : std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
            if (w > -1e-9 && w < gap && d > 0) {
                best = j;
                gap = w;
                depth = d;
            }
        }
        if (best < row.racks.size() && gap > 1e-6)
            out.push_back({i, best, gap, std::min(model[i]->height_m, model[best]->height_m), depth});
    }
    return out;
}

double slotDischarge(double gap_m, double depth_m) {
    constexpr double kEntry = 0.5, kExit = 1.0, kFriction = 0.04;
    if (gap_m <= 0) return 0;
    return 1.0 / std::sqrt(kEntry + kExit + kFriction * std::max(0.0, depth_m) / (2 * gap_m));
}

double rackOpenArea(const Rack& r, const Catalog& cat, const std::vector<CabinetGap>& beside) {
    double a = 0;
    for (const auto& o : rackOpenings(r, cat, beside)) a += o.area_m2;
    return a;
}

bool isInRow(const CoolingUnit& u, const Catalog& cat) {
    const CoolingUnitModel* m = cat.coolingUnit(u.model);
    return m && m->kind == "in-row";
}

}  // namespace ct::model
