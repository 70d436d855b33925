// The scene's camera and picking (Scene): presets, framing, the camera kept across rebuilds, rays from pixels
// to entities and the floor, and mouse input for the window target.
#include "scene_impl.hpp"

#include "camera_ops.hpp"

namespace ct::render {

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
    for (const auto* set : std::initializer_list<const detail::Boxes*>{&nodes, &racks, &units, sensor_boxes.get()}) {
        const auto& index = set == &nodes ? node_index : set == &racks ? rack_index : set == &units ? unit_index : sensor_index;
        auto it = index.find(id);
        if (it == index.end()) continue;
        const auto& b = set->bounds[it->second];
        std::copy(b.lo, b.lo + 3, lo);
        std::copy(b.hi, b.hi + 3, hi);
        return true;
    }
    return false;
}

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
    for (const auto* set : {d_->sensor_boxes.get(), &d_->nodes, &d_->racks, &d_->units})
        for (std::size_t i = 0; i < set->size(); ++i) {
            double t = 0;
            // Nodes sit inside their rack: on a tie the node wins, being listed first (a sensor before both).
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

std::vector<std::string> Scene::pickLink(int x, int y, double tolerance_px) const {
    // The drawn link (or bundle) nearest the pixel within the tolerance, measured on screen.
    if (!d_->ov.links || d_->lines.empty()) return {};
    vtkRenderer* ren = d_->ren;
    const int* size = d_->win->GetSize();
    auto toScreen = [&](int point, double& sx, double& sy) {
        double w[3];
        d_->link_points->GetPoint(point, w);
        ren->SetWorldPoint(w[0], w[1], w[2], 1);
        ren->WorldToDisplay();
        double p[3];
        ren->GetDisplayPoint(p);
        sx = p[0];
        sy = size[1] - 1 - p[1];
    };
    double best = tolerance_px;
    const Impl::Line* hit = nullptr;
    for (const auto& l : d_->lines) {
        double ax, ay, bx, by;
        toScreen(l.a_end, ax, ay);
        toScreen(l.b_end, bx, by);
        const double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
        const double t = len2 > 0 ? std::clamp(((x - ax) * dx + (y - ay) * dy) / len2, 0.0, 1.0) : 0.0;
        const double d = std::hypot(ax + t * dx - x, ay + t * dy - y);
        if (d < best) {
            best = d;
            hit = &l;
        }
    }
    return hit ? hit->ids : std::vector<std::string>{};
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
    static const std::map<MouseEvent, unsigned long> kEvents = {{MouseEvent::LeftPress, vtkCommand::LeftButtonPressEvent},
                                                                {MouseEvent::LeftRelease, vtkCommand::LeftButtonReleaseEvent},
                                                                {MouseEvent::RightPress, vtkCommand::RightButtonPressEvent},
                                                                {MouseEvent::RightRelease, vtkCommand::RightButtonReleaseEvent},
                                                                {MouseEvent::MiddlePress, vtkCommand::MiddleButtonPressEvent},
                                                                {MouseEvent::MiddleRelease, vtkCommand::MiddleButtonReleaseEvent},
                                                                {MouseEvent::Move, vtkCommand::MouseMoveEvent},
                                                                {MouseEvent::WheelForward, vtkCommand::MouseWheelForwardEvent},
                                                                {MouseEvent::WheelBackward, vtkCommand::MouseWheelBackwardEvent}};
    d_->iren->InvokeEvent(kEvents.at(e), nullptr);
}

}  // namespace ct::render
