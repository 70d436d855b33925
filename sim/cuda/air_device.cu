// CUDA side of the air model: thin launch wrappers around the per-cell functions in kernels.hpp.
#include "air/transport/air_device.hpp"
#include "check.cuh"
#include "device_buffer.cuh"

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

/// One thread per cell, x fastest (coalesced): the CPU's interior loop, bounds made explicit.
__global__ void stepKernel(const float* __restrict__ t, float* __restrict__ t2, const float* __restrict__ fx, const float* __restrict__ fy,
                           const float* __restrict__ fz, const unsigned char* __restrict__ nb, const float* __restrict__ cap, Grid g,
                           float diff, float dt_v) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y;
    const int kk = blockIdx.z;
    if (i >= g.nx) return;
    const int plane = g.nx * g.ny;
    const int c = i + g.nx * (j + g.ny * kk);
    const float tc = t[c];
    // Beyond the grid the cell's own value stands in; a clear neighbour bit and a zero wall flux ignore it.
    const float tw = i > 0 ? t[c - 1] : tc;
    const float te = i + 1 < g.nx ? t[c + 1] : tc;
    const float ts = j > 0 ? t[c - g.nx] : tc;
    const float tn = j + 1 < g.ny ? t[c + g.nx] : tc;
    const float td = kk > 0 ? t[c - plane] : tc;
    const float tu = kk + 1 < g.nz ? t[c + plane] : tc;
    const int xf = i + (g.nx + 1) * (j + g.ny * kk);
    const int yf = i + g.nx * (j + (g.ny + 1) * kk);
    const float dv = cap ? dt_v * cap[c] : dt_v;  // a held cell's step, per its raised capacity
    t2[c] = k::advectDiffuse(tc, tw, te, ts, tn, td, tu, fx[xf], fx[xf + 1], fy[yf], fy[yf + g.nx], fz[c], fz[c + plane], nb[c], diff, dv);
}

/// One thread per cell: the TVD / variable-diffusivity step, as the CPU's tvdRow (air_model.cpp). Neighbours beyond
/// the grid read the cell itself; their bits are clear, so they never count.
__global__ void tvdKernel(const float* __restrict__ t, float* __restrict__ t2, const float* __restrict__ kt, const float* __restrict__ fx,
                          const float* __restrict__ fy, const float* __restrict__ fz, const unsigned* __restrict__ nbw, Grid g, float h,
                          float kappa, float dt_v, unsigned far_mask) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y;
    const int kk = blockIdx.z;
    if (i >= g.nx) return;
    const int plane = g.nx * g.ny;
    const int c = i + g.nx * (j + g.ny * kk);
    auto at = [&](int di, int dj, int dk) {
        const int ii = i + di, jj = j + dj, kq = kk + dk;
        if (ii < 0 || ii >= g.nx || jj < 0 || jj >= g.ny || kq < 0 || kq >= g.nz) return c;
        return c + di + dj * g.nx + dk * plane;
    };
    const unsigned w = nbw[c];
    const unsigned m = w & 0xFFu;
    const float kc = kt[c];
    const float gw = static_cast<float>(m & 1u) * h * (kappa + 0.5f * (kc + kt[at(-1, 0, 0)]));
    const float ge = static_cast<float>((m >> 1) & 1u) * h * (kappa + 0.5f * (kc + kt[at(1, 0, 0)]));
    const float gs = static_cast<float>((m >> 2) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, -1, 0)]));
    const float gn = static_cast<float>((m >> 3) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, 1, 0)]));
    const float gd = static_cast<float>((m >> 4) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, 0, -1)]));
    const float gu = static_cast<float>((m >> 5) & 1u) * h * (kappa + 0.5f * (kc + kt[at(0, 0, 1)]));
    k::Stencil13 v{t[c],           t[at(-1, 0, 0)], t[at(1, 0, 0)], t[at(0, -1, 0)], t[at(0, 1, 0)], t[at(0, 0, -1)],
                   t[at(0, 0, 1)], t[at(-2, 0, 0)], t[at(2, 0, 0)], t[at(0, -2, 0)], t[at(0, 2, 0)], t[at(0, 0, -2)],
                   t[at(0, 0, 2)]};
    const int xf = i + (g.nx + 1) * (j + g.ny * kk);
    const int yf = i + g.nx * (j + (g.ny + 1) * kk);
    t2[c] = k::advectDiffuseTvd(v, fx[xf], fx[xf + 1], fy[yf], fy[yf + g.nx], fz[c], fz[c + plane], m, (w >> 8) & far_mask, gw, ge, gs, gn,
                                gd, gu, dt_v);
}

