// The D3Q19 lattice on the CPU: a pull-scheme loop over rows of cells (lattice_row.cpp) calling lbm::collide, threads over
// z-planes (fixed chunks: the result never depends on the thread count). Populations are FP32 deviations in a
// structure-of-arrays layout f[q][cell] over a grid padded by one halo cell on every side, so that the 19
// neighbour loads of a row are 19 contiguous streams the compiler vectorises. Halo cells are walls, moving
// walls or, on a periodic axis, copies of the opposite layer.
#include <clustertwin/sim/air/lattice.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include "lattice_row.hpp"
#include "lbm_kernel.hpp"
#ifdef CT_HAVE_CUDA
#include "lattice_device.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace ct::sim {

namespace {

constexpr int kQ = lbm::kQ;
constexpr int kMaxWallKinds = 8;  ///< flag 0 fluid, 1 still wall, 2.. moving faces
using lattice_detail::kMaxRho;
using lattice_detail::kMaxSpeed;
using lattice_detail::kMinRho;

using lattice_detail::RowArgs;
using lattice_detail::RowFn;
using lattice_detail::rowFunction;

}  // namespace

struct Lattice::Impl {
    LatticeSpec spec;
    ThreadPool& pool;
    int nx, ny, nz, px, py, pz;
    std::size_t n;                     ///< padded cells
    std::vector<float> a, b;           ///< populations, [q][padded cell]
    std::vector<unsigned char> flag;   ///< padded
    std::vector<float> fluid;          ///< padded: 1 where flag is 0
    std::vector<unsigned char> solid;  ///< interior
    float wall[kMaxWallKinds * kQ] = {};
    /// Bounce-back links: population q of solid (or halo) cell `solid` is the one the fluid cell `solid + c_q`
    /// pulls; before each step it is set to that fluid cell's opposite population plus the wall's motion term.
    std::vector<int> link_solid, link_fluid;
    std::vector<unsigned char> link_q;
    std::vector<float> link_term;
    double face_u[6][3] = {};
    bool face_moving[6] = {};
    bool geometry_dirty = true;
    struct Port {
        std::vector<int> cells;  ///< padded indices
        bool source;
        double dir[3];
        double q = 0, jet = 0;
    };
    std::vector<Port> ports;
    double body[3] = {0, 0, 0};
    const float* temp = nullptr;
    double buoy = 0, t_ref = 0;
    bool sampling = false;
    int samples = 0;
    std::vector<float> sum_u, sum_nu;
    std::int64_t steps = 0;
#ifdef CT_HAVE_CUDA
    // CUDA: the device holds the state; the host copies are refreshed only when read.
    std::unique_ptr<detail::LatticeDevice> dev;
    bool dev_ports_stale = true, dev_state_stale = true, host_stale = false;
#endif
    bool onDevice() const {
#ifdef CT_HAVE_CUDA
        return dev != nullptr;
#else
        return false;
#endif
    }
    /// Brings the host's populations and sums up to date before they are read.
    void syncHost() {
#ifdef CT_HAVE_CUDA
        if (dev && host_stale) {
            try {
                dev->getPopulations(a);
                if (!sum_u.empty()) dev->getSums(sum_u, sum_nu);
            } catch (const std::runtime_error& e) {
                throw SimError(std::string("CUDA lattice: ") + e.what());
            }
            host_stale = false;
        }
#endif
    }

    Impl(const LatticeSpec& s, ThreadPool& p) : spec(s), pool(p) {}

