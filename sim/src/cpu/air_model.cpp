#include <clustertwin/sim/air_model.hpp>
#ifdef CT_HAVE_CUDA
#include "../air_device.hpp"
// Device calls report CUDA failures (call, file, line) as the engine's SimError.
#define CT_ON_DEVICE(...)                                                                                   \
    do {                                                                                                    \
        try {                                                                                               \
            __VA_ARGS__;                                                                                    \
        } catch (const ::ct::sim::SimError&) {                                                              \
            throw;                                                                                          \
        } catch (const std::runtime_error& e) {                                                             \
            throw ::ct::sim::SimError(std::string("CUDA backend: ") + e.what());                            \
        }                                                                                                   \
    } while (0)
#endif
#include <clustertwin/sim/kernels.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ct::sim {

namespace k = kernels;

std::uint64_t airModelBytes(const AirGridSpec& s) {
    if (!(s.cell_m > 0)) return 0;
    const double n = std::ceil(s.width_m / s.cell_m) * std::ceil(s.depth_m / s.cell_m) * std::ceil(s.height_m / s.cell_m);
    // T, T2, fx, fy, fz (float) + φ and five CG vectors (double) + s (double) + two masks.
    return static_cast<std::uint64_t>(n * (5 * 4 + 7 * 8 + 2));
}

struct AirModel::Impl {
    AirGridSpec spec;
    ThreadPool& pool;
    int nx, ny, nz;
    double h, vol, diff;
    std::vector<unsigned char> solid, nb;
    std::vector<float> t, t2, fx, fy, fz;  ///< t, t2: one padding element before cell 0 and after the last
    float* T() { return t.data() + 1; }
    const float* T() const { return t.data() + 1; }
    std::vector<double> phi;
    struct Port {
        std::vector<int> cells;
        bool source;
        double q = 0;
        double t_in = 20;
    };
    std::vector<Port> ports;
    bool geometry_dirty = true;
    double stable_dt = 0;
    std::vector<double> src;  ///< per-cell net source of the last flow solve (m³/s)

#ifdef CT_HAVE_CUDA
    // CUDA backend: the device holds T; the host copy is refreshed only when read (host_stale), and
    // uploaded again after host-side writes (device_stale).
    std::unique_ptr<detail::AirDevice> dev;
    bool host_stale = false, device_stale = true, ports_stale = true, port_state_stale = true, geometry_on_device = false;
    std::vector<double> port_sums;
    bool port_sums_valid = false;
#endif
    bool onDevice() const {
#ifdef CT_HAVE_CUDA
        return dev != nullptr;
#else
        return false;
#endif
    }
    /// Brings the host's T up to date before it is read.
    void syncHost() {
#ifdef CT_HAVE_CUDA
        if (dev && host_stale) {
            CT_ON_DEVICE(dev->getTemperature(T()));
            host_stale = false;
        }
#endif
    }
    /// After the host wrote T: the device copy must be refreshed before the next step.
    void hostWrote() {
#ifdef CT_HAVE_CUDA
        device_stale = true;
        port_sums_valid = false;
#endif
    }

    Impl(const AirGridSpec& s, ThreadPool& p) : spec(s), pool(p) {}

    /// Chunked loops: across the pool for large grids; in the calling thread when a step is too short to
    /// pay for waking the others. Chunks are the same either way, so results are too.
    void run(std::size_t chunks, const std::function<void(std::size_t)>& fn) {
        if (n() < spec.min_parallel_cells) {
            for (std::size_t c = 0; c < chunks; ++c) fn(c);
        } else {
            pool.run(chunks, fn);
        }
    }

    std::size_t n() const { return static_cast<std::size_t>(nx) * ny * nz; }
    int idx(int i, int j, int kk) const { return i + nx * (j + ny * kk); }
    int fxi(int i, int j, int kk) const { return i + (nx + 1) * (j + ny * kk); }
    int fyi(int i, int j, int kk) const { return i + nx * (j + (ny + 1) * kk); }
    int fzi(int i, int j, int kk) const { return i + nx * (j + ny * kk); }

