#include "camera_ops.hpp"

#include <vtkCamera.h>
#include <vtkRenderer.h>

#include <algorithm>
#include <cmath>

namespace ct::render::camera {

void frameBox(vtkRenderer* ren, const double lo[3], const double hi[3], double min_elevation_deg) {
    vtkCamera* cam = ren->GetActiveCamera();
    double fp[3], pos[3];
    cam->GetFocalPoint(fp);
    cam->GetPosition(pos);
    const double c[3] = {(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2};
    double d[3] = {pos[0] - fp[0], pos[1] - fp[1], pos[2] - fp[2]};
    double horiz = std::hypot(d[0], d[1]);
    if (horiz < 1e-9) {  // looking straight down: keep that
        d[0] = 0, d[1] = -1e-3, horiz = 1e-3;
    }
    double elev = std::atan2(d[2], horiz);
    const double min_elev = min_elevation_deg * M_PI / 180;
    if (elev < min_elev) elev = min_elev;
    const double dir[3] = {d[0] / horiz * std::cos(elev), d[1] / horiz * std::cos(elev), std::sin(elev)};
    // Size: the box's largest side, at least a rack's height; a third of the view's height.
    const double size = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 2.2});
    const double half_angle = cam->GetViewAngle() * M_PI / 360;
    const double dist = std::max(6.0, 1.5 * size / std::tan(half_angle));
    cam->SetFocalPoint(c);
    cam->SetPosition(c[0] + dir[0] * dist, c[1] + dir[1] * dist, c[2] + dir[2] * dist);
    cam->SetViewUp(0, 0, 1);
    ren->ResetCameraClippingRange();
}

void zoomToward(vtkRenderer* ren, const double point[3], double factor) {
    vtkCamera* cam = ren->GetActiveCamera();
    double fp[3], pos[3];
    cam->GetFocalPoint(fp);
    cam->GetPosition(pos);
    const double dist = std::sqrt((point[0] - pos[0]) * (point[0] - pos[0]) + (point[1] - pos[1]) * (point[1] - pos[1]) +
                                  (point[2] - pos[2]) * (point[2] - pos[2]));
    // Never through the point, never farther than 2 km.
    if (factor > 0 && dist < 0.5) return;
    if (factor < 0 && dist > 2000) return;
    for (int a = 0; a < 3; ++a) {
        const double step = (point[a] - pos[a]) * factor;
        pos[a] += step;
        fp[a] += step;
    }
    cam->SetPosition(pos);
    cam->SetFocalPoint(fp);
    ren->ResetCameraClippingRange();
}

void fitAll(vtkRenderer* ren) {
    ren->ResetCamera();
    ren->ResetCameraClippingRange();
}

}  // namespace ct::render::camera