    int pad(int i, int j, int k) const { return (i + 1) + px * ((j + 1) + py * (k + 1)); }
    int padOf(int cell) const { return pad(cell % nx, (cell / nx) % ny, cell / (nx * ny)); }
    std::size_t interior() const { return static_cast<std::size_t>(nx) * ny * nz; }

    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
        if (interior() < spec.min_parallel_cells) {
            for (std::size_t c = 0; c < chunks; ++c) fn(c);
        } else {
            pool.run(chunks, fn);
        }
    }

    /// Flags of every padded cell: interior solids, halo walls (still or moving) and periodic images.
    void buildFlags() {
        flag.assign(n, 0);
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) flag[pad(i, j, k)] = solid[i + nx * (j + ny * k)] ? 1 : 0;
        const bool per[3] = {spec.periodic_x, spec.periodic_y, spec.periodic_z};
        // Wall kinds: 1 still; 2 + face for a moving face.
        std::fill(std::begin(wall), std::end(wall), 0.f);
        for (int f = 0; f < 6; ++f) {
            const int kind = 2 + f;
            for (int q = 0; q < kQ; ++q) {
                const double cu = lbm::cx(q) * face_u[f][0] + lbm::cy(q) * face_u[f][1] + lbm::cz(q) * face_u[f][2];
                wall[kind * kQ + q] = static_cast<float>(6.0 * lbm::weight(q) * cu);
            }
        }
        for (int k = 0; k < pz; ++k)
            for (int j = 0; j < py; ++j)
                for (int i = 0; i < px; ++i) {
                    const int ii[3] = {i, j, k}, dims[3] = {px, py, pz};
                    bool halo = false;
                    int kind = 1;
                    for (int ax = 0; ax < 3; ++ax) {
                        const bool lo = ii[ax] == 0, hi = ii[ax] == dims[ax] - 1;
                        if (!(lo || hi) || per[ax]) continue;
                        halo = true;
                        const int face = 2 * ax + (hi ? 1 : 0);
                        if (face_moving[face]) kind = 2 + face;  // later faces win at edges
                    }
                    if (halo) flag[i + px * (j + py * k)] = static_cast<unsigned char>(kind);
                }
        // Periodic images: flags copied from the opposite layer (after the walls, so they wrap solids too).
        copyPeriodic(flag.data(), 1);
        fluid.resize(n);
        for (std::size_t c = 0; c < n; ++c) fluid[c] = flag[c] == 0 ? 1.f : 0.f;
        buildLinks();
        geometry_dirty = false;
    }

    void buildLinks() {
        link_solid.clear();
        link_fluid.clear();
        link_q.clear();
        link_term.clear();
        for (int k = 0; k < pz; ++k)
            for (int j = 0; j < py; ++j)
                for (int i = 0; i < px; ++i) {
                    const int s = i + px * (j + py * k);
                    if (!flag[s]) continue;
                    for (int q = 1; q < kQ; ++q) {
                        const int x = i + lbm::cx(q), y = j + lbm::cy(q), z = k + lbm::cz(q);
                        if (x < 0 || y < 0 || z < 0 || x >= px || y >= py || z >= pz) continue;
                        const int f = x + px * (y + py * z);
                        if (flag[f]) continue;
                        link_solid.push_back(s);
                        link_fluid.push_back(f);
                        link_q.push_back(static_cast<unsigned char>(q));
                        link_term.push_back(wall[flag[s] * kQ + q]);
                    }
                }
        // Direction by direction, cells in memory order: the pre-pass then walks two arrays at a time instead of
        // jumping among all 19 for every solid cell (it was ~11 % of a hall's run). Each link writes its own
        // population, so the order does not change the result.
        std::vector<std::size_t> order(link_q.size());
        for (std::size_t e = 0; e < order.size(); ++e) order[e] = e;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return link_q[x] < link_q[y]; });
        auto permute = [&](auto& v) {
            auto copy = v;
            for (std::size_t e = 0; e < order.size(); ++e) v[e] = copy[order[e]];
        };
        permute(link_solid);
        permute(link_fluid);
        permute(link_q);
        permute(link_term);
    }

    /// The bounce-back pre-pass on the populations about to be streamed.
    void bounceBack(float* f) {
        // Each link writes its own solid population and reads a fluid one: links split into chunks freely.
        auto links = [&](std::size_t from, std::size_t to) {
            for (std::size_t e = from; e < to; ++e) {
                const int q = link_q[e];
                f[static_cast<std::size_t>(q) * n + static_cast<std::size_t>(link_solid[e])] =
                    f[static_cast<std::size_t>(lbm::opposite(q)) * n + static_cast<std::size_t>(link_fluid[e])] + link_term[e];
            }
        };
        const std::size_t count = link_solid.size(), chunk = 16384;
        if (count < 2 * chunk) return links(0, count);
        const std::size_t chunks = (count + chunk - 1) / chunk;
        run(chunks, [&](std::size_t c) { links(c * chunk, std::min(count, (c + 1) * chunk)); });
    }

    /// Copies the opposite interior layer into the halo on each periodic axis, for `stride`-separated arrays
    /// of `count` fields (count = 19 for populations, 1 for flags).
    template <class T>
    void copyPeriodic(T* base, int count) {
        for (int fld = 0; fld < count; ++fld) {
            T* v = base + static_cast<std::size_t>(fld) * n;
            if (spec.periodic_x)
                for (int k = 0; k < pz; ++k)
                    for (int j = 0; j < py; ++j) {
                        const int r = px * (j + py * k);
                        v[r] = v[r + nx];
                        v[r + nx + 1] = v[r + 1];
                    }
            if (spec.periodic_y)
                for (int k = 0; k < pz; ++k)
                    for (int i = 0; i < px; ++i) {
                        const int pl = px * py * k;
                        v[i + pl] = v[i + px * ny + pl];
                        v[i + px * (ny + 1) + pl] = v[i + px + pl];
                    }
            if (spec.periodic_z) {
                const std::size_t plane = static_cast<std::size_t>(px) * py;
                std::copy(v + plane * nz, v + plane * (nz + 1), v);
                std::copy(v + plane, v + plane * 2, v + plane * (nz + 1));
            }
        }
    }

    void cpuStep() {
        copyPeriodic(a.data(), kQ);
        bounceBack(a.data());
        RowArgs r{};
        r.src = a.data();
        r.dst = b.data();
        r.fluid = fluid.data();
        r.temp = temp;
        r.sum_u = sampling ? sum_u.data() : nullptr;
        r.sum_nu = sampling ? sum_nu.data() : nullptr;
        r.n = n;
        r.px = px;
        r.py = py;
        r.nx = nx;
        r.ny = ny;
        r.cells = interior();
        for (int q = 0; q < kQ; ++q) r.off[q] = lbm::cx(q) + px * (lbm::cy(q) + py * lbm::cz(q));
        r.tau0 = static_cast<float>(spec.tau);
        r.smag2 = static_cast<float>(spec.smagorinsky_cs * spec.smagorinsky_cs);
        r.fx = static_cast<float>(body[0]);
        r.fy = static_cast<float>(body[1]);
        r.fz = static_cast<float>(body[2]);
        r.buoy = static_cast<float>(buoy);
        r.t_ref = static_cast<float>(t_ref);
        std::vector<unsigned char> bad(static_cast<std::size_t>(nz), 0);
        const RowFn row = rowFunction(sampling, temp != nullptr);
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            const int k = static_cast<int>(kc);
            bool any = false;
            for (int j = 0; j < ny; ++j) any |= row(r, j, k);
            bad[kc] = any ? 1 : 0;
        });
        applyPorts(b.data());
        std::swap(a, b);
        ++steps;
        if (sampling) ++samples;
        for (int k = 0; k < nz; ++k)
            if (bad[static_cast<std::size_t>(k)]) reportInstability(k);
    }

