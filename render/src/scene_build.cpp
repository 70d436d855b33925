#include "scene_impl.hpp"

namespace ct::render {

namespace detail {

vtkSmartPointer<vtkLookupTable> makeLut(double lo, double hi, double nan_r, double nan_g, double nan_b) {
    auto lut = vtkSmartPointer<vtkLookupTable>::New();
    lut->SetHueRange(0.66, 0.0);
    lut->SetSaturationRange(0.85, 0.85);
    lut->SetValueRange(0.95, 0.95);
    lut->SetNumberOfTableValues(256);
    lut->SetTableRange(lo, hi);
    lut->SetNanColor(nan_r, nan_g, nan_b, 1.0);
    lut->Build();
    return lut;
}

/// Links: idle ones faint, thin-looking grey so that they do not hide the racks; busy ones from yellow through
/// orange to an opaque red above 90 % (where link_high is raised). NaN = a failed link, solid magenta-red.
vtkSmartPointer<vtkLookupTable> makeLinkLut() {
    auto lut = vtkSmartPointer<vtkLookupTable>::New();
    const int n = 256;
    lut->SetNumberOfTableValues(n);
    lut->SetTableRange(0, 100);
    for (int i = 0; i < n; ++i) {
        const double u = static_cast<double>(i) / (n - 1);
        // Colour: grey-blue (idle) -> yellow (50 %) -> orange -> red (90 % and up).
        double r, g, b;
        if (u < 0.5) {
            const double a = u / 0.5;
            r = 0.62 + a * (0.98 - 0.62), g = 0.66 + a * (0.85 - 0.66), b = 0.74 + a * (0.15 - 0.74);
        } else {
            const double a = std::min(1.0, (u - 0.5) / 0.4);
            r = 0.98 - a * 0.08, g = 0.85 - a * 0.75, b = 0.15 - a * 0.05;
        }
        // Opacity: 20 % when idle, opaque from 60 %.
        const double alpha = 0.2 + 0.8 * std::clamp((u - 0.05) / 0.55, 0.0, 1.0);
        lut->SetTableValue(i, r, g, b, alpha);
    }
    lut->SetNanColor(0.85, 0.1, 0.45, 1.0);
    return lut;
}

/// Round labels at round values (0 / 2 / 4 / 6 / 8 / 10), each with the decimals that tell them apart.
void niceLabels(vtkScalarBarActor* bar, double lo, double hi) {
    // A bar a quarter of the view wide: six short labels (15 / 20 / … / 40) or five longer ones (0 / 5 / 10).
    model::Ticks t = model::niceTicks(lo, hi, 6);
    char widest[32];
    std::snprintf(widest, sizeof widest, "%.*f", t.decimals, std::max(std::abs(lo), std::abs(hi)));
    if (std::strlen(widest) > 3 || t.decimals > 0) t = model::niceTicks(lo, hi, 5);
    auto labels = vtkSmartPointer<vtkDoubleArray>::New();
    for (int i = 0; i < t.count; ++i) labels->InsertNextValue(t.first + i * t.step);
    bar->SetUseCustomLabels(true);
    bar->SetCustomLabels(labels);
    bar->SetLabelFormat(("%." + std::to_string(t.decimals) + "f").c_str());
}

vtkSmartPointer<vtkScalarBarActor> makeBar(vtkLookupTable* lut, const std::string& title, double x) {
    // Horizontal bars along the bottom edge, side by side, so their titles never overlap.
    auto bar = vtkSmartPointer<vtkScalarBarActor>::New();
    bar->SetLookupTable(lut);
    bar->SetTitle(title.c_str());
    const double* range = lut->GetTableRange();
    niceLabels(bar, range[0], range[1]);
    bar->SetOrientationToHorizontal();
    bar->SetPosition(x, 0.015);
    bar->SetWidth(0.27);
    bar->SetHeight(0.11);
    bar->SetBarRatio(0.3);
    bar->SetTextPositionToPrecedeScalarBar();
    bar->GetTitleTextProperty()->SetFontSize(13);
    bar->GetTitleTextProperty()->SetBold(0);
    bar->GetTitleTextProperty()->SetItalic(0);
    bar->GetTitleTextProperty()->SetShadow(0);
    bar->GetLabelTextProperty()->SetFontSize(12);
    bar->GetLabelTextProperty()->SetItalic(0);
    bar->GetLabelTextProperty()->SetBold(0);
    bar->GetLabelTextProperty()->SetShadow(0);
    bar->UnconstrainedFontSizeOn();
    return bar;
}

bool rayBox(const double o[3], const double d[3], const double lo[3], const double hi[3], double& t_hit) {
    double t0 = 0, t1 = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
        if (std::abs(d[a]) < 1e-15) {
            if (o[a] < lo[a] || o[a] > hi[a]) return false;
            continue;
        }
        double ta = (lo[a] - o[a]) / d[a], tb = (hi[a] - o[a]) / d[a];
        if (ta > tb) std::swap(ta, tb);
        t0 = std::max(t0, ta);
        t1 = std::min(t1, tb);
        if (t0 > t1) return false;
    }
    t_hit = t0;
    return true;
}

std::string nodeOfGpu(const std::string& gpu) {
    const auto p = gpu.rfind("/gpu");
    return p == std::string::npos ? std::string() : gpu.substr(0, p);
}

}  // namespace detail