    void updateNeighbours() {
        if (!geometry_dirty) return;
        for (int kk = 0; kk < nz; ++kk)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    unsigned char m = 0;
                    if (!solid[c]) {
                        if (i > 0 && !solid[c - 1]) m |= k::kWest;
                        if (i + 1 < nx && !solid[c + 1]) m |= k::kEast;
                        if (j > 0 && !solid[c - nx]) m |= k::kSouth;
                        if (j + 1 < ny && !solid[c + nx]) m |= k::kNorth;
                        if (kk > 0 && !solid[c - nx * ny]) m |= k::kDown;
                        if (kk + 1 < nz && !solid[c + nx * ny]) m |= k::kUp;
                    }
                    nb[c] = m;
                }
        geometry_dirty = false;
    }

    /// y = M x over fluid cells, one z-plane per chunk.
    void apply(const std::vector<double>& x, std::vector<double>& y) {
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            const int kk = static_cast<int>(kc);
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    if (solid[c]) {
                        y[c] = 0;
                        continue;
                    }
                    const unsigned char m = nb[c];
                    y[c] = k::laplaceApply(x[c], (m & k::kWest) ? x[c - 1] : 0, (m & k::kEast) ? x[c + 1] : 0,
                                           (m & k::kSouth) ? x[c - nx] : 0, (m & k::kNorth) ? x[c + nx] : 0,
                                           (m & k::kDown) ? x[c - nx * ny] : 0, (m & k::kUp) ? x[c + nx * ny] : 0, m, h);
                }
        });
    }

    /// Σ a·b with per-plane partial sums added in plane order: the same bits for any thread count.
    double dot(const std::vector<double>& a, const std::vector<double>& b) {
        std::vector<double> part(static_cast<std::size_t>(nz), 0.0);
        const std::size_t plane = static_cast<std::size_t>(nx) * ny;
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            double s = 0;
            for (std::size_t c = kc * plane; c < (kc + 1) * plane; ++c) s += a[c] * b[c];
            part[kc] = s;
        });
        double s = 0;
        for (double p : part) s += p;
        return s;
    }

    template <class F>
    void forAll(F&& f) {
        const std::size_t plane = static_cast<std::size_t>(nx) * ny;
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            for (std::size_t c = kc * plane; c < (kc + 1) * plane; ++c) f(c);
        });
    }

    std::vector<double> sources() const {
        std::vector<double> s(n(), 0.0);
        for (const Port& p : ports) {
            const double per = p.q / static_cast<double>(p.cells.size());
            for (int c : p.cells) s[c] += p.source ? per : -per;
        }
        return s;
    }

    void computeStableDt() {
        std::vector<double> sink(n(), 0.0);
        for (const Port& p : ports)
            if (!p.source)
                for (int c : p.cells) sink[c] += p.q / static_cast<double>(p.cells.size());
        std::vector<double> part(static_cast<std::size_t>(nz), 0.0);
        run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
            const int kk = static_cast<int>(kc);
            double worst = 0;
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = idx(i, j, kk);
                    if (solid[c]) continue;
                    const unsigned char m = nb[c];
                    int deg = 0;
                    for (unsigned char bit : {k::kWest, k::kEast, k::kSouth, k::kNorth, k::kDown, k::kUp}) deg += (m & bit) ? 1 : 0;
                    const double out = k::posf(fx[fxi(i + 1, j, kk)]) + k::posf(-fx[fxi(i, j, kk)]) +
                                       k::posf(fy[fyi(i, j + 1, kk)]) + k::posf(-fy[fyi(i, j, kk)]) +
                                       k::posf(fz[fzi(i, j, kk + 1)]) + k::posf(-fz[fzi(i, j, kk)]);
                    worst = std::max(worst, out + sink[c] + diff * deg);
                }
            part[kc] = worst;
        });
        const double worst = *std::max_element(part.begin(), part.end());
        stable_dt = worst > 0 ? 0.95 * vol / worst : 1e9;
    }
};

