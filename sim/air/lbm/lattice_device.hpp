#pragma once
// The lattice's state on a CUDA device: populations (two buffers), flags, wall table, ports, the temperature
// the buoyancy reads and the sampling sums live there; each step is one launch of the same per-cell update as
// the CPU (lbm_kernel.hpp). Private to ct_sim; no CUDA types leak. Every method throws std::runtime_error
// (cuda::CudaError) naming the failed call with file and line; Lattice rethrows it as SimError.
#include <cstddef>
#include <memory>
#include <vector>

namespace ct::sim::detail {

/// What one step needs besides the state on the device.
struct LatticeStepParams {
    float tau0, smag2, fx, fy, fz, buoy, t_ref;
    bool periodic[3];
    bool sampling;
    bool buoyancy;
};

class LatticeDevice {
public:
    /// Padded dims (interior + one halo cell each side); `n` (at least px · py · pz) cells between directions, as
    /// the host lays them out.
    LatticeDevice(int px, int py, int pz, std::size_t n);
    ~LatticeDevice();
    LatticeDevice(const LatticeDevice&) = delete;
    LatticeDevice& operator=(const LatticeDevice&) = delete;

    /// Flags (0 fluid) and the bounce-back links (see Lattice::Impl::buildLinks).
    void setGeometry(const std::vector<unsigned char>& flag, const std::vector<int>& link_solid, const std::vector<int>& link_fluid,
                     const std::vector<unsigned char>& link_q, const std::vector<float>& link_term);
    /// Port cells (padded indices), flattened with their port's number.
    void setPorts(const std::vector<int>& cells, const std::vector<int>& port_of);
    /// Per port: flow per cell, source flag and the jet velocity (3 per port).
    void setPortState(const std::vector<float>& q_per_cell, const std::vector<unsigned char>& source, const std::vector<float>& jet);
    void setPopulations(const std::vector<float>& f);
    void getPopulations(std::vector<float>& f) const;
    /// Interior-layout temperatures read by the buoyancy force.
    void setTemperature(const float* t, std::size_t cells);
    /// Steps are taken in batches, so that the host waits for the device once per batch, not once per step:
    /// beginBatch, any number of step (queued, not waited for), then endBatch, which returns the padded index
    /// of the lowest failed cell of the first step that failed (its number in the batch in `failed_step`),
    /// or −1 when every cell of every step stayed within the lattice's limits.
    void beginBatch();
    void step(const LatticeStepParams& p);
    long long endBatch(int& failed_step);
    /// A slab's exchange with its neighbours (issue 42; host-staged): the five populations of padded row `jp`
    /// whose cy equals `sign`, direction by direction in ascending order, plane by plane, the row's nx interior
    /// cells each (Lattice::Impl::packEdge's order), copied into `out`; and the neighbour's such row into halo row
    /// `jp`, fluid cells only (a solid one keeps its bounce-back value; unpackEdge).
    void getEdge(int jp, int sign, std::vector<float>& out) const;
    void setHalo(int jp, int sign, const std::vector<float>& in);
    void resetSums();
    void getSums(std::vector<float>& sum_u, std::vector<float>& sum_nu) const;

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

}  // namespace ct::sim::detail
