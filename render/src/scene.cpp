#include <clustertwin/render/scene.hpp>
#include <clustertwin/render/display.hpp>

#include "camera_ops.hpp"

#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/units.hpp>

#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkCamera.h>
#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkCommand.h>
#include <vtkCubeSource.h>
#include <vtkDataSetMapper.h>
#include <vtkDoubleArray.h>
#include <vtkFloatArray.h>
#include <vtkFlyingEdges3D.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkGlyph3DMapper.h>
#include <vtkImageData.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLabelPlacementMapper.h>
#include <vtkPointSetToLabelHierarchy.h>
#include <vtkLabelHierarchy.h>
#include <vtkIntArray.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkOutlineSource.h>
#include <vtkPNGWriter.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkVersion.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkStreamTracer.h>
#include <vtkStringArray.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace ct::render {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Fixed ranges so that colours mean the same thing from frame to frame and run to run.
const std::vector<MetricInfo> kMetrics = {
    {"inlet_c", "Node inlet (°C)", 15, 40, false, true},
    {"gpu_temp_c", "GPU temperature, hottest (°C)", 30, 90, false, true},
    {"power_kw", "Node power (kW)", 0, 0, false, true},
    {"gpu_util", "GPU utilization (%)", 0, 100, false, true},
    {"throttle", "GPU clocks, lowest (%)", 50, 100, false, true, true},
    {"rack_power_kw", "Rack power (kW)", 0, 0, true, true},
    {"rack_inlet_c", "Rack inlet, hottest (°C)", 15, 40, true, true},
    {"exhaust_c", "Rack exhaust (°C)", 15, 55, true, true},
    {"capture_index", "Rack Capture Index, cold aisle (%)", 0, 100, true, true, true},
    {"nameplate_kw", "Node nameplate (kW)", 0, 0, false, false},
    {"inlet_delta_c", "Node inlet change vs baseline (K)", -5, 5, false, true},
};

/// Boxes drawn as glyphs of one cube: a point per box with its size and a value (one actor for thousands).
struct Boxes {
    vtkNew<vtkPoints> points;
    vtkNew<vtkDoubleArray> scale;
    vtkNew<vtkDoubleArray> value;
    vtkNew<vtkPolyData> pd;
    vtkNew<vtkCubeSource> cube;
    vtkNew<vtkGlyph3DMapper> mapper;
    vtkNew<vtkActor> actor;
    struct Bounds {
        double lo[3], hi[3];
    };
    std::vector<Bounds> bounds;
    std::vector<std::string> ids;

    Boxes() {
        scale->SetNumberOfComponents(3);
        scale->SetName("scale");
        value->SetName("value");
    }
    void add(const std::string& id, double x0, double y0, double z0, double x1, double y1, double z1, double v) {
        points->InsertNextPoint((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2);
        scale->InsertNextTuple3(x1 - x0, y1 - y0, z1 - z0);
        value->InsertNextValue(v);
        bounds.push_back({{x0, y0, z0}, {x1, y1, z1}});
        ids.push_back(id);
    }
    std::size_t size() const { return ids.size(); }
    void build(vtkLookupTable* lut, vtkRenderer* ren) {
        pd->SetPoints(points);
        pd->GetPointData()->AddArray(scale);
        pd->GetPointData()->SetScalars(value);
        mapper->SetInputData(pd);
        mapper->SetSourceConnection(cube->GetOutputPort());
        mapper->SetScaleArray("scale");
        mapper->SetScaleModeToScaleByVectorComponents();
        mapper->SetLookupTable(lut);
        mapper->UseLookupTableScalarRangeOn();
        mapper->ScalarVisibilityOn();
        actor->SetMapper(mapper);
        if (size() > 0) ren->AddActor(actor);
    }
    void changed() {
        value->Modified();
        pd->Modified();
    }
};

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

} // namespace

const std::vector<MetricInfo>& metrics() { return kMetrics; }

const MetricInfo& metricInfo(const std::string& id) {
    for (const auto& m : kMetrics)
        if (m.id == id) return m;
    std::string known;
    for (const auto& m : kMetrics) known += (known.empty() ? "" : ", ") + m.id;
    throw RenderError("unknown metric '" + id + "' (" + known + ")");
}

struct Scene::Impl {
    const model::Hall* hall = nullptr;
    model::Scenario scenario;  // a copy: the scene outlives the caller's document edits
    const model::Catalog& catalog;
    Target target;
    std::string metric = "nameplate_kw";
    Overlays ov;
    std::string selected;
    bool has_frame = false;
    model::Frame last;                    // the frame shown (without its air field), for recolouring
    std::optional<model::AirField> air;   // the air field shown
    std::size_t n_cooling_units = 0;      // units' glyphs: cooling units first, then CDUs

    vtkNew<vtkRenderer> ren;
    vtkNew<vtkRenderWindow> win;
    int full_multisamples = 8;  // the window's default, restored after fast frames
    vtkNew<vtkGenericRenderWindowInteractor> iren;
    vtkNew<vtkInteractorStyleTrackballCamera> style;

    Boxes racks, nodes, units;
    std::unique_ptr<Boxes> switches = std::make_unique<Boxes>();
    std::vector<std::string> node_rack;             // per node glyph: its rack id
    std::vector<double> node_nameplate_kw, rack_nameplate_kw;
    std::unordered_map<std::string, int> node_index, rack_index, unit_index, switch_index;
    std::vector<std::vector<int>> rack_nodes;
    vtkSmartPointer<vtkLookupTable> node_lut, rack_lut, unit_lut, link_lut, air_lut;
    vtkSmartPointer<vtkScalarBarActor> metric_bar, link_bar, air_bar;

    // Links: one line per link or per bundle.
    struct Line {
        int a_end = -1, b_end = -1;  // point indices
        std::vector<std::string> ids;
    };
    std::vector<model::FabricLink> links;
    vtkNew<vtkPoints> link_points;
    vtkNew<vtkPolyData> link_pd;
    vtkNew<vtkDoubleArray> link_value;
    vtkNew<vtkPolyDataMapper> link_mapper;
    vtkNew<vtkActor> link_actor;
    std::vector<Line> lines;
    std::unordered_map<std::string, int> line_of_link;

