#include "scene_impl.hpp"

#include <clustertwin/render/display.hpp>

#include "camera_ops.hpp"

namespace ct::render {

namespace {

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

} // namespace

const std::vector<MetricInfo>& metrics() { return kMetrics; }

const MetricInfo& metricInfo(const std::string& id) {
    for (const auto& m : kMetrics)
        if (m.id == id) return m;
    std::string known;
    for (const auto& m : kMetrics) known += (known.empty() ? "" : ", ") + m.id;
    throw RenderError("unknown metric '" + id + "' (" + known + ")");
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

    for (std::size_t i = 0; i < units.size(); ++i) units.value->SetValue(static_cast<vtkIdType>(i), unit_kind[i]);
    if (f) {
        for (const auto& u : f->cooling_units)
            if (u.failed)
                if (auto it = unit_index.find(u.id); it != unit_index.end()) units.value->SetValue(it->second, 2);
        for (const auto& u : f->cdus)
            if (u.failed)
                if (auto it = unit_index.find(u.id); it != unit_index.end()) units.value->SetValue(it->second, 2);
    }
    units.changed();
    // Rear doors: red when their water loop has failed.
    for (std::size_t i = 0; i < doors.size(); ++i) {
        bool failed = false;
        if (f)
            for (const auto& l : f->loops) failed = failed || (l.failed && l.id == door_loop[i]);
        doors.value->SetValue(static_cast<vtkIdType>(i), failed ? 1 : 0);
    }
    doors.changed();

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
    // The whole site: every hall side by side (one hall: that hall).
    const double sw = d_->site_hi[0] - d_->site_lo[0], sd = d_->site_hi[1] - d_->site_lo[1];
    const double cx = d_->site_lo[0] + sw / 2, cy = d_->site_lo[1] + sd / 2, span = std::max({sw, sd, 1.0});
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
