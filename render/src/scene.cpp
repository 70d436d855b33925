// The 3D scene of a hall (Scene): construction, frames, overlays, selection and markers, size and drawing, PNG.
// Its colours are in scene_colour.cpp, the camera and picking in scene_pick.cpp, building the actors in
// scene_build.cpp (racks, nodes, units, fabric, labels), scene_cooling.cpp and scene_air.cpp, glTF and captions
// in scene_export.cpp.
#include "scene_impl.hpp"

#include <clustertwin/render/display.hpp>

#include "camera_ops.hpp"

#include <set>

namespace ct::render {

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
    d_->last.other_halls_air.clear();
    d_->last.time_s = f.time_s;
    d_->last.gpus = f.gpus;
    d_->last.nodes = f.nodes;
    d_->last.racks = f.racks;
    d_->last.cooling_units = f.cooling_units;
    d_->last.cdus = f.cdus;
    d_->last.links = f.links;
    d_->last.sensors = f.sensors;
    d_->recolour(&d_->last);
    if (f.air) {
        d_->air.assign(1, *f.air);
        d_->air.insert(d_->air.end(), f.other_halls_air.begin(), f.other_halls_air.end());
        d_->rebuildAir();
    }
}

void Scene::clearFrame() {
    d_->has_frame = false;
    d_->last = {};
    d_->air.clear();
    d_->recolour(nullptr);
    d_->rebuildAir();
}

bool Scene::hasFrame() const { return d_->has_frame; }
bool Scene::hasAirField() const { return !d_->air.empty(); }

void Scene::setOverlays(const Overlays& o) {
    const bool relink = o.max_link_lines != d_->ov.max_link_lines;
    d_->ov = o;
    if (relink) {
        // Bundling depends on the limit: rebuild the link geometry.
        d_->ren->RemoveActor(d_->link_actor);
        d_->ren->RemoveActor(d_->busy_link_actor);
        d_->ren->RemoveActor(d_->hot_link_actor);
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

std::size_t Scene::setHighlightedLinks(const std::vector<std::string>& ids) {
    // The drawn lines carrying any of these links (a bundle lights up when one of its links is asked for).
    const std::set<std::string> want(ids.begin(), ids.end());
    vtkNew<vtkCellArray> cells;
    std::size_t n = 0;
    for (const auto& l : d_->lines)
        for (const auto& id : l.ids)
            if (want.count(id)) {
                const vtkIdType ends[2] = {l.a_end, l.b_end};
                cells->InsertNextCell(2, ends);
                ++n;
                break;
            }
    d_->hot_link_pd->SetPoints(d_->link_points);
    d_->hot_link_pd->SetLines(cells);
    d_->hot_link_pd->Modified();
    d_->hot_link_actor->SetVisibility(n > 0);
    d_->hot_links = n;
    return n;
}
std::size_t Scene::markerCount() const { return d_->markers.boxes; }

void Scene::setSize(int width, int height) {
    d_->win->SetSize(std::max(1, width), std::max(1, height));
    // Three colour bars side by side need ~520 pixels (labels in points); a narrower view (the Compare tab's
    // panes) shows the metric's bar alone across its width.
    const bool narrow = width < 520;
    // The bars' labels and titles are in points: a view under 300 pixels tall (a Compare pane) gives them 52
    // pixels, with a thinner colour strip, so that the title stays inside.
    const bool short_view = height < 300;
    const double bar_h = short_view ? 52.0 / std::max(1, height) : 0.11;
    const double strip = short_view ? std::min(0.3, 9.0 / 52.0) : 0.3;
    for (vtkScalarBarActor* bar : {d_->metric_bar.Get(), d_->link_bar.Get(), d_->air_bar.Get()}) {
        bar->SetHeight(bar_h);
        bar->SetBarRatio(strip);
    }
    if (narrow != d_->narrow) {
        d_->narrow = narrow;
        d_->metric_bar->SetPosition(narrow ? 0.05 : 0.70, 0.015);
        d_->metric_bar->SetWidth(narrow ? 0.9 : 0.27);
        d_->buildLabels();  // fewer names in a narrow view
        d_->updateBars();
    }
    if (d_->target == Target::Window) d_->iren->SetSize(std::max(1, width), std::max(1, height));
}

std::string vtkVersionText() { return vtkVersion::GetVTKVersion(); }

void Scene::setPixelRatio(double ratio) {
    // VTK sizes text in points at the window's DPI (72 by default): a ratio of 2 doubles it, as Qt's widgets do.
    d_->win->SetDPI(std::max(1, static_cast<int>(std::lround(72.0 * ratio))));
}

void Scene::render() { d_->win->Render(); }

const std::string& Scene::hint() const { return d_->hint; }

bool Scene::showsHint() const { return d_->show_hint; }

void Scene::setShowHint(bool on) {
    d_->show_hint = on;
    d_->hint_actor->SetVisibility(on && !d_->hint.empty());
}

void Scene::setFastRendering(bool fast) {
    // Multisampling (VTK's default, 8 samples) is most of a frame's cost in software OpenGL: 75 ms against 42 ms
    // for a 32-rack hall at 1280 × 800 (clustertwin-bench render). Frames that follow each other (playback,
    // live frames, dragging) go without it; the picture that stays is drawn with it.
    d_->win->SetMultiSamples(fast ? 0 : d_->full_multisamples);
    // Label placement (VTK's placer re-places and re-rasterizes every label each frame) is the other large part:
    // 0.18 s against 0.05 s a fast frame of a 320-rack hall. Labels wait for the frame that stays.
    d_->fast = fast;
    d_->label_actor->SetVisibility(d_->ov.labels && !fast);
    d_->showLinkLabels();
    // Large halls: far racks as one box each while frames follow each other (scene_lod.cpp); every node again
    // in the frame that stays.
    d_->updateLod();
    // And their link lines one pixel wide (wide lines cost software OpenGL ~4 ms of a 100k-GPU hall's frame);
    // busy links keep their thick overlay.
    const bool thin = fast && d_->nodes.size() >= Impl::kLodNodes;
    d_->link_actor->GetProperty()->SetLineWidth(thin ? 1.0 : d_->link_width);
    d_->link_actor->SetVisibility(d_->ov.links && !d_->idleLinksHidden());
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

void Scene::setWindowId(std::uintptr_t id) { d_->win->SetWindowInfo(std::to_string(id).c_str()); }

std::size_t Scene::nodeCount() const { return d_->nodes.size(); }
std::size_t Scene::rackCount() const { return d_->racks.size(); }
std::size_t Scene::linkLineCount() const { return d_->lines.size(); }
std::size_t Scene::busyLinkLineCount() const { return d_->busy_links; }
const std::vector<std::string>& Scene::linkLabels() const { return d_->link_labels; }

bool Scene::idleLinksShown() const { return d_->ov.links && !d_->lines.empty() && d_->link_actor->GetVisibility() != 0; }
std::size_t Scene::farRackCount() const { return d_->far_racks; }

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

}  // namespace ct::render