    vtkNew<vtkActor2D> label_actor;
    vtkNew<vtkTextActor> hint_actor;  // top left: why the colours say nothing (no run yet, all equal)
    std::string hint;
    bool show_hint = true;
    vtkNew<vtkOutlineSource> sel_box;
    vtkNew<vtkActor> sel_actor;

    // Outlines: findings and impact highlights.
    struct Outline {
        vtkNew<vtkPoints> pts;
        vtkNew<vtkCellArray> lines;
        vtkNew<vtkUnsignedCharArray> colours;
        vtkNew<vtkPolyData> pd;
        vtkNew<vtkPolyDataMapper> mapper;
        vtkNew<vtkActor> actor;
        std::size_t boxes = 0;
    };
    Outline markers, highlights;
    std::vector<std::string> highlighted_ids;
    void outline(Outline& o, const std::vector<std::pair<std::string, std::array<unsigned char, 3>>>& items, double grow);

    // Air overlays, rebuilt per frame.
    std::vector<vtkSmartPointer<vtkProp>> air_props;

    Impl(const model::Scenario& s, const model::Catalog& c, Target t) : scenario(s), catalog(c), target(t) {}

    double nodeZ0(const model::RackModel& rm) const {
        // Rails start where the rack's U space, centred in its height, begins.
        return std::max(0.0, (rm.height_m - rm.height_u * model::units::kRackUnitM) / 2);
    }

    void build(std::vector<model::FabricLink> fabric);
    void buildFloor();
    void buildLinks(std::vector<model::FabricLink> fabric);
    void buildLabels();
    void recolour(const model::Frame* f);
    void updateHint(const MetricInfo& m, const model::Frame* f, const std::vector<double>& nv);
    void rebuildAir();
    void updateBars();
    double metricHi(const MetricInfo& m) const;
    bool boundsOf(const std::string& id, double lo[3], double hi[3]) const;
    /// The ray through a pixel (origin top-left): from the near plane `o` along `dir` to the far plane.
    bool ray(int x, int y, double o[3], double dir[3]) const;
    void aislePlane(bool& along_x, double& where_m) const;
};

void Scene::Impl::build(std::vector<model::FabricLink> fabric) {
    const model::Hall& h = *hall;
    ren->SetBackground(0.12, 0.13, 0.16);
    ren->SetBackground2(0.22, 0.24, 0.29);
    ren->GradientBackgroundOn();
    buildFloor();

    for (const auto& row : h.rows)
        for (const auto& r : row.racks) {
            const model::RackModel* rm = catalog.rack(r.model);
            if (!rm) continue;
            const model::Box2 b = model::footprint(r.position_m, rm->width_m, rm->depth_m, r.facing);
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
                node_index[n.id] = static_cast<int>(nodes.size());
                rack_nodes.back().push_back(static_cast<int>(nodes.size()));
                nodes.add(n.id, x0, y0, z0 + 0.002, x1, y1, z1, kNaN);
                node_rack.push_back(r.id);
                node_nameplate_kw.push_back(sm->max_power_w / 1000.0);
            }
        }
    for (const auto& u : h.cooling_units)
        if (const auto* m = catalog.coolingUnit(u.model)) {
            const model::Box2 b = model::footprint(u.position_m, m->width_m, m->depth_m, u.facing);
            unit_index[u.id] = static_cast<int>(units.size());
            units.add(u.id, b.x0, b.y0, 0, b.x1, b.y1, m->height_m, 0);
        }
    n_cooling_units = units.size();
    for (const auto& u : h.cdus)
        if (const auto* m = catalog.cdu(u.model)) {
            const model::Box2 b = model::footprint(u.position_m, m->width_m, m->depth_m, u.facing);
            unit_index[u.id] = static_cast<int>(units.size());
            units.add(u.id, b.x0, b.y0, 0, b.x1, b.y1, m->height_m, 1);
        }

    node_lut = makeLut(0, 1, 0.55, 0.56, 0.58);
    rack_lut = makeLut(0, 1, 0.2, 0.21, 0.24);
    unit_lut = vtkSmartPointer<vtkLookupTable>::New();
    unit_lut->SetNumberOfTableValues(3);
    unit_lut->SetTableValue(0, 0.25, 0.55, 0.95);  // cooling unit
    unit_lut->SetTableValue(1, 0.2, 0.8, 0.75);    // CDU
    unit_lut->SetTableValue(2, 0.9, 0.15, 0.15);   // failed
    unit_lut->SetTableRange(0, 2);
    link_lut = makeLinkLut();
    air_lut = makeLut(15, 40, 0.3, 0.3, 0.3);

    racks.build(rack_lut, ren);
    nodes.build(node_lut, ren);
    units.build(unit_lut, ren);
    buildLinks(std::move(fabric));
    buildLabels();

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

    win->AddRenderer(ren);
    full_multisamples = win->GetMultiSamples();
    if (target == Target::Offscreen) win->SetOffScreenRendering(1);
    iren->SetRenderWindow(win);
    iren->SetInteractorStyle(style);
    iren->EnableRenderOff();  // the owner decides when to draw
    recolour(nullptr);
}

void Scene::Impl::buildFloor() {
    const model::Hall& h = *hall;
    vtkNew<vtkCubeSource> floor;
    floor->SetBounds(0, h.width_m, 0, h.depth_m, -0.05, 0);
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
        const vtkIdType a = pts->InsertNextPoint(x0, y0, 0.002), b = pts->InsertNextPoint(x1, y1, 0.002);
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
        if (w == 0) wall->SetBounds(0, h.width_m, h.depth_m, h.depth_m + 0.05, 0, H);
        else wall->SetBounds(-0.05, 0, 0, h.depth_m, 0, H);
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
    outline->SetBounds(0, h.width_m, 0, h.depth_m, 0, H);
    vtkNew<vtkPolyDataMapper> om;
    om->SetInputConnection(outline->GetOutputPort());
    vtkNew<vtkActor> oa;
    oa->SetMapper(om);
    oa->GetProperty()->SetColor(0.7, 0.72, 0.76);
    ren->AddActor(oa);
}