AirModel::AirModel(const AirGridSpec& spec, ThreadPool& pool) : d_(std::make_unique<Impl>(spec, pool)) {
    if (!(spec.cell_m >= 0.05 && spec.cell_m <= 1.0)) throw SimError("air grid: cell size must be within 0.05–1 m");
    if (!(spec.width_m > 0 && spec.depth_m > 0 && spec.height_m > 0)) throw SimError("air grid: the hall has no volume");
    if (!(spec.kappa_m2s >= 0)) throw SimError("air grid: diffusivity must be >= 0");
    Impl& d = *d_;
    d.h = spec.cell_m;
    d.vol = d.h * d.h * d.h;
    d.diff = spec.kappa_m2s * d.h;  // κ·A/h
    d.nx = nx_ = std::max(1, static_cast<int>(std::lround(spec.width_m / d.h)));
    d.ny = ny_ = std::max(1, static_cast<int>(std::lround(spec.depth_m / d.h)));
    d.nz = nz_ = std::max(1, static_cast<int>(std::lround(spec.height_m / d.h)));
    const std::size_t n = d.n();
    d.solid.assign(n, 0);
    d.nb.assign(n, 0);
    d.t.assign(n + 2, 20.f);
    d.t2.assign(n + 2, 20.f);
    d.fx.assign(static_cast<std::size_t>(nx_ + 1) * ny_ * nz_, 0.f);
    d.fy.assign(static_cast<std::size_t>(nx_) * (ny_ + 1) * nz_, 0.f);
    d.fz.assign(static_cast<std::size_t>(nx_) * ny_ * (nz_ + 1), 0.f);
    d.phi.assign(n, 0.0);
    if (spec.backend == Backend::Cuda) {
#ifdef CT_HAVE_CUDA
        CT_ON_DEVICE(d.dev = std::make_unique<detail::AirDevice>(nx_, ny_, nz_));
#else
        throw SimError("the CUDA air backend was asked for, but this build has no CUDA (configured with CT_CUDA=OFF or no nvcc found)");
#endif
    }
}

Backend AirModel::backend() const { return d_->onDevice() ? Backend::Cuda : Backend::Cpu; }

AirModel::~AirModel() = default;

int AirModel::nx() const { return nx_; }
int AirModel::ny() const { return ny_; }
int AirModel::nz() const { return nz_; }
double AirModel::cellM() const { return d_->h; }
std::size_t AirModel::cellCount() const { return d_->n(); }

void AirModel::cellOf(double x, double y, double z, int& i, int& j, int& kk) const {
    i = std::clamp(static_cast<int>(std::floor(x / d_->h)), 0, nx_ - 1);
    j = std::clamp(static_cast<int>(std::floor(y / d_->h)), 0, ny_ - 1);
    kk = std::clamp(static_cast<int>(std::floor(z / d_->h)), 0, nz_ - 1);
}

void AirModel::addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1) {
    Impl& d = *d_;
    // Cells whose centre is inside; at least one cell per axis so thin objects still block.
    auto range = [&](double a, double b, int n, int& lo, int& hi) {
        lo = std::max(0, static_cast<int>(std::ceil(a / d.h - 0.5)));
        hi = std::min(n, static_cast<int>(std::ceil(b / d.h - 0.5)));
        if (hi <= lo) {
            lo = std::clamp(static_cast<int>(std::floor((a + b) / 2 / d.h)), 0, n - 1);
            hi = lo + 1;
        }
    };
    int i0, i1, j0, j1, k0, k1;
    range(x0, x1, nx_, i0, i1);
    range(y0, y1, ny_, j0, j1);
    range(z0, z1, nz_, k0, k1);
    for (int kk = k0; kk < k1; ++kk)
        for (int j = j0; j < j1; ++j)
            for (int i = i0; i < i1; ++i) d.solid[d.idx(i, j, kk)] = 1;
    d.geometry_dirty = true;
#ifdef CT_HAVE_CUDA
    d.geometry_on_device = false;
#endif
}