/// One thread per wall entry: conduction across the half cell to a fixed-temperature face; each face's total.
__global__ void wallKernel(const float* __restrict__ t, float* t2, const int* __restrict__ cells, const float* __restrict__ g,
                           const float* __restrict__ t_wall, const int* __restrict__ face, int entries, float dt_v, double* flows) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= entries) return;
    const int c = cells[e];
    const float q = g[e] * (t_wall[e] - t[c]);
    atomicAdd(&t2[c], dt_v * q);
    atomicAdd(&flows[face[e]], static_cast<double>(q));
}

/// One thread per port entry. A cell may belong to more than one port: each adds its exchange.
__global__ void portKernel(const float* __restrict__ t, float* t2, const int* __restrict__ cells, const int* __restrict__ port_of,
                           const float* __restrict__ q, const float* __restrict__ t_in, const unsigned char* __restrict__ source,
                           const float* __restrict__ cap, int entries, float dt_v) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= entries) return;
    const int c = cells[e], p = port_of[e];
    const float dv = cap ? dt_v * cap[c] : dt_v;
    const float delta = source[p] ? k::portExchange(0.f, t[c], q[p], t_in[p], 0.f, dv) : k::portExchange(0.f, t[c], 0.f, 0.f, q[p], dv);
    atomicAdd(&t2[c], delta);
}

__global__ void portSumKernel(const float* __restrict__ t, const int* __restrict__ cells, const int* __restrict__ port_of, int entries,
                              double* sums) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < entries) atomicAdd(&sums[port_of[e]], static_cast<double>(t[cells[e]]));
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

/// x += α p; r −= α Ap; z = r / diag.
__global__ void updateKernel(double* x, double* r, double* z, const double* __restrict__ p, const double* __restrict__ ap,
                             const double* __restrict__ diag, double alpha, std::size_t n) {
    const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (c >= n) return;
    x[c] += alpha * p[c];
    r[c] -= alpha * ap[c];
    z[c] = r[c] / diag[c];
}

