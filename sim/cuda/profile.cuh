#pragma once
// Where the device path's time goes (issue 43): with CT_CUDA_PROFILE set in the environment, every host-side entry
// point of the air model's and the lattice's device state adds its wall time (waits for the device included), its
// calls and the bytes it copied to a table printed to stderr when the program ends. Off, a scope costs one
// branch. A developer's tool for the lent GPU, where no system profiler runs (docs/performance.md).
#include <cstddef>

namespace ct::sim::cuda {

bool profiling();
void profileAdd(const char* name, double seconds, std::size_t bytes);

class ProfileScope {
public:
    explicit ProfileScope(const char* name, std::size_t bytes = 0);
    ~ProfileScope();
    ProfileScope(const ProfileScope&) = delete;
    ProfileScope& operator=(const ProfileScope&) = delete;

private:
    const char* name_;
    std::size_t bytes_;
    double t0_ = 0;
};

}  // namespace ct::sim::cuda
