// The host side of the CUDA backend's steps: what the device needs uploaded when it changed, and the TVD step (the
// lattice air's transport) there (sim/cuda/air_device.cu). Built with CT_HAVE_CUDA only.
#include "air_model_impl.hpp"

namespace ct::sim {

#ifdef CT_HAVE_CUDA
void AirModel::Impl::uploadForStep() {
    if (!geometry_on_device) {  // stepping before any flow solve: still air
        CT_ON_DEVICE(dev->setGeometry(nb, solid, nbw); dev->setFluxes(fx, fy, fz));
        geometry_on_device = true;
    }
    if (ports_stale) {
        std::vector<int> cells, port_of;
        for (std::size_t p = 0; p < ports.size(); ++p)
            for (int c : ports[p].cells) {
                cells.push_back(c);
                port_of.push_back(static_cast<int>(p));
            }
        CT_ON_DEVICE(dev->setPorts(cells, port_of, static_cast<int>(ports.size())));
        ports_stale = false;
    }
    if (port_state_stale) {
        std::vector<float> q, t_in, c_in;
        std::vector<unsigned char> source;
        for (const auto& p : ports) {
            q.push_back(static_cast<float>(p.q_flow / static_cast<double>(p.cells.size())));
            t_in.push_back(static_cast<float>(p.t_in));
            c_in.push_back(static_cast<float>(p.c_in));
            source.push_back(p.source ? 1 : 0);
        }
        CT_ON_DEVICE(dev->setPortState(q, t_in, c_in, source));
        port_state_stale = false;
    }
    if (device_stale) {
        CT_ON_DEVICE(dev->setTemperature(T()));
        device_stale = false;
    }
    if (tracer_device_stale && !tr.empty()) {
        CT_ON_DEVICE(dev->setTracer(tr.data() + kPad));
        tracer_device_stale = false;
    }
    if (hold_stale) {
        CT_ON_DEVICE(dev->setHold(cap.empty() ? nullptr : cap.data()));
        hold_stale = false;
    }
}

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