void Scene::Impl::buildLinks(std::vector<model::FabricLink> fabric) {
    links = std::move(fabric);
    // Where a link end sits: a node's box centre, or a switch above its rack (leaf, spine, core tiers).
    std::map<std::string, int> end_point;
    auto endKey = [&](const model::FabricLinkEnd& e, bool bundled) -> std::string {
        if (!e.node.empty()) return bundled ? "r:" + e.rack : "n:" + e.node;
        return (bundled ? "t:" + e.rack + ":" : "s:" + e.id + ":") + std::to_string(e.level);
    };
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
    link_actor->GetProperty()->SetLineWidth(bundled ? 3 : 1.5);
    link_actor->PickableOff();
    if (!lines.empty()) ren->AddActor(link_actor);

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
    // to see it), and a label whose anchor is hidden behind something (depth buffer) is not drawn over it.
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
    const bool rack_names = racks.size() <= 400;
    for (const auto& row : hall->rows) {
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
    if (units.size() <= 400)
        for (std::size_t i = 0; i < units.size(); ++i) {
            const auto& b = units.bounds[i];
            add(units.ids[i], (b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2, b.hi[2] + 0.05, 2);
        }
    vtkNew<vtkPolyData> pd;
    pd->SetPoints(pts);
    pd->GetPointData()->AddArray(names);
    pd->GetPointData()->AddArray(priority);
    vtkNew<vtkPointSetToLabelHierarchy> hierarchy;
    hierarchy->SetInputData(pd);
    hierarchy->SetLabelArrayName("labels");
    hierarchy->SetPriorityArrayName("priority");
    vtkTextProperty* text = hierarchy->GetTextProperty();
    text->SetFontSize(12);
    text->SetColor(0.95, 0.95, 0.95);
    text->SetBold(0);
    text->SetItalic(0);
    text->SetShadow(1);
    text->SetJustificationToCentered();
    text->SetVerticalJustificationToBottom();
    vtkNew<vtkLabelPlacementMapper> placer;
    placer->SetInputConnection(hierarchy->GetOutputPort());
    placer->SetShapeToNone();
    placer->SetMaximumLabelFraction(0.4);  // the default 5 % of the screen drops most names of a small hall
    placer->SetIteratorType(vtkLabelHierarchy::FULL_SORT);
    placer->UseDepthBufferOn();
    placer->SetMargin(2);
    label_actor->SetMapper(placer);
    if (pts->GetNumberOfPoints() > 0) ren->AddActor2D(label_actor);
}

double Scene::Impl::metricHi(const MetricInfo& m) const {
    if (m.hi > 0) return m.hi;
    const auto& v = m.rack_level ? rack_nameplate_kw : node_nameplate_kw;
    double hi = 1;
    for (double x : v) hi = std::max(hi, x);
    // Up to a round value, so that the colour bar's ends are labelled too (0…12, not 0…11).
    const double step = model::niceTicks(0, hi, 6).step;
    return std::ceil(hi / step - 1e-9) * step;
}

void Scene::Impl::updateHint(const MetricInfo& m, const model::Frame* f, const std::vector<double>& nv) {
    // Issue 16: grey nodes or one flat colour with no word about why.
    std::string label = m.label;
    if (auto p = label.find(" ("); p != std::string::npos) label.erase(p);  // "Node inlet (°C)" -> "Node inlet"
    for (auto& c : label) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::size_t n = 0;
    for (double v : nv)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v), ++n;
    char buf[256];
    if (m.needs_frame && !f) {
        hint = "No values yet to colour by " + label + ":\nrun a simulation (Simulation > Run, F5) or open a run (File > Open run).";
    } else if (n == 0 && nodes.size() > 0) {
        hint = "This run records no " + label + " for these nodes:\npick another colouring.";
    } else if (n > 1 && hi - lo < 1e-9 * std::max(1.0, std::abs(hi))) {
        std::snprintf(buf, sizeof buf, "All nodes have the same value: %.4g%s (%s).\n%s", hi,
                      m.label.find("(kW)") != std::string::npos ? " kW" : m.label.find("(°C)") != std::string::npos ? " °C" : "", label.c_str(),
                      f ? "Pick another colouring to see differences." : "Run a simulation (F5) to colour by what differs.");
        hint = buf;
    } else {
        hint.clear();
    }
    hint_actor->SetInput(hint.c_str());
    hint_actor->SetVisibility(show_hint && !hint.empty());
}

void Scene::Impl::recolour(const model::Frame* f) {
    const MetricInfo& m = metricInfo(metric);
    const double hi = metricHi(m);
    node_lut->SetTableRange(m.lo, hi);
    rack_lut->SetTableRange(m.lo, hi);
    for (vtkLookupTable* lut : {node_lut.Get(), rack_lut.Get()}) {
        lut->SetHueRange(m.high_is_good ? 0.0 : 0.66, m.high_is_good ? 0.66 : 0.0);
        lut->ForceBuild();
    }

    std::vector<double> nv(nodes.size(), kNaN), rv(racks.size(), kNaN);
    if (m.id == "nameplate_kw") {
        nv = node_nameplate_kw;
    } else if (f) {
        if (m.id == "inlet_c" || m.id == "power_kw" || m.id == "inlet_delta_c") {
            for (const auto& n : f->nodes)
                if (auto it = node_index.find(n.id); it != node_index.end())
                    nv[it->second] = m.id == "power_kw" ? n.power_ac_w / 1000.0 : n.inlet_c;
        } else if (m.id == "gpu_temp_c" || m.id == "gpu_util" || m.id == "throttle") {
            std::vector<double> acc(nodes.size(), kNaN);
            std::vector<int> cnt(nodes.size(), 0);
            for (const auto& g : f->gpus) {
                auto it = node_index.find(nodeOfGpu(g.id));
                if (it == node_index.end()) continue;
                const double v = m.id == "gpu_temp_c" ? g.temp_c : m.id == "gpu_util" ? 100 * g.utilization : 100 * g.throttle;
                if (std::isnan(v)) continue;
                double& a = acc[it->second];
                if (std::isnan(a)) a = v;
                else if (m.id == "gpu_temp_c") a = std::max(a, v);
                else if (m.id == "throttle") a = std::min(a, v);
                else a += v;
                ++cnt[it->second];
            }
            for (std::size_t i = 0; i < nodes.size(); ++i) nv[i] = (m.id == "gpu_util" && cnt[i] > 0) ? acc[i] / cnt[i] : acc[i];
        } else {  // rack-level
            for (const auto& r : f->racks)
                if (auto it = rack_index.find(r.id); it != rack_index.end())
                    rv[it->second] = m.id == "rack_power_kw"   ? r.power_w / 1000.0
                                     : m.id == "rack_inlet_c"  ? r.inlet_max_c
                                     : m.id == "capture_index" ? 100.0 * r.capture_index
                                                               : r.exhaust_c;
            for (std::size_t r = 0; r < racks.size(); ++r)
                for (int n : rack_nodes[r]) nv[n] = rv[r];
        }
        // Failed nodes show as "no data" whatever the metric.
        for (const auto& n : f->nodes)
            if (n.failed || !n.powered)
                if (auto it = node_index.find(n.id); it != node_index.end()) nv[it->second] = kNaN;
    }
    updateHint(m, f, nv);
    for (std::size_t i = 0; i < nodes.size(); ++i) nodes.value->SetValue(static_cast<vtkIdType>(i), nv[i]);
    for (std::size_t i = 0; i < racks.size(); ++i) racks.value->SetValue(static_cast<vtkIdType>(i), rv[i]);
    nodes.changed();
    racks.changed();

    for (std::size_t i = 0; i < units.size(); ++i) units.value->SetValue(static_cast<vtkIdType>(i), i < n_cooling_units ? 0 : 1);
    if (f) {
        for (const auto& u : f->cooling_units)
            if (u.failed)
                if (auto it = unit_index.find(u.id); it != unit_index.end()) units.value->SetValue(it->second, 2);
        for (const auto& u : f->cdus)
            if (u.failed)
                if (auto it = unit_index.find(u.id); it != unit_index.end()) units.value->SetValue(it->second, 2);
    }
    units.changed();

    // Links: the busiest link of each line; links the frame does not list carry nothing; failed ones red.
    std::vector<double> lv(lines.size(), f ? 0.0 : kNaN);
    std::vector<char> failed(lines.size(), 0);
    if (f)
        for (const auto& l : f->links) {
            auto it = line_of_link.find(l.id);
            if (it == line_of_link.end()) continue;
            if (l.failed) failed[it->second] = 1;
            else if (!std::isnan(l.utilization)) lv[it->second] = std::max(lv[it->second], 100 * l.utilization);
        }
    for (std::size_t i = 0; i < lines.size(); ++i) link_value->SetValue(static_cast<vtkIdType>(i), failed[i] ? kNaN : lv[i]);
    link_value->Modified();
    link_pd->Modified();
    link_mapper->SetScalarVisibility(f != nullptr);
    link_actor->GetProperty()->SetColor(0.6, 0.62, 0.66);
    link_actor->GetProperty()->SetOpacity(f ? 1.0 : 0.3);  // before a run: the fabric's shape, faint
    link_actor->SetVisibility(ov.links);
    switches->actor->SetVisibility(ov.links);
    label_actor->SetVisibility(ov.labels);
    updateBars();
}

void Scene::Impl::updateBars() {
    const MetricInfo& m = metricInfo(metric);
    metric_bar->SetLookupTable(m.rack_level ? rack_lut.Get() : node_lut.Get());
    metric_bar->SetTitle(m.label.c_str());
    const double* range = (m.rack_level ? rack_lut : node_lut)->GetTableRange();
    niceLabels(metric_bar, range[0], range[1]);
    metric_bar->SetVisibility(m.needs_frame ? has_frame : true);
    link_bar->SetVisibility(ov.links && has_frame && !lines.empty());
    const bool any_air = air && (ov.floor_slice || ov.aisle_slice || ov.isosurface || ov.streamlines);
    air_bar->SetVisibility(any_air);
}

void Scene::Impl::aislePlane(bool& along_x, double& where_m) const {
    // Rows run along x when their racks face north or south; the first aisle lies between the first two
    // rows, or in front of a single row.
    along_x = true;
    where_m = hall->depth_m / 2;
    std::vector<double> centres;
    for (const auto& row : hall->rows) {
        if (row.racks.empty()) continue;
        const auto& r0 = row.racks.front();
        along_x = r0.facing == model::Facing::North || r0.facing == model::Facing::South;
        double sum = 0;
        for (const auto& r : row.racks) sum += along_x ? r.position_m.y_m : r.position_m.x_m;
        centres.push_back(sum / row.racks.size());
    }
    if (centres.size() >= 2) {
        std::sort(centres.begin(), centres.end());
        where_m = (centres[0] + centres[1]) / 2;
    } else if (centres.size() == 1) {
        const auto& r0 = hall->rows.front().racks.front();
        const double d = catalog.rack(r0.model) ? catalog.rack(r0.model)->depth_m : 1.2;
        const double sign = (r0.facing == model::Facing::North || r0.facing == model::Facing::East) ? 1 : -1;
        where_m = centres[0] + sign * (d / 2 + 0.6);
    }
}

void Scene::Impl::rebuildAir() {
    for (auto& p : air_props) ren->RemoveViewProp(p);
    air_props.clear();
    updateBars();
    if (!air || air->nx <= 0 || air->ny <= 0 || air->nz <= 0) return;
    const model::AirField& a = *air;
    const double c = a.cell_m;
    auto image = [&](int nx, int ny, int nz, double ox, double oy, double oz) {
        auto img = vtkSmartPointer<vtkImageData>::New();
        img->SetDimensions(nx, ny, nz);
        img->SetSpacing(c, c, c);
        img->SetOrigin(ox, oy, oz);
        return img;
    };
    auto at = [&](int i, int j, int k) { return a.temp_c[static_cast<std::size_t>(i) + static_cast<std::size_t>(a.nx) * (j + static_cast<std::size_t>(a.ny) * k)]; };
    auto sliceActor = [&](vtkImageData* img) {
        vtkNew<vtkDataSetMapper> m;
        m->SetInputData(img);
        m->SetLookupTable(air_lut);
        m->UseLookupTableScalarRangeOn();
        auto act = vtkSmartPointer<vtkActor>::New();
        act->SetMapper(m);
        act->PickableOff();
        act->GetProperty()->SetOpacity(0.85);
        ren->AddActor(act);
        air_props.push_back(act);
    };
    if (ov.floor_slice) {
        const int k = std::clamp(static_cast<int>(std::floor(ov.slice_height_m / c)), 0, a.nz - 1);
        auto img = image(a.nx, a.ny, 1, c / 2, c / 2, (k + 0.5) * c);
        vtkNew<vtkFloatArray> t;
        t->SetName("temp_c");
        t->SetNumberOfValues(static_cast<vtkIdType>(a.nx) * a.ny);
        for (int j = 0; j < a.ny; ++j)
            for (int i = 0; i < a.nx; ++i) t->SetValue(i + a.nx * j, at(i, j, k));
        img->GetPointData()->SetScalars(t);
        sliceActor(img);
    }
    if (ov.aisle_slice) {
        bool along_x = true;
        double where = 0;
        aislePlane(along_x, where);
        if (along_x) {
            const int j = std::clamp(static_cast<int>(std::floor(where / c)), 0, a.ny - 1);
            auto img = image(a.nx, 1, a.nz, c / 2, (j + 0.5) * c, c / 2);
            vtkNew<vtkFloatArray> t;
            t->SetNumberOfValues(static_cast<vtkIdType>(a.nx) * a.nz);
            for (int k = 0; k < a.nz; ++k)
                for (int i = 0; i < a.nx; ++i) t->SetValue(i + a.nx * k, at(i, j, k));
            img->GetPointData()->SetScalars(t);
            sliceActor(img);
        } else {
            const int i = std::clamp(static_cast<int>(std::floor(where / c)), 0, a.nx - 1);
            auto img = image(1, a.ny, a.nz, (i + 0.5) * c, c / 2, c / 2);
            vtkNew<vtkFloatArray> t;
            t->SetNumberOfValues(static_cast<vtkIdType>(a.ny) * a.nz);
            for (int k = 0; k < a.nz; ++k)
                for (int j = 0; j < a.ny; ++j) t->SetValue(j + a.ny * k, at(i, j, k));
            img->GetPointData()->SetScalars(t);
            sliceActor(img);
        }
    }
    if (ov.isosurface || ov.streamlines) {
        // Solids (NaN) count as cold for the contour and the streamline colours.
        auto vol = image(a.nx, a.ny, a.nz, c / 2, c / 2, c / 2);
        vtkNew<vtkFloatArray> t;
        t->SetName("temp_c");
        t->SetNumberOfValues(static_cast<vtkIdType>(a.temp_c.size()));
        float cold = std::numeric_limits<float>::max();
        for (float v : a.temp_c)
            if (!std::isnan(v)) cold = std::min(cold, v);
        for (std::size_t q = 0; q < a.temp_c.size(); ++q) t->SetValue(static_cast<vtkIdType>(q), std::isnan(a.temp_c[q]) ? cold : a.temp_c[q]);
        vol->GetPointData()->SetScalars(t);
        if (ov.isosurface) {
            vtkNew<vtkFlyingEdges3D> iso;
            iso->SetInputData(vol);
            iso->SetValue(0, ov.iso_c);
            iso->ComputeScalarsOff();
            iso->ComputeNormalsOn();
            vtkNew<vtkPolyDataMapper> m;
            m->SetInputConnection(iso->GetOutputPort());
            m->ScalarVisibilityOff();
            auto act = vtkSmartPointer<vtkActor>::New();
            act->SetMapper(m);
            act->GetProperty()->SetColor(1.0, 0.45, 0.1);
            act->GetProperty()->SetOpacity(0.45);
            act->PickableOff();
            ren->AddActor(act);
            air_props.push_back(act);
        }
        if (ov.streamlines && a.velocity_ms.size() == 3 * a.temp_c.size() && !a.supply_points_m.empty()) {
            vtkNew<vtkFloatArray> v;
            v->SetName("velocity");
            v->SetNumberOfComponents(3);
            v->SetNumberOfTuples(static_cast<vtkIdType>(a.temp_c.size()));
            std::copy(a.velocity_ms.begin(), a.velocity_ms.end(), v->GetPointer(0));
            vol->GetPointData()->SetVectors(v);
            vtkNew<vtkPoints> seeds;
            for (std::size_t q = 0; q + 2 < a.supply_points_m.size(); q += 3)
                seeds->InsertNextPoint(a.supply_points_m[q], a.supply_points_m[q + 1], a.supply_points_m[q + 2]);
            vtkNew<vtkPolyData> seed_pd;
            seed_pd->SetPoints(seeds);
            vtkNew<vtkStreamTracer> st;
            st->SetInputData(vol);
            st->SetSourceData(seed_pd);
            st->SetIntegratorTypeToRungeKutta4();
            st->SetIntegrationDirectionToForward();
            st->SetMaximumPropagation(2.0 * (hall->width_m + hall->depth_m));
            st->SetInitialIntegrationStep(0.5);
            st->SetIntegrationStepUnit(vtkStreamTracer::CELL_LENGTH_UNIT);
            st->SetMaximumNumberOfSteps(4000);
            st->SetTerminalSpeed(1e-3);
            vtkNew<vtkPolyDataMapper> m;
            m->SetInputConnection(st->GetOutputPort());
            m->SetLookupTable(air_lut);
            m->UseLookupTableScalarRangeOn();
            m->SetScalarModeToUsePointFieldData();
            m->SelectColorArray("temp_c");
            auto act = vtkSmartPointer<vtkActor>::New();
            act->SetMapper(m);
            act->GetProperty()->SetLineWidth(2);
            act->PickableOff();
            ren->AddActor(act);
            air_props.push_back(act);
        }
    }
}

void Scene::Impl::outline(Outline& o, const std::vector<std::pair<std::string, std::array<unsigned char, 3>>>& items, double grow) {
    o.pts->Reset();
    o.lines->Reset();
    o.colours->Reset();
    o.colours->SetNumberOfComponents(3);
    o.boxes = 0;
    for (const auto& [id, rgb] : items) {
        double lo[3], hi[3];
        std::string key = id;
        if (!boundsOf(key, lo, hi)) {
            key = nodeOfGpu(id);  // a GPU: its node's box
            if (key.empty() || !boundsOf(key, lo, hi)) continue;
        }
        for (int a = 0; a < 3; ++a) {
            lo[a] -= grow;
            hi[a] += grow;
        }
        vtkIdType base = o.pts->GetNumberOfPoints();
        for (int k = 0; k < 8; ++k) o.pts->InsertNextPoint(k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]);
        static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
        for (const auto& e : edges) {
            const vtkIdType ids[2] = {base + e[0], base + e[1]};
            o.lines->InsertNextCell(2, ids);
            o.colours->InsertNextTypedTuple(rgb.data());
        }
        ++o.boxes;
    }
    o.pd->SetPoints(o.pts);
    o.pd->SetLines(o.lines);
    o.pd->GetCellData()->SetScalars(o.colours);
    o.pd->Modified();
    if (!o.mapper->GetInput()) {
        o.mapper->SetInputData(o.pd);
        o.mapper->SetColorModeToDirectScalars();
        o.mapper->SetScalarModeToUseCellData();
        o.actor->SetMapper(o.mapper);
        o.actor->GetProperty()->SetLineWidth(3);
        o.actor->PickableOff();
        ren->AddActor(o.actor);
    }
    o.actor->SetVisibility(o.boxes > 0);
}

