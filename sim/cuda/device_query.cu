#include "check.cuh"

#include <cstdio>
#include <cstdlib>
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

int rankDevice() {
    // One GPU a rank (issue 42): the rank's number on its node, as the launcher sets it (Open MPI's mpirun,
    // Slurm's srun, MPICH), modulo the devices this process sees; device 0 for one process. CUDA_VISIBLE_DEVICES
    // still decides which devices a process sees.
    static const int device = [] {
        int local = 0;
        for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"})
            if (const char* v = std::getenv(name); v && *v) {
                local = std::atoi(v);
                break;
            }
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
            cudaGetLastError();
            return 0;
        }
        return (local < 0 ? 0 : local) % count;
    }();
    return device;
}

}  // namespace ct::sim::cuda
