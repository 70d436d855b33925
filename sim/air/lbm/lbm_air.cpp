// Room air on the lattice in physical units: see lbm_air.hpp.
#include <clustertwin/model/units.hpp>
#include <clustertwin/sim/air/lbm_air.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace ct::sim {

namespace {
constexpr double kCs = 0.57735026918962576;  // lattice speed of sound, 1/√3
}

struct LbmAir::Impl {
    LbmAirSpec spec;
    ThreadPool& pool;
    std::unique_ptr<AirModel> air;
    std::unique_ptr<Lattice> lat;  // built at the first advance
    double h = 0, dt = 0, t = 0;
    struct Port {
        std::vector<int> cells;
        bool source;
        PortJet jet;
        double q = 0;
    };
    std::vector<Port> ports;
    std::vector<float> temp, velocity;
    AirSolverStats stats;
    std::vector<double> flow_ref;     // port flows (smoothed) when the flow last changed
    std::vector<double> flow_smooth;  // port flows, smoothed over ~10 s
    double flow_scale = 0;            // the most the ports' smoothed flows have summed to
    double settle_until = 0, next_lattice = 0;
    double level_ms = 0;  // the speed the lattice step is set for now (Mach spec.mach there)
    static constexpr double kMinLevelMs = 0.5;
    static constexpr int kMaxRestarts = 4;       // each at 1/√2 of the step: at most a quarter of the first
    static constexpr int kRampStages = 8;        // the soft start's stages
    std::int64_t ramp_steps = 0;                 // the soft start's lattice steps (0: none)
    double level_margin = 1.2;                   // the step's speed over the fastest port's air; √2 more at each restart
    double run_fastest_ms = 0;                   // the fastest cell of the last lattice run's chunks' mean flows (m/s)
    int stride = 1;                              // the quasi-steady stride now (grows while the flows hold)
    std::vector<double> flow_at_run;             // port flows (smoothed) at the last lattice run
    double step_debt = 0;                        // lattice steps owed to the hall's clock (fractions)
    std::vector<float> interval_u, interval_kt;  // the last lattice run's mean flow, for the stride between runs
    bool interval_pending = false;               // not yet the heat's flow
    std::vector<std::vector<int>> probes;        // pressure probes' cells
    std::vector<int> probe_cells;                // all of them, probe after probe: in slabs, one exchange a sample
    std::vector<double> probe_sum, probe_p;      // Σ of their mean density − 1 this run; the last run's pressure (Pa)
    int probe_samples = 0;

    /// Adds each probe's mean density less the rest density (only differences between probes carry meaning).
    void sampleProbes() {
        const std::vector<double> rho = lat->densities(probe_cells);
        for (std::size_t i = 0, at = 0; i < probes.size(); ++i) {
            double sum = 0;
            for (std::size_t e = 0; e < probes[i].size(); ++e) sum += rho[at++];
            probe_sum[i] += sum / static_cast<double>(probes[i].size()) - 1.0;
        }
        ++probe_samples;
    }

    /// Runs n lattice steps, sampling the probes in between: eight times on the CPU, once on a device (where a
    /// cell's moments bring the lattice back to the host).
    void stepSampled(int n) {
        if (probes.empty()) {
            stepLattice(n);
            return;
        }
        const int parts = lat->backend() == Backend::Cpu ? std::min(n, 8) : 1;
        for (int p = 0, done = 0; p < parts; ++p) {
            const int to = static_cast<int>(static_cast<std::int64_t>(n) * (p + 1) / parts);
            stepLattice(to - done);
            done = to;
            sampleProbes();
        }
    }