void Scene::Impl::build(std::vector<model::FabricLink> fabric) {
    ren->SetBackground(0.12, 0.13, 0.16);
    ren->SetBackground2(0.22, 0.24, 0.29);
    ren->GradientBackgroundOn();
    // Several halls stand side by side on the site plan; each is drawn at its place.
    site_lo[0] = site_lo[1] = 1e300;
    site_hi[0] = site_hi[1] = -1e300;
    for (const auto& h : scenario.halls) {
        const double ox = &h == hall ? 0.0 : h.site_position_m.x_m - hall->site_position_m.x_m;
        const double oy = &h == hall ? 0.0 : h.site_position_m.y_m - hall->site_position_m.y_m;
        site_lo[0] = std::min(site_lo[0], ox);
        site_lo[1] = std::min(site_lo[1], oy);
        site_hi[0] = std::max(site_hi[0], ox + h.width_m);
        site_hi[1] = std::max(site_hi[1], oy + h.depth_m);
        buildFloor(h, ox, oy);
        buildHall(h, ox, oy);
        buildCooling(h, ox, oy);
        buildSensors(h, ox, oy);
    }
    buildLookupTables();
    racks.build(rack_lut, ren);
    nodes.build(node_lut, ren);
    buildLod();
    units.build(unit_lut, ren);
    sensor_boxes->build(air_lut, ren);
    sensor_boxes->actor->PickableOff();
    finishCooling();
    buildLinks(std::move(fabric));
    buildLabels();
    buildOverlays();
    win->AddRenderer(ren);
    full_multisamples = win->GetMultiSamples();
    if (target == Target::Offscreen) win->SetOffScreenRendering(1);
    iren->SetRenderWindow(win);
    iren->SetInteractorStyle(style);
    iren->EnableRenderOff();  // the owner decides when to draw
    recolour(nullptr);
}

void Scene::Impl::buildSensors(const model::Hall& h, double ox, double oy) {
    constexpr double kHalf = 0.06, kOut = 0.1;  // a 12 cm cube, 10 cm out from the rack's face
    for (const auto& x : h.sensors) {
        double cx = ox + x.position_m.x_m, cy = oy + x.position_m.y_m;
        if (!x.rack.empty()) {
            const model::Rack* rack = nullptr;
            for (const auto& row : h.rows)
                for (const auto& r : row.racks)
                    if (r.id == x.rack) rack = &r;
            const model::RackModel* rm = rack ? catalog.rack(rack->model) : nullptr;
            if (!rm) continue;
            const model::Box2 b = shifted(model::footprint(rack->position_m, rm->width_m, rm->depth_m, rack->facing), ox, oy);
            // The side it is on: the front faces the rack's facing (north is +y), the rear the other way.
            const bool front = x.side != "rear";
            cx = (b.x0 + b.x1) / 2;
            cy = (b.y0 + b.y1) / 2;
            switch (rack->facing) {
                case model::Facing::North:
                    cy = front ? b.y1 + kOut : b.y0 - kOut;
                    break;
                case model::Facing::South:
                    cy = front ? b.y0 - kOut : b.y1 + kOut;
                    break;
                case model::Facing::East:
                    cx = front ? b.x1 + kOut : b.x0 - kOut;
                    break;
                case model::Facing::West:
                    cx = front ? b.x0 - kOut : b.x1 + kOut;
                    break;
            }
        }
        sensor_index[x.id] = static_cast<int>(sensor_boxes->size());
        const double z = x.height_m;
        sensor_boxes->add(x.id, cx - kHalf, cy - kHalf, z - kHalf, cx + kHalf, cy + kHalf, z + kHalf, kNaN);
    }
}