bool Scene::Impl::ray(int x, int y, double o[3], double dir[3]) const {
    const int* size = win->GetSize();
    double n[4], f[4];
    ren->SetDisplayPoint(x, size[1] - 1 - y, 0);
    ren->DisplayToWorld();
    ren->GetWorldPoint(n);
    ren->SetDisplayPoint(x, size[1] - 1 - y, 1);
    ren->DisplayToWorld();
    ren->GetWorldPoint(f);
    if (n[3] == 0 || f[3] == 0) return false;
    for (int a = 0; a < 3; ++a) {
        o[a] = n[a] / n[3];
        dir[a] = f[a] / f[3] - o[a];
    }
    return true;
}

bool Scene::Impl::boundsOf(const std::string& id_in, double lo[3], double hi[3]) const {
    // A GPU is shown by its node ("n0001/gpu3" -> "n0001").
    const auto slash = id_in.find("/gpu");
    const std::string id = slash == std::string::npos ? id_in : id_in.substr(0, slash);
    for (const auto* set : {&nodes, &racks, &units}) {
        const auto& index = set == &nodes ? node_index : set == &racks ? rack_index : unit_index;
        auto it = index.find(id);
        if (it == index.end()) continue;
        const auto& b = set->bounds[it->second];
        std::copy(b.lo, b.lo + 3, lo);
        std::copy(b.hi, b.hi + 3, hi);
        return true;
    }
    return false;
}