/// p = z + β p.
__global__ void directionKernel(double* p, const double* __restrict__ z, double beta, std::size_t n) {
    const std::size_t c = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (c < n) p[c] = z[c] + beta * p[c];
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
    Buf<float> t, t2, c, c2, fx, fy, fz, q, t_in, c_in, cap;
    bool tracer = false;
    Buf<unsigned char> nb, solid, source;
    Buf<unsigned> nbw;
    Buf<float> kt, wall_g, wall_t;
    Buf<int> cells, port_of, wall_cells, wall_face;
    Buf<double> wall_flows;
    int ports = 0;
    Buf<double> sums;
    // CG work vectors and a device scalar for dot products.
    Buf<double> x, b, r, z, p, ap, diag, scalar;

    dim3 gridDims() const {
        return dim3(static_cast<unsigned>((g.nx + 127) / 128), static_cast<unsigned>(g.ny), static_cast<unsigned>(g.nz));
    }
    const float* capOrNull() const { return cap.n == n ? cap.p : nullptr; }
    /// After a cell kernel wrote next: every port's exchange onto it (inflow at `in`, per port), then next
    /// becomes the field.
    void portsAndSwap(Buf<float>& cur, Buf<float>& next, const Buf<float>& in, float dt_v) {
        const int entries = static_cast<int>(cells.n);
        if (entries > 0) {
            portKernel<<<blocks(entries), kBlock>>>(cur.p, next.p, cells.p, port_of.p, q.p, in.p, source.p, capOrNull(), entries, dt_v);
            CT_DEV_LAUNCHED();
        }
        std::swap(cur.p, next.p);
    }
    std::vector<double> portSums(const Buf<float>& field) {
        std::vector<double> out(static_cast<std::size_t>(ports), 0.0);
        const int entries = static_cast<int>(cells.n);
        if (ports == 0 || entries == 0) return out;
        CT_DEV_CHECK(cudaMemset(sums.p, 0, sums.n * sizeof(double)));
        portSumKernel<<<blocks(entries), kBlock>>>(field.p, cells.p, port_of.p, entries, sums.p);
        CT_DEV_LAUNCHED();
        sums.download(out.data(), out.size());
        return out;  // sums: the caller divides by each port's cell count
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
    CT_DEV_CHECK(cudaSetDevice(0));
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
    d_->fx.upload(fx.data(), fx.size());
    d_->fy.upload(fy.data(), fy.size());
    d_->fz.upload(fz.data(), fz.size());
}

void AirDevice::setTemperature(const float* t) { d_->t.upload(t, d_->n); }
void AirDevice::getTemperature(float* t) const { d_->t.download(t, d_->n); }

void AirDevice::setPorts(const std::vector<int>& cells, const std::vector<int>& port_of, int ports) {
    d_->cells.upload(cells.data(), cells.size());
    d_->port_of.upload(port_of.data(), port_of.size());
    d_->ports = ports;
    d_->sums.alloc(static_cast<std::size_t>(ports));
}

void AirDevice::setPortState(const std::vector<float>& q_per_cell, const std::vector<float>& t_in, const std::vector<float>& c_in,
                             const std::vector<unsigned char>& source) {
    d_->q.upload(q_per_cell.data(), q_per_cell.size());
    d_->t_in.upload(t_in.data(), t_in.size());
    d_->c_in.upload(c_in.data(), c_in.size());
    d_->source.upload(source.data(), source.size());
}

void AirDevice::setTracer(const float* c) {
    Impl& d = *d_;
    d.c.upload(c, d.n);
    d.c2.alloc(d.n);
    d.tracer = true;
}
void AirDevice::getTracer(float* c) const { d_->c.download(c, d_->n); }

void AirDevice::setHold(const float* cap) {
    if (cap) d_->cap.upload(cap, d_->n);
    else d_->cap.alloc(0);
}

void AirDevice::step(float diff, float dt_v) {
    Impl& d = *d_;
    stepKernel<<<d.gridDims(), 128>>>(d.t.p, d.t2.p, d.fx.p, d.fy.p, d.fz.p, d.nb.p, d.capOrNull(), d.g, diff, dt_v);
    CT_DEV_LAUNCHED();
    if (d.tracer) {
        stepKernel<<<d.gridDims(), 128>>>(d.c.p, d.c2.p, d.fx.p, d.fy.p, d.fz.p, d.nb.p, d.capOrNull(), d.g, diff, dt_v);
        CT_DEV_LAUNCHED();
        d.portsAndSwap(d.c, d.c2, d.c_in, dt_v);  // before T's: the ports read the old field, which T's swap replaces
    }
    d.portsAndSwap(d.t, d.t2, d.t_in, dt_v);
}

void AirDevice::stepTvd(float h, float kappa, float dt_v, bool tvd) {
    Impl& d = *d_;
    if (d.kt.n != d.n) setEddyDiffusivity(nullptr);
    if (d.nbw.n != d.n) throw cuda::CudaError("AirDevice::stepTvd: the geometry's stencil words were not uploaded");
    tvdKernel<<<d.gridDims(), 128>>>(d.t.p, d.t2.p, d.kt.p, d.fx.p, d.fy.p, d.fz.p, d.nbw.p, d.g, h, kappa, dt_v, tvd ? 0xFFu : 0u);
    CT_DEV_LAUNCHED();
    if (d.tracer) {  // the same step without the walls (they hold a temperature, not a concentration)
        tvdKernel<<<d.gridDims(), 128>>>(d.c.p, d.c2.p, d.kt.p, d.fx.p, d.fy.p, d.fz.p, d.nbw.p, d.g, h, kappa, dt_v, tvd ? 0xFFu : 0u);
        CT_DEV_LAUNCHED();
        d.portsAndSwap(d.c, d.c2, d.c_in, dt_v);
    }
    const int walls = static_cast<int>(d.wall_cells.n);
    if (walls > 0) {
        CT_DEV_CHECK(cudaMemsetAsync(d.wall_flows.p, 0, 6 * sizeof(double)));
        wallKernel<<<blocks(walls), kBlock>>>(d.t.p, d.t2.p, d.wall_cells.p, d.wall_g.p, d.wall_t.p, d.wall_face.p, walls, dt_v,
                                              d.wall_flows.p);
        CT_DEV_LAUNCHED();
    }
    d.portsAndSwap(d.t, d.t2, d.t_in, dt_v);
}

std::vector<double> AirDevice::wallFlows() {
    std::vector<double> out(6, 0.0);
    if (d_->wall_flows.n == 6 && d_->wall_cells.n > 0) d_->wall_flows.download(out.data(), 6);
    return out;
}

std::vector<double> AirDevice::portMeans() { return d_->portSums(d_->t); }
std::vector<double> AirDevice::portTracerMeans() { return d_->portSums(d_->c); }

int AirDevice::solve(const std::vector<double>& b, const std::vector<double>& diag, std::vector<double>& x, double h, double rel_res,
                     int max_iter, double& achieved) {
    Impl& d = *d_;
    const std::size_t n = d.n;
    d.b.upload(b.data(), n);
    d.diag.upload(diag.data(), n);
    d.x.upload(x.data(), n);
    for (auto* v : {&d.r, &d.z, &d.p, &d.ap}) v->alloc(n);
    const double bnorm = std::sqrt(d.dot(d.b.p, d.b.p));
    achieved = 0;
    if (!(bnorm > 0)) return 0;
    applyKernel<<<d.gridDims(), 128>>>(d.x.p, d.ap.p, d.nb.p, d.solid.p, d.g, h);
    CT_DEV_LAUNCHED();
    residualKernel<<<blocks(n), kBlock>>>(d.b.p, d.ap.p, d.diag.p, d.r.p, d.z.p, d.p.p, n);
    CT_DEV_LAUNCHED();
    double rz = d.dot(d.r.p, d.z.p);
    double rnorm = std::sqrt(d.dot(d.r.p, d.r.p));
    int it = 0;
    while (rnorm / bnorm > rel_res && it < max_iter) {
        applyKernel<<<d.gridDims(), 128>>>(d.p.p, d.ap.p, d.nb.p, d.solid.p, d.g, h);
        CT_DEV_LAUNCHED();
        const double pap = d.dot(d.p.p, d.ap.p);
        if (!(pap > 0)) break;
        const double alpha = rz / pap;
        updateKernel<<<blocks(n), kBlock>>>(d.x.p, d.r.p, d.z.p, d.p.p, d.ap.p, d.diag.p, alpha, n);
        CT_DEV_LAUNCHED();
        const double rz_new = d.dot(d.r.p, d.z.p);
        const double beta = rz_new / rz;
        rz = rz_new;
        directionKernel<<<blocks(n), kBlock>>>(d.p.p, d.z.p, beta, n);
        CT_DEV_LAUNCHED();
        rnorm = std::sqrt(d.dot(d.r.p, d.r.p));
        ++it;
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
