// CUDA side of the lattice: launch wrappers around the per-cell update in lbm_kernel.hpp (the CPU's loop body,
// bounds made explicit), the ports, the periodic halo copies and the failure check.
#include "air/lbm/lattice_device.hpp"
#include "air/lbm/lbm_kernel.hpp"
#include "device_buffer.cuh"
#include "profile.cuh"

#include <climits>

namespace ct::sim::detail {

namespace {

constexpr int kQ = lbm::kQ;
constexpr float kMaxSpeed = 0.35f, kMinRho = 0.5f, kMaxRho = 1.5f;  // as lattice.cpp
constexpr int kCellBits = 40;  // a failure's key: the batch's step above these bits, the padded cell below

template <class T>
using Buf = cuda::DeviceBuffer<T>;

struct Dims {
    int px, py, pz;
    unsigned long long n;
};

/// The bounce-back pre-pass: each link's solid-side population becomes the fluid cell's opposite one plus the
/// wall's motion term, so that the collision kernel is a pure pull.
__global__ void bounceKernel(float* f, unsigned long long n, const int* solid, const int* fluid, const unsigned char* qs, const float* term,
                             int count) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= count) return;
    const int q = qs[e];
    f[q * n + static_cast<unsigned long long>(solid[e])] = f[lbm::opposite(q) * n + static_cast<unsigned long long>(fluid[e])] + term[e];
}

/// One cell per thread, x fastest: pull, collide, write.
__global__ void collideKernel(const float* __restrict__ src, float* __restrict__ dst, const unsigned char* __restrict__ flag,
                              const float* __restrict__ temp, float* __restrict__ sum_u, float* __restrict__ sum_nu, Dims d,
                              LatticeStepParams prm, unsigned long long* bad, unsigned long long step_key) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y, k = blockIdx.z;
    const int nx = d.px - 2, ny = d.py - 2;
    if (i >= nx) return;
    const long long p = (i + 1) + static_cast<long long>(d.px) * ((j + 1) + static_cast<long long>(d.py) * (k + 1));
    const long long c = i + static_cast<long long>(nx) * (j + static_cast<long long>(ny) * k);
    float f[kQ];
    CT_UNROLL
    for (int q = 0; q < kQ; ++q) {
        const long long s = p - (lbm::cx(q) + static_cast<long long>(d.px) * (lbm::cy(q) + static_cast<long long>(d.py) * lbm::cz(q)));
        f[q] = src[static_cast<unsigned long long>(q) * d.n + s];
    }
    lbm::CellForce force{prm.fx, prm.fy, prm.fz};
    if (prm.buoyancy) force.fz += prm.buoy * (temp[c] - prm.t_ref);
    const lbm::CellMoments m = lbm::collide(f, prm.tau0, prm.smag2, force);
    const bool fluid = flag[p] == 0;
    CT_UNROLL
    for (int q = 0; q < kQ; ++q) dst[static_cast<unsigned long long>(q) * d.n + p] = fluid ? f[q] : 0.f;
    if (!fluid) return;
    if (prm.sampling) {
        // Structure of arrays: ux of every cell, then uy, then uz (coalesced).
        const long long cells = static_cast<long long>(nx) * ny * (d.pz - 2);
        sum_u[c] += m.ux;
        sum_u[cells + c] += m.uy;
        sum_u[2 * cells + c] += m.uz;
        sum_nu[c] += m.nu_t;
    }
    const float u2 = m.ux * m.ux + m.uy * m.uy + m.uz * m.uz;
    // The first failing step of a batch and its lowest cell: (step << 40) | padded index, the smallest wins.
    if (!(m.rho > kMinRho && m.rho < kMaxRho && u2 < kMaxSpeed * kMaxSpeed)) atomicMin(bad, step_key | static_cast<unsigned long long>(p));
}

