#pragma once
// Camera moves of the 3D view (render-internal): frame a box so that it is seen, zoom toward a point under
// the cursor, fit the whole hall. Kept apart from scene.cpp, which builds what is drawn.
class vtkRenderer;

namespace ct::render::camera {

/// Points the camera at the box from the current azimuth, looking down at least `min_elevation_deg` (so a
/// rack is not hidden by the row in front of it), at a distance where the box takes about a third of the
/// view's height and its neighbours are in view.
void frameBox(vtkRenderer* ren, const double lo[3], const double hi[3], double min_elevation_deg = 40);

/// Moves the camera and its focal point toward `point` by `factor` of the distance (0.2 = a wheel notch
/// in; negative = out), so that what is under the cursor stays under it.
void zoomToward(vtkRenderer* ren, const double point[3], double factor);

/// Everything in view, keeping the direction.
void fitAll(vtkRenderer* ren);

}  // namespace ct::render::camera
