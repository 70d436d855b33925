#pragma once
// The scene's internals (render-private): what Scene::Impl holds and the helpers its parts share. scene.cpp
// has the public API, colouring and picking; scene_build.cpp builds the hall, fabric and labels from a
// scenario; scene_air.cpp draws the air overlays.
#include <vtkActor.h>
#include <vtkActor2D.h>
#include <vtkBitArray.h>
#include <vtkCallbackCommand.h>
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
#include <vtkIntArray.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkLabelHierarchy.h>
#include <vtkLabelPlacementMapper.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkOutlineSource.h>
#include <vtkPNGWriter.h>
#include <vtkPointData.h>
#include <vtkPointSetToLabelHierarchy.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkStreamTracer.h>
#include <vtkStringArray.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkUnsignedCharArray.h>
#include <vtkVersion.h>
#include <vtkWindowToImageFilter.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/geometry.hpp>
#include <clustertwin/model/metrics.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/render/scene.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

namespace ct::render::detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
        actor->GetProperty()->BackfaceCullingOn();
        if (size() > 0) ren->AddActor(actor);
    }
    /// Sets box i's value; the mapper rebuilds its glyphs (a few µs each in software OpenGL) only at changed()
    /// after a value really changed.
    void set(std::size_t i, double v) {
        const double old = value->GetValue(static_cast<vtkIdType>(i));
        if (old == v || (std::isnan(old) && std::isnan(v))) return;
        value->SetValue(static_cast<vtkIdType>(i), v);
        dirty = true;
    }
    bool dirty = true;
    void changed() {
        if (!dirty) return;
        value->Modified();
        pd->Modified();
        dirty = false;
    }
};

/// The colour table of node and rack metrics (blue to red over [lo, hi]; NaN in the given colour).
vtkSmartPointer<vtkLookupTable> makeLut(double lo, double hi, double nan_r, double nan_g, double nan_b);
/// Links: idle faint grey, busy yellow to opaque red; NaN (failed) magenta-red.
vtkSmartPointer<vtkLookupTable> makeLinkLut();
/// Labels at points (`names` and `priority` arrays of the points), placed by VTK's label placer: a label that would
/// overlap one of higher priority is left out for this view; `behind_hidden`: one whose anchor is hidden behind
/// something is not drawn over it (the depth buffer).
vtkSmartPointer<vtkLabelPlacementMapper> placedLabels(vtkPoints* pts, vtkStringArray* names, vtkIntArray* priority,
                                                      const std::array<double, 3>& rgb, bool bold, bool behind_hidden);

/// Round labels at round values, each with the decimals that tell them apart.
void niceLabels(vtkScalarBarActor* bar, double lo, double hi);
/// A horizontal scalar bar along the bottom edge at x (normalized viewport).
vtkSmartPointer<vtkScalarBarActor> makeBar(vtkLookupTable* lut, const std::string& title, double x);
/// A footprint moved by (ox, oy): a hall's place on the site.
inline model::Box2 shifted(model::Box2 b, double ox, double oy) { return {b.x0 + ox, b.y0 + oy, b.x1 + ox, b.y1 + oy}; }
/// Where a ray (origin o, direction d) enters a box; false when it misses.
bool rayBox(const double o[3], const double d[3], const double lo[3], const double hi[3], double& t_hit);
/// "n0001/gpu3" -> "n0001".
std::string nodeOfGpu(const std::string& gpu);

}  // namespace ct::render::detail

namespace ct::render {

using namespace detail;

struct Scene::Impl {
    const model::Hall* hall = nullptr;
    model::Scenario scenario;  // a copy: the scene outlives the caller's document edits
    const model::Catalog& catalog;
    Target target;
    std::string metric = "nameplate_kw";
    Overlays ov;
    std::string selected;
    bool has_frame = false;
    model::Frame last;                                // the frame shown (without its air field), for recolouring
    std::vector<model::AirField> air;                 // the air fields shown: every hall's that the frame brought
    std::vector<double> unit_kind;                    // per unit glyph: 0 perimeter unit, 1 CDU, 3 in-row cooler (2 = failed)
    double site_lo[2] = {0, 0}, site_hi[2] = {0, 0};  // every hall on the site plan