// ------------------------------------------------------------------ Scene

Scene::Scene(const model::Scenario& s, const model::Catalog& c, std::vector<model::FabricLink> links, Target target)
    : d_((plainVtkMessagesWhenNotATerminal(), std::make_unique<Impl>(s, c, target))) {
    if (d_->scenario.halls.empty()) throw RenderError("the scenario has no hall to render");
    d_->hall = &d_->scenario.halls.front();
    d_->build(std::move(links));
    setCamera("iso");
}

Scene::~Scene() {
    // Release the native window before Qt destroys it.
    if (d_->target == Target::Window) d_->win->Finalize();
}

void Scene::setMetric(const std::string& id) {
    metricInfo(id);  // throws for unknown ids
    d_->metric = id;
    d_->recolour(d_->has_frame ? &d_->last : nullptr);
}

const std::string& Scene::metric() const { return d_->metric; }

void Scene::setFrame(const model::Frame& f) {
    d_->has_frame = true;
    d_->last.air.reset();
    d_->last.time_s = f.time_s;
    d_->last.gpus = f.gpus;
    d_->last.nodes = f.nodes;
    d_->last.racks = f.racks;
    d_->last.cooling_units = f.cooling_units;
    d_->last.cdus = f.cdus;
    d_->last.links = f.links;
    d_->recolour(&d_->last);
    if (f.air) {
        d_->air = f.air;
        d_->rebuildAir();
    }
}

