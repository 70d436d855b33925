#pragma once
// A typed device allocation that grows on upload and frees itself; shared by the air model's and the lattice's
// device state. Not copyable (a copy would free the same memory twice); swap the pointers of two instead.
#include "check.cuh"

#include <cstddef>
#include <utility>

namespace ct::sim::cuda {

template <class T>
struct DeviceBuffer {
    T* p = nullptr;
    std::size_t n = 0;
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() { free(); }
    void alloc(std::size_t count) {
        if (count == n) return;
        free();
        if (count > 0) CT_CUDA_CHECK(cudaMalloc(&p, count * sizeof(T)));
        n = count;
    }
    void free() {
        if (p) cudaFree(p);  // in destructors: nothing to report to
        p = nullptr;
        n = 0;
    }
    void upload(const T* host, std::size_t count) {
        alloc(count);
        if (count) CT_CUDA_CHECK(cudaMemcpy(p, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(T* host, std::size_t count) const {
        if (count) CT_CUDA_CHECK(cudaMemcpy(host, p, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    void swap(DeviceBuffer& o) noexcept {
        std::swap(p, o.p);
        std::swap(n, o.n);
    }
};

/// Page-locked host memory for the small copies taken every sub-step (port states, port sums): a copy from or to
/// it is a DMA the host need not wait for, where a pageable one is staged and waited for. One event guards it: the
/// next write waits until the device has read what the last copy queued.
template <class T>
struct PinnedBuffer {
    T* p = nullptr;
    std::size_t n = 0;
    cudaEvent_t done = nullptr;
    PinnedBuffer() = default;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    ~PinnedBuffer() {
        if (p) cudaFreeHost(p);
        if (done) cudaEventDestroy(done);
    }
    /// Room for `count` values, once the copy queued from it last has finished.
    T* ready(std::size_t count) {
        if (done) CT_CUDA_CHECK(cudaEventSynchronize(done));
        else CT_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        if (count > n) {
            if (p) CT_CUDA_CHECK(cudaFreeHost(p));
            p = nullptr;
            CT_CUDA_CHECK(cudaMallocHost(&p, count * sizeof(T)));
            n = count;
        }
        return p;
    }
    /// Queues the copy of the first `count` values to `dst` on the default stream; returns without waiting.
    void uploadAsync(DeviceBuffer<T>& dst, std::size_t count) {
        dst.alloc(count);
        if (count) CT_CUDA_CHECK(cudaMemcpyAsync(dst.p, p, count * sizeof(T), cudaMemcpyHostToDevice));
        CT_CUDA_CHECK(cudaEventRecord(done));
    }
};

}  // namespace ct::sim::cuda
