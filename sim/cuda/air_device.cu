// CUDA side of the air model: thin launch wrappers around the per-cell functions in kernels.hpp.
#include "air/transport/air_device.hpp"
#include "check.cuh"
#include "device_buffer.cuh"
#include "profile.cuh"

#include "air/transport/kernels.hpp"

#include <cmath>
#include <string>

// Device code is C++17 and sees no model headers: failures are CudaError (file, line, call), which the air
// model turns into SimError.
#define CT_DEV_CHECK(call) CT_CUDA_CHECK(call)
#define CT_DEV_LAUNCHED() CT_CUDA_CHECK(cudaGetLastError())

namespace ct::sim::detail {

namespace k = kernels;

namespace {

template <class T>
using Buf = cuda::DeviceBuffer<T>;

struct Grid {
    int nx, ny, nz;
};

/// One thread per cell, x fastest (coalesced): the CPU's interior loop, bounds made explicit. T (t → t2) and, when
/// `c` is set, the tracer (c → c2) with the same fluxes in the same launch.
__global__ void stepKernel(const float* __restrict__ t, float* __restrict__ t2, const float* __restrict__ c, float* __restrict__ c2,
                           const float* __restrict__ fx, const float* __restrict__ fy, const float* __restrict__ fz,
                           const unsigned char* __restrict__ nb, const float* __restrict__ cap, Grid g, float diff, float dt_v) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y;
    const int kk = blockIdx.z;
    if (i >= g.nx) return;
    const int plane = g.nx * g.ny;
    const int cell = i + g.nx * (j + g.ny * kk);
    const int xf = i + (g.nx + 1) * (j + g.ny * kk);
    const int yf = i + g.nx * (j + (g.ny + 1) * kk);
    const float fw = fx[xf], fe = fx[xf + 1], fs = fy[yf], fn = fy[yf + g.nx], fd = fz[cell], fu = fz[cell + plane];
    const unsigned m = nb[cell];
    const float dv = cap ? dt_v * cap[cell] : dt_v;  // a held cell's step, per its raised capacity
    // Beyond the grid the cell's own value stands in; a clear neighbour bit and a zero wall flux ignore it.
    auto update = [&](const float* __restrict__ v) {
        const float vc = v[cell];
        return k::advectDiffuse(vc, i > 0 ? v[cell - 1] : vc, i + 1 < g.nx ? v[cell + 1] : vc, j > 0 ? v[cell - g.nx] : vc,
                                j + 1 < g.ny ? v[cell + g.nx] : vc, kk > 0 ? v[cell - plane] : vc, kk + 1 < g.nz ? v[cell + plane] : vc, fw,
                                fe, fs, fn, fd, fu, m, diff, dv);
    };
    t2[cell] = update(t);
    if (c) c2[cell] = update(c);
}

/// One thread per cell: the TVD / variable-diffusivity step, as the CPU's tvdRow (air_model.cpp), for T and, when
/// `c` is set, the tracer. Neighbours beyond the grid read the cell itself; their bits are clear, so they never count.
__global__ void tvdKernel(const float* __restrict__ t, float* __restrict__ t2, const float* __restrict__ c, float* __restrict__ c2,
                          const float* __restrict__ kt, const float* __restrict__ fx, const float* __restrict__ fy,
                          const float* __restrict__ fz, const unsigned* __restrict__ nbw, const float* __restrict__ cap, Grid g, float h,
                          float kappa, float dt_v, unsigned far_mask) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y;
    const int kk = blockIdx.z;
    if (i >= g.nx) return;
    const int plane = g.nx * g.ny;
    const int cell = i + g.nx * (j + g.ny * kk);
    auto at = [&](int di, int dj, int dk) {
        const int ii = i + di, jj = j + dj, kq = kk + dk;
        if (ii < 0 || ii >= g.nx || jj < 0 || jj >= g.ny || kq < 0 || kq >= g.nz) return cell;
        return cell + di + dj * g.nx + dk * plane;
    };
    const unsigned w = nbw[cell];
    const unsigned m = w & 0xFFu;
    const float kc = kt[cell];
    const float gw = static_cast<float>(m & 1u) * h * (kappa + 0.5f * (kc + kt[at(-1, 0, 0)]));
    const float ge = static_cast<float>((m >> 1) & 1u) * h * (kappa + 0.5f * (kc + kt[at(1, 0, 0)]));
    const float gs = static_cast<float>((m >> 2) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, -1, 0)]));
    const float gn = static_cast<float>((m >> 3) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, 1, 0)]));
    const float gd = static_cast<float>((m >> 4) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, 0, -1)]));
    const float gu = static_cast<float>((m >> 5) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, 0, 1)]));
    const int xf = i + (g.nx + 1) * (j + g.ny * kk);
    const int yf = i + g.nx * (j + (g.ny + 1) * kk);
    const float fw = fx[xf], fe = fx[xf + 1], fs = fy[yf], fn = fy[yf + g.nx], fd = fz[cell], fu = fz[cell + plane];
    const unsigned m2 = (w >> 8) & far_mask;
    const float dv = cap ? dt_v * cap[cell] : dt_v;  // a held cell's step, per its raised capacity
    auto update = [&](const float* __restrict__ v) {
        const k::Stencil13 s{v[cell],         v[at(-1, 0, 0)], v[at(1, 0, 0)],  v[at(0, -1, 0)], v[at(0, 1, 0)],
                             v[at(0, 0, -1)], v[at(0, 0, 1)],  v[at(-2, 0, 0)], v[at(2, 0, 0)],  v[at(0, -2, 0)],
                             v[at(0, 2, 0)],  v[at(0, 0, -2)], v[at(0, 0, 2)]};
        return k::advectDiffuseTvd(s, fw, fe, fs, fn, fd, fu, m, m2, gw, ge, gs, gn, gd, gu, dv);
    };
    t2[cell] = update(t);
    if (c) c2[cell] = update(c);
}