void Scene::clearFrame() {
    d_->has_frame = false;
    d_->last = {};
    d_->air.reset();
    d_->recolour(nullptr);
    d_->rebuildAir();
}

bool Scene::hasFrame() const { return d_->has_frame; }
bool Scene::hasAirField() const { return d_->air.has_value(); }

void Scene::setOverlays(const Overlays& o) {
    const bool relink = o.max_link_lines != d_->ov.max_link_lines;
    d_->ov = o;
    if (relink) {
        // Bundling depends on the limit: rebuild the link geometry.
        d_->ren->RemoveActor(d_->link_actor);
        d_->ren->RemoveActor(d_->switches->actor);
        d_->lines.clear();
        d_->line_of_link.clear();
        d_->link_points->Reset();
        d_->switches = std::make_unique<Boxes>();
        d_->buildLinks(std::move(d_->links));
    }
    d_->recolour(d_->has_frame ? &d_->last : nullptr);
    d_->rebuildAir();
}

const Overlays& Scene::overlays() const { return d_->ov; }

void Scene::setCamera(const std::string& preset) {
    const model::Hall& h = *d_->hall;
    vtkCamera* cam = d_->ren->GetActiveCamera();
    const double cx = h.width_m / 2, cy = h.depth_m / 2, span = std::max({h.width_m, h.depth_m, 1.0});
    if (preset == "top") {
        cam->SetFocalPoint(cx, cy, 0);
        cam->SetPosition(cx, cy, span * 2);
        cam->SetViewUp(0, 1, 0);
        d_->ren->ResetCamera();
    } else if (preset == "iso") {
        cam->SetFocalPoint(cx, cy, 0.5);
        cam->SetPosition(cx - 0.9 * span, cy - 1.1 * span, span * 0.9);
        cam->SetViewUp(0, 0, 1);
        d_->ren->ResetCamera();
        cam->Zoom(1.25);
    } else if (preset == "aisle") {
        bool along_x = true;
        double where = 0;
        d_->aislePlane(along_x, where);
        if (along_x) {
            cam->SetPosition(-0.5, where, 1.7);
            cam->SetFocalPoint(h.width_m, where, 1.0);
        } else {
            cam->SetPosition(where, -0.5, 1.7);
            cam->SetFocalPoint(where, h.depth_m, 1.0);
        }
        cam->SetViewUp(0, 0, 1);
        cam->SetViewAngle(60);
    } else {
        throw RenderError("unknown view '" + preset + "' (iso, top, aisle)");
    }
    d_->ren->ResetCameraClippingRange();
}

