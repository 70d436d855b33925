#pragma once
// Every CUDA call is checked; failures name the file and line (contributing.md habit 6). Device code is compiled as
// C++17 and includes no model headers; the host side turns CudaError into SimError.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace ct::sim::cuda {

class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline std::string errorText(cudaError_t e, const char* call, const char* file, int line) {
    return std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
           ")";
}

/// The device this process's ranks use: its rank on the node modulo the devices it sees (device_query.cu).
int rankDevice();

}  // namespace ct::sim::cuda

#define CT_CUDA_CHECK(call)                                                                                                           \
    do {                                                                                                                              \
        const cudaError_t ct_err_ = (call);                                                                                           \
        if (ct_err_ != cudaSuccess) throw ::ct::sim::cuda::CudaError(::ct::sim::cuda::errorText(ct_err_, #call, __FILE__, __LINE__)); \
    } while (0)