void Scene::Impl::buildLookupTables() {
    node_lut = makeLut(0, 1, 0.55, 0.56, 0.58);
    rack_lut = makeLut(0, 1, 0.2, 0.21, 0.24);
    unit_lut = vtkSmartPointer<vtkLookupTable>::New();
    unit_lut->SetNumberOfTableValues(4);
    unit_lut->SetTableValue(0, 0.25, 0.55, 0.95);  // perimeter cooling unit
    unit_lut->SetTableValue(1, 0.2, 0.8, 0.75);    // CDU
    unit_lut->SetTableValue(2, 0.9, 0.15, 0.15);   // failed
    unit_lut->SetTableValue(3, 0.62, 0.42, 0.95);  // in-row cooler
    unit_lut->SetTableRange(0, 3);
    link_lut = makeLinkLut();
    air_lut = makeLut(15, 40, 0.3, 0.3, 0.3);
}

void Scene::Impl::buildOverlays() {
    sel_actor->GetProperty()->SetColor(1.0, 0.9, 0.1);
    sel_actor->GetProperty()->SetLineWidth(3);
    vtkNew<vtkPolyDataMapper> sel_mapper;
    sel_mapper->SetInputConnection(sel_box->GetOutputPort());
    sel_actor->SetMapper(sel_mapper);
    sel_actor->VisibilityOff();
    ren->AddActor(sel_actor);

    metric_bar = makeBar(node_lut, "", 0.70);
    link_bar = makeBar(link_lut, "Link utilization (%)", 0.365);
    air_bar = makeBar(air_lut, "Air temperature (°C)", 0.03);
    ren->AddActor2D(metric_bar);
    ren->AddActor2D(link_bar);
    ren->AddActor2D(air_bar);
    hint_actor->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    hint_actor->SetPosition(0.015, 0.94);
    vtkTextProperty* hp = hint_actor->GetTextProperty();
    hp->SetFontSize(14);
    hp->SetColor(0.96, 0.96, 0.96);
    hp->SetBackgroundColor(0.05, 0.06, 0.08);
    hp->SetBackgroundOpacity(0.75);
    hp->SetFrame(0);
    hp->SetBold(0);
    hp->SetShadow(0);
    hp->SetVerticalJustificationToTop();
    hint_actor->SetVisibility(0);
    ren->AddActor2D(hint_actor);
    caption_actor->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
    caption_actor->SetPosition(0.5, 0.93);
    vtkTextProperty* cp = caption_actor->GetTextProperty();
    cp->SetFontSize(22);
    cp->SetColor(1, 1, 1);
    cp->SetBackgroundColor(0.04, 0.05, 0.07);
    cp->SetBackgroundOpacity(0.8);
    cp->SetJustificationToCentered();
    cp->SetVerticalJustificationToTop();
    caption_actor->SetVisibility(0);
    ren->AddActor2D(caption_actor);
}