bool AirModel::solid(int cell) const { return d_->solid[cell] != 0; }
std::size_t AirModel::solidCount() const { return static_cast<std::size_t>(std::count(d_->solid.begin(), d_->solid.end(), 1)); }

int AirModel::addPort(const std::vector<int>& cells, bool source) {
    if (cells.empty()) throw SimError("air port without cells");
    for (int c : cells) {
        if (c < 0 || static_cast<std::size_t>(c) >= d_->n()) throw SimError("air port cell out of range");
        if (d_->solid[c]) throw SimError("air port cell is solid");
    }
    d_->ports.push_back({cells, source, 0.0, 20.0});
#ifdef CT_HAVE_CUDA
    d_->ports_stale = d_->port_state_stale = true;
#endif
    return static_cast<int>(d_->ports.size()) - 1;
}

void AirModel::setPortFlow(int port, double q) {
    d_->ports.at(port).q = std::max(0.0, q);
#ifdef CT_HAVE_CUDA
    d_->port_state_stale = true;
#endif
}
double AirModel::portFlow(int port) const { return d_->ports.at(port).q; }
void AirModel::setPortTemperature(int port, double t_c) {
    d_->ports.at(port).t_in = t_c;
#ifdef CT_HAVE_CUDA
    d_->port_state_stale = true;
#endif
}
const std::vector<int>& AirModel::portCells(int port) const { return d_->ports.at(port).cells; }

double AirModel::portMeanTemperature(int port) const {
    const auto& p = d_->ports.at(port);
#ifdef CT_HAVE_CUDA
    if (d_->dev && d_->host_stale) {
        // Every port's sum in one pass on the device, reused until the next step.
        if (!d_->port_sums_valid) {
            CT_ON_DEVICE(d_->port_sums = d_->dev->portMeans());
            d_->port_sums_valid = true;
        }
        return d_->port_sums.at(static_cast<std::size_t>(port)) / static_cast<double>(p.cells.size());
    }
#endif
    double s = 0;
    for (int c : p.cells) s += d_->T()[c];
    return s / static_cast<double>(p.cells.size());
}

