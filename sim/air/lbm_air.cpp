// Room air on the lattice in physical units: see lbm_air.hpp.
#include <clustertwin/sim/air/lbm_air.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ct::sim {

namespace {
constexpr double kCs = 0.57735026918962576;  // lattice speed of sound, 1/√3
}

struct LbmAir::Impl {
    LbmAirSpec spec;
    ThreadPool& pool;
    std::unique_ptr<AirModel> air;
    std::unique_ptr<Lattice> lat;
    double h = 0, dt = 0, t = 0;
    bool solids_synced = false;
    struct Port {
        double cells, open;
    };
    std::vector<Port> ports;
    std::vector<float> temp, velocity;

    Impl(const LbmAirSpec& s, ThreadPool& p) : spec(s), pool(p) {}

    void syncSolids() {
        if (solids_synced) return;
        for (std::size_t c = 0; c < air->cellCount(); ++c) lat->setSolid(static_cast<int>(c), air->solid(static_cast<int>(c)));
        solids_synced = true;
    }

    /// Face fluxes (m³/s) from the lattice's mean velocity: the average of the two cells' normal velocity times
    /// the face area; walls and solids carry none (AirModel::setFluxes enforces it too).
    void faceFluxes(std::vector<float>& fx, std::vector<float>& fy, std::vector<float>& fz) const {
        const int nx = air->nx(), ny = air->ny(), nz = air->nz();
        const double scale = h / dt * h * h;  // lattice velocity → m/s → m³/s per face
        fx.assign(static_cast<std::size_t>(nx + 1) * ny * nz, 0.f);
        fy.assign(static_cast<std::size_t>(nx) * (ny + 1) * nz, 0.f);
        fz.assign(static_cast<std::size_t>(nx) * ny * (nz + 1), 0.f);
        auto u = [&](int c, int axis) { return static_cast<double>(velocity[3 * static_cast<std::size_t>(c) + static_cast<std::size_t>(axis)]); };
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = air->index(i, j, k);
                    if (i > 0) fx[static_cast<std::size_t>(i + (nx + 1) * (j + ny * k))] = static_cast<float>(0.5 * (u(c - 1, 0) + u(c, 0)) * scale);
                    if (j > 0) fy[static_cast<std::size_t>(i + nx * (j + (ny + 1) * k))] = static_cast<float>(0.5 * (u(c - nx, 1) + u(c, 1)) * scale);
                    if (k > 0) fz[static_cast<std::size_t>(i + nx * (j + ny * k))] = static_cast<float>(0.5 * (u(c - nx * ny, 2) + u(c, 2)) * scale);
                }
    }
};

LbmAir::LbmAir(const LbmAirSpec& spec, ThreadPool& pool) : d_(std::make_unique<Impl>(spec, pool)) {
    if (!(spec.mach >= 0.01 && spec.mach <= 0.2)) throw SimError("lattice air: the lattice Mach number must be within 0.01–0.2");
    if (!(spec.max_speed_ms > 0)) throw SimError("lattice air: the fastest expected air speed must be positive");
    if (!(spec.prandtl_t > 0) || !(spec.nu_m2s > 0)) throw SimError("lattice air: viscosity and turbulent Prandtl number must be positive");
    Impl& d = *d_;
    AirGridSpec g = spec.grid;
    g.tvd = true;
    d.air = std::make_unique<AirModel>(g, pool);
    d.h = d.air->cellM();
    d.dt = spec.mach * kCs * d.h / spec.max_speed_ms;
    LatticeSpec ls;
    ls.nx = d.air->nx();
    ls.ny = d.air->ny();
    ls.nz = d.air->nz();
    ls.tau = 0.5 + 3.0 * spec.nu_m2s * d.dt / (d.h * d.h);
    ls.smagorinsky_cs = spec.smagorinsky_cs;
    ls.min_parallel_cells = g.min_parallel_cells;
    ls.backend = g.backend;
    d.lat = std::make_unique<Lattice>(ls, pool);
    d.lat->reset();
}

LbmAir::~LbmAir() = default;

AirModel& LbmAir::air() { return *d_->air; }
const AirModel& LbmAir::air() const { return *d_->air; }
const Lattice& LbmAir::lattice() const { return *d_->lat; }