__global__ void portKernel(float* f, unsigned long long n, const int* cells, const int* port_of, int count, const float* q,
                           const unsigned char* source, const float* jet) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= count) return;
    const int pt = port_of[e];
    const unsigned long long c = static_cast<unsigned long long>(cells[e]);
    float v[kQ];
    CT_UNROLL
    for (int qd = 0; qd < kQ; ++qd) v[qd] = f[qd * n + c];
    lbm::portExchange(v, q[pt], source[pt] != 0, jet[3 * pt], jet[3 * pt + 1], jet[3 * pt + 2]);
    CT_UNROLL
    for (int qd = 0; qd < kQ; ++qd) f[qd * n + c] = v[qd];
}

/// Copies, on one periodic axis, the opposite interior layer into each halo layer: only the five populations that
/// cross that face (those the pull reads from the halo), a quarter of the 19 a whole copy moves; its accesses along
/// x are a row apart, so that the whole copy cost 10 % of a 9.8M-cell step. Axes in order, over their whole extent
/// (halos of earlier axes included), so that edges and corners are right.
__global__ void periodicKernel(float* f, Dims d, int axis) {
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y;
    const int side = blockIdx.z / 5, m = blockIdx.z % 5;  // side 0: low halo, c = +1 along the axis; 1: high, c = −1
    const int sign = side == 0 ? 1 : -1;
    int q = -1;
    for (int qq = 0, seen = 0; qq < kQ; ++qq) {
        const int c = axis == 0 ? lbm::cx(qq) : (axis == 1 ? lbm::cy(qq) : lbm::cz(qq));
        if (c == sign && seen++ == m) q = qq;
    }
    float* v = f + static_cast<unsigned long long>(q) * d.n;
    auto at = [&](int i, int j, int k) { return i + static_cast<long long>(d.px) * (j + static_cast<long long>(d.py) * k); };
    if (axis == 0) {
        if (a >= d.py || b >= d.pz) return;
        if (side == 0) v[at(0, a, b)] = v[at(d.px - 2, a, b)];
        else v[at(d.px - 1, a, b)] = v[at(1, a, b)];
    } else if (axis == 1) {
        if (a >= d.px || b >= d.pz) return;
        if (side == 0) v[at(a, 0, b)] = v[at(a, d.py - 2, b)];
        else v[at(a, d.py - 1, b)] = v[at(a, 1, b)];
    } else {
        if (a >= d.px || b >= d.py) return;
        if (side == 0) v[at(a, b, 0)] = v[at(a, b, d.pz - 2)];
        else v[at(a, b, d.pz - 1)] = v[at(a, b, 1)];
    }
}

/// The m-th of the five directions whose component along y is `sign`, in ascending order (as the host's edges).
__device__ int crossingDirection(int sign, int m) {
    for (int q = 0, seen = 0; q < kQ; ++q)
        if (lbm::cy(q) == sign && seen++ == m) return q;
    return -1;
}

/// A slab's edge row out (`to_row` false: row jp into `edge`) or a neighbour's in (true: `edge` into halo row jp,
/// fluid cells only). One thread a cell of the row: x by threads, the plane by y, the direction by z.
__global__ void edgeKernel(float* f, const unsigned char* __restrict__ flag, float* edge, Dims d, int jp, int sign, bool to_row) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int k = blockIdx.y, m = blockIdx.z;
    const int nx = d.px - 2, nz = d.pz - 2;
    if (i >= nx || k >= nz) return;
    const int q = crossingDirection(sign, m);
    const unsigned long long p = static_cast<unsigned long long>(i + 1) +
                                 static_cast<unsigned long long>(d.px) * (jp + static_cast<unsigned long long>(d.py) * (k + 1));
    const unsigned long long e =
        static_cast<unsigned long long>(i) + static_cast<unsigned long long>(nx) * (k + static_cast<unsigned long long>(nz) * m);
    float* v = f + static_cast<unsigned long long>(q) * d.n + p;
    if (!to_row) edge[e] = *v;
    else if (flag[p] == 0) *v = edge[e];
}

}  // namespace

struct LatticeDevice::Impl {
    Dims d{};
    Buf<float> a, b, link_term, temp, sum_u, sum_nu, port_q, port_jet;
    Buf<unsigned char> flag, port_source, link_q;
    Buf<int> port_cells, port_of, link_solid, link_fluid;
    int links = 0;
    Buf<unsigned long long> bad;
    Buf<float> edge;  ///< one edge row's five directions, on its way out or in
    int port_entries = 0;
    int batch_step = 0;
};