FlowSolveStats AirModel::solveFlow(double rel_res, int max_iter) {
    Impl& d = *d_;
    d.updateNeighbours();
    const std::size_t n = d.n();
    std::vector<double> s = d.sources();
    // Each component of the room must balance its sources; remove any net mismatch evenly over fluid cells.
    double net = 0, total = 0;
    std::size_t fluid = 0;
    for (std::size_t c = 0; c < n; ++c)
        if (!d.solid[c]) {
            net += s[c];
            total += std::fabs(s[c]);
            ++fluid;
        }
    if (fluid > 0 && std::fabs(net) > 0)
        for (std::size_t c = 0; c < n; ++c)
            if (!d.solid[c]) s[c] -= net / static_cast<double>(fluid);

    std::vector<double> b(n), r(n), z(n), p(n), ap(n), diag(n);
    for (std::size_t c = 0; c < n; ++c) {
        b[c] = d.solid[c] ? 0.0 : -s[c];
        int deg = 0;
        for (unsigned char bit : {k::kWest, k::kEast, k::kSouth, k::kNorth, k::kDown, k::kUp}) deg += (d.nb[c] & bit) ? 1 : 0;
        diag[c] = deg > 0 ? d.h * deg : 1.0;
        if (d.solid[c]) d.phi[c] = 0;
    }
    FlowSolveStats st;
    const double bnorm = std::sqrt(d.dot(b, b));
    std::vector<double>& x = d.phi;
    if (bnorm > 0 && d.onDevice()) {
#ifdef CT_HAVE_CUDA
        double achieved = 0;
        CT_ON_DEVICE(d.dev->setGeometry(d.nb, d.solid); st.iterations = d.dev->solve(b, diag, x, d.h, rel_res, max_iter, achieved));
        st.relative_residual = achieved;
        if (st.relative_residual > rel_res)
            throw SimError("air flow solver (CUDA) did not converge: residual " + std::to_string(st.relative_residual) + " after " +
                           std::to_string(st.iterations) + " iterations");
#endif
    } else if (bnorm > 0) {
        d.apply(x, ap);
        d.forAll([&](std::size_t c) { r[c] = b[c] - ap[c]; });
        d.forAll([&](std::size_t c) { z[c] = r[c] / diag[c]; p[c] = z[c]; });
        double rz = d.dot(r, z);
        double rnorm = std::sqrt(d.dot(r, r));
        int it = 0;
        while (rnorm / bnorm > rel_res && it < max_iter) {
            d.apply(p, ap);
            const double pap = d.dot(p, ap);
            if (!(pap > 0)) break;
            const double alpha = rz / pap;
            d.forAll([&](std::size_t c) {
                x[c] += alpha * p[c];
                r[c] -= alpha * ap[c];
                z[c] = r[c] / diag[c];
            });
            const double rz_new = d.dot(r, z);
            const double beta = rz_new / rz;
            rz = rz_new;
            d.forAll([&](std::size_t c) { p[c] = z[c] + beta * p[c]; });
            rnorm = std::sqrt(d.dot(r, r));
            ++it;
        }
        st.iterations = it;
        st.relative_residual = rnorm / bnorm;
        if (st.relative_residual > rel_res)
            throw SimError("air flow solver did not converge: residual " + std::to_string(st.relative_residual) +
                           " after " + std::to_string(it) + " iterations");
    } else {
        std::fill(x.begin(), x.end(), 0.0);
    }
    // Face fluxes F = A/h·Δφ = h·Δφ between fluid cells; zero at walls and solids.
    const double h = d.h;
    d.run(static_cast<std::size_t>(nz_), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i <= nx_; ++i) {
                float f = 0.f;
                if (i > 0 && i < nx_) {
                    const int c = d.idx(i, j, kk);
                    if (!d.solid[c] && !d.solid[c - 1]) f = static_cast<float>(h * (x[c] - x[c - 1]));
                }
                d.fx[d.fxi(i, j, kk)] = f;
            }
        for (int j = 0; j <= ny_; ++j)
            for (int i = 0; i < nx_; ++i) {
                float f = 0.f;
                if (j > 0 && j < ny_) {
                    const int c = d.idx(i, j, kk);
                    if (!d.solid[c] && !d.solid[c - nx_]) f = static_cast<float>(h * (x[c] - x[c - nx_]));
                }
                d.fy[d.fyi(i, j, kk)] = f;
            }
    });
    d.run(static_cast<std::size_t>(nz_ + 1), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = 0; j < ny_; ++j)
            for (int i = 0; i < nx_; ++i) {
                float f = 0.f;
                if (kk > 0 && kk < nz_) {
                    const int c = d.idx(i, j, kk);
                    if (!d.solid[c] && !d.solid[c - nx_ * ny_]) f = static_cast<float>(h * (x[c] - x[c - nx_ * ny_]));
                }
                d.fz[d.fzi(i, j, kk)] = f;
            }
    });
    d.src = std::move(s);
#ifdef CT_HAVE_CUDA
    if (d.dev) {
        CT_ON_DEVICE(d.dev->setGeometry(d.nb, d.solid); d.dev->setFluxes(d.fx, d.fy, d.fz));
        d.geometry_on_device = true;
    }
#endif
    double worst = 0, scale = 0;
    for (const auto& port : d.ports) scale = std::max(scale, port.q / static_cast<double>(port.cells.size()));
    for (std::size_t c = 0; c < n; ++c)
        if (!d.solid[c]) worst = std::max(worst, std::fabs(divergenceError(static_cast<int>(c))));
    st.max_divergence_error = scale > 0 ? worst / scale : worst;
    d.computeStableDt();
    return st;
}