#ifdef CT_HAVE_CUDA
    void deviceSteps(int count, bool flags_changed) {
        if (flags_changed) dev->setGeometry(flag, link_solid, link_fluid, link_q, link_term);
        if (dev_ports_stale) {
            std::vector<int> cells, port_of;
            for (std::size_t p = 0; p < ports.size(); ++p)
                for (int c : ports[p].cells) {
                    cells.push_back(c);
                    port_of.push_back(static_cast<int>(p));
                }
            dev->setPorts(cells, port_of);
            dev_ports_stale = false;
        }
        std::vector<float> q, jet;
        std::vector<unsigned char> src;
        for (const Port& p : ports) {
            q.push_back(static_cast<float>(p.q / static_cast<double>(p.cells.size())));
            src.push_back(p.source ? 1 : 0);
            for (int ax = 0; ax < 3; ++ax) jet.push_back(static_cast<float>(p.jet * p.dir[ax]));
        }
        if (!ports.empty()) dev->setPortState(q, src, jet);
        if (dev_state_stale) {
            dev->setPopulations(a);
            dev->resetSums();
            dev_state_stale = false;
        }
        if (temp) dev->setTemperature(temp, interior());
        detail::LatticeStepParams prm{static_cast<float>(spec.tau),
                                      static_cast<float>(spec.smagorinsky_cs * spec.smagorinsky_cs),
                                      static_cast<float>(body[0]),
                                      static_cast<float>(body[1]),
                                      static_cast<float>(body[2]),
                                      static_cast<float>(buoy),
                                      static_cast<float>(t_ref),
                                      {spec.periodic_x, spec.periodic_y, spec.periodic_z},
                                      sampling,
                                      temp != nullptr};
        dev->beginBatch();
        for (int s = 0; s < count; ++s) dev->step(prm);
        host_stale = true;
        int failed_step = -1;
        const long long bad = dev->endBatch(failed_step);
        if (bad >= 0) {  // reported at the step that failed; the state shown is the batch's last
            steps += failed_step + 1;
            syncHost();
            const int pk = static_cast<int>(bad / (static_cast<long long>(px) * py));
            reportInstability(pk - 1);
        }
        steps += count;
        if (sampling) samples += count;
    }
