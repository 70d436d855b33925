#include "air_model_impl.hpp"

namespace ct::sim {

std::uint64_t airModelBytes(const AirGridSpec& s) {
    if (!(s.cell_m > 0)) return 0;
    const double n = std::ceil(s.width_m / s.cell_m) * std::ceil(s.depth_m / s.cell_m) * std::ceil(s.height_m / s.cell_m);
    // T, T2, κ_t, fx, fy, fz and the seven upwind rates (float) + φ and five CG vectors (double) + s (double)
    // + three masks.
    return static_cast<std::uint64_t>(n * (13 * 4 + 7 * 8 + 3));
}

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
    d.t.assign(n + 2 * Impl::kPad, 20.f);
    d.t2.assign(n + 2 * Impl::kPad, 20.f);
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
    d_->plane_ports_stale = true;
    d_->port_sums_valid = false;
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
double AirModel::carriedFlow(int port) const { return d_->ports.at(port).q_flow; }
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
        d_->devicePortSums();
        return d_->port_sums.at(static_cast<std::size_t>(port)) / static_cast<double>(p.cells.size());
    }
#endif
    if (d_->port_sums_valid) return d_->port_sums.at(static_cast<std::size_t>(port)) / static_cast<double>(p.cells.size());
    double s = 0;
    for (int c : p.cells) s += d_->T()[c];
    return s / static_cast<double>(p.cells.size());
}

double AirModel::stableDt() const { return d_->stable_dt; }
std::size_t AirModel::heldCells() const { return d_->held; }

namespace {

struct UpwindArgs {
    const float* t;
    float* t2;
    const float* c;  ///< the tracer, or null
    float* c2;
    const float* w;  ///< the seven coefficient blocks
    std::size_t n;
    int nx, ny, nz, plane;
    float dt_v;
};

/// Cells of row (j, kk): new = old + dt/V·(Σ rate_in·(neighbour − old) + net·old), for T and the tracer with
/// the same rates, where net is what flows in through the faces minus what flows out (zero but at ports).
/// Differences keep the round-off of a closed room's heat content as small as the stencil form's. Neighbours are loaded unconditionally, so the loop vectorizes: west of i = 0 and east of
/// i = nx − 1 lie the neighbouring rows' cells (or the array's padding), rows and planes beyond the grid are
/// replaced by the row itself; their rates are zero (no flux through a wall, no fluid neighbour), so they
/// never count. Solid cells have all rates zero and stay unchanged. Compiled for AVX2 too, chosen at run time.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void upwindRow(const UpwindArgs& a, int j, int kk) {
    const int row = a.nx * (j + a.ny * kk);
    const int ds = j > 0 ? -a.nx : 0, dn = j + 1 < a.ny ? a.nx : 0;
    const int dd = kk > 0 ? -a.plane : 0, du = kk + 1 < a.nz ? a.plane : 0;
    const float* __restrict ww = a.w + row;
    const float* __restrict we = ww + a.n;
    const float* __restrict ws = we + a.n;
    const float* __restrict wn = ws + a.n;
    const float* __restrict wd = wn + a.n;
    const float* __restrict wu = wd + a.n;
    const float* __restrict wo = wu + a.n;
    const float dt_v = a.dt_v;
    const float* __restrict t = a.t + row;
    float* __restrict t2 = a.t2 + row;
    if (!a.c) {
#pragma GCC ivdep
        for (int i = 0; i < a.nx; ++i)
            t2[i] = t[i] + dt_v * (ww[i] * (t[i - 1] - t[i]) + we[i] * (t[i + 1] - t[i]) + ws[i] * (t[i + ds] - t[i]) +
                                   wn[i] * (t[i + dn] - t[i]) + wd[i] * (t[i + dd] - t[i]) + wu[i] * (t[i + du] - t[i]) + wo[i] * t[i]);
        return;
    }
    const float* __restrict c = a.c + row;
    float* __restrict c2 = a.c2 + row;
#pragma GCC ivdep
    for (int i = 0; i < a.nx; ++i) {
        t2[i] = t[i] + dt_v * (ww[i] * (t[i - 1] - t[i]) + we[i] * (t[i + 1] - t[i]) + ws[i] * (t[i + ds] - t[i]) +
                               wn[i] * (t[i + dn] - t[i]) + wd[i] * (t[i + dd] - t[i]) + wu[i] * (t[i + du] - t[i]) + wo[i] * t[i]);
        c2[i] = c[i] + dt_v * (ww[i] * (c[i - 1] - c[i]) + we[i] * (c[i + 1] - c[i]) + ws[i] * (c[i + ds] - c[i]) +
                               wn[i] * (c[i + dn] - c[i]) + wd[i] * (c[i + dd] - c[i]) + wu[i] * (c[i + du] - c[i]) + wo[i] * c[i]);
    }
}

}  // namespace