void Scene::Impl::buildHall(const model::Hall& h, double ox, double oy) {
    for (const auto& row : h.rows)
        for (const auto& r : row.racks) {
            const model::RackModel* rm = catalog.rack(r.model);
            if (!rm) continue;
            const model::Box2 b = shifted(model::footprint(r.position_m, rm->width_m, rm->depth_m, r.facing), ox, oy);
            rack_index[r.id] = static_cast<int>(racks.size());
            racks.add(r.id, b.x0, b.y0, 0, b.x1, b.y1, rm->height_m, kNaN);
            rack_nameplate_kw.push_back(model::rackNameplatePowerW(r, catalog) / 1000.0);
            rack_nodes.emplace_back();
            // Nodes: slightly narrower than the rack, standing 1 cm proud of its front and back.
            const bool ns = r.facing == model::Facing::North || r.facing == model::Facing::South;
            const double inset = 0.04 * rm->width_m, proud = 0.01;
            const double x0 = ns ? b.x0 + inset : b.x0 - proud, x1 = ns ? b.x1 - inset : b.x1 + proud;
            const double y0 = ns ? b.y0 - proud : b.y0 + inset, y1 = ns ? b.y1 + proud : b.y1 - inset;
            const double z_base = nodeZ0(*rm);
            for (const auto& n : r.nodes) {
                const model::ServerModel* sm = catalog.server(n.model);
                if (!sm) continue;
                const double z0 = z_base + (n.u_position - 1) * model::units::kRackUnitM;
                const double z1 = std::min(rm->height_m, z0 + sm->height_u * model::units::kRackUnitM - 0.004);
                // Side by side in a chassis: its slot's share of the width, from the left seen from the front.
                const model::WidthSpan w = model::widthSpan(n.slot, sm->slot_count);
                const double a0 = ns ? x0 : y0, len = (ns ? x1 : y1) - a0, gap = sm->slot_count > 1 ? 0.003 : 0.0;
                const double l0 = model::leftIsHighEnd(r.facing) ? a0 + (1 - w.right) * len : a0 + w.left * len;
                const double l1 = l0 + (w.right - w.left) * len;
                node_index[n.id] = static_cast<int>(nodes.size());
                rack_nodes.back().push_back(static_cast<int>(nodes.size()));
                if (ns) nodes.add(n.id, l0 + gap, y0, z0 + 0.002, l1 - gap, y1, z1, kNaN);
                else nodes.add(n.id, x0, l0 + gap, z0 + 0.002, x1, l1 - gap, z1, kNaN);
                node_rack.push_back(r.id);
                node_nameplate_kw.push_back(sm->max_power_w / 1000.0);
            }
        }
    for (const auto& u : h.cooling_units)
        if (const auto* m = catalog.coolingUnit(u.model)) {
            const model::Box2 b = shifted(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing), ox, oy);
            unit_index[u.id] = static_cast<int>(units.size());
            const double kind = m->kind == "in-row" ? 3 : 0;
            units.add(u.id, b.x0, b.y0, 0, b.x1, b.y1, m->height_m, kind);
            unit_kind.push_back(kind);
        }
    for (const auto& u : h.cdus)
        if (const auto* m = catalog.cdu(u.model)) {
            const model::Box2 b = shifted(model::footprint(u.position_m, m->width_m, m->depth_m, u.facing), ox, oy);
            unit_index[u.id] = static_cast<int>(units.size());
            units.add(u.id, b.x0, b.y0, 0, b.x1, b.y1, m->height_m, 1);
            unit_kind.push_back(1);
        }
}