    /// The current `velocity` (lattice units) as the heat's flow, projected to exact port mass, and the lattice's
    /// eddy viscosity as the heat's eddy diffusivity.
    void applyFlow(std::vector<float>& kt, double to_si) {
        // The diffusivity first, its stable step left to setFluxes, which works it out for both.
        for (float& v : kt) v = static_cast<float>(v * to_si);
        air->setEddyDiffusivity(kt, false);
        std::vector<float> fx, fy, fz;
        faceFluxes(fx, fy, fz);
        const auto t0 = std::chrono::steady_clock::now();
        const FlowSolveStats fs = air->setFluxes(std::move(fx), std::move(fy), std::move(fz), 1e-6);
        stats.flow_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ++stats.flow_solves;
        stats.flow_iterations += fs.iterations;
        stats.last_flow_residual = fs.relative_residual;
        stats.max_divergence_error = std::max(stats.max_divergence_error, fs.max_divergence_error);
    }

    /// True when the flow changed for real since the last change (or never ran): a port's flow, smoothed over
    /// ~10 s, moved by a quarter of itself (a unit failed or came back, a job started), or the total by 10 % of
    /// itself (the whole hall's load changed). Server fans follow the flicker of their inlets: on the 32-rack slab
    /// hall single rack levels swing by ±30 % from one second to the next around a steady mean, which kept the
    /// lattice running every step when each port's instant flow was compared. A move counts only when it is
    /// also 1 % of the most flow the ports together have had: a unit that stopped has a smoothed flow decaying
    /// towards zero by a quarter every 3 s, which, counted down to nothing, kept the demo's lattice settling
    /// for 207 s after one unit failed.
    bool flowsMoved(double duration) {
        const double a = 1.0 - std::exp(-duration / 10.0);
        if (flow_smooth.size() != ports.size()) {
            flow_smooth.resize(ports.size());
            for (std::size_t i = 0; i < ports.size(); ++i) flow_smooth[i] = ports[i].q;
        }
        double total = 0;
        for (std::size_t i = 0; i < ports.size(); ++i) total += std::fabs(flow_smooth[i] += (ports[i].q - flow_smooth[i]) * a);
        flow_scale = std::max(flow_scale, total);
        const double floor = std::max(1e-9, 0.01 * flow_scale);
        bool big = flow_ref.size() != ports.size();
        for (std::size_t i = 0; i < ports.size() && !big; ++i) {
            const double q = flow_smooth[i], d = std::fabs(q - flow_ref[i]);
            big = d > 0.25 * std::max(std::fabs(flow_ref[i]), std::fabs(q)) && d > floor;
        }
        if (!big) {
            double total_ref = 0;
            for (double q : flow_ref) total_ref += std::fabs(q);
            if (std::fabs(total - total_ref) <= std::max(0.1 * total_ref, floor)) return false;
        }
        flow_ref = flow_smooth;
        return true;
    }

    /// The stride after this lattice run: doubled while every port's smoothed flow held within 5 % of itself
    /// since the last run, up to one run in `lattice_stride_max_s` of simulated time (never below the base
    /// stride); back to the base stride as soon as one moved.
    int nextStride(double duration) {
        const int base = std::max(1, spec.lattice_stride);
        bool held = flow_at_run.size() == flow_smooth.size();
        for (std::size_t i = 0; held && i < flow_smooth.size(); ++i) {
            const double d = std::fabs(flow_smooth[i] - flow_at_run[i]);
            held = d <= 0.05 * std::max(std::fabs(flow_at_run[i]), std::fabs(flow_smooth[i])) || d < 1e-9;
        }
        flow_at_run = flow_smooth;
        const int cap = std::max(base, static_cast<int>(spec.lattice_stride_max_s / duration + 1e-9));
        stride = held ? std::min(2 * std::max(stride, base), std::max(cap, base)) : base;
        stride = std::max(stride, base);
        return stride;
    }

    /// Two flow-through times of the room (fluid volume over the air blown in), within 10–120 s.
    double settleTime() const {
        double q = 0;
        for (const Port& p : ports)
            if (p.source) q += p.q;
        const double v = static_cast<double>(air->cellCount() - air->solidCount()) * h * h * h;
        return q > 0 ? std::clamp(2.0 * v / q, 10.0, 120.0) : 120.0;
    }