void AirModel::step(double dt) {
    Impl& d = *d_;
    d.updateNeighbours();
    d.port_sums_valid = false;
#ifdef CT_HAVE_CUDA
    if (d.dev) {
        d.uploadForStep();
        if (d.tvdPath()) d.stepTvdOnDevice(dt);
        else CT_ON_DEVICE(d.dev->step(static_cast<float>(d.diff), static_cast<float>(dt / d.vol)));
        d.host_stale = true;
        d.tracer_host_stale = !d.tr.empty();
        d.port_sums_valid = d.tracer_sums_valid = false;
        return;
    }
#endif
    if (!d.tvdPath()) {
        d.stepUpwind(dt);
        return;
    }
    d.stepTvd(dt);
}

void AirModel::Impl::buildCoefficients() {
    const std::size_t cells = n();
    coef.assign(7 * cells, 0.f);
    run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
        const int kk = static_cast<int>(kc);
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i) {
                const std::size_t c = static_cast<std::size_t>(idx(i, j, kk));
                if (solid[c]) continue;
                const unsigned m = nb[c];
                const float g = static_cast<float>(diff);
                // Inflow from each side: the flux entering through that face, plus diffusion to a fluid neighbour.
                const float fw = fx[fxi(i, j, kk)], fe = fx[fxi(i + 1, j, kk)];
                const float fs = fy[fyi(i, j, kk)], fn = fy[fyi(i, j + 1, kk)];
                const float fd = fz[fzi(i, j, kk)], fu = fz[fzi(i, j, kk + 1)];
                const float bit[6] = {static_cast<float>(m & 1u),        static_cast<float>((m >> 1) & 1u),
                                      static_cast<float>((m >> 2) & 1u), static_cast<float>((m >> 3) & 1u),
                                      static_cast<float>((m >> 4) & 1u), static_cast<float>((m >> 5) & 1u)};
                const float in[6] = {k::posf(fw), k::posf(-fe), k::posf(fs), k::posf(-fn), k::posf(fd), k::posf(-fu)};
                const float out = k::posf(fe) + k::posf(-fw) + k::posf(fn) + k::posf(-fs) + k::posf(fu) + k::posf(-fd);
                float sum_in = 0;
                const float s = cap.empty() ? 1.f : cap[c];  // a held cell's rates, per its raised capacity
                for (int f = 0; f < 6; ++f) {
                    coef[f * cells + c] = s * (in[f] + g * bit[f]);
                    sum_in += in[f];
                }
                coef[6 * cells + c] = s * (sum_in - out);
            }
    });
    coef_stale = false;
}

void AirModel::Impl::stepUpwind(double dt) {
    if (coef_stale) buildCoefficients();
    const float dt_v = static_cast<float>(dt / vol);
    const bool with_tracer = !tr.empty();
    UpwindArgs a{T(),
                 t2.data() + kPad,
                 with_tracer ? tr.data() + kPad : nullptr,
                 with_tracer ? tr2.data() + kPad : nullptr,
                 coef.data(),
                 n(),
                 nx,
                 ny,
                 nz,
                 nx * ny,
                 dt_v};
    buildPlanePorts();
    const std::vector<PortNow> now = portsNow();
    // Each plane's share of the port sums of the new field: (port, Σ T) in port order.
    std::vector<std::vector<std::pair<int, double>>> plane_sums(static_cast<std::size_t>(nz));
    run(static_cast<std::size_t>(nz), [&](std::size_t kc) {
        for (int j = 0; j < ny; ++j) upwindRow(a, j, static_cast<int>(kc));
        planePortExchange(static_cast<int>(kc), a.t, a.t2, a.c, a.c2, now.data(), dt_v);
        auto& sums = plane_sums[kc];
        for (auto [cell, p] : plane_ports[kc]) {
            if (sums.empty() || sums.back().first != p) sums.emplace_back(p, 0.0);
            sums.back().second += a.t2[cell];
        }
    });
    port_sums.assign(ports.size(), 0.0);
    for (const auto& sums : plane_sums)
        for (auto [p, s] : sums) port_sums[static_cast<std::size_t>(p)] += s;
    port_sums_valid = true;
    std::swap(t, t2);
    if (with_tracer) std::swap(tr, tr2);
}

