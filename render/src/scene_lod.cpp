// Level of detail for large halls: while frames follow each other (Scene::setFastRendering), a rack that is
// only a few pixels wide on screen is drawn as one box in the colour of its worst node instead of its rack box
// with a glyph per node. Software OpenGL spends a 100k-GPU hall's frame largely on those node glyphs; from afar
// they are smaller than a pixel or two and the rack's worst node is what a viewer could see of them anyway.
// The frame that stays (full quality) draws every node.
#include "scene_impl.hpp"

namespace ct::render {

void Scene::Impl::buildLod() {
    node_rack_index.assign(nodes.size(), -1);
    for (std::size_t r = 0; r < rack_nodes.size(); ++r)
        for (int n : rack_nodes[r]) node_rack_index[static_cast<std::size_t>(n)] = static_cast<int>(r);
    node_mask->SetName("visible");
    node_mask->SetNumberOfComponents(1);
    node_mask->SetNumberOfTuples(static_cast<vtkIdType>(nodes.size()));
    for (vtkIdType i = 0; i < static_cast<vtkIdType>(nodes.size()); ++i) node_mask->SetValue(i, 1);
    rack_far.assign(racks.size(), 0);
    if (nodes.size() < kLodNodes) return;
    nodes.pd->GetPointData()->AddArray(node_mask);
    nodes.mapper->SetMaskArray("visible");
    nodes.mapper->MaskingOn();
    lod_hook->SetClientData(this);
    lod_hook->SetCallback([](vtkObject*, unsigned long, void* self, void*) { static_cast<Scene::Impl*>(self)->updateLod(); });
    ren->AddObserver(vtkCommand::StartEvent, lod_hook);
}

void Scene::Impl::updateLod(bool force) {
    if (nodes.size() < kLodNodes || racks.size() == 0) return;
    std::vector<char> far(racks.size(), 0);
    if (fast) {
        vtkCamera* cam = ren->GetActiveCamera();
        const int* size = ren->GetSize();
        const double h_px = std::max(1, size[1]);
        double pos[3];
        cam->GetPosition(pos);
        const double tan_half = std::tan(cam->GetViewAngle() * M_PI / 360.0);
        for (std::size_t r = 0; r < racks.size(); ++r) {
            const auto& b = racks.bounds[r];
            const double w = std::min(b.hi[0] - b.lo[0], b.hi[1] - b.lo[1]);  // the rack's width, whichever way it faces
            double px;
            if (cam->GetParallelProjection()) {
                px = w * h_px / (2 * cam->GetParallelScale());
            } else {
                const double dx = (b.lo[0] + b.hi[0]) / 2 - pos[0], dy = (b.lo[1] + b.hi[1]) / 2 - pos[1],
                             dz = (b.lo[2] + b.hi[2]) / 2 - pos[2];
                const double d = std::sqrt(dx * dx + dy * dy + dz * dz);
                px = d > 0 ? w * h_px / (2 * d * tan_half) : 1e9;
            }
            far[r] = px < kLodPixels ? 1 : 0;
        }
    }
    const bool moved = far != rack_far;  // a new value alone (force) leaves the node mask as it is
    if (!force && !moved) return;
    rack_far.swap(far);
    if (moved) {
        for (std::size_t n = 0; n < nodes.size(); ++n) {
            const int r = node_rack_index[n];
            node_mask->SetValue(static_cast<vtkIdType>(n), r >= 0 && rack_far[static_cast<std::size_t>(r)] ? 0 : 1);
        }
        node_mask->Modified();
        nodes.dirty = true;
    }
    far_racks = 0;
    for (std::size_t r = 0; r < racks.size(); ++r) {
        double v = r < rack_values.size() ? rack_values[r] : kNaN;
        if (rack_far[r]) {
            ++far_racks;
            // The worst of its nodes (NaN ones, failed or without data, only when all are).
            double worst = kNaN;
            for (int n : rack_nodes[r]) {
                const double x = static_cast<std::size_t>(n) < node_values.size() ? node_values[static_cast<std::size_t>(n)] : kNaN;
                if (std::isnan(x)) continue;
                if (std::isnan(worst) || (worst_is_low ? x < worst : x > worst)) worst = x;
            }
            if (!std::isnan(worst)) v = worst;
        }
        racks.set(r, v);
    }
    nodes.changed();
    racks.changed();
}

}  // namespace ct::render
