// The lattice's public calls (lattice.hpp) over its state (lattice_impl.hpp). Cells are numbered over the whole
// box; in a slab, the calls that read the state are collectives over the slabs (every slab calls them in turn).
#include "lattice_impl.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace ct::sim {

namespace {
constexpr int kQ = lattice_detail::kQ;
}

Lattice::Lattice(const LatticeSpec& spec, ThreadPool& pool) : d_(std::make_unique<Impl>(spec, pool)) {
    if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1) throw SimError("lattice: the box has no cells");
    if (!(spec.tau > 0.5)) throw SimError("lattice: the relaxation time must be above 1/2 (it sets ν = (τ − 1/2)/3)");
    if (!(spec.smagorinsky_cs >= 0 && spec.smagorinsky_cs < 0.5))
        throw SimError("lattice: the Smagorinsky constant must be within [0, 0.5)");
    Impl& d = *d_;
    d.nx = nx_ = spec.nx;
    d.gny = d.ny = ny_ = spec.ny;
    d.nz = nz_ = spec.nz;
    d.placeSlab();  // throws SimError for a slab of no rows
    d.px = nx_ + 2;
    d.py = d.ny + 2;
    d.pz = nz_ + 2;
    // The directions' arrays a multiple of 16 cells apart, so that a 64-byte line of one direction starts at the
    // same cell as in every other (the CPU's streaming stores write whole lines; the cells past the box are halo).
    d.n = (static_cast<std::size_t>(d.px) * d.py * d.pz + 15) / 16 * 16;
    d.solid.assign(static_cast<std::size_t>(nx_) * ny_ * nz_, 0);
    d.a.assign(d.n * kQ, 0.f);
    d.b.assign(d.n * kQ, 0.f);
    if (spec.backend == Backend::Cuda) {
#ifdef CT_HAVE_CUDA
        try {
            d.dev = std::make_unique<detail::LatticeDevice>(d.px, d.py, d.pz, d.n);
        } catch (const std::runtime_error& e) {
            throw SimError(std::string("CUDA lattice: ") + e.what());
        }
#else
        throw SimError("the CUDA lattice was asked for, but this build has no CUDA (configured with CT_CUDA=OFF or no nvcc found)");
#endif
    }
}

Lattice::~Lattice() = default;

int Lattice::nx() const { return nx_; }
int Lattice::ny() const { return ny_; }
int Lattice::nz() const { return nz_; }
std::size_t Lattice::cellCount() const { return d_->solid.size(); }
int Lattice::firstRow() const { return d_->j0; }
int Lattice::rowCount() const { return d_->ny; }
bool Lattice::holds(int cell) const { return d_->holds(cell); }
Backend Lattice::backend() const {
#ifdef CT_HAVE_CUDA
    if (d_->dev) return Backend::Cuda;
#endif
    return Backend::Cpu;
}

void Lattice::setSolid(int cell, bool s) {
    d_->solid.at(static_cast<std::size_t>(cell)) = s ? 1 : 0;
    d_->geometry_dirty = true;
}
bool Lattice::solid(int cell) const { return d_->solid.at(static_cast<std::size_t>(cell)) != 0; }

void Lattice::setWallVelocity(GridFace face, double ux, double uy, double uz) {
    const int f = static_cast<int>(face);
    d_->face_u[f][0] = ux;
    d_->face_u[f][1] = uy;
    d_->face_u[f][2] = uz;
    d_->face_moving[f] = ux != 0 || uy != 0 || uz != 0;
    d_->geometry_dirty = true;
}

int Lattice::addPort(const std::vector<int>& cells, bool source, double dx, double dy, double dz) {
    if (cells.empty()) throw SimError("lattice port without cells");
#ifdef CT_HAVE_CUDA
    d_->dev_ports_stale = true;
#endif
    Impl::Port p;
    for (int c : cells) {
        if (c < 0 || static_cast<std::size_t>(c) >= d_->solid.size()) throw SimError("lattice port cell out of range");
        if (d_->solid[static_cast<std::size_t>(c)]) throw SimError("lattice port cell is solid");
        if (d_->holds(c)) p.cells.push_back(d_->padOf(c));  // a slab steps only its own share of the port
    }
    d_->row_ports_stale = true;
    p.all_cells = cells.size();
    const double len = std::sqrt(dx * dx + dy * dy + dz * dz);
    p.source = source;
    p.dir[0] = len > 0 ? dx / len : 0;
    p.dir[1] = len > 0 ? dy / len : 0;
    p.dir[2] = len > 0 ? dz / len : 0;
    d_->ports.push_back(std::move(p));
    return static_cast<int>(d_->ports.size()) - 1;
}