void AirModel::Impl::buildPlanePorts() {
    if (!plane_ports_stale) return;
    plane_ports.assign(static_cast<std::size_t>(nz), {});
    for (std::size_t p = 0; p < ports.size(); ++p)
        for (int cell : ports[p].cells) plane_ports[static_cast<std::size_t>(cell / (nx * ny))].emplace_back(cell, static_cast<int>(p));
    const std::size_t row_count = static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz);
    std::vector<std::vector<std::pair<int, int>>> by_row(row_count);
    for (const auto& plane : plane_ports)
        for (auto pair : plane) by_row[static_cast<std::size_t>(pair.first / nx)].push_back(pair);
    row_port_begin.assign(row_count + 1, 0);
    row_port_cell.clear();
    row_port_id.clear();
    for (std::size_t r = 0; r < row_count; ++r) {
        std::sort(by_row[r].begin(), by_row[r].end());
        for (auto [cell, p] : by_row[r]) {
            row_port_cell.push_back(cell);
            row_port_id.push_back(p);
        }
        row_port_begin[r + 1] = row_port_cell.size();
    }
    plane_ports_stale = false;
}

std::vector<AirModel::Impl::PortNow> AirModel::Impl::portsNow() const {
    std::vector<PortNow> now(ports.size());
    for (std::size_t p = 0; p < ports.size(); ++p)
        now[p] = {static_cast<float>(ports[p].q_flow / static_cast<double>(ports[p].cells.size())), static_cast<float>(ports[p].t_in),
                  static_cast<float>(ports[p].c_in), ports[p].source};
    return now;
}

void AirModel::Impl::planePortExchange(int kk, const float* in_t, float* out_t, const float* in_c, float* out_c, const PortNow* now,
                                       float dt_v) const {
    for (auto [cell, p] : plane_ports[static_cast<std::size_t>(kk)]) {
        const PortNow& pn = now[static_cast<std::size_t>(p)];
        const float dv = cap.empty() ? dt_v : dt_v * cap[static_cast<std::size_t>(cell)];
        out_t[cell] = pn.source ? k::portExchange(out_t[cell], in_t[cell], pn.q, pn.t_in, 0.f, dv)
                                : k::portExchange(out_t[cell], in_t[cell], 0.f, 0.f, pn.q, dv);
        if (in_c)
            out_c[cell] = pn.source ? k::portExchange(out_c[cell], in_c[cell], pn.q, pn.c_in, 0.f, dv)
                                    : k::portExchange(out_c[cell], in_c[cell], 0.f, 0.f, pn.q, dv);
    }
}

void AirModel::finishDeviceWork() {
#ifdef CT_HAVE_CUDA
    if (d_->dev) CT_ON_DEVICE(d_->dev->synchronize());
#endif
}

void AirModel::Impl::applyPorts(const float* in, float* out, float dt_v, bool tracer) {
    Impl& d = *this;
    for (const auto& p : d.ports) {
        const float q = static_cast<float>(p.q_flow / static_cast<double>(p.cells.size()));
        const float v = static_cast<float>(tracer ? p.c_in : p.t_in);
        for (int cell : p.cells) {
            const float dv = cap.empty() ? dt_v : dt_v * cap[static_cast<std::size_t>(cell)];
            out[cell] =
                p.source ? k::portExchange(out[cell], in[cell], q, v, 0.f, dv) : k::portExchange(out[cell], in[cell], 0.f, 0.f, q, dv);
        }
    }
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
    if (d_->row_slabs) d_->gatherWhole();  // split by rows: each rank had only what the sub-steps read
    return n;
}

void AirModel::enableTracer(double initial) {
    d_->tr.assign(d_->n() + 2 * Impl::kPad, static_cast<float>(initial));
    d_->tr2 = d_->tr;
#ifdef CT_HAVE_CUDA
    d_->tracer_device_stale = true;
    d_->tracer_host_stale = false;
#endif
}

