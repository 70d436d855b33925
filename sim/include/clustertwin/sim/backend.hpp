#pragma once
// Compute backends for the per-cell models (contributing.md habits 5–6): CPU is always built and is the reference;
// CUDA is built when nvcc is found and chosen at run time when a device is present.
#include <clustertwin/model/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ct::sim {

/// Failures in the simulation engine.
class SimError : public Error {
public:
    using Error::Error;
};

enum class Backend { Cpu, Cuda };
std::string_view toString(Backend b);

struct BackendInfo {
    Backend kind = Backend::Cpu;
    bool compiled = false;   ///< built into this program
    bool available = false;  ///< usable now (compiled and, for CUDA, a device found)
    std::string device;      ///< "NVIDIA H100 80GB HBM3 (sm_90, 79 GiB)" or the CPU's thread count
    std::string why_not;     ///< when not available: why
};

/// Every backend this program knows, CPU first. Never throws.
std::vector<BackendInfo> listBackends();

/// "auto" picks CUDA when available, else CPU; "cpu" and "cuda" ask for one. Throws SimError when the one
/// asked for is unavailable (saying why: not compiled in, no device, driver error) or the name is unknown.
Backend chooseBackend(std::string_view requested);

/// The CUDA device's measured copy bandwidth (bytes/s, reads plus writes of a 1 GiB device-to-device copy):
/// the HBM roofline for benchmarks. Throws SimError when CUDA is unavailable.
double cudaCopyBandwidth();
/// Waits for queued device work (benchmarks). Throws SimError when CUDA is unavailable.
void cudaSynchronize();

}  // namespace ct::sim