void Scene::setSelected(const std::string& id) {
    d_->selected = id;
    double lo[3], hi[3];
    if (!id.empty() && d_->boundsOf(id, lo, hi)) {
        const double e = 0.02;
        d_->sel_box->SetBounds(lo[0] - e, hi[0] + e, lo[1] - e, hi[1] + e, lo[2] - e, hi[2] + e);
        d_->sel_actor->VisibilityOn();
    } else {
        d_->sel_actor->VisibilityOff();
    }
}

const std::string& Scene::selected() const { return d_->selected; }

void Scene::setMarkers(const std::vector<std::pair<std::string, int>>& ids_severity) {
    std::vector<std::pair<std::string, std::array<unsigned char, 3>>> items;
    for (const auto& [id, sev] : ids_severity)
        items.push_back({id, sev >= 2 ? std::array<unsigned char, 3>{235, 45, 35} : std::array<unsigned char, 3>{245, 175, 30}});
    d_->outline(d_->markers, items, 0.05);
}

void Scene::setHighlighted(const std::vector<std::string>& ids) {
    d_->highlighted_ids = ids;
    std::vector<std::pair<std::string, std::array<unsigned char, 3>>> items;
    for (const auto& id : ids) items.push_back({id, {255, 60, 230}});
    d_->outline(d_->highlights, items, 0.09);
}

const std::vector<std::string>& Scene::highlighted() const { return d_->highlighted_ids; }
std::size_t Scene::markerCount() const { return d_->markers.boxes; }

std::vector<double> Scene::cameraState() const {
    vtkCamera* c = d_->ren->GetActiveCamera();
    std::vector<double> v(10);
    c->GetPosition(&v[0]);
    c->GetFocalPoint(&v[3]);
    c->GetViewUp(&v[6]);
    v[9] = c->GetViewAngle();
    return v;
}

void Scene::setCameraState(const std::vector<double>& v) {
    if (v.size() != 10) return;
    vtkCamera* c = d_->ren->GetActiveCamera();
    c->SetPosition(&v[0]);
    c->SetFocalPoint(&v[3]);
    c->SetViewUp(&v[6]);
    c->SetViewAngle(v[9]);
    d_->ren->ResetCameraClippingRange();
}

bool Scene::focus(const std::string& id) {
    double lo[3], hi[3];
    if (!d_->boundsOf(id, lo, hi)) return false;
    camera::frameBox(d_->ren, lo, hi);
    return true;
}

void Scene::fit() { camera::fitAll(d_->ren); }

bool Scene::hitPoint(int x, int y, double point[3]) const {
    double o[3], dir[3];
    if (!d_->ray(x, y, o, dir)) return false;
    double best = std::numeric_limits<double>::infinity();
    for (const auto* set : {&d_->nodes, &d_->racks, &d_->units})
        for (std::size_t i = 0; i < set->size(); ++i) {
            double t = 0;
            if (rayBox(o, dir, set->bounds[i].lo, set->bounds[i].hi, t) && t < best) best = t;
        }
    if (!std::isfinite(best) && std::abs(dir[2]) > 1e-12 && -o[2] / dir[2] > 0) best = -o[2] / dir[2];  // the floor
    if (!std::isfinite(best)) return false;
    for (int a = 0; a < 3; ++a) point[a] = o[a] + best * dir[a];
    return true;
}

std::string Scene::pick(int x, int y) const {
    double o[3], dir[3];
    if (!d_->ray(x, y, o, dir)) return {};
    double best = std::numeric_limits<double>::infinity();
    std::string hit;
    for (const auto* set : {&d_->nodes, &d_->racks, &d_->units})
        for (std::size_t i = 0; i < set->size(); ++i) {
            double t = 0;
            // Nodes sit inside their rack: on a tie the node wins, being listed first.
            if (rayBox(o, dir, set->bounds[i].lo, set->bounds[i].hi, t) && t < best - 1e-9) {
                best = t;
                hit = set->ids[i];
            }
        }
    return hit;
}