void Lattice::setPortFlow(int port, double volume_per_step, double jet_speed) {
    auto& p = d_->ports.at(static_cast<std::size_t>(port));
    p.q = std::max(0.0, volume_per_step);
    p.jet = jet_speed;
}
double Lattice::portFlow(int port) const { return d_->ports.at(static_cast<std::size_t>(port)).q; }

void Lattice::setBodyForce(double fx, double fy, double fz) {
    d_->body[0] = fx;
    d_->body[1] = fy;
    d_->body[2] = fz;
}

void Lattice::setBuoyancy(const float* temperature, double per_kelvin, double t_ref) {
    Impl& d = *d_;
    d.temp = temperature;
    if (temperature) {  // the CPU reads a padded copy of this slab's rows
        d.temp_pad.assign(d.n, 0.f);
        for (int k = 0; k < d.nz; ++k)
            for (int j = 0; j < d.ny; ++j) std::copy_n(temperature + d.global(0, j, k), d.nx, d.temp_pad.data() + d.pad(0, j, k));
    } else {
        d.temp_pad.clear();
    }
    d.buoy = per_kelvin;
    d.t_ref = t_ref;
}

void Lattice::reset() {
    std::fill(d_->a.begin(), d_->a.end(), 0.f);
    std::fill(d_->b.begin(), d_->b.end(), 0.f);
    d_->steps = 0;
    resetMeans();
#ifdef CT_HAVE_CUDA
    d_->dev_state_stale = true;
    d_->host_stale = false;
#endif
}

void Lattice::rescaleTime(double r, double tau) {
    if (!(r > 0) || !(tau > 0.5)) throw SimError("lattice: a rescaled step needs r > 0 and τ > 1/2");
    Impl& d = *d_;
    d.syncHost();
    const auto rf = static_cast<float>(r);
    for (int k = 0; k < d.nz; ++k)
        for (int j = 0; j < d.ny; ++j)
            for (int i = 0; i < d.nx; ++i) {
                if (d.solidAt(i, j, k)) continue;
                const std::size_t p = static_cast<std::size_t>(d.pad(i, j, k));
                float f[kQ];
                float drho = 0, jx = 0, jy = 0, jz = 0;
                for (int q = 0; q < kQ; ++q) {
                    f[q] = d.a[static_cast<std::size_t>(q) * d.n + p];
                    drho += f[q];
                    jx += static_cast<float>(lbm::cx(q)) * f[q];
                    jy += static_cast<float>(lbm::cy(q)) * f[q];
                    jz += static_cast<float>(lbm::cz(q)) * f[q];
                }
                const float inv = 1.f / (1.f + drho);
                const float ux = jx * inv, uy = jy * inv, uz = jz * inv;
                for (int q = 0; q < kQ; ++q) {
                    const float neq = f[q] - lbm::equilibriumDeviation(q, drho, ux, uy, uz);
                    d.a[static_cast<std::size_t>(q) * d.n + p] =
                        lbm::equilibriumDeviation(q, drho * rf * rf, ux * rf, uy * rf, uz * rf) + rf * neq;
                }
            }
    d.spec.tau = tau;
    resetMeans();
#ifdef CT_HAVE_CUDA
    d.dev_state_stale = true;
    d.host_stale = false;
#endif
}

void Lattice::step(int count) {
    Impl& d = *d_;
    const bool flags_changed = d.geometry_dirty;
    if (d.geometry_dirty) d.buildFlags();
#ifdef CT_HAVE_CUDA
    if (d.dev) {
        try {
            d.deviceSteps(count, flags_changed);
        } catch (const SimError&) {
            throw;
        } catch (const std::runtime_error& e) {
            throw SimError(std::string("CUDA lattice: ") + e.what());
        }
        return;
    }
#endif
    (void)flags_changed;
    if (!d.split()) {
        for (int s = 0; s < count; ++s) {
            const int k = d.cpuStep();
            if (k >= 0) d.reportInstability(k);
        }
        return;
    }
    // A slab runs the whole batch whatever happens (its neighbours wait for its rows every step), then the
    // slabs agree: where one failed, every slab throws at the same point.
    std::int64_t failed = -1;
    int plane = -1;
    for (int s = 0; s < count; ++s) {
        const int k = d.cpuStep();
        if (k >= 0 && failed < 0) {
            failed = d.steps;
            plane = k;
        }
    }
    d.agreeStable(failed, plane, d.steps);
}
std::int64_t Lattice::steps() const { return d_->steps; }

