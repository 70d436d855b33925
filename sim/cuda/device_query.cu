#include "check.cuh"

#include <cstdio>
#include <string>

namespace ct::sim::cuda {

bool queryDevice(std::string& description, std::string& why_not) {
    try {
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || (e == cudaSuccess && count == 0)) {
            why_not =
                e == cudaErrorInsufficientDriver ? "the NVIDIA driver is missing or too old for this CUDA build" : "no CUDA device found";
            cudaGetLastError();  // clear the sticky error
            return false;
        }
        CT_CUDA_CHECK(e);
        cudaDeviceProp prop{};
        CT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        char buf[256];
        std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %.0f GiB)", prop.name, prop.major, prop.minor,
                      static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
        description = buf;
        return true;
    } catch (const CudaError& err) {
        why_not = err.what();
        return false;
    }
}

}  // namespace ct::sim::cuda
