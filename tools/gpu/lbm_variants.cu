// Issue 43: the lattice kernel's launch and data-layout variants, timed on a lent GPU in one call, to choose the
// change worth making before making it (docs/performance.md records the outcome). Not part of the build:
// scripts/gpu-pack compiles it beside the packed programs. It includes the product's own kernels (same
// translation unit), so what it times is the code the twin runs.
//   lbm_variants [nx ny nz]     (default 256 192 200, ~9.8M cells, ~1.5 GB of populations)
#include "../../sim/cuda/lattice_device.cu"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace lbmv {  // named: nvcc's stubs confuse two anonymous namespaces in one file

using namespace ct::sim::detail;

/// The pull of collideKernel without the collision: the ceiling of this access pattern.
__global__ void pullOnly(const float* __restrict__ src, float* __restrict__ dst, Dims d) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y, k = blockIdx.z;
    if (i >= d.px - 2) return;
    const long long p = (i + 1) + static_cast<long long>(d.px) * ((j + 1) + static_cast<long long>(d.py) * (k + 1));
    CT_UNROLL
    for (int q = 0; q < kQ; ++q) {
        const long long s = p - (ct::sim::lbm::cx(q) +
                                 static_cast<long long>(d.px) * (ct::sim::lbm::cy(q) + static_cast<long long>(d.py) * ct::sim::lbm::cz(q)));
        dst[static_cast<unsigned long long>(q) * d.n + p] = src[static_cast<unsigned long long>(q) * d.n + s];
    }
}

#define CHECK(x)                                                                                    \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                           \
        }                                                                                           \
    } while (0)

template <class F>
float timeMs(F&& launch, int reps) {
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int r = 0; r < 5; ++r) launch();  // warm-up
    CHECK(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int batch = 0; batch < 5; ++batch) {
        CHECK(cudaEventRecord(a));
        for (int r = 0; r < reps; ++r) launch();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        best = std::min(best, ms / reps);
    }
    CHECK(cudaGetLastError());
    return best;
}

/// Device-to-device copy of 1 GiB, read + write counted (as the product's deviceCopyBandwidth).
double copyBandwidth() {
    const std::size_t bytes = std::size_t{1} << 30;
    void *x, *y;
    CHECK(cudaMalloc(&x, bytes));
    CHECK(cudaMalloc(&y, bytes));
    CHECK(cudaMemset(x, 1, bytes));
    const float ms = timeMs([&] { CHECK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice)); }, 5);
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    return 2.0 * static_cast<double>(bytes) / (ms / 1e3);
}

}  // namespace lbmv

using namespace lbmv;

int main(int argc, char** argv) {
    const int nx = argc > 3 ? std::atoi(argv[1]) : 256, ny = argc > 3 ? std::atoi(argv[2]) : 192, nz = argc > 3 ? std::atoi(argv[3]) : 200;
    const Dims d{nx + 2, ny + 2, nz + 2, static_cast<unsigned long long>(nx + 2) * (ny + 2) * (nz + 2)};
    const std::size_t cells = static_cast<std::size_t>(nx) * ny * nz;
    // Populations near rest with noise (never zeros: they hide unwritten outputs), flags all fluid.
    std::vector<float> f(d.n * kQ);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> noise(-1e-3f, 1e-3f);
    for (int q = 0; q < kQ; ++q)
        for (unsigned long long c = 0; c < d.n; ++c) f[q * d.n + c] = noise(rng);  // deviations from the weights
    std::vector<float> temp(cells);
    for (std::size_t c = 0; c < cells; ++c) temp[c] = 20.f + static_cast<float>(c % 97) * 0.1f;
    float *a, *b, *t, *su, *snu;
    unsigned char* flag;
    unsigned long long* bad;
    CHECK(cudaMalloc(&a, f.size() * 4));
    CHECK(cudaMalloc(&b, f.size() * 4));
    CHECK(cudaMalloc(&t, cells * 4));
    CHECK(cudaMalloc(&su, 3 * cells * 4));
    CHECK(cudaMalloc(&snu, cells * 4));
    CHECK(cudaMalloc(&flag, d.n));
    CHECK(cudaMalloc(&bad, 8));
    CHECK(cudaMemcpy(a, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(t, temp.data(), cells * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(su, 0, 3 * cells * 4));
    CHECK(cudaMemset(snu, 0, cells * 4));
    CHECK(cudaMemset(flag, 0, d.n));
    CHECK(cudaMemset(bad, 0xFF, 8));
    const double bw = copyBandwidth();
    std::printf("lbm_variants %d x %d x %d (%.1fM cells), copy bandwidth %.0f GB/s\n", nx, ny, nz, cells / 1e6, bw / 1e9);
    auto row = [&](const char* name, double bytes_per_cell, float ms) {
        const double rate = cells / (ms / 1e3);
        std::printf("  %-34s %7.3f ms  %8.0f M cell-updates/s  %4.0f B/cell  %6.0f GB/s  %5.1f %% of copy\n", name, ms, rate / 1e6,
                    bytes_per_cell, rate * bytes_per_cell / 1e9, 100 * rate * bytes_per_cell / bw);
    };
    const int reps = 50;
    row("pull only, block 64", 152, timeMs([&] { pullOnly<<<dim3((nx + 63) / 64, ny, nz), 64>>>(a, b, d); }, reps));
    row("pull only, block 128", 152, timeMs([&] { pullOnly<<<dim3((nx + 127) / 128, ny, nz), 128>>>(a, b, d); }, reps));
    for (bool sampling : {true, false})
        for (bool buoyancy : {true, false}) {
            LatticeStepParams prm{0.5001f, 0.17f * 0.17f, 1e-6f, 0, 0, 1e-6f, 25.f, {true, false, false}, sampling, buoyancy};
            const double bytes = 152 + 1 + (buoyancy ? 4 : 0) + (sampling ? 32 : 0);
            for (int block : {64, 128, 256}) {
                char name[96];
                std::snprintf(name, sizeof name, "collide%s%s, block %d", sampling ? " +sampling" : "", buoyancy ? " +buoyancy" : "",
                              block);
                row(name, bytes,
                    timeMs(
                        [&] {
                            collideKernel<<<dim3((nx + block - 1) / block, ny, nz), block>>>(a, b, flag, buoyancy ? t : nullptr, su, snu, d,
                                                                                             prm, bad, 0);
                        },
                        reps));
            }
        }
    row("periodic x, the five crossing populations", 0,
        timeMs([&] { periodicKernel<<<dim3((d.py + 127) / 128, d.pz, 10), 128>>>(a, d, 0); }, reps));
    unsigned long long none = 0;
    CHECK(cudaMemcpy(&none, bad, 8, cudaMemcpyDeviceToHost));
    std::printf("  (failure key after the runs: %s)\n", none == ~0ull ? "none" : "set: the noise drove a cell out of range");
    return 0;
}
