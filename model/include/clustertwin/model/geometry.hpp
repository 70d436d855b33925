#pragma once
// Footprints on the hall floor, shared by validation, the renderer and the app's plan view.
#include <clustertwin/model/scenario.hpp>

namespace ct::model {

/// An axis-aligned rectangle on the floor, in metres.
struct Box2 {
    double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool overlaps(const Box2& o, double eps = 1e-6) const {
        return x0 < o.x1 - eps && o.x0 < x1 - eps && y0 < o.y1 - eps && o.y0 < y1 - eps;
    }
    double width() const { return x1 - x0; }
    double depth() const { return y1 - y0; }
    bool inside(double w, double d, double eps = 1e-6) const { return x0 >= -eps && y0 >= -eps && x1 <= w + eps && y1 <= d + eps; }
};

/// Footprint of an object of `width_m` (across its front) and `depth_m` (front to back) centred at `c`.
inline Box2 footprint(const Vec2& c, double width_m, double depth_m, Facing f) {
    const bool ns = (f == Facing::North || f == Facing::South);
    const double wx = ns ? width_m : depth_m;
    const double wy = ns ? depth_m : width_m;
    return {c.x_m - wx / 2, c.y_m - wy / 2, c.x_m + wx / 2, c.y_m + wy / 2};
}

/// The share of a rack's width a node takes, from the left as seen from the rack's front: [left, right) within
/// [0, 1]. A full-width server takes [0, 1); slot s of a model with n slots [(s − 1)/n, s/n).
struct WidthSpan {
    double left = 0, right = 1;
    bool overlaps(const WidthSpan& o) const { return left < o.right - 1e-9 && o.left < right - 1e-9; }
};
inline WidthSpan widthSpan(int slot, int count) {
    if (count <= 1) return {};
    return {static_cast<double>(slot - 1) / count, static_cast<double>(slot) / count};
}

/// Which end of a footprint's width is the left one seen from its front: the high end (x or y) for objects
/// facing North or West, the low end for South or East.
inline bool leftIsHighEnd(Facing f) { return f == Facing::North || f == Facing::West; }

}  // namespace ct::model