    Impl(const LbmAirSpec& s, ThreadPool& p) : spec(s), pool(p) {}

    /// The fastest cell of `velocity` (the last chunk's mean) into stats.max_speed_ms.
    void noteFastest() {
        double u2 = 0;
        for (std::size_t c = 0; c + 2 < velocity.size(); c += 3) {
            const double x = velocity[c], y = velocity[c + 1], z = velocity[c + 2];
            u2 = std::max(u2, x * x + y * y + z * z);
        }
        stats.max_speed_ms = std::max(stats.max_speed_ms, std::sqrt(u2) * h / dt);
        stats.max_mach = std::max(stats.max_mach, std::sqrt(u2) / kCs);
        run_fastest_ms = std::max(run_fastest_ms, std::sqrt(u2) * h / dt);
    }

    /// The fastest air a source port makes in the lattice: its holes' jets merged with their momentum kept,
    /// q·u_jet = A·U² (models.md §3), so U = √φ·u_jet; a port open over its whole face blows at u_jet.
    double streamMs(const Port& p) const { return jetMs(p) * std::sqrt(p.jet.open_fraction); }

    double jetMs(const Port& p) const { return p.q / (static_cast<double>(p.cells.size()) * h * h * p.jet.open_fraction); }

    /// The share of their flows the ports blow at on the lattice now: the soft start's stage (soft_start_crossings),
    /// then 1.
    double rampShare() const {
        const std::int64_t age = lat->steps();
        return age >= ramp_steps ? 1.0 : static_cast<double>(rampStage(age) + 1) / kRampStages;
    }
    /// The soft start's stage (0 … kRampStages − 1) of a lattice `age` steps old, while it lasts.
    std::int64_t rampStage(std::int64_t age) const { return age * kRampStages / ramp_steps; }

    void pushFlow(int port) {
        const Port& p = ports[static_cast<std::size_t>(port)];
        const double share = rampShare();
        lat->setPortFlow(port, share * p.q * dt / (h * h * h), share * jetMs(p) * dt / h);
    }

    /// n lattice steps; during the soft start each stage's steps at that stage's share of the ports' flows.
    void stepLattice(int n) {
        while (n > 0) {
            const std::int64_t age = lat->steps();
            if (age >= ramp_steps) {
                lat->step(n);
                return;
            }
            const std::int64_t stage_end = (rampStage(age) + 1) * ramp_steps / kRampStages;
            const int m = static_cast<int>(std::min<std::int64_t>(n, std::max<std::int64_t>(1, stage_end - age)));
            lat->step(m);
            n -= m;
            for (std::size_t i = 0; i < ports.size(); ++i) pushFlow(static_cast<int>(i));
        }
    }

    /// The lattice step follows from the cell and the fastest expected speed: Mach `spec.mach` there.
    void setMaxSpeed(double ms) {
        spec.max_speed_ms = ms;
        level_ms = ms;
        dt = stepFor(ms);
    }
    double stepFor(double ms) const { return spec.mach * kCs * h / ms; }

    /// The speed the lattice step is set for while the ports blow slower than the equipment's maximum: the
    /// slowest of max_speed_ms / √2^k (k ≤ step_levels; 6: a step at most 8 times as long) at or above level_margin times
    /// the fastest port's air. A faster need takes effect at once; a slower one only once it is two levels
    /// (a factor 2) below, so that a flickering load does not rescale the lattice at every run.
    double levelFor() const {
        double need = 0;
        for (const Port& p : ports)
            if (p.source) need = std::max(need, level_margin * streamMs(p));
        // Nor so long that the last run's fastest air (a plume, a gap, a contained aisle: not always a port's jet)
        // comes within the same margin of lattice Mach kLatticeMachNote: the levels lengthen the step, they do not
        // take the air there.
        need = std::max(need, level_margin * run_fastest_ms * spec.mach / kLatticeMachNote);
        double level = spec.max_speed_ms;
        for (int k = 1; k <= spec.step_levels; ++k) {
            const double next = spec.max_speed_ms / std::pow(std::sqrt(2.0), k);
            if (next < need || next < kMinLevelMs) break;
            level = next;
        }
        if (level > level_ms || level <= 0.5 * level_ms * (1 + 1e-9)) return level;
        return level_ms;
    }