LatticeDevice::LatticeDevice(int px, int py, int pz, std::size_t n) : d_(std::make_unique<Impl>()) {
    CT_CUDA_CHECK(cudaSetDevice(cuda::rankDevice()));  // one GPU a rank, as the air's device
    d_->d = {px, py, pz, static_cast<unsigned long long>(n)};
    d_->a.alloc(d_->d.n * kQ);
    d_->b.alloc(d_->d.n * kQ);
    CT_CUDA_CHECK(cudaMemset(d_->a.p, 0, d_->a.n * sizeof(float)));
    CT_CUDA_CHECK(cudaMemset(d_->b.p, 0, d_->b.n * sizeof(float)));
    d_->bad.alloc(1);
    const std::size_t interior = static_cast<std::size_t>(px - 2) * (py - 2) * (pz - 2);
    d_->sum_u.alloc(3 * interior);
    d_->sum_nu.alloc(interior);
    resetSums();
}

LatticeDevice::~LatticeDevice() = default;

void LatticeDevice::setGeometry(const std::vector<unsigned char>& flag, const std::vector<int>& link_solid,
                                const std::vector<int>& link_fluid, const std::vector<unsigned char>& link_q,
                                const std::vector<float>& link_term) {
    d_->flag.upload(flag.data(), flag.size());
    d_->link_solid.upload(link_solid.data(), link_solid.size());
    d_->link_fluid.upload(link_fluid.data(), link_fluid.size());
    d_->link_q.upload(link_q.data(), link_q.size());
    d_->link_term.upload(link_term.data(), link_term.size());
    d_->links = static_cast<int>(link_solid.size());
}

void LatticeDevice::setPorts(const std::vector<int>& cells, const std::vector<int>& port_of) {
    d_->port_cells.upload(cells.data(), cells.size());
    d_->port_of.upload(port_of.data(), port_of.size());
    d_->port_entries = static_cast<int>(cells.size());
}

void LatticeDevice::setPortState(const std::vector<float>& q, const std::vector<unsigned char>& source, const std::vector<float>& jet) {
    cuda::ProfileScope prof("LatticeDevice::setPortState", 4 * q.size() + source.size() + 4 * jet.size());
    d_->port_q.upload(q.data(), q.size());
    d_->port_source.upload(source.data(), source.size());
    d_->port_jet.upload(jet.data(), jet.size());
}

void LatticeDevice::setPopulations(const std::vector<float>& f) { d_->a.upload(f.data(), f.size()); }
void LatticeDevice::getPopulations(std::vector<float>& f) const {
    cuda::ProfileScope prof("LatticeDevice::getPopulations", 4 * d_->a.n);
    f.resize(d_->a.n);
    d_->a.download(f.data(), f.size());
}

void LatticeDevice::setTemperature(const float* t, std::size_t cells) {
    cuda::ProfileScope prof("LatticeDevice::setTemperature", 4 * cells);
    d_->temp.upload(t, cells);
}

void LatticeDevice::beginBatch() {
    CT_CUDA_CHECK(cudaMemsetAsync(d_->bad.p, 0xFF, sizeof(unsigned long long)));  // no failure yet: all ones
    d_->batch_step = 0;
}