double AirModel::divergenceError(int c) const {
    const Impl& d = *d_;
    const int i = c % nx_, j = (c / nx_) % ny_, kk = c / (nx_ * ny_);
    const double out = static_cast<double>(d.fx[d.fxi(i + 1, j, kk)]) - d.fx[d.fxi(i, j, kk)] +
                       d.fy[d.fyi(i, j + 1, kk)] - d.fy[d.fyi(i, j, kk)] + d.fz[d.fzi(i, j, kk + 1)] - d.fz[d.fzi(i, j, kk)];
    return out - (d.src.empty() ? 0.0 : d.src[c]);
}

double AirModel::stableDt() const { return d_->stable_dt; }

namespace {

struct StepArgs {
    const float* t;
    float* t2;
    const float* fx;
    const float* fy;
    const float* fz;
    const unsigned char* nb;
    int nx, ny, nz, plane;
    float diff, dt_v;
};

/// Cells [i0, i1) of row (j, kk). Neighbours are loaded unconditionally, so the loop vectorizes: west of
/// i = 0 and east of i = nx − 1 lie the neighbouring rows' cells (or the array's padding), rows and planes
/// beyond the grid are replaced by the row itself; every such value is multiplied by a zero wall flux and a
/// clear neighbour bit, so it never counts. Solid cells have zero fluxes and no fluid neighbours, so the same
/// update leaves them unchanged. Compiled for AVX2 too, chosen at run time.
__attribute__((target_clones("avx2", "default"))) void interiorRow(const StepArgs& a, int j, int kk, int i0, int i1) {
    const int row = a.nx * (j + a.ny * kk);
    const float* __restrict t = a.t + row;
    const float* __restrict ts = j > 0 ? t - a.nx : t;
    const float* __restrict tn = j + 1 < a.ny ? t + a.nx : t;
    const float* __restrict td = kk > 0 ? t - a.plane : t;
    const float* __restrict tu = kk + 1 < a.nz ? t + a.plane : t;
    float* __restrict t2 = a.t2 + row;
    const float* __restrict fxr = a.fx + (a.nx + 1) * (j + a.ny * kk);
    const float* __restrict fys = a.fy + a.nx * (j + (a.ny + 1) * kk);
    const float* __restrict fyn = fys + a.nx;
    const float* __restrict fzd = a.fz + row;
    const float* __restrict fzu = fzd + a.plane;
    const unsigned char* __restrict nb = a.nb + row;
    const float diff = a.diff, dt_v = a.dt_v;
#pragma GCC ivdep
    for (int i = i0; i < i1; ++i) {
        t2[i] = k::advectDiffuse(t[i], t[i - 1], t[i + 1], ts[i], tn[i], td[i], tu[i], fxr[i], fxr[i + 1], fys[i], fyn[i],
                                 fzd[i], fzu[i], nb[i], diff, dt_v);
    }
}

} // namespace