    /// Sets the lattice step for `ms` on the running lattice: the populations rescaled (Lattice::rescaleTime),
    /// the ports' flows given again in the new units, the owed steps and the kept means converted.
    void changeLevel(double ms) {
        const double dt_new = stepFor(ms), r = dt_new / dt;
        lat->rescaleTime(r, 0.5 + 3.0 * spec.nu_m2s * dt_new / (h * h));
        dt = dt_new;
        level_ms = ms;
        step_debt /= r;
        for (float& v : velocity) v = static_cast<float>(v * r);
        for (float& v : interval_u) v = static_cast<float>(v * r);
        for (float& v : interval_kt) v = static_cast<float>(v * r);
        for (std::size_t i = 0; i < ports.size(); ++i) pushFlow(static_cast<int>(i));
        ++stats.lattice_rescales;
    }

    void buildLattice() {
        LatticeSpec ls;
        ls.nx = air->nx();
        ls.ny = air->ny();
        ls.nz = air->nz();
        ls.tau = 0.5 + 3.0 * spec.nu_m2s * dt / (h * h);
        ls.smagorinsky_cs = spec.smagorinsky_cs;
        // A lattice update costs ~20 temperature updates: threads pay off on far smaller grids.
        ls.min_parallel_cells = spec.grid.min_parallel_cells / 16;
        ls.backend = spec.grid.backend;
        ls.slabs = spec.slabs;
        lat = std::make_unique<Lattice>(ls, pool);
        const int longest = std::max({ls.nx, ls.ny, ls.nz});
        ramp_steps = std::max<std::int64_t>(0, std::llround(spec.soft_start_crossings * longest / kCs));
        if (ramp_steps > 0 && ramp_steps < kRampStages) ramp_steps = kRampStages;
        for (std::size_t c = 0; c < air->cellCount(); ++c)
            if (air->solid(static_cast<int>(c))) lat->setSolid(static_cast<int>(c), true);
        for (std::size_t i = 0; i < ports.size(); ++i) {
            const Port& p = ports[i];
            lat->addPort(p.cells, p.source, p.jet.dx, p.jet.dy, p.jet.dz);
            pushFlow(static_cast<int>(i));
        }
        lat->reset();
    }

    /// Face fluxes (m³/s) from the lattice's mean velocity: the average of the two cells' normal velocity times
    /// the face area; walls and solids carry none (AirModel::setFluxes enforces it too).
    void faceFluxes(std::vector<float>& fx, std::vector<float>& fy, std::vector<float>& fz) const {
        const int nx = air->nx(), ny = air->ny(), nz = air->nz();
        const double scale = h / dt * h * h;  // lattice velocity → m/s → m³/s per face
        fx.assign(static_cast<std::size_t>(nx + 1) * ny * nz, 0.f);
        fy.assign(static_cast<std::size_t>(nx) * (ny + 1) * nz, 0.f);
        fz.assign(static_cast<std::size_t>(nx) * ny * (nz + 1), 0.f);
        auto u = [&](int c, int axis) {
            return static_cast<double>(velocity[3 * static_cast<std::size_t>(c) + static_cast<std::size_t>(axis)]);
        };
        // Face (i, j, k) of a face array sx × sy across: in std::size_t, so a campus grid cannot overflow int.
        auto at = [](int i, int j, int k, int sx, int sy) {
            const auto z = static_cast<std::size_t>(k), y = static_cast<std::size_t>(j);
            return static_cast<std::size_t>(i) + static_cast<std::size_t>(sx) * (y + static_cast<std::size_t>(sy) * z);
        };
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i) {
                    const int c = air->index(i, j, k);
                    if (i > 0) fx[at(i, j, k, nx + 1, ny)] = static_cast<float>(0.5 * (u(c - 1, 0) + u(c, 0)) * scale);
                    if (j > 0) fy[at(i, j, k, nx, ny + 1)] = static_cast<float>(0.5 * (u(c - nx, 1) + u(c, 1)) * scale);
                    if (k > 0) fz[at(i, j, k, nx, ny)] = static_cast<float>(0.5 * (u(c - nx * ny, 2) + u(c, 2)) * scale);
                }
    }
};