void Scene::Impl::buildFloor(const model::Hall& h, double ox, double oy) {
    vtkNew<vtkCubeSource> floor;
    floor->SetBounds(ox, ox + h.width_m, oy, oy + h.depth_m, -0.05, 0);
    vtkNew<vtkPolyDataMapper> fm;
    fm->SetInputConnection(floor->GetOutputPort());
    vtkNew<vtkActor> fa;
    fa->SetMapper(fm);
    fa->GetProperty()->SetColor(0.62, 0.64, 0.67);
    ren->AddActor(fa);

    // Tile grid: every tile, or every k-th in a very large hall so the lines stay readable.
    const double tile = h.tile_m > 0 ? h.tile_m : 0.6;
    const int k = std::max(1, static_cast<int>(std::max(h.width_m, h.depth_m) / tile / 200));
    vtkNew<vtkPoints> pts;
    vtkNew<vtkCellArray> cells;
    auto line = [&](double x0, double y0, double x1, double y1) {
        const vtkIdType a = pts->InsertNextPoint(ox + x0, oy + y0, 0.002), b = pts->InsertNextPoint(ox + x1, oy + y1, 0.002);
        const vtkIdType ids[2] = {a, b};
        cells->InsertNextCell(2, ids);
    };
    for (double x = 0; x <= h.width_m + 1e-9; x += tile * k) line(x, 0, x, h.depth_m);
    for (double y = 0; y <= h.depth_m + 1e-9; y += tile * k) line(0, y, h.width_m, y);
    vtkNew<vtkPolyData> grid;
    grid->SetPoints(pts);
    grid->SetLines(cells);
    vtkNew<vtkPolyDataMapper> gm;
    gm->SetInputData(grid);
    vtkNew<vtkActor> ga;
    ga->SetMapper(gm);
    ga->GetProperty()->SetColor(0.48, 0.5, 0.53);
    ren->AddActor(ga);

    // Walls: the two far walls as translucent panels (they do not hide the hall from the iso view), and the
    // hall's outline up to the ceiling.
    const double H = h.height_m > 0 ? h.height_m : 3.0;
    for (int w = 0; w < 2; ++w) {
        vtkNew<vtkCubeSource> wall;
        if (w == 0) wall->SetBounds(ox, ox + h.width_m, oy + h.depth_m, oy + h.depth_m + 0.05, 0, H);
        else wall->SetBounds(ox - 0.05, ox, oy, oy + h.depth_m, 0, H);
        vtkNew<vtkPolyDataMapper> wm;
        wm->SetInputConnection(wall->GetOutputPort());
        vtkNew<vtkActor> wa;
        wa->SetMapper(wm);
        wa->GetProperty()->SetColor(0.75, 0.77, 0.8);
        wa->GetProperty()->SetOpacity(0.18);
        wa->PickableOff();
        ren->AddActor(wa);
    }
    vtkNew<vtkOutlineSource> outline;
    outline->SetBounds(ox, ox + h.width_m, oy, oy + h.depth_m, 0, H);
    vtkNew<vtkPolyDataMapper> om;
    om->SetInputConnection(outline->GetOutputPort());
    vtkNew<vtkActor> oa;
    oa->SetMapper(om);
    oa->GetProperty()->SetColor(0.7, 0.72, 0.76);
    ren->AddActor(oa);
}

void Scene::Impl::buildLinks(std::vector<model::FabricLink> fabric) {
    links = std::move(fabric);
    const bool bundled = linkLines();
    linkActors(bundled);
    switchBoxes();
}

namespace {
/// Where a link end sits: a node's box centre, or a switch above its rack (leaf, spine, core tiers); bundled,
/// a rack's links meet at one point.
std::string endKey(const model::FabricLinkEnd& e, bool bundled) {
    if (!e.node.empty()) return bundled ? "r:" + e.rack : "n:" + e.node;
    return (bundled ? "t:" + e.rack + ":" : "s:" + e.id + ":") + std::to_string(e.level);
}
}  // namespace

bool Scene::Impl::linkLines() {
    std::map<std::string, int> end_point;
    auto pointOf = [&](const model::FabricLinkEnd& e, bool bundled) -> int {
        const std::string key = endKey(e, bundled);
        auto it = end_point.find(key);
        if (it != end_point.end()) return it->second;
        double p[3] = {kNaN, kNaN, kNaN};
        auto ri = rack_index.find(e.rack);
        if (ri == rack_index.end()) return -1;
        const auto& rb = racks.bounds[ri->second];
        if (!e.node.empty()) {
            auto ni = node_index.find(e.node);
            const auto& b = (ni != node_index.end() && !bundled) ? nodes.bounds[ni->second] : rb;
            p[0] = (b.lo[0] + b.hi[0]) / 2;
            p[1] = (b.lo[1] + b.hi[1]) / 2;
            p[2] = bundled ? rb.hi[2] * 0.6 : (b.lo[2] + b.hi[2]) / 2;
        } else {
            p[0] = (rb.lo[0] + rb.hi[0]) / 2;
            p[1] = (rb.lo[1] + rb.hi[1]) / 2;
            p[2] = rb.hi[2] + 0.4 + 0.7 * (e.level - 1);
        }
        const int idx = static_cast<int>(link_points->InsertNextPoint(p));
        end_point.emplace(key, idx);
        return idx;
    };
    std::size_t drawable = 0;
    for (const auto& l : links)
        if (l.a.node.empty() || l.b.node.empty() || l.a.node != l.b.node) ++drawable;  // NVLink stays inside a node
    const bool bundled = static_cast<int>(drawable) > ov.max_link_lines;
    std::map<std::pair<int, int>, int> line_at;
    for (const auto& l : links) {
        if (!l.a.node.empty() && l.a.node == l.b.node) continue;
        const int a = pointOf(l.a, bundled), b = pointOf(l.b, bundled);
        if (a < 0 || b < 0 || a == b) continue;
        const auto key = std::minmax(a, b);
        auto [it, added] = line_at.emplace(key, static_cast<int>(lines.size()));
        if (added) lines.push_back({a, b, {}});
        lines[it->second].ids.push_back(l.id);
        line_of_link[l.id] = it->second;
    }
    return bundled;
}