    vtkNew<vtkRenderer> ren;
    vtkNew<vtkRenderWindow> win;
    int full_multisamples = 8;  // the window's default, restored after fast frames
    vtkNew<vtkGenericRenderWindowInteractor> iren;
    vtkNew<vtkInteractorStyleTrackballCamera> style;

    Boxes racks, nodes, units, doors;
    std::vector<std::string> door_loop;  // per rear door: its water loop ("" = facility water)
    vtkSmartPointer<vtkLookupTable> door_lut;
    vtkNew<vtkPoints> panel_points[2];  // containment panels: [0] hot, [1] cold
    vtkNew<vtkCellArray> panel_cells[2];
    vtkSmartPointer<vtkActor2D> legend;  // what each colour of equipment means
    std::unique_ptr<Boxes> switches = std::make_unique<Boxes>();
    /// The scenario's sensors (issue 44): small cubes on the racks' fronts and rears and at their points of the
    /// room, coloured by what they read on the air's scale (grey before a run).
    std::unique_ptr<Boxes> sensor_boxes = std::make_unique<Boxes>();
    std::unordered_map<std::string, int> sensor_index;
    std::vector<std::string> node_rack;  // per node glyph: its rack id
    std::vector<double> node_nameplate_kw, rack_nameplate_kw;
    std::unordered_map<std::string, int> node_index, rack_index, unit_index, switch_index;
    std::vector<std::vector<int>> rack_nodes;
    vtkSmartPointer<vtkLookupTable> node_lut, rack_lut, unit_lut, link_lut, air_lut;
    vtkSmartPointer<vtkScalarBarActor> metric_bar, link_bar, air_bar;
    std::array<double, 3> lut_scale{kNaN, kNaN, kNaN};  // (lo, hi, high is good) the metric tables were built for
    std::array<double, 2> bar_range{kNaN, kNaN};        // the range the metric bar's labels were made for
    bool narrow = false;                                // setSize: too narrow for three colour bars, only the metric's is shown

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
    // Links lit up on top of the others (a job's busiest), thick magenta.
    vtkNew<vtkPolyData> hot_link_pd;
    vtkNew<vtkPolyDataMapper> hot_link_mapper;
    vtkNew<vtkActor> hot_link_actor;
    std::size_t hot_links = 0;
    // Busy links (half their capacity or more) drawn again, thicker, over the thin lines: width shows load.
    vtkNew<vtkPolyData> busy_link_pd;
    vtkNew<vtkDoubleArray> busy_link_value;
    vtkNew<vtkPolyDataMapper> busy_link_mapper;
    vtkNew<vtkActor> busy_link_actor;
    std::size_t busy_links = 0;
    vtkNew<vtkActor> link_actor;
    double link_width = 1.5;  // the lines' width in full-quality frames
    std::vector<Line> lines;
    std::unordered_map<std::string, int> line_of_link;

    vtkNew<vtkActor2D> label_actor;
    // The hottest lines named with their load ("leaf0 ↔ spine0, cable 3: 27 %"), placed like the labels.
    vtkNew<vtkActor2D> link_label_actor;
    std::vector<std::string> link_labels;
    static constexpr std::size_t kHotLinkLabels = 6;
    bool fast = false;                   ///< setFastRendering: no multisampling, no labels
    vtkNew<vtkTextActor> hint_actor;     // top left: why the colours say nothing (no run yet, all equal)
    vtkNew<vtkTextActor> caption_actor;  // bottom centre: a tour's or a video's caption
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