void LatticeDevice::step(const LatticeStepParams& p) {
    cuda::ProfileScope prof("LatticeDevice::step");
    Impl& s = *d_;
    const Dims& d = s.d;
    for (int axis = 0; axis < 3; ++axis) {
        if (!p.periodic[axis]) continue;
        const int ea = axis == 0 ? d.py : d.px, eb = axis == 2 ? d.py : d.pz;
        periodicKernel<<<dim3((ea + 127) / 128, eb, 10), 128>>>(s.a.p, d, axis);
        CT_CUDA_CHECK(cudaGetLastError());
    }
    if (s.links > 0) {
        bounceKernel<<<(s.links + 255) / 256, 256>>>(s.a.p, d.n, s.link_solid.p, s.link_fluid.p, s.link_q.p, s.link_term.p, s.links);
        CT_CUDA_CHECK(cudaGetLastError());
    }
    const int nx = d.px - 2;
    const unsigned long long key = static_cast<unsigned long long>(s.batch_step++) << kCellBits;
    // Rows of 256 threads ran the 9.8M-cell lattice 10 % faster than rows of 64 on an H200 (tools/gpu/lbm_variants.cu);
    // narrower grids take the narrowest block that spans a row, so that few threads idle.
    const int block = nx >= 192 ? 256 : (nx >= 96 ? 128 : 64);
    const dim3 grid((nx + block - 1) / block, d.py - 2, d.pz - 2);
    collideKernel<<<grid, block>>>(s.a.p, s.b.p, s.flag.p, p.buoyancy ? s.temp.p : nullptr, s.sum_u.p, s.sum_nu.p, d, p, s.bad.p, key);
    CT_CUDA_CHECK(cudaGetLastError());
    if (s.port_entries > 0) {
        portKernel<<<(s.port_entries + 127) / 128, 128>>>(s.b.p, d.n, s.port_cells.p, s.port_of.p, s.port_entries, s.port_q.p,
                                                          s.port_source.p, s.port_jet.p);
        CT_CUDA_CHECK(cudaGetLastError());
    }
    s.a.swap(s.b);
}

long long LatticeDevice::endBatch(int& failed_step) {
    cuda::ProfileScope prof("LatticeDevice::endBatch (waits)");
    unsigned long long bad = 0;
    CT_CUDA_CHECK(cudaMemcpy(&bad, d_->bad.p, sizeof bad, cudaMemcpyDeviceToHost));  // the batch's one wait
    failed_step = -1;
    if (bad == ULLONG_MAX) return -1;
    failed_step = static_cast<int>(bad >> kCellBits);
    return static_cast<long long>(bad & ((1ull << kCellBits) - 1));
}

void LatticeDevice::getEdge(int jp, int sign, std::vector<float>& out) const {
    cuda::ProfileScope prof("LatticeDevice::getEdge");
    const Dims& d = d_->d;
    const std::size_t count = static_cast<std::size_t>(5) * (d.px - 2) * (d.pz - 2);
    if (d_->edge.n != count) d_->edge.alloc(count);
    edgeKernel<<<dim3((d.px - 2 + 127) / 128, d.pz - 2, 5), 128>>>(d_->a.p, d_->flag.p, d_->edge.p, d, jp, sign, false);
    CT_CUDA_CHECK(cudaGetLastError());
    out.resize(count);
    d_->edge.download(out.data(), count);  // waits for the kernel
}

void LatticeDevice::setHalo(int jp, int sign, const std::vector<float>& in) {
    cuda::ProfileScope prof("LatticeDevice::setHalo");
    const Dims& d = d_->d;
    const std::size_t count = static_cast<std::size_t>(5) * (d.px - 2) * (d.pz - 2);
    if (in.size() != count)
        throw std::runtime_error("LatticeDevice::setHalo: an edge row of " + std::to_string(in.size()) + " values, not " +
                                 std::to_string(count));
    d_->edge.upload(in.data(), count);
    edgeKernel<<<dim3((d.px - 2 + 127) / 128, d.pz - 2, 5), 128>>>(d_->a.p, d_->flag.p, d_->edge.p, d, jp, sign, true);
    CT_CUDA_CHECK(cudaGetLastError());
}

void LatticeDevice::resetSums() {
    CT_CUDA_CHECK(cudaMemset(d_->sum_u.p, 0, d_->sum_u.n * sizeof(float)));
    CT_CUDA_CHECK(cudaMemset(d_->sum_nu.p, 0, d_->sum_nu.n * sizeof(float)));
}

void LatticeDevice::getSums(std::vector<float>& su, std::vector<float>& snu) const {
    cuda::ProfileScope prof("LatticeDevice::getSums", 4 * (d_->sum_u.n + d_->sum_nu.n));
    su.resize(d_->sum_u.n);
    snu.resize(d_->sum_nu.n);
    d_->sum_u.download(su.data(), su.size());
    d_->sum_nu.download(snu.data(), snu.size());
}

}  // namespace ct::sim::detail