LbmAir::LbmAir(const LbmAirSpec& spec, ThreadPool& pool) : d_(std::make_unique<Impl>(spec, pool)) {
    if (!(spec.mach >= 0.01 && spec.mach <= 0.2)) throw SimError("lattice air: the lattice Mach number must be within 0.01–0.2");
    if (!(spec.max_speed_ms > 0)) throw SimError("lattice air: the fastest expected air speed must be positive");
    if (!(spec.prandtl_t > 0) || !(spec.nu_m2s > 0)) throw SimError("lattice air: viscosity and turbulent Prandtl number must be positive");
    if (!(spec.soft_start_crossings >= 0)) throw SimError("lattice air: the soft start's crossings must be zero or more");
    Impl& d = *d_;
    AirGridSpec g = spec.grid;
    g.tvd = true;
    d.air = std::make_unique<AirModel>(g, pool);
    // Split over ranks: the heat's rows too, each rank its slab's; on a device each rank steps the whole heat.
    if (g.backend == Backend::Cpu) d.air->splitRows(spec.slabs);
    d.h = d.air->cellM();
    d.setMaxSpeed(spec.max_speed_ms);
}

LbmAir::~LbmAir() = default;

AirModel& LbmAir::air() { return *d_->air; }
const AirModel& LbmAir::air() const { return *d_->air; }

const Lattice& LbmAir::lattice() const {
    if (!d_->lat) throw SimError("lattice air: the lattice is built at the first advance");
    return *d_->lat;
}

void LbmAir::setMaxSpeed(double ms) {
    if (d_->lat) throw SimError("lattice air: the fastest speed is set before the first advance");
    if (!(ms > 0)) throw SimError("lattice air: the fastest expected air speed must be positive");
    d_->setMaxSpeed(ms);
}

void LbmAir::addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1) {
    if (d_->lat) throw SimError("lattice air: solids are added before the first advance");
    d_->air->addSolidBox(x0, y0, z0, x1, y1, z1);
}

int LbmAir::addPort(const std::vector<int>& cells, bool source, double dx, double dy, double dz, double open_fraction) {
    return addPort(cells, source, PortJet{dx, dy, dz, open_fraction});
}

int LbmAir::addPort(const std::vector<int>& cells, bool source, const PortJet& jet) {
    Impl& d = *d_;
    if (d.lat) throw SimError("lattice air: ports are added before the first advance");
    if (!(jet.open_fraction > 0 && jet.open_fraction <= 1)) throw SimError("air port: the open fraction must be within (0, 1]");
    const int a = d.air->addPort(cells, source);
    // Every port goes through here, so a port's number is the same in air(), the lattice and this list.
    if (a != static_cast<int>(d.ports.size())) throw SimError("lattice air: ports added to air() directly");
    d.ports.push_back({cells, source, jet, 0.0});
    return a;
}

void LbmAir::setPortFlow(int port, double q) {
    Impl& d = *d_;
    d.ports.at(static_cast<std::size_t>(port)).q = q;
    d.air->setPortFlow(port, q);
    if (d.lat) d.pushFlow(port);
}