void Scene::Impl::linkActors(bool bundled) {
    vtkNew<vtkCellArray> cells;
    for (const auto& ln : lines) {
        const vtkIdType ids[2] = {ln.a_end, ln.b_end};
        cells->InsertNextCell(2, ids);
    }
    link_value->SetName("utilization");
    link_value->SetNumberOfValues(static_cast<vtkIdType>(lines.size()));
    link_value->Fill(0);
    link_pd->SetPoints(link_points);
    link_pd->SetLines(cells);
    link_pd->GetCellData()->SetScalars(link_value);
    link_mapper->SetInputData(link_pd);
    link_mapper->SetLookupTable(link_lut);
    link_mapper->UseLookupTableScalarRangeOn();
    link_mapper->SetScalarModeToUseCellData();
    link_actor->SetMapper(link_mapper);
    link_width = bundled ? 3 : 1.5;
    link_actor->GetProperty()->SetLineWidth(link_width);
    link_actor->PickableOff();
    if (!lines.empty()) ren->AddActor(link_actor);
    busy_link_value->SetName("utilization");
    busy_link_pd->SetPoints(link_points);
    busy_link_pd->GetCellData()->SetScalars(busy_link_value);
    busy_link_mapper->SetInputData(busy_link_pd);
    busy_link_mapper->SetLookupTable(link_lut);
    busy_link_mapper->UseLookupTableScalarRangeOn();
    busy_link_mapper->SetScalarModeToUseCellData();
    busy_link_actor->SetMapper(busy_link_mapper);
    busy_link_actor->GetProperty()->SetLineWidth(bundled ? 6 : 4);
    busy_link_actor->PickableOff();
    busy_link_actor->SetVisibility(0);
    ren->AddActor(busy_link_actor);
    hot_link_mapper->SetInputData(hot_link_pd);
    hot_link_actor->SetMapper(hot_link_mapper);
    hot_link_actor->GetProperty()->SetColor(1.0, 0.24, 0.9);
    hot_link_actor->GetProperty()->SetLineWidth(4);
    hot_link_actor->PickableOff();
    hot_link_actor->SetVisibility(0);
    ren->AddActor(hot_link_actor);
}

void Scene::Impl::switchBoxes() {
    // Switch boxes: one per (rack, tier), whatever the bundling, so the tiers are visible.
    std::map<std::string, bool> seen_tier;
    for (const auto& l : links)
        for (const auto* e : {&l.a, &l.b}) {
            if (!e->node.empty() || e->level < 1) continue;
            const std::string key = e->rack + ":" + std::to_string(e->level);
            if (seen_tier.count(key)) continue;
            seen_tier[key] = true;
            auto ri = rack_index.find(e->rack);
            if (ri == rack_index.end()) continue;
            const auto& rb = racks.bounds[ri->second];
            const double cx = (rb.lo[0] + rb.hi[0]) / 2, cy = (rb.lo[1] + rb.hi[1]) / 2, z = rb.hi[2] + 0.4 + 0.7 * (e->level - 1);
            switches->add(e->id, cx - 0.25, cy - 0.2, z - 0.05, cx + 0.25, cy + 0.2, z + 0.05, e->level);
        }
    vtkNew<vtkLookupTable> sw_lut;
    sw_lut->SetNumberOfTableValues(3);
    sw_lut->SetTableValue(0, 0.35, 0.36, 0.42);
    sw_lut->SetTableValue(1, 0.45, 0.42, 0.55);
    sw_lut->SetTableValue(2, 0.55, 0.45, 0.65);
    sw_lut->SetTableRange(1, 3);
    switches->build(sw_lut, ren);
    switches->actor->PickableOff();
}