/// One thread per wall entry: conduction across the half cell to a fixed-temperature face; each face's total.
__global__ void wallKernel(const float* __restrict__ t, float* t2, const int* __restrict__ cells, const float* __restrict__ g,
                           const float* __restrict__ t_wall, const int* __restrict__ face, const float* __restrict__ cap, int entries,
                           float dt_v, double* flows) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= entries) return;
    const int c = cells[e];
    const float q = g[e] * (t_wall[e] - t[c]);
    atomicAdd(&t2[c], (cap ? dt_v * cap[c] : dt_v) * q);
    atomicAdd(&flows[face[e]], static_cast<double>(q));
}

/// One thread per port entry. A cell may belong to more than one port: each adds its exchange.
/// T (and the tracer when `c` is set) in the same launch; inflow values per port at t_in and c_in.
__global__ void portKernel(const float* __restrict__ t, float* t2, const float* __restrict__ c, float* c2, const int* __restrict__ cells,
                           const int* __restrict__ port_of, const float* __restrict__ q, const float* __restrict__ t_in,
                           const float* __restrict__ c_in, const float* __restrict__ source, const float* __restrict__ cap, int entries,
                           float dt_v) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= entries) return;
    const int cell = cells[e], p = port_of[e];
    const float dv = cap ? dt_v * cap[cell] : dt_v;
    const bool src = source[p] != 0.f;
    atomicAdd(&t2[cell], src ? k::portExchange(0.f, t[cell], q[p], t_in[p], 0.f, dv) : k::portExchange(0.f, t[cell], 0.f, 0.f, q[p], dv));
    if (c)
        atomicAdd(&c2[cell],
                  src ? k::portExchange(0.f, c[cell], q[p], c_in[p], 0.f, dv) : k::portExchange(0.f, c[cell], 0.f, 0.f, q[p], dv));
}