int LbmAir::advance(double duration, const std::function<void(double)>& before) {
    Impl& d = *d_;
    if (!(duration > 0)) return 0;
    if (!d.lat) d.buildLattice();
    // A jet faster than the lattice was set up for would run at a Mach number where it is no longer air.
    for (std::size_t i = 0; i < d.ports.size(); ++i) {
        const auto& p = d.ports[i];
        const double mach = d.streamMs(p) * d.stepFor(d.spec.max_speed_ms) / d.h / kCs;
        if (p.source && mach > 0.2) {
            char msg[300];
            std::snprintf(msg, sizeof msg,
                          "lattice air: port %zu blows at %.2f m/s, Mach %.2f on a lattice set up for %.2f m/s (at most 0.2 is air); "
                          "its flow exceeds the equipment's maximum airflow",
                          i, d.streamMs(p), mach, d.spec.max_speed_ms);
            throw SimError(msg);
        }
    }
    if (d.flowsMoved(duration)) {
        d.settle_until = d.t + d.settleTime();
        d.stride = std::max(1, d.spec.lattice_stride);
    }
    int sub = 0;
    const bool settling = d.t + 1e-9 < d.settle_until;
    if (settling || d.t + 1e-9 >= d.next_lattice || d.spec.lattice_stride <= 1) {
        d.next_lattice = d.t + duration * (settling ? std::max(1, d.spec.lattice_stride) : d.nextStride(duration));
        sub = runLattice(duration, before);
    } else {
        if (d.interval_pending) {  // between lattice runs heat rides on the last run's mean flow
            d.velocity = d.interval_u;
            d.applyFlow(d.interval_kt, d.h * d.h / d.dt / d.spec.prandtl_t);
            d.interval_pending = false;
        }
        sub = d.air->advance(duration, before);
    }
    d.t += duration;
    return sub;
}