void AirModel::step(double dt) {
    Impl& d = *d_;
    d.updateNeighbours();
#ifdef CT_HAVE_CUDA
    if (d.dev) {
        if (!d.geometry_on_device) {  // stepping before any flow solve: still air
            CT_ON_DEVICE(d.dev->setGeometry(d.nb, d.solid); d.dev->setFluxes(d.fx, d.fy, d.fz));
            d.geometry_on_device = true;
        }
        if (d.ports_stale) {
            std::vector<int> cells, port_of;
            for (std::size_t p = 0; p < d.ports.size(); ++p)
                for (int c : d.ports[p].cells) {
                    cells.push_back(c);
                    port_of.push_back(static_cast<int>(p));
                }
            CT_ON_DEVICE(d.dev->setPorts(cells, port_of, static_cast<int>(d.ports.size())));
            d.ports_stale = false;
        }
        if (d.port_state_stale) {
            std::vector<float> q, t_in;
            std::vector<unsigned char> source;
            for (const auto& p : d.ports) {
                q.push_back(static_cast<float>(p.q / static_cast<double>(p.cells.size())));
                t_in.push_back(static_cast<float>(p.t_in));
                source.push_back(p.source ? 1 : 0);
            }
            CT_ON_DEVICE(d.dev->setPortState(q, t_in, source));
            d.port_state_stale = false;
        }
        if (d.device_stale) {
            CT_ON_DEVICE(d.dev->setTemperature(d.T()));
            d.device_stale = false;
        }
        CT_ON_DEVICE(d.dev->step(static_cast<float>(d.diff), static_cast<float>(dt / d.vol)));
        d.host_stale = true;
        d.port_sums_valid = false;
        return;
    }
#endif
    StepArgs a{d.t.data() + 1, d.t2.data() + 1, d.fx.data(), d.fy.data(), d.fz.data(), d.nb.data(),
               nx_, ny_, nz_, nx_ * ny_, static_cast<float>(d.diff), static_cast<float>(dt / d.vol)};
    const int nx = nx_, ny = ny_, nz = nz_;
    d.run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = 0; j < ny; ++j) interiorRow(a, j, kk, 0, nx);
    });
    float* t2 = d.t2.data() + 1;
    const float* t = d.T();
    const float dt_v = a.dt_v;
    for (const auto& p : d.ports) {
        const float q = static_cast<float>(p.q / static_cast<double>(p.cells.size()));
        for (int c : p.cells)
            t2[c] = p.source ? k::portExchange(t2[c], t[c], q, static_cast<float>(p.t_in), 0.f, dt_v)
                             : k::portExchange(t2[c], t[c], 0.f, 0.f, q, dt_v);
    }
    std::swap(d.t, d.t2);
}

int AirModel::advance(double duration, const std::function<void(double)>& before) {
    if (!(duration > 0)) return 0;
    const double lim = stableDt();
    const int n = std::max(1, static_cast<int>(std::ceil(duration / lim - 1e-9)));
    const double dt = duration / n;
    for (int s = 0; s < n; ++s) {
        if (before) before(dt);
        step(dt);
    }
    return n;
}

void AirModel::fill(double t_c) {
    d_->syncHost();
    std::fill(d_->t.begin(), d_->t.end(), static_cast<float>(t_c));
    std::fill(d_->t2.begin(), d_->t2.end(), static_cast<float>(t_c));
#ifdef CT_HAVE_CUDA
    d_->host_stale = false;
#endif
    d_->hostWrote();
}
double AirModel::temperature(int c) const {
    d_->syncHost();
    return d_->T()[c];
}
void AirModel::setTemperature(int c, double t_c) {
    d_->syncHost();
    d_->T()[c] = static_cast<float>(t_c);
    d_->hostWrote();
}
std::vector<float> AirModel::temperatures() const {
    d_->syncHost();
    return {d_->T(), d_->T() + d_->n()};
}
const std::vector<float>& AirModel::fluxX() const { return d_->fx; }
const std::vector<float>& AirModel::fluxY() const { return d_->fy; }
const std::vector<float>& AirModel::fluxZ() const { return d_->fz; }

double AirModel::heatContent() const {
    d_->syncHost();
    double s = 0;
    for (std::size_t c = 0; c < d_->n(); ++c)
        if (!d_->solid[c]) s += d_->T()[c];
    return s * d_->vol;
}

double AirModel::maxSpeedMs() const {
    float m = 0;
    for (float f : d_->fx) m = std::max(m, std::fabs(f));
    for (float f : d_->fy) m = std::max(m, std::fabs(f));
    for (float f : d_->fz) m = std::max(m, std::fabs(f));
    return m / (d_->h * d_->h);
}

} // namespace ct::sim