/// Σ T over each port's cells into sums[port], and Σ tracer into sums[ports + port] when `c` is set.
__global__ void portSumKernel(const float* __restrict__ t, const float* __restrict__ c, const int* __restrict__ cells,
                              const int* __restrict__ port_of, int entries, int ports, double* sums) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= entries) return;
    atomicAdd(&sums[port_of[e]], static_cast<double>(t[cells[e]]));
    if (c) atomicAdd(&sums[ports + port_of[e]], static_cast<double>(c[cells[e]]));
}

__global__ void applyKernel(const double* __restrict__ x, double* __restrict__ y, const unsigned char* __restrict__ nb,
                            const unsigned char* __restrict__ solid, Grid g, double h) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y;
    const int kk = blockIdx.z;
    if (i >= g.nx) return;
    const int plane = g.nx * g.ny;
    const int c = i + g.nx * (j + g.ny * kk);
    if (solid[c]) {
        y[c] = 0;
        return;
    }
    const unsigned char m = nb[c];
    y[c] = k::laplaceApply(x[c], (m & k::kWest) ? x[c - 1] : 0, (m & k::kEast) ? x[c + 1] : 0, (m & k::kSouth) ? x[c - g.nx] : 0,
                           (m & k::kNorth) ? x[c + g.nx] : 0, (m & k::kDown) ? x[c - plane] : 0, (m & k::kUp) ? x[c + plane] : 0, m, h);
}