int LbmAir::runLattice(double duration, const std::function<void(double)>& before) {
    Impl& d = *d_;
    // Heat follows the lattice in chunks of about coupling_s: each chunk's mean flow (projected to exact port
    // mass) carries the heat over that chunk, so the eddies the LES resolves mix heat as they mix momentum, and
    // buoyancy sees the temperature of the chunk before.
    const int chunks = std::max(1, static_cast<int>(std::lround(duration / d.spec.coupling_s)));
    const double chunk = duration / chunks;
    const double beta = 1.0 / (d.spec.reference_temp_c + 273.15);
    const double level = d.levelFor();
    if (level != d.level_ms) d.changeLevel(level);
    d.run_fastest_ms = 0;
    double to_si = d.h * d.h / d.dt / d.spec.prandtl_t;  // lattice ν_t → κ_t in m²/s
    std::vector<double> sum_u, sum_kt;
    std::int64_t total = 0;
    int sub = 0;
    d.probe_sum.assign(d.probes.size(), 0.0);
    d.probe_samples = 0;
    for (int c = 0; c < chunks; ++c) {
        d.temp = d.air->temperatures();
        double sum = 0;
        std::size_t fluid = 0;
        for (std::size_t q = 0; q < d.temp.size(); ++q)
            if (!d.air->solid(static_cast<int>(q))) {
                sum += d.temp[q];
                ++fluid;
            }
        const double t_ref = fluid ? sum / static_cast<double>(fluid) : 0.0;
        if (d.spec.buoyancy) d.lat->setBuoyancy(d.temp.data(), d.spec.gravity_ms2 * beta * d.dt * d.dt / d.h, t_ref);
        // Whole lattice steps, the fractions carried over so the lattice keeps time with the hall.
        d.step_debt += chunk / d.dt;
        const int n = std::max(1, static_cast<int>(std::floor(d.step_debt)));
        d.step_debt -= n;
        d.lat->resetMeans();
        d.lat->setSampling(true);
        const std::int64_t s0 = d.lat->steps();
        try {
            d.stepSampled(n);
        } catch (const LatticeUnstable& e) {
            // The air somewhere ran faster than the ports' jets let the lattice expect (squeezed through a gap,
            // say): the lattice starts again from rest one level up, at 1/√2 of the step it failed at, and this
            // chunk runs again; the levels keep that margin from then on (the ports' air times √2 more, the top
            // level √2 faster), so a later run does not lengthen the step back for air as fast. At most four
            // times. The heat already carried stays; the interval's mean flow is the new lattice's alone.
            if (d.stats.lattice_restarts < Impl::kMaxRestarts) {
                ++d.stats.lattice_restarts;
                d.level_margin *= std::sqrt(2.0);
                d.spec.max_speed_ms *= std::sqrt(2.0);
                d.level_ms *= std::sqrt(2.0);
                d.dt = d.stepFor(d.level_ms);
                d.lat.reset();
                d.buildLattice();
                d.step_debt = 0;
                d.settle_until = std::max(d.settle_until, d.t + d.settleTime());
                to_si = d.h * d.h / d.dt / d.spec.prandtl_t;
                sum_u.clear();
                sum_kt.clear();
                total = 0;
                d.probe_sum.assign(d.probes.size(), 0.0);
                d.probe_samples = 0;
                --c;
                continue;
            }
            char when[128];
            std::snprintf(when, sizeof when, " (at x %.2f, y %.2f, z %.2f m in the hall, simulated time %.3f s)", (e.i + 0.5) * d.h,
                          (e.j + 0.5) * d.h, (e.k + 0.5) * d.h, d.t + c * chunk + static_cast<double>(e.step - s0) * d.dt);
            throw LatticeUnstable(std::string(e.what()) + when, e.i, e.j, e.k, e.step);
        }
        d.velocity = d.lat->meanVelocity();
        d.noteFastest();
        std::vector<float> kt = d.lat->meanEddyViscosity();
        sum_u.resize(d.velocity.size(), 0.0);
        sum_kt.resize(kt.size(), 0.0);
        for (std::size_t q = 0; q < d.velocity.size(); ++q) sum_u[q] += static_cast<double>(d.velocity[q]) * n;
        for (std::size_t q = 0; q < kt.size(); ++q) sum_kt[q] += static_cast<double>(kt[q]) * n;
        total += n;
        d.applyFlow(kt, to_si);
        sub += d.air->advance(chunk, before);
    }
    // Kept for the quasi-steady stride: between lattice runs heat rides on the mean flow of the whole interval.
    d.interval_u.resize(sum_u.size());
    d.interval_kt.resize(sum_kt.size());
    for (std::size_t q = 0; q < sum_u.size(); ++q) d.interval_u[q] = static_cast<float>(sum_u[q] / static_cast<double>(total));
    for (std::size_t q = 0; q < sum_kt.size(); ++q) d.interval_kt[q] = static_cast<float>(sum_kt[q] / static_cast<double>(total));
    // A run of one chunk: its mean is the interval's to the bit (n·v/n), and the heat already rides on it; projected
    // again at the next step it would differ only by that step's port flows, which the steps after it do not
    // follow either (a projection was 8 % of the campus sample's hour, half of them these).
    d.interval_pending = chunks > 1;
    d.stats.lattice_steps += total;
    d.stats.lattice_seconds += static_cast<double>(total) * d.dt;
    // ρ_air (h/dt)² c_s² turns the lattice's density into pressure (dynamic pressure scales as u², which the
    // lattice carries scaled by dt/h).
    const double to_pa = model::units::kAirDensityKgM3 * (d.h / d.dt) * (d.h / d.dt) * kCs * kCs;
    d.probe_p.assign(d.probes.size(), 0.0);
    for (std::size_t i = 0; i < d.probes.size() && d.probe_samples > 0; ++i) d.probe_p[i] = to_pa * d.probe_sum[i] / d.probe_samples;
    return sub;
}