bool Scene::floorPoint(int x, int y, double& x_m, double& y_m) const {
    double o[3], dir[3];
    if (!d_->ray(x, y, o, dir)) return false;
    if (std::abs(dir[2]) < 1e-12) return false;
    const double t = -o[2] / dir[2];
    if (t < 0) return false;
    x_m = o[0] + t * dir[0];
    y_m = o[1] + t * dir[1];
    return true;
}

bool Scene::project(const std::string& id, int& x, int& y, bool top) const {
    double lo[3], hi[3];
    if (!d_->boundsOf(id, lo, hi)) return false;
    vtkRenderer* ren = d_->ren;
    ren->SetWorldPoint((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, top ? hi[2] : (lo[2] + hi[2]) / 2, 1);
    ren->WorldToDisplay();
    double p[3];
    ren->GetDisplayPoint(p);
    const int* size = d_->win->GetSize();
    x = static_cast<int>(std::lround(p[0]));
    y = size[1] - 1 - static_cast<int>(std::lround(p[1]));
    return true;
}

void Scene::setSize(int width, int height) {
    d_->win->SetSize(std::max(1, width), std::max(1, height));
    if (d_->target == Target::Window) d_->iren->SetSize(std::max(1, width), std::max(1, height));
}

std::string vtkVersionText() { return vtkVersion::GetVTKVersion(); }

void Scene::setPixelRatio(double ratio) {
    // VTK sizes text in points at the window's DPI (72 by default): a ratio of 2 doubles it, as Qt's widgets do.
    d_->win->SetDPI(std::max(1, static_cast<int>(std::lround(72.0 * ratio))));
}

void Scene::render() { d_->win->Render(); }

const std::string& Scene::hint() const { return d_->hint; }

void Scene::setShowHint(bool on) {
    d_->show_hint = on;
    d_->hint_actor->SetVisibility(on && !d_->hint.empty());
}

void Scene::setFastRendering(bool fast) {
    // Multisampling (VTK's default, 8 samples) is most of a frame's cost in software OpenGL: 75 ms against 42 ms
    // for a 32-rack hall at 1280 × 800 (clustertwin-bench render). Frames that follow each other (playback,
    // live frames, dragging) go without it; the picture that stays is drawn with it.
    d_->win->SetMultiSamples(fast ? 0 : d_->full_multisamples);
}

void Scene::savePng(const std::string& path) {
    d_->win->Render();
    vtkNew<vtkWindowToImageFilter> grab;
    grab->SetInput(d_->win);
    grab->ReadFrontBufferOff();
    grab->Update();
    const std::string tmp = path + ".tmp.png";
    vtkNew<vtkPNGWriter> writer;
    writer->SetFileName(tmp.c_str());
    writer->SetInputConnection(grab->GetOutputPort());
    writer->Write();
    std::error_code ec;
    if (writer->GetErrorCode() != 0 || !std::filesystem::exists(tmp, ec)) {
        std::filesystem::remove(tmp, ec);
        throw RenderError(path + ": cannot write the PNG");
    }
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw RenderError(path + ": cannot write the PNG: " + ec.message());
    }
}

void Scene::setWindowId(std::uintptr_t id) {
    d_->win->SetWindowInfo(std::to_string(id).c_str());
}

void Scene::mouse(MouseEvent e, int x, int y, bool ctrl, bool shift) {
    // The wheel zooms toward what is under the cursor (VTK's style zooms toward the view's centre).
    if (e == MouseEvent::WheelForward || e == MouseEvent::WheelBackward) {
        double p[3];
        if (hitPoint(x, y, p)) {
            camera::zoomToward(d_->ren, p, e == MouseEvent::WheelForward ? 0.2 : -0.25);
            return;
        }
    }
    d_->iren->SetEventInformationFlipY(x, y, ctrl, shift);
    static const std::map<MouseEvent, unsigned long> kEvents = {
        {MouseEvent::LeftPress, vtkCommand::LeftButtonPressEvent},     {MouseEvent::LeftRelease, vtkCommand::LeftButtonReleaseEvent},
        {MouseEvent::RightPress, vtkCommand::RightButtonPressEvent},   {MouseEvent::RightRelease, vtkCommand::RightButtonReleaseEvent},
        {MouseEvent::MiddlePress, vtkCommand::MiddleButtonPressEvent}, {MouseEvent::MiddleRelease, vtkCommand::MiddleButtonReleaseEvent},
        {MouseEvent::Move, vtkCommand::MouseMoveEvent},                {MouseEvent::WheelForward, vtkCommand::MouseWheelForwardEvent},
        {MouseEvent::WheelBackward, vtkCommand::MouseWheelBackwardEvent}};
    d_->iren->InvokeEvent(kEvents.at(e), nullptr);
}

std::size_t Scene::nodeCount() const { return d_->nodes.size(); }
std::size_t Scene::rackCount() const { return d_->racks.size(); }
std::size_t Scene::linkLineCount() const { return d_->lines.size(); }

void renderScenarioPng(const model::Scenario& s, const model::Catalog& c, const std::string& png_path, const RenderOptions& opt,
                       const model::Frame* frame, std::vector<model::FabricLink> links) {
    if (opt.width < 16 || opt.height < 16 || opt.width > 8192 || opt.height > 8192)
        throw RenderError("image size must be within 16..8192 pixels per side");
    std::string metric = opt.metric.empty() ? (frame ? metrics().front().id : std::string("nameplate_kw")) : opt.metric;
    const MetricInfo& m = metricInfo(metric);
    if (m.needs_frame && !frame) throw RenderError("colouring by '" + metric + "' needs values: give a run and a time");
    const OffscreenDisplay display;  // $DISPLAY, or a private Xvfb while this picture is drawn
    Scene scene(s, c, std::move(links));
    scene.setShowHint(false);  // the app's advice ("run a simulation, F5") does not belong in an exported picture
    scene.setSize(opt.width, opt.height);
    scene.setOverlays(opt.overlays);
    scene.setMetric(metric);
    if (frame) scene.setFrame(*frame);
    scene.setCamera(opt.view);
    scene.savePng(png_path);
}

} // namespace ct::render