void LbmAir::addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1) {
    d_->air->addSolidBox(x0, y0, z0, x1, y1, z1);
    d_->solids_synced = false;
}

int LbmAir::addPort(const std::vector<int>& cells, bool source, double dx, double dy, double dz, double open_fraction) {
    Impl& d = *d_;
    if (!(open_fraction > 0 && open_fraction <= 1)) throw SimError("air port: the open fraction must be within (0, 1]");
    d.syncSolids();
    const int a = d.air->addPort(cells, source);
    const int l = d.lat->addPort(cells, source, dx, dy, dz);
    // Every port goes through here, so a port's number is the same in air(), the lattice and this list.
    if (a != static_cast<int>(d.ports.size()) || l != a) throw SimError("lattice air: ports added to air() directly");
    d.ports.push_back({static_cast<double>(cells.size()), open_fraction});
    return a;
}

void LbmAir::setPortFlow(int port, double q) {
    Impl& d = *d_;
    const auto& p = d.ports.at(static_cast<std::size_t>(port));
    d.air->setPortFlow(port, q);
    const double jet_ms = q / (p.cells * d.h * d.h * p.open);
    d.lat->setPortFlow(port, q * d.dt / (d.h * d.h * d.h), jet_ms * d.dt / d.h);
}

int LbmAir::advance(double duration, const std::function<void(double)>& before) {
    Impl& d = *d_;
    if (!(duration > 0)) return 0;
    d.syncSolids();
    // Buoyancy from the temperature at the start of the interval, relative to the room's mean.
    d.temp = d.air->temperatures();
    double sum = 0;
    std::size_t fluid = 0;
    for (std::size_t c = 0; c < d.temp.size(); ++c)
        if (!d.air->solid(static_cast<int>(c))) {
            sum += d.temp[c];
            ++fluid;
        }
    const double t_ref = fluid ? sum / static_cast<double>(fluid) : 0.0;
    const double beta = 1.0 / (d.spec.reference_temp_c + 273.15);
    if (d.spec.buoyancy) d.lat->setBuoyancy(d.temp.data(), d.spec.gravity_ms2 * beta * d.dt * d.dt / d.h, t_ref);
    const int n = std::max(1, static_cast<int>(std::lround(duration / d.dt)));
    d.lat->resetMeans();
    d.lat->setSampling(true);
    try {
        d.lat->step(n);
    } catch (const LatticeUnstable& e) {
        char when[64];
        std::snprintf(when, sizeof when, " (simulated time %.3f s)", static_cast<double>(e.step) * d.dt);
        throw LatticeUnstable(std::string(e.what()) + when, e.i, e.j, e.k, e.step);
    }
    d.velocity = d.lat->meanVelocity();
    std::vector<float> fx, fy, fz;
    d.faceFluxes(fx, fy, fz);
    d.air->setFluxes(std::move(fx), std::move(fy), std::move(fz), 1e-6);
    // Eddy diffusivity of heat from the LES: κ_t = ν_t / Pr_t, lattice → m²/s.
    std::vector<float> kt = d.lat->meanEddyViscosity();
    const double to_si = d.h * d.h / d.dt / d.spec.prandtl_t;
    for (float& v : kt) v = static_cast<float>(v * to_si);
    d.air->setEddyDiffusivity(kt);
    const int sub = d.air->advance(duration, before);
    d.t += duration;
    return sub;
}

double LbmAir::latticeDtS() const { return d_->dt; }
double LbmAir::timeS() const { return d_->t; }

std::string LbmAir::summary() const {
    const Impl& d = *d_;
    char buf[200];
    std::snprintf(buf, sizeof buf, "D3Q19 TRT + Smagorinsky LES (C_s %.2f), cell %.2f m, lattice step %.2f ms (Mach %.2f at %.1f m/s), %s",
                  d.spec.smagorinsky_cs, d.h, d.dt * 1e3, d.spec.mach, d.spec.max_speed_ms, d.spec.buoyancy ? "buoyancy on" : "no buoyancy");
    return buf;
}

std::vector<float> LbmAir::velocityMs() const {
    std::vector<float> v = d_->velocity;
    const float s = static_cast<float>(d_->h / d_->dt);
    for (float& x : v) x *= s;
    return v;
}

} // namespace ct::sim
