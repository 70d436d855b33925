// The host side of the CUDA backend's TVD step (the lattice air's transport): what the device needs uploaded when
// it changed, then one sub-step there (sim/cuda/air_device.cu). Built with CT_HAVE_CUDA only.
#include "air_model_impl.hpp"

namespace ct::sim {

#ifdef CT_HAVE_CUDA
void AirModel::Impl::stepTvdOnDevice(double dt) {
    if (kt_stale) {
        CT_ON_DEVICE(dev->setEddyDiffusivity(kt.empty() ? nullptr : KT()));
        kt_stale = false;
    }
    if (walls_stale) {
        std::vector<int> cells, face;
        std::vector<float> g, t_wall;
        for (int f = 0; f < 6; ++f) {
            if (!walls[f].fixed) continue;
            for (int c : faceCells(f)) {
                if (solid[c]) continue;
                cells.push_back(c);
                g.push_back(static_cast<float>(wallConductance(c)));
                t_wall.push_back(static_cast<float>(walls[f].t_c));
                face.push_back(f);
            }
        }
        CT_ON_DEVICE(dev->setWalls(cells, g, t_wall, face));
        walls_stale = false;
    }
    CT_ON_DEVICE(dev->stepTvd(static_cast<float>(h), static_cast<float>(spec.kappa_m2s), static_cast<float>(dt / vol), spec.tvd));
    wall_flows_on_device = anyWall();
}
#endif

}  // namespace ct::sim
