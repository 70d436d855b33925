#include <clustertwin/sim/backend.hpp>

#include <thread>

namespace ct::sim {

#ifdef CT_HAVE_CUDA
namespace detail {
double deviceCopyBandwidth();  // cuda/air_device.cu
void deviceSynchronize();
}  // namespace detail
namespace cuda {
/// Defined in cuda/device_query.cu. Returns false and sets why_not when no device can be used.
bool queryDevice(std::string& description, std::string& why_not);
}  // namespace cuda
#endif

std::string_view toString(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

std::vector<BackendInfo> listBackends() {
    std::vector<BackendInfo> out;
    BackendInfo cpu;
    cpu.kind = Backend::Cpu;
    cpu.compiled = cpu.available = true;
    cpu.device = std::to_string(std::thread::hardware_concurrency()) + " hardware threads";
    out.push_back(cpu);
    BackendInfo gpu;
    gpu.kind = Backend::Cuda;
#ifdef CT_HAVE_CUDA
    gpu.compiled = true;
    gpu.available = cuda::queryDevice(gpu.device, gpu.why_not);
#else
    gpu.why_not = "this build has no CUDA backend (configured with CT_CUDA=OFF or no nvcc found)";
#endif
    out.push_back(gpu);
    return out;
}

Backend chooseBackend(std::string_view requested) {
    const auto all = listBackends();
    const BackendInfo& gpu = all[1];
    if (requested == "auto") return gpu.available ? Backend::Cuda : Backend::Cpu;
    if (requested == "cpu") return Backend::Cpu;
    if (requested == "cuda") {
        if (!gpu.available) throw SimError("CUDA backend unavailable: " + gpu.why_not);
        return Backend::Cuda;
    }
    throw SimError("unknown backend '" + std::string(requested) + "' (use auto, cpu or cuda)");
}

double cudaCopyBandwidth() {
    chooseBackend("cuda");  // throws, saying why, when there is none
#ifdef CT_HAVE_CUDA
    try {
        return detail::deviceCopyBandwidth();
    } catch (const std::runtime_error& e) {
        throw SimError(std::string("CUDA backend: ") + e.what());
    }
#else
    return 0;
#endif
}

void cudaSynchronize() {
#ifdef CT_HAVE_CUDA
    try {
        detail::deviceSynchronize();
    } catch (const std::runtime_error& e) {
        throw SimError(std::string("CUDA backend: ") + e.what());
    }
#else
    chooseBackend("cuda");
#endif
}

}  // namespace ct::sim