    // Level of detail (scene_lod.cpp): in fast frames of large halls, a rack too small on screen to tell its
    // nodes apart is drawn as one box in the colour of its worst node, and its node glyphs are masked.
    vtkNew<vtkBitArray> node_mask;
    vtkNew<vtkCallbackCommand> lod_hook;           // the renderer's StartEvent: updateLod() before every frame
    std::vector<int> node_rack_index;              // per node glyph: its rack glyph
    std::vector<double> node_values, rack_values;  // what recolour() gave them
    bool worst_is_low = false;                     // the metric's worst value is its lowest (high_is_good)
    std::vector<char> rack_far;                    // racks drawn as one box now
    std::size_t far_racks = 0;
    static constexpr std::size_t kLodNodes = 1000;  // halls with fewer nodes are always drawn whole
    /// Fast frames of large halls leave out the faint lines of links under half their capacity (translucent:
    /// the most expensive part of such a frame in software OpenGL); busy and highlighted links stay, idle and
    /// failed ones return in the frame that stays.
    bool idleLinksHidden() const { return fast && nodes.size() >= kLodNodes; }
    static constexpr double kLodPixels = 8;  // a rack narrower than this on screen is drawn as one box
    void buildLod();
    /// Decides which racks are far for the camera now and updates masks and rack colours when that changed
    /// (`force`: the values changed).
    void updateLod(bool force = false);

    // Air overlays, rebuilt per frame.
    std::vector<vtkSmartPointer<vtkProp>> air_props;

    Impl(const model::Scenario& s, const model::Catalog& c, Target t) : scenario(s), catalog(c), target(t) {}

    double nodeZ0(const model::RackModel& rm) const {
        // Rails start where the rack's U space, centred in its height, begins.
        return std::max(0.0, (rm.height_m - rm.height_u * model::units::kRackUnitM) / 2);
    }

    void build(std::vector<model::FabricLink> fabric);
    void buildFloor(const model::Hall& h, double ox, double oy);
    /// Racks, nodes, cooling units and CDUs of a hall placed at (ox, oy) on the site.
    void buildHall(const model::Hall& h, double ox, double oy);
    /// Rear doors and containment panels of a hall placed at (ox, oy) on the site.
    void buildCooling(const model::Hall& h, double ox, double oy);
    /// Containment actors, and the legend of what each colour of equipment means (only what the site has).
    void finishCooling();
    void buildLookupTables();  ///< nodes, racks, units (kinds and failed), links, air
    void buildOverlays();      ///< the selection box, the colour bars, the hint and the caption
    void buildLinks(std::vector<model::FabricLink> fabric);
    bool linkLines();               ///< one line per pair of link ends (bundled per rack when there are too many); true when bundled
    void linkActors(bool bundled);  ///< the lines, the busy overlay and the hot links as actors
    void switchBoxes();             ///< one box per (rack, tier), whatever the bundling, so the tiers are visible
    void buildLabels();
    void recolour(const model::Frame* f);
    /// The metric's value of every node and rack in frame f (the nameplate without one; failed nodes: none).
    void metricValues(const MetricInfo& m, const model::Frame* f, std::vector<double>& nv, std::vector<double>& rv) const;
    void buildSensors(const model::Hall& h, double ox, double oy);
    void recolourSensors(const model::Frame* f);
    void recolourUnits(const model::Frame* f);  ///< failed cooling units and CDUs, rear doors of failed loops
    void recolourLinks(const model::Frame* f);  ///< each line's busiest link, failed ones, the thick busy overlay
    /// Names the kHotLinkLabels busiest lines (1 % or more) with their busiest link and its load (scene_link_labels.cpp).
    void labelHotLinks(const std::vector<double>& percent, const std::vector<std::string>& busiest);
    void showLinkLabels() { link_label_actor->SetVisibility(ov.links && !fast && !link_labels.empty()); }
    void updateHint(const MetricInfo& m, const model::Frame* f, const std::vector<double>& nv);
    void rebuildAir();
    /// One hall's air overlays, its grid shifted by (ox, oy) from the first hall's origin.
    void drawAir(const model::AirField& a, const model::Hall& h, double ox, double oy);
    void updateBars();
    double metricHi(const MetricInfo& m) const;
    bool boundsOf(const std::string& id, double lo[3], double hi[3]) const;
    /// The ray through a pixel (origin top-left): from the near plane `o` along `dir` to the far plane.
    bool ray(int x, int y, double o[3], double dir[3]) const;
    /// The plane of a hall's first aisle (the first hall when none is given), in that hall's coordinates.
    void aislePlane(bool& along_x, double& where_m, const model::Hall* in = nullptr) const;
};

}  // namespace ct::render