#endif

    void applyPorts(float* f) {
        for (const Port& p : ports) {
            const float q = static_cast<float>(p.q / static_cast<double>(p.cells.size()));
            const float jx = static_cast<float>(p.jet * p.dir[0]), jy = static_cast<float>(p.jet * p.dir[1]),
                        jz = static_cast<float>(p.jet * p.dir[2]);
            for (int c : p.cells) {
                float v[kQ];
                for (int qd = 0; qd < kQ; ++qd) v[qd] = f[static_cast<std::size_t>(qd) * n + c];
                lbm::portExchange(v, q, p.source, jx, jy, jz);
                for (int qd = 0; qd < kQ; ++qd) f[static_cast<std::size_t>(qd) * n + c] = v[qd];
            }
        }
    }

    /// f(ρ, ux, uy, uz) for every fluid cell of the current (host) state.
    template <class F>
    void forFluidCells(F&& f) {
        syncHost();
        for (std::size_t c = 0; c < interior(); ++c) {
            if (solid[c]) continue;
            double rho, ux, uy, uz;
            cellMoments(padOf(static_cast<int>(c)), rho, ux, uy, uz);
            f(rho, ux, uy, uz);
        }
    }

    void cellMoments(int p, double& rho, double& ux, double& uy, double& uz) const {
        double d = 0, jx = 0, jy = 0, jz = 0;
        for (int q = 0; q < kQ; ++q) {
            const double v = a[static_cast<std::size_t>(q) * n + p];
            d += v;
            jx += lbm::cx(q) * v;
            jy += lbm::cy(q) * v;
            jz += lbm::cz(q) * v;
        }
        rho = 1 + d;
        ux = jx / rho;
        uy = jy / rho;
        uz = jz / rho;
    }

    /// Names the cell of plane k furthest from a sound state and why. The step's check saw the streamed state and
    /// this is the collided one, so the named cell may sit just inside the limits; it is still the worst.
    [[noreturn]] void reportInstability(int k) const {
        int wi = 0, wj = 0;
        double worst = -1, wrho = 1, wsp = 0;
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const int p = pad(i, j, k);
                if (flag[p]) continue;
                double rho, ux, uy, uz;
                cellMoments(p, rho, ux, uy, uz);
                const double sp = std::sqrt(ux * ux + uy * uy + uz * uz);
                const double score = std::isfinite(rho + sp) ? std::max(sp / kMaxSpeed, std::fabs(rho - 1) / (kMaxRho - 1)) : 1e300;
                if (score > worst) {
                    worst = score;
                    wi = i;
                    wj = j;
                    wrho = rho;
                    wsp = sp;
                }
            }
        std::string why;
        if (!std::isfinite(wrho + wsp)) why = "the populations became NaN or infinite";
        else if (wsp / kMaxSpeed >= std::fabs(wrho - 1) / (kMaxRho - 1))
            why = "the air speed reached " + std::to_string(wsp) + " in lattice units (Mach " + std::to_string(wsp * std::sqrt(3.0)) +
                  ", limit 0.35): the flow is faster than the lattice's time step allows (an inflow faster than expected, or "
                  "buoyancy from an extreme temperature)";
        else
            why = "the density reached " + std::to_string(wrho) +
                  " (limits 0.5–1.5): mass is piling up or draining (ports that do not balance, or a flow too fast for the lattice)";
        throw LatticeUnstable("lattice unstable at cell (" + std::to_string(wi) + ", " + std::to_string(wj) + ", " + std::to_string(k) +
                                  ") at step " + std::to_string(steps) + ": " + why,
                              wi, wj, k, steps);
    }
};

