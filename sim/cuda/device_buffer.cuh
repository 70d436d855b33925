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

}  // namespace ct::sim::cuda