bool AirModel::tracerEnabled() const { return !d_->tr.empty(); }

void AirModel::setPortTracer(int port, double value) {
    d_->ports.at(port).c_in = value;
#ifdef CT_HAVE_CUDA
    d_->port_state_stale = true;
#endif
}

double AirModel::portMeanTracer(int port) const {
    const auto& p = d_->ports.at(port);
    if (d_->tr.empty()) return std::nan("");
#ifdef CT_HAVE_CUDA
    if (d_->dev && d_->tracer_host_stale) {
        d_->devicePortSums();
        return d_->tracer_sums.at(static_cast<std::size_t>(port)) / static_cast<double>(p.cells.size());
    }
#endif
    double s = 0;
    for (int c : p.cells) s += d_->tr[static_cast<std::size_t>(c) + Impl::kPad];
    return s / static_cast<double>(p.cells.size());
}

std::vector<float> AirModel::tracer() const {
    if (d_->tr.empty()) return {};
#ifdef CT_HAVE_CUDA
    if (d_->dev && d_->tracer_host_stale) {
        CT_ON_DEVICE(d_->dev->getTracer(d_->tr.data() + Impl::kPad));
        d_->tracer_host_stale = false;
    }
#endif
    return {d_->tr.begin() + Impl::kPad, d_->tr.end() - Impl::kPad};
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
        if (!d_->solid[c]) s += d_->cap.empty() ? d_->T()[c] : d_->T()[c] / static_cast<double>(d_->cap[c]);
    return s * d_->vol;
}

double AirModel::maxSpeedMs() const {
    float m = 0;
    for (float f : d_->fx) m = std::max(m, std::fabs(f));
    for (float f : d_->fy) m = std::max(m, std::fabs(f));
    for (float f : d_->fz) m = std::max(m, std::fabs(f));
    return m / (d_->h * d_->h);
}

bool AirModel::Impl::anyWall() const {
    for (const auto& w : walls)
        if (w.fixed) return true;
    return false;
}

std::vector<int> AirModel::Impl::faceCells(int face) const {
    std::vector<int> cells;
    const int axis = face / 2;
    const bool hi = face % 2 == 1;
    const int dims[3] = {nx, ny, nz};
    const int fixed = hi ? dims[axis] - 1 : 0;
    const int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
    for (int v = 0; v < dims[a2]; ++v)
        for (int u = 0; u < dims[a1]; ++u) {
            int ijk[3];
            ijk[axis] = fixed;
            ijk[a1] = u;
            ijk[a2] = v;
            cells.push_back(idx(ijk[0], ijk[1], ijk[2]));
        }
    return cells;
}

void AirModel::setEddyDiffusivity(const std::vector<float>& kappa_t, bool restep) {
    Impl& d = *d_;
    if (kappa_t.empty()) {
        d.kt.clear();
    } else {
        if (kappa_t.size() != d.n()) throw SimError("eddy diffusivity: one value per cell expected");
        d.kt.assign(d.n() + 2 * Impl::kPad, 0.f);
        for (std::size_t c = 0; c < d.n(); ++c) d.kt[c + Impl::kPad] = d.solid[c] ? 0.f : std::max(0.f, kappa_t[c]);
    }
#ifdef CT_HAVE_CUDA
    d.kt_stale = d.walls_stale = true;
#endif
    if (restep) d.computeStableDt();
    else d.coef_stale = true;
}

void AirModel::setWallTemperature(GridFace face, double t_c) {
    d_->walls[static_cast<int>(face)] = {true, t_c};
#ifdef CT_HAVE_CUDA
    d_->walls_stale = true;
#endif
    d_->computeStableDt();
}

double AirModel::wallHeatFlow(GridFace face) const {
#ifdef CT_HAVE_CUDA
    if (d_->dev && d_->wall_flows_on_device) {
        std::vector<double> flows;
        CT_ON_DEVICE(flows = d_->dev->wallFlows());
        std::copy(flows.begin(), flows.end(), d_->wall_flow);
        d_->wall_flows_on_device = false;
    }
#endif
    return d_->wall_flow[static_cast<int>(face)];
}

}  // namespace ct::sim