Lattice::Lattice(const LatticeSpec& spec, ThreadPool& pool) : d_(std::make_unique<Impl>(spec, pool)) {
    if (spec.nx < 1 || spec.ny < 1 || spec.nz < 1) throw SimError("lattice: the box has no cells");
    if (!(spec.tau > 0.5)) throw SimError("lattice: the relaxation time must be above 1/2 (it sets ν = (τ − 1/2)/3)");
    if (!(spec.smagorinsky_cs >= 0 && spec.smagorinsky_cs < 0.5))
        throw SimError("lattice: the Smagorinsky constant must be within [0, 0.5)");
    Impl& d = *d_;
    d.nx = nx_ = spec.nx;
    d.ny = ny_ = spec.ny;
    d.nz = nz_ = spec.nz;
    d.px = nx_ + 2;
    d.py = ny_ + 2;
    d.pz = nz_ + 2;
    d.n = static_cast<std::size_t>(d.px) * d.py * d.pz;
    d.solid.assign(d.interior(), 0);
    d.a.assign(d.n * kQ, 0.f);
    d.b.assign(d.n * kQ, 0.f);
    if (spec.backend == Backend::Cuda) {
#ifdef CT_HAVE_CUDA
        try {
            d.dev = std::make_unique<detail::LatticeDevice>(d.px, d.py, d.pz);
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
std::size_t Lattice::cellCount() const { return d_->interior(); }
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
        if (c < 0 || static_cast<std::size_t>(c) >= d_->interior()) throw SimError("lattice port cell out of range");
        if (d_->solid[static_cast<std::size_t>(c)]) throw SimError("lattice port cell is solid");
        p.cells.push_back(d_->padOf(c));
    }
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
    d_->temp = temperature;
    d_->buoy = per_kelvin;
    d_->t_ref = t_ref;
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
    for (std::size_t c = 0; c < d.interior(); ++c) {
        if (d.solid[c]) continue;
        const std::size_t p = static_cast<std::size_t>(d.padOf(static_cast<int>(c)));
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
            d.a[static_cast<std::size_t>(q) * d.n + p] = lbm::equilibriumDeviation(q, drho * rf * rf, ux * rf, uy * rf, uz * rf) + rf * neq;
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
    for (int s = 0; s < count; ++s) d.cpuStep();
}
std::int64_t Lattice::steps() const { return d_->steps; }

void Lattice::setSampling(bool on) {
    d_->sampling = on;
    if (on && d_->sum_u.empty()) resetMeans();
}

void Lattice::resetMeans() {
    d_->sum_u.assign(3 * d_->interior(), 0.f);
    d_->sum_nu.assign(d_->interior(), 0.f);
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

std::vector<float> Lattice::meanVelocity() const {
    d_->syncHost();
    const Impl& d = *d_;
    std::vector<float> u(3 * d.interior(), 0.f);
    if (d.samples > 0) {
        const float inv = 1.f / static_cast<float>(d.samples);
        const std::size_t cells = d.interior();
        for (std::size_t c = 0; c < cells; ++c)
            for (int ax = 0; ax < 3; ++ax)
                u[3 * c + static_cast<std::size_t>(ax)] = d.sum_u[static_cast<std::size_t>(ax) * cells + c] * inv;
        return u;
    }
    for (int k = 0; k < nz_; ++k)
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i < nx_; ++i) {
                const int c = index(i, j, k), p = d.pad(i, j, k);
                if (d.solid[static_cast<std::size_t>(c)]) continue;
                double rho, ux, uy, uz;
                d.cellMoments(p, rho, ux, uy, uz);
                u[3 * c] = static_cast<float>(ux);
                u[3 * c + 1] = static_cast<float>(uy);
                u[3 * c + 2] = static_cast<float>(uz);
            }
    return u;
}

std::vector<float> Lattice::meanEddyViscosity() const {
    d_->syncHost();
    const Impl& d = *d_;
    std::vector<float> nu(d.interior(), 0.f);
    if (d.samples > 0)
        for (std::size_t c = 0; c < nu.size(); ++c) nu[c] = d.sum_nu[c] / static_cast<float>(d.samples);
    return nu;
}

void Lattice::moments(int cell, double& rho, double& ux, double& uy, double& uz) const {
    d_->syncHost();
    d_->cellMoments(d_->padOf(cell), rho, ux, uy, uz);
}

double Lattice::totalMass() const {
    double m = 0;
    d_->forFluidCells([&](double rho, double, double, double) { m += rho; });
    return m;
}

double Lattice::maxSpeed() const {
    double m = 0;
    d_->forFluidCells([&](double, double ux, double uy, double uz) { m = std::max(m, std::sqrt(ux * ux + uy * uy + uz * uz)); });
    return m;
}

}  // namespace ct::sim