void Scene::Impl::buildLabels() {
    // Row names above their first rack; rack names when there are few enough to read; unit names. Placed by
    // VTK's label placer: a label that would overlap one of higher priority is left out for this view (zoom in
    // to see it), and a label whose anchor is hidden behind something (depth buffer) is not drawn over it. A
    // narrow view (the Compare tab's panes) names the rows only: rack and unit names covered its hall.
    vtkNew<vtkPoints> pts;
    vtkNew<vtkStringArray> names;
    names->SetName("labels");
    vtkNew<vtkIntArray> priority;
    priority->SetName("priority");
    auto add = [&](const std::string& text, double x, double y, double z, int prio) {
        pts->InsertNextPoint(x, y, z);
        names->InsertNextValue(text);
        priority->InsertNextValue(prio);
    };
    const bool rack_names = racks.size() <= 400 && !narrow;
    for (const auto& h : scenario.halls)
        for (const auto& row : h.rows) {
            if (row.racks.empty()) continue;
            auto ri = rack_index.find(row.racks.front().id);
            if (ri == rack_index.end()) continue;
            const auto& b = racks.bounds[ri->second];
            if (!rack_names) add(row.name.empty() ? row.id : row.name, b.lo[0], b.lo[1], b.hi[2] + 0.3, 3);
        }
    if (rack_names)
        for (std::size_t i = 0; i < racks.size(); ++i) {
            const auto& b = racks.bounds[i];
            add(racks.ids[i], (b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2, b.hi[2] + 0.05, 1);
        }
    if (units.size() <= 400 && !narrow)
        for (std::size_t i = 0; i < units.size(); ++i) {
            const auto& b = units.bounds[i];
            add(units.ids[i], (b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2, b.hi[2] + 0.05, 2);
        }
    label_actor->SetMapper(placedLabels(pts, names, priority, {0.95, 0.95, 0.95}, false, true));
    if (pts->GetNumberOfPoints() > 0 && !ren->HasViewProp(label_actor)) ren->AddActor2D(label_actor);
}

vtkSmartPointer<vtkLabelPlacementMapper> detail::placedLabels(vtkPoints* pts, vtkStringArray* names, vtkIntArray* priority,
                                                              const std::array<double, 3>& rgb, bool bold, bool behind_hidden) {
    vtkNew<vtkPolyData> pd;
    pd->SetPoints(pts);
    pd->GetPointData()->AddArray(names);
    pd->GetPointData()->AddArray(priority);
    vtkNew<vtkPointSetToLabelHierarchy> hierarchy;
    hierarchy->SetInputData(pd);
    hierarchy->SetLabelArrayName(names->GetName());
    hierarchy->SetPriorityArrayName(priority->GetName());
    vtkTextProperty* text = hierarchy->GetTextProperty();
    text->SetFontSize(12);
    text->SetColor(rgb[0], rgb[1], rgb[2]);
    text->SetBold(bold ? 1 : 0);
    text->SetItalic(0);
    text->SetShadow(1);
    text->SetJustificationToCentered();
    text->SetVerticalJustificationToBottom();
    auto placer = vtkSmartPointer<vtkLabelPlacementMapper>::New();
    placer->SetInputConnection(hierarchy->GetOutputPort());
    placer->SetShapeToNone();
    placer->SetMaximumLabelFraction(0.4);  // the default 5 % of the screen drops most names of a small hall
    placer->SetIteratorType(vtkLabelHierarchy::FULL_SORT);
    if (behind_hidden) placer->UseDepthBufferOn();
    placer->SetMargin(2);
    return placer;
}

}  // namespace ct::render