int LbmAir::addProbe(const std::vector<int>& cells) {
    Impl& d = *d_;
    if (d.lat) throw SimError("lattice air: probes are added before the first advance");
    if (cells.empty()) throw SimError("lattice air: a pressure probe without cells");
    for (int c : cells)
        if (c < 0 || static_cast<std::size_t>(c) >= d.air->cellCount() || d.air->solid(c))
            throw SimError("lattice air: a pressure probe on a solid or outside cell");
    d.probes.push_back(cells);
    d.probe_cells.insert(d.probe_cells.end(), cells.begin(), cells.end());
    return static_cast<int>(d.probes.size()) - 1;
}

double LbmAir::probePressurePa(int probe) const {
    const Impl& d = *d_;
    if (probe < 0 || static_cast<std::size_t>(probe) >= d.probe_p.size())
        return probe >= 0 && static_cast<std::size_t>(probe) < d.probes.size() ? 0.0 : std::nan("");
    return d.probe_p[static_cast<std::size_t>(probe)];
}

double LbmAir::latticeDtS() const { return d_->dt; }
double LbmAir::timeS() const { return d_->t; }
const AirSolverStats& LbmAir::stats() const { return d_->stats; }

std::string LbmAir::summary() const {
    const Impl& d = *d_;
    char buf[600];
    std::snprintf(buf, sizeof buf,
                  "lattice Boltzmann D3Q19 TRT + Smagorinsky LES (C_s %.2f), %d x %d x %d cells of %.2f m, lattice step %.2f ms "
                  "(Mach %.2f at %.2f m/s, the fastest air the ports can make; up to %.1f times as long while they blow slower), %s, "
                  "quasi-steady stride %d (doubling while the "
                  "ports' flows hold, up to one lattice run in %.0f s); heat: van Leer TVD with eddy diffusivity (Pr_t %.2f)",
                  d.spec.smagorinsky_cs, d.air->nx(), d.air->ny(), d.air->nz(), d.h, d.stepFor(d.spec.max_speed_ms) * 1e3, d.spec.mach,
                  d.spec.max_speed_ms, std::pow(std::sqrt(2.0), d.spec.step_levels),
                  d.spec.buoyancy ? "Boussinesq buoyancy" : "no buoyancy", d.spec.lattice_stride, d.spec.lattice_stride_max_s,
                  d.spec.prandtl_t);
    std::string s = buf;
    if (d.spec.grid.substep_s > 0) {
        std::snprintf(buf, sizeof buf, ", sub-steps of up to %.2f s (faster cells hold their air that long)", d.spec.grid.substep_s);
        s += buf;
    }
    return s;
}

std::vector<float> LbmAir::velocityMs() const {
    std::vector<float> v = d_->velocity;
    const float s = static_cast<float>(d_->h / d_->dt);
    for (float& x : v) x *= s;
    return v;
}

std::unique_ptr<AirSolver> makeLbmAir(const AirSolverSpec& spec, ThreadPool& pool) {
    LbmAirSpec l;
    l.grid = spec.grid;
    l.max_speed_ms = spec.max_speed_ms;
    l.lattice_stride = spec.lattice_stride;
    l.lattice_stride_max_s = spec.lattice_stride_max_s;
    l.mach = spec.lattice_mach;
    l.grid.substep_s = spec.heat_substep_s;
    // The held cells' added heat capacity within 2 % of the room's air: where the air moves fast in most of the
    // room (demo: 43 % of the cells would hold at 0.05 s, adding 25 %), the sub-step shortens instead.
    l.grid.max_held_share = 0.02;
    l.step_levels = spec.lattice_levels;
    l.soft_start_crossings = spec.lattice_soft_start;
    l.slabs = spec.lattice_slabs;
    return std::make_unique<LbmAir>(l, pool);
}

}  // namespace ct::sim