void Lattice::setSampling(bool on) {
    d_->sampling = on;
    if (on && d_->sum_u.empty()) resetMeans();
}

void Lattice::resetMeans() {
    d_->sum_u.assign(3 * d_->n, 0.f);
    d_->sum_nu.assign(d_->n, 0.f);
    d_->samples = 0;
#ifdef CT_HAVE_CUDA
    if (d_->dev && !d_->dev_state_stale) {
        try {
            d_->dev->resetSums();
        } catch (const std::runtime_error& e) {
            throw SimError(std::string("CUDA lattice: ") + e.what());
        }
    }
#endif
}
int Lattice::meanSamples() const { return d_->samples; }

std::vector<float> Lattice::Impl::interiorOf(const std::vector<float>& padded, int per_cell, float scale) const {
    const auto m = static_cast<std::size_t>(per_cell);
    std::vector<float> out(m * interior());
    std::size_t c = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i, ++c) {
                const auto p = static_cast<std::size_t>(pad(i, j, k));
                for (std::size_t f = 0; f < m; ++f) out[m * c + f] = padded[f * n + p] * scale;
            }
    return out;
}

void Lattice::Impl::paddedFrom(const std::vector<float>& cells, int per_cell, std::vector<float>& padded) const {
    const auto m = static_cast<std::size_t>(per_cell);
    const std::size_t count = interior();
    padded.assign(m * n, 0.f);
    std::size_t c = 0;
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i, ++c) {
                const auto p = static_cast<std::size_t>(pad(i, j, k));
                for (std::size_t f = 0; f < m; ++f) padded[f * n + p] = cells[f * count + c];
            }
}

std::vector<float> Lattice::meanVelocity() const {
    d_->syncHost();
    const Impl& d = *d_;
    std::vector<float> u(3 * d.interior(), 0.f);
    if (d.samples > 0) {
        u = d.interiorOf(d.sum_u, 3, 1.f / static_cast<float>(d.samples));
    } else {
        for (int k = 0; k < d.nz; ++k)
            for (int j = 0; j < d.ny; ++j)
                for (int i = 0; i < d.nx; ++i) {
                    if (d.solidAt(i, j, k)) continue;
                    const std::size_t c =
                        static_cast<std::size_t>(i) + static_cast<std::size_t>(d.nx) * (j + static_cast<std::size_t>(d.ny) * k);
                    double rho, ux, uy, uz;
                    d.cellMoments(d.pad(i, j, k), rho, ux, uy, uz);
                    u[3 * c] = static_cast<float>(ux);
                    u[3 * c + 1] = static_cast<float>(uy);
                    u[3 * c + 2] = static_cast<float>(uz);
                }
    }
    return d.split() ? d.wholeField(u, 3) : u;
}

std::vector<float> Lattice::meanEddyViscosity() const {
    d_->syncHost();
    const Impl& d = *d_;
    std::vector<float> nu(d.interior(), 0.f);
    if (d.samples > 0) {
        const std::vector<float> all = d.interiorOf(d.sum_nu, 1, 1.f);
        for (std::size_t c = 0; c < nu.size(); ++c) nu[c] = all[c] / static_cast<float>(d.samples);
    }
    return d.split() ? d.wholeField(nu, 1) : nu;
}

void Lattice::moments(int cell, double& rho, double& ux, double& uy, double& uz) const {
    if (!d_->holds(cell)) throw SimError("lattice: cell " + std::to_string(cell) + " lies in another slab");
    d_->syncHost();
    d_->cellMoments(d_->padOf(cell), rho, ux, uy, uz);
}

std::vector<double> Lattice::densities(const std::vector<int>& cells) const {
    Impl& d = *d_;
    d.syncHost();
    std::vector<double> rho(cells.size(), 0.0);
    for (std::size_t e = 0; e < cells.size(); ++e) {
        if (!d.holds(cells[e])) continue;
        double r, ux, uy, uz;
        d.cellMoments(d.padOf(cells[e]), r, ux, uy, uz);
        rho[e] = r;
    }
    if (!d.split()) return rho;
    return d.wholeDensities(cells, rho);
}

double Lattice::totalMass() const {
    double m = 0;
    d_->forFluidCells([&](double rho, double, double, double) { m += rho; });
    return d_->split() ? d_->sumOverSlabs(m) : m;
}

double Lattice::maxSpeed() const {
    double m = 0;
    d_->forFluidCells([&](double, double ux, double uy, double uz) { m = std::max(m, std::sqrt(ux * ux + uy * uy + uz * uz)); });
    return d_->split() ? d_->maxOverSlabs(m) : m;
}

}  // namespace ct::sim