/// Σ a·b: per-block shared-memory sums, then one atomic add per block.
__global__ void dotKernel(const double* __restrict__ a, const double* __restrict__ b, std::size_t n, double* out) {
    __shared__ double part[256];
    double s = 0;
    for (std::size_t c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += static_cast<std::size_t>(blockDim.x) * gridDim.x)
        s += a[c] * b[c];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

/// The conjugate gradient's scalars live on the device, so that an iteration queues its kernels without waiting
/// for a dot product to come back: slots of Impl::scalar.
enum CgSlot { kRz, kPap, kRzNew, kRr, kCgSlots };

/// x += α p; r −= α Ap; z = r / diag, with α = (r·z) / (p·Ap) read on the device (0 once p·Ap is not positive:
/// the iteration has broken down and the host stops at its next check).
__global__ void updateKernel(double* x, double* r, double* z, const double* __restrict__ p, const double* __restrict__ ap,
                             const double* __restrict__ diag, const double* __restrict__ s, std::size_t n) {
    const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (c >= n) return;
    const double alpha = s[kPap] > 0 ? s[kRz] / s[kPap] : 0.0;
    x[c] += alpha * p[c];
    r[c] -= alpha * ap[c];
    z[c] = r[c] / diag[c];
}

/// p = z + β p, β = (r·z)new / (r·z).
__global__ void directionKernel(double* p, const double* __restrict__ z, const double* __restrict__ s, std::size_t n) {
    const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (c >= n) return;
    const double beta = s[kRz] != 0 ? s[kRzNew] / s[kRz] : 0.0;
    p[c] = z[c] + beta * p[c];
}

/// Between iterations (one thread): (r·z) ← (r·z)new; the sums the next iteration accumulates start at 0.
__global__ void rollKernel(double* s, bool roll) {
    if (roll) s[kRz] = s[kRzNew];
    s[kPap] = s[kRzNew] = s[kRr] = 0;
}

/// r = b − Ap; z = r / diag; p = z.
__global__ void residualKernel(const double* __restrict__ b, const double* __restrict__ ap, const double* __restrict__ diag, double* r,
                               double* z, double* p, std::size_t n) {
    const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (c >= n) return;
    r[c] = b[c] - ap[c];
    z[c] = r[c] / diag[c];
    p[c] = z[c];
}

constexpr int kBlock = 256;
unsigned blocks(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

}  // namespace

struct AirDevice::Impl {
    Grid g{};
    std::size_t n = 0;
    /// c, c2: the passive tracer, stepped with T when `tracer` (same fluxes, diffusivity and ports; no walls).
    Buf<float> t, t2, c, c2, fx, fy, fz, cap;
    bool tracer = false;
    /// Per port, packed so that a sub-step's change is one copy: flow per cell, T in, tracer in, source (1 / 0).
    Buf<float> port_state;
    cuda::PinnedBuffer<float> port_stage;
    cuda::PinnedBuffer<double> sums_stage;
    const float* portQ() const { return port_state.p; }
    const float* portIn(bool tracer_field) const { return port_state.p + (tracer_field ? 2 : 1) * ports; }
    const float* portSource() const { return port_state.p + 3 * ports; }
    Buf<unsigned char> nb, solid;
    Buf<unsigned> nbw;
    Buf<float> kt, wall_g, wall_t;
    Buf<int> cells, port_of, wall_cells, wall_face;
    Buf<double> wall_flows;
    int ports = 0;
    Buf<double> sums;
    // CG work vectors, a device scalar for dot products and the iteration's scalars (CgSlot).
    Buf<double> x, b, r, z, p, ap, diag, scalar, cg;

    dim3 gridDims() const {
        return dim3(static_cast<unsigned>((g.nx + 127) / 128), static_cast<unsigned>(g.ny), static_cast<unsigned>(g.nz));
    }
    const float* capOrNull() const { return cap.n == n ? cap.p : nullptr; }
    /// After a cell kernel wrote t2 (and c2): every port's exchange onto them, then they become the fields.
    void portsAndSwap(float dt_v) {
        const int entries = static_cast<int>(cells.n);
        if (entries > 0 && port_state.n == 4 * static_cast<std::size_t>(ports)) {
            portKernel<<<blocks(entries), kBlock>>>(t.p, t2.p, tracer ? c.p : nullptr, c2.p, cells.p, port_of.p, portQ(), portIn(false),
                                                    portIn(true), portSource(), capOrNull(), entries, dt_v);
            CT_DEV_LAUNCHED();
        }
        std::swap(t.p, t2.p);
        if (tracer) std::swap(c.p, c2.p);
    }
    /// Σ T (and Σ tracer when it is on) over each port's cells: queued, then one wait for the copy back.
    void portSums(std::vector<double>& t_sums, std::vector<double>& c_sums) {
        const std::size_t np = static_cast<std::size_t>(ports);
        t_sums.assign(np, 0.0);
        c_sums.assign(tracer ? np : 0, 0.0);
        const int entries = static_cast<int>(cells.n);
        if (ports == 0 || entries == 0) return;
        const std::size_t count = (tracer ? 2 : 1) * np;
        double* host = sums_stage.ready(count);
        CT_DEV_CHECK(cudaMemsetAsync(sums.p, 0, count * sizeof(double)));
        portSumKernel<<<blocks(entries), kBlock>>>(t.p, tracer ? c.p : nullptr, cells.p, port_of.p, entries, ports, sums.p);
        CT_DEV_LAUNCHED();
        CT_DEV_CHECK(cudaMemcpyAsync(host, sums.p, count * sizeof(double), cudaMemcpyDeviceToHost));
        CT_DEV_CHECK(cudaStreamSynchronize(nullptr));
        std::copy(host, host + np, t_sums.begin());
        if (tracer) std::copy(host + np, host + 2 * np, c_sums.begin());
    }
    double dot(const double* a, const double* bb) {
        CT_DEV_CHECK(cudaMemset(scalar.p, 0, sizeof(double)));
        const unsigned nb_blocks = std::min<unsigned>(blocks(n), 1024u);
        dotKernel<<<nb_blocks, kBlock>>>(a, bb, n, scalar.p);
        CT_DEV_LAUNCHED();
        double s = 0;
        scalar.download(&s, 1);
        return s;
    }
};

AirDevice::AirDevice(int nx, int ny, int nz) : d_(std::make_unique<Impl>()) {
    CT_DEV_CHECK(cudaSetDevice(cuda::rankDevice()));  // one GPU a rank
    d_->g = {nx, ny, nz};
    d_->n = static_cast<std::size_t>(nx) * ny * nz;
    d_->t.alloc(d_->n);
    d_->t2.alloc(d_->n);
    d_->scalar.alloc(1);
}

AirDevice::~AirDevice() = default;

void AirDevice::setGeometry(const std::vector<unsigned char>& nb, const std::vector<unsigned char>& solid,
                            const std::vector<std::uint32_t>& nbw) {
    d_->nb.upload(nb.data(), nb.size());
    d_->solid.upload(solid.data(), solid.size());
    static_assert(sizeof(unsigned) == sizeof(std::uint32_t), "nbw words are 32 bits");
    d_->nbw.upload(reinterpret_cast<const unsigned*>(nbw.data()), nbw.size());
}

void AirDevice::setEddyDiffusivity(const float* kt) {
    cuda::ProfileScope prof("AirDevice::setEddyDiffusivity", kt ? 4 * d_->n : 0);
    Impl& d = *d_;
    if (kt) {
        d.kt.upload(kt, d.n);
    } else {
        d.kt.alloc(d.n);
        CT_DEV_CHECK(cudaMemset(d.kt.p, 0, d.n * sizeof(float)));
    }
}

void AirDevice::setWalls(const std::vector<int>& cells, const std::vector<float>& g, const std::vector<float>& t_wall,
                         const std::vector<int>& face) {
    Impl& d = *d_;
    d.wall_cells.upload(cells.data(), cells.size());
    d.wall_g.upload(g.data(), g.size());
    d.wall_t.upload(t_wall.data(), t_wall.size());
    d.wall_face.upload(face.data(), face.size());
    d.wall_flows.alloc(6);
    CT_DEV_CHECK(cudaMemset(d.wall_flows.p, 0, 6 * sizeof(double)));
}

void AirDevice::setFluxes(const std::vector<float>& fx, const std::vector<float>& fy, const std::vector<float>& fz) {
    cuda::ProfileScope prof("AirDevice::setFluxes", 4 * (fx.size() + fy.size() + fz.size()));
    d_->fx.upload(fx.data(), fx.size());
    d_->fy.upload(fy.data(), fy.size());
    d_->fz.upload(fz.data(), fz.size());
}

void AirDevice::setTemperature(const float* t) {
    cuda::ProfileScope prof("AirDevice::setTemperature", 4 * d_->n);
    d_->t.upload(t, d_->n);
}
void AirDevice::getTemperature(float* t) const {
    cuda::ProfileScope prof("AirDevice::getTemperature", 4 * d_->n);
    d_->t.download(t, d_->n);
}

void AirDevice::setPorts(const std::vector<int>& cells, const std::vector<int>& port_of, int ports) {
    d_->cells.upload(cells.data(), cells.size());
    d_->port_of.upload(port_of.data(), port_of.size());
    d_->ports = ports;
    d_->sums.alloc(2 * static_cast<std::size_t>(ports));  // T's sums, then the tracer's
}

void AirDevice::setPortState(const std::vector<float>& q_per_cell, const std::vector<float>& t_in, const std::vector<float>& c_in,
                             const std::vector<unsigned char>& source) {
    Impl& d = *d_;
    const std::size_t np = static_cast<std::size_t>(d.ports);
    if (q_per_cell.size() != np || t_in.size() != np || c_in.size() != np || source.size() != np)
        throw cuda::CudaError("AirDevice::setPortState: one value per port expected");
    cuda::ProfileScope prof("AirDevice::setPortState", 16 * np);
    float* stage = d.port_stage.ready(4 * np);
    for (std::size_t p = 0; p < np; ++p) {
        stage[p] = q_per_cell[p];
        stage[np + p] = t_in[p];
        stage[2 * np + p] = c_in[p];
        stage[3 * np + p] = source[p] ? 1.f : 0.f;
    }
    d.port_stage.uploadAsync(d.port_state, 4 * np);
}

void AirDevice::setTracer(const float* c) {
    Impl& d = *d_;
    d.c.upload(c, d.n);
    d.c2.alloc(d.n);
    d.tracer = true;
}
void AirDevice::getTracer(float* c) const {
    cuda::ProfileScope prof("AirDevice::getTracer", 4 * d_->n);
    d_->c.download(c, d_->n);
}

void AirDevice::setHold(const float* cap) {
    if (cap) d_->cap.upload(cap, d_->n);
    else d_->cap.alloc(0);
}

void AirDevice::step(float diff, float dt_v) {
    cuda::ProfileScope prof("AirDevice::step");
    Impl& d = *d_;
    stepKernel<<<d.gridDims(), 128>>>(d.t.p, d.t2.p, d.tracer ? d.c.p : nullptr, d.c2.p, d.fx.p, d.fy.p, d.fz.p, d.nb.p, d.capOrNull(), d.g,
                                      diff, dt_v);
    CT_DEV_LAUNCHED();
    d.portsAndSwap(dt_v);
}

void AirDevice::stepTvd(float h, float kappa, float dt_v, bool tvd) {
    cuda::ProfileScope prof("AirDevice::stepTvd");
    Impl& d = *d_;
    if (d.kt.n != d.n) setEddyDiffusivity(nullptr);
    if (d.nbw.n != d.n) throw cuda::CudaError("AirDevice::stepTvd: the geometry's stencil words were not uploaded");
    // The tracer in the same launch; the walls below hold a temperature, not a concentration: T only.
    tvdKernel<<<d.gridDims(), 128>>>(d.t.p, d.t2.p, d.tracer ? d.c.p : nullptr, d.c2.p, d.kt.p, d.fx.p, d.fy.p, d.fz.p, d.nbw.p,
                                     d.capOrNull(), d.g, h, kappa, dt_v, tvd ? 0xFFu : 0u);
    CT_DEV_LAUNCHED();
    const int walls = static_cast<int>(d.wall_cells.n);
    if (walls > 0) {
        CT_DEV_CHECK(cudaMemsetAsync(d.wall_flows.p, 0, 6 * sizeof(double)));
        wallKernel<<<blocks(walls), kBlock>>>(d.t.p, d.t2.p, d.wall_cells.p, d.wall_g.p, d.wall_t.p, d.wall_face.p, d.capOrNull(), walls,
                                              dt_v, d.wall_flows.p);
        CT_DEV_LAUNCHED();
    }
    d.portsAndSwap(dt_v);
}

std::vector<double> AirDevice::wallFlows() {
    cuda::ProfileScope prof("AirDevice::wallFlows", 48);
    std::vector<double> out(6, 0.0);
    if (d_->wall_flows.n == 6 && d_->wall_cells.n > 0) d_->wall_flows.download(out.data(), 6);
    return out;
}

void AirDevice::portSums(std::vector<double>& t_sums, std::vector<double>& c_sums) {
    cuda::ProfileScope prof("AirDevice::portSums", 16 * static_cast<std::size_t>(d_->ports));
    d_->portSums(t_sums, c_sums);
}

void AirDevice::synchronize() {
    cuda::ProfileScope prof("AirDevice::synchronize");
    CT_DEV_CHECK(cudaStreamSynchronize(nullptr));  // this thread's stream (built with --default-stream=per-thread)
}

int AirDevice::solve(const std::vector<double>& b, const std::vector<double>& diag, std::vector<double>& x, double h, double rel_res,
                     int max_iter, double& achieved) {
    cuda::ProfileScope prof("AirDevice::solve", 4 * 8 * d_->n);
    Impl& d = *d_;
    const std::size_t n = d.n;
    d.b.upload(b.data(), n);
    d.diag.upload(diag.data(), n);
    d.x.upload(x.data(), n);
    for (auto* v : {&d.r, &d.z, &d.p, &d.ap}) v->alloc(n);
    d.cg.alloc(kCgSlots);
    const double bnorm = std::sqrt(d.dot(d.b.p, d.b.p));
    achieved = 0;
    if (!(bnorm > 0)) return 0;
    double* s = d.cg.p;
    const unsigned dot_blocks = std::min<unsigned>(blocks(n), 1024u);
    auto queueDot = [&](const double* a, const double* bb, CgSlot slot) {
        dotKernel<<<dot_blocks, kBlock>>>(a, bb, n, s + slot);
        CT_DEV_LAUNCHED();
    };
    double host[kCgSlots] = {};
    auto fetch = [&] { CT_DEV_CHECK(cudaMemcpy(host, s, sizeof host, cudaMemcpyDeviceToHost)); };
    applyKernel<<<d.gridDims(), 128>>>(d.x.p, d.ap.p, d.nb.p, d.solid.p, d.g, h);
    CT_DEV_LAUNCHED();
    residualKernel<<<blocks(n), kBlock>>>(d.b.p, d.ap.p, d.diag.p, d.r.p, d.z.p, d.p.p, n);
    CT_DEV_LAUNCHED();
    CT_DEV_CHECK(cudaMemsetAsync(s, 0, kCgSlots * sizeof(double)));
    queueDot(d.r.p, d.z.p, kRzNew);
    queueDot(d.r.p, d.r.p, kRr);
    fetch();
    double rnorm = std::sqrt(host[kRr]);
    rollKernel<<<1, 1>>>(s, true);  // r·z into its slot
    CT_DEV_LAUNCHED();
    // Iterations are queued in batches without waiting; the residual is read back after each batch, so a solve
    // may run up to kCheck − 1 iterations past the tolerance (it only gets closer).
    constexpr int kCheck = 8;
    int it = 0;
    while (rnorm / bnorm > rel_res && it < max_iter) {
        const int batch = std::min(kCheck, max_iter - it);
        for (int i = 0; i < batch; ++i) {
            applyKernel<<<d.gridDims(), 128>>>(d.p.p, d.ap.p, d.nb.p, d.solid.p, d.g, h);
            CT_DEV_LAUNCHED();
            queueDot(d.p.p, d.ap.p, kPap);
            updateKernel<<<blocks(n), kBlock>>>(d.x.p, d.r.p, d.z.p, d.p.p, d.ap.p, d.diag.p, s, n);
            CT_DEV_LAUNCHED();
            queueDot(d.r.p, d.z.p, kRzNew);
            queueDot(d.r.p, d.r.p, kRr);
            directionKernel<<<blocks(n), kBlock>>>(d.p.p, d.z.p, s, n);
            CT_DEV_LAUNCHED();
            if (i + 1 < batch) {
                rollKernel<<<1, 1>>>(s, true);
                CT_DEV_LAUNCHED();
            }
        }
        it += batch;
        fetch();
        rnorm = std::sqrt(host[kRr]);
        if (!(host[kPap] > 0)) break;  // broken down: the last updates were no-ops
        rollKernel<<<1, 1>>>(s, true);
        CT_DEV_LAUNCHED();
    }
    d.x.download(x.data(), n);
    achieved = rnorm / bnorm;
    return it;
}

double deviceCopyBandwidth() {
    const std::size_t bytes = std::size_t{1} << 30;
    Buf<unsigned char> a, b;
    a.alloc(bytes);
    b.alloc(bytes);
    CT_DEV_CHECK(cudaMemset(a.p, 1, bytes));
    cudaEvent_t e0, e1;
    CT_DEV_CHECK(cudaEventCreate(&e0));
    CT_DEV_CHECK(cudaEventCreate(&e1));
    CT_DEV_CHECK(cudaMemcpy(b.p, a.p, bytes, cudaMemcpyDeviceToDevice));  // warm-up
    const int reps = 10;
    CT_DEV_CHECK(cudaEventRecord(e0));
    for (int r = 0; r < reps; ++r) CT_DEV_CHECK(cudaMemcpy(b.p, a.p, bytes, cudaMemcpyDeviceToDevice));
    CT_DEV_CHECK(cudaEventRecord(e1));
    CT_DEV_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CT_DEV_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 2.0 * static_cast<double>(bytes) * reps / (ms / 1e3);  // read + write
}

void deviceSynchronize() { CT_DEV_CHECK(cudaDeviceSynchronize()); }

}  // namespace ct::sim::detail
