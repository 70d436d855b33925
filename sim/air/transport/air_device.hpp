#pragma once
// The air model's state on a CUDA device (issue 7): grid arrays, face fluxes and ports live there, and the
// temperature sub-steps and the potential-flow conjugate-gradient iterations run there, calling the same
// per-cell functions as the CPU (kernels.hpp). Private to ct_sim; no CUDA types leak (contributing.md habit 2).
// Built only with CT_HAVE_CUDA. Every method throws std::runtime_error (cuda::CudaError) naming the failed CUDA
// call with file and line; AirModel rethrows it as SimError.
#include <cstdint>
#include <memory>
#include <vector>

namespace ct::sim::detail {

class AirDevice {
public:
    AirDevice(int nx, int ny, int nz);
    ~AirDevice();
    AirDevice(const AirDevice&) = delete;
    AirDevice& operator=(const AirDevice&) = delete;

    /// Neighbour bits, solid mask and, for the TVD step, nb | nb2 << 8 per cell (nb2: the cells two away).
    void setGeometry(const std::vector<unsigned char>& nb, const std::vector<unsigned char>& solid, const std::vector<std::uint32_t>& nbw);
    /// Eddy diffusivity per cell (m²/s, nx·ny·nz values), or null for none.
    void setEddyDiffusivity(const float* kt);
    /// Fixed-temperature wall cells, flattened: entry e is cell `cells[e]` with conductance `g[e]` (m³/s) to a
    /// wall at `t_wall[e]` on domain face `face[e]` (0–5). Empty: adiabatic everywhere.
    void setWalls(const std::vector<int>& cells, const std::vector<float>& g, const std::vector<float>& t_wall,
                  const std::vector<int>& face);
    void setFluxes(const std::vector<float>& fx, const std::vector<float>& fy, const std::vector<float>& fz);
    /// `t` holds nx·ny·nz cells.
    void setTemperature(const float* t);
    void getTemperature(float* t) const;
    /// Port cells, flattened: entry e is cell `cells[e]` of port `port_of[e]`.
    void setPorts(const std::vector<int>& cells, const std::vector<int>& port_of, int ports);
    /// Per port: flow per cell (m³/s), supply temperature, the tracer it blows in and whether it blows in
    /// (source) or takes in.
    void setPortState(const std::vector<float>& q_per_cell, const std::vector<float>& t_in, const std::vector<float>& c_in,
                      const std::vector<unsigned char>& source);
    /// The passive tracer's field (nx·ny·nz cells): from the first call on, every step carries it too.
    void setTracer(const float* c);
    void getTracer(float* c) const;
    /// Held cells (AirGridSpec::substep_s): each cell's V / raised capacity (nx·ny·nz values), or null for none.
    void setHold(const float* cap);
    /// One explicit sub-step: every cell (advectDiffuse), then the ports (portExchange), then swap; the tracer too.
    void step(float diff, float dt_v);
    /// One TVD / variable-diffusivity sub-step (advectDiffuseTvd with the face conductances of the CPU's
    /// tvdRow; van Leer when `tvd`, else upwind), then the walls, then the ports, then swap.
    void stepTvd(float h, float kappa, float dt_v, bool tvd);
    /// Heat into the room through each domain face's fixed wall during the last stepTvd (m³·K/s).
    std::vector<double> wallFlows();
    /// Σ temperature over each port's cells, and Σ tracer when the tracer is on (else `c_sums` is empty): one wait.
    void portSums(std::vector<double>& t_sums, std::vector<double>& c_sums);
    /// Waits for what the calling thread queued (each host thread has its own default stream).
    void synchronize();
    /// Jacobi-preconditioned CG for M x = b (M from laplaceApply); `x` in and out. Returns the iterations.
    int solve(const std::vector<double>& b, const std::vector<double>& diag, std::vector<double>& x, double h, double rel_res, int max_iter,
              double& achieved_rel_res);

private:
    struct Impl;
    std::unique_ptr<Impl> d_;
};

/// Device-to-device copy bandwidth (bytes/s, read + write counted), measured with a 1 GiB copy: the HBM
/// roofline the benchmark compares against.
double deviceCopyBandwidth();
/// Waits for the device (benchmarks time whole steps).
void deviceSynchronize();

}  // namespace ct::sim::detail
