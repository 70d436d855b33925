// clustertwin-bench: performance figures (not tests). `thermal`: air temperature step throughput against
// the memory-bandwidth roofline; `simulate`: wall time per simulated hour of superpod-h100-su.
#include "args.hpp"

#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/data_paths.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/sim/air/air_model.hpp>
#include <clustertwin/sim/collectives.hpp>
#include <clustertwin/sim/engine.hpp>
#include <clustertwin/sim/nccl.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <unordered_map>

#include <unistd.h>
#if defined(__SSE__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
namespace sim = ct::sim;

namespace ct::bench {
void runEveryNode(ct::model::Scenario& s, const char* job_id, double utilization);  // air_bench.cpp
}  // namespace ct::bench

namespace {

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// STREAM-style triad a = b + s·c over arrays far larger than the caches; best of several passes, with plain
/// stores and with streaming ones (past the caches), the higher taken: a plain store reads its line first (16 B
/// moved for the 12 counted), which the lattice's streaming rows do not, so the plain triad alone would set the
/// roofline a fifth to a quarter low for them (2-core EPYC VM here, 2 threads: 71–87 GB/s plain, 90–116 streamed).
/// Bytes counted as read b, c and write a (12 B per element), the same convention as the kernels' figures.
double triadBandwidth(sim::ThreadPool& pool) {
    const std::size_t n = std::size_t(1) << 25;  // 32 Mi floats = 128 MiB per array
    std::vector<float> a(n, 0.f), b(n, 1.f), c(n, 2.f);
    const std::size_t chunks = 64, per = n / chunks;
    double best = 0;
    for (int rep = 0; rep < 12; ++rep) {
        const bool stream = rep % 2 == 1;
        const auto t0 = Clock::now();
        pool.run(chunks, [&](std::size_t k) {
            float* __restrict pa = a.data() + k * per;
            const float* __restrict pb = b.data() + k * per;
            const float* __restrict pc = c.data() + k * per;
#if defined(__SSE__)
            if (stream && reinterpret_cast<std::uintptr_t>(pa) % 16 == 0) {
                for (std::size_t i = 0; i + 4 <= per; i += 4)
                    _mm_stream_ps(pa + i, _mm_add_ps(_mm_loadu_ps(pb + i), _mm_mul_ps(_mm_set1_ps(0.5f), _mm_loadu_ps(pc + i))));
                for (std::size_t i = per / 4 * 4; i < per; ++i) pa[i] = pb[i] + 0.5f * pc[i];
                return;
            }
#endif
            for (std::size_t i = 0; i < per; ++i) pa[i] = pb[i] + 0.5f * pc[i];
        });
#if defined(__SSE__)
        if (stream) _mm_sfence();
#endif
        const double s = seconds(t0, Clock::now());
        best = std::max(best, 12.0 * n / s);
    }
    if (a[12345] != 2.f) std::fprintf(stderr, "triad check failed\n");
    return best;
}

/// A 20 × 12 × 4 m hall: four rows of racks in hot/cold aisles breathing through ports, units on the walls.
void buildHall(sim::AirModel& a) {
    const double c = a.cellM();
    auto cells = [&](double x0, double x1, double y, double z0, double z1) {
        std::vector<int> v;
        for (double x = x0 + c / 2; x < x1; x += c)
            for (double z = z0 + c / 2; z < z1; z += c) {
                int i, j, k;
                a.cellOf(x, y, z, i, j, k);
                if (std::find(v.begin(), v.end(), a.index(i, j, k)) == v.end()) v.push_back(a.index(i, j, k));
            }
        return v;
    };
    struct P {
        int in, out;
    };
    std::vector<P> racks;
    for (int row = 0; row < 4; ++row) {
        const double y0 = 2.0 + row * 2.4;
        const bool north = row % 2 == 0;
        for (int r = 0; r < 20; ++r) {
            const double x0 = 3.0 + r * 0.7;
            a.addSolidBox(x0, y0, 0, x0 + 0.6, y0 + 1.2, 2.2);
            racks.push_back({0, 0});
            racks.back().in = a.addPort(cells(x0, x0 + 0.6, north ? y0 + 1.2 + c / 2 : y0 - c / 2, 0, 2.2), false);
            racks.back().out = a.addPort(cells(x0, x0 + 0.6, north ? y0 - c / 2 : y0 + 1.2 + c / 2, 0, 2.2), true);
        }
    }
    for (auto& r : racks) {
        a.setPortFlow(r.in, 1.5);
        a.setPortFlow(r.out, 1.5);
        a.setPortTemperature(r.out, 35);
    }
    for (int u = 0; u < 4; ++u) {
        const double y0 = 1.0 + u * 2.6;
        a.addSolidBox(0, y0, 0, 0.9, y0 + 2.5, 2.0);
        std::vector<int> sup = cells(0.95, 0.95 + c, y0 + 1.25, 0, 1.0), ret;
        for (double y = y0 + c / 2; y < y0 + 2.5; y += c) {
            auto v = cells(0.0, 0.9, y, 2.0, 2.0 + c);
            ret.insert(ret.end(), v.begin(), v.end());
        }
        sup.clear();
        for (double y = y0 + c / 2; y < y0 + 2.5; y += c) {
            auto v = cells(0.9, 0.9 + c, y, 0, 1.0);
            sup.insert(sup.end(), v.begin(), v.end());
        }
        const int s = a.addPort(sup, true), r = a.addPort(ret, false);
        a.setPortFlow(s, 80 * 1.5 / 4);
        a.setPortFlow(r, 80 * 1.5 / 4);
        a.setPortTemperature(s, 18);
    }
}

int benchThermal(bool as_json) {
    // Bytes per cell update: read T (4), write T (4), read three face fluxes (12), neighbour mask (1).
    const double bytes_per_cell = 21.0;
    for (double cell : {0.1, 0.25}) {
        for (int threads : {1, 2}) {
            sim::ThreadPool pool(threads);
            const double bw = triadBandwidth(pool);
            sim::AirModel a({20.0, 12.0, 4.0, cell, 0.01, 0}, pool);  // always use every thread asked for
            buildHall(a);
            a.solveFlow(1e-6);
            a.fill(22.0);
            const double dt = a.stableDt();
            for (int i = 0; i < 3; ++i) a.step(dt);  // warm-up
            const int reps = cell < 0.2 ? 40 : 400;
            const auto t0 = Clock::now();
            for (int i = 0; i < reps; ++i) a.step(dt);
            const double s = seconds(t0, Clock::now());
            const double rate = static_cast<double>(a.cellCount()) * reps / s;
            const double roofline = bw / bytes_per_cell;
            char name[64];
            std::snprintf(name, sizeof name, "thermal_%gm_%dt", cell, threads);
            if (as_json) {
                std::cout << json{{"name", name},
                                  {"cells", a.cellCount()},
                                  {"threads", threads},
                                  {"cell_updates_per_s", rate},
                                  {"roofline_fraction", rate / roofline},
                                  {"bandwidth_gbs", bw / 1e9},
                                  {"bytes_per_cell_update", bytes_per_cell},
                                  {"step_ms", 1e3 * s / reps}}
                                 .dump()
                          << "\n";
            } else {
                std::printf("%-18s %8zu cells  %d thread(s)  %7.1f M cell-updates/s  bandwidth %5.1f GB/s  roofline %6.1f M/s  (%.0f %%)\n",
                            name, a.cellCount(), threads, rate / 1e6, bw / 1e9, roofline / 1e6, 100 * rate / roofline);
            }
        }
    }
    return 0;
}

/// The CUDA backend: cell-updates/s against the device's measured copy bandwidth at ~1M and ~10M cells, and
/// steps/s at 1M (issue 7 targets: >= 50 % of the HBM roofline; >= 1,000 steps/s at 1M cells).
int benchThermalCuda(bool as_json) {
    const double bytes_per_cell = 21.0;
    const double bw = sim::cudaCopyBandwidth();
    const double roofline = bw / bytes_per_cell;
    const std::vector<std::string> all = [] {
        std::vector<std::string> v;
        for (const auto& b : sim::listBackends()) v.push_back(b.device);
        return v;
    }();
    for (auto [w, d, h] : {std::tuple{20.0, 12.0, 4.0}, std::tuple{40.0, 30.0, 8.0}}) {
        sim::ThreadPool pool(1);
        sim::AirGridSpec spec{w, d, h, 0.1, 0.01, 0};
        spec.backend = sim::Backend::Cuda;
        sim::AirModel a(spec, pool);
        buildHall(a);
        const auto t_solve = Clock::now();
        const sim::FlowSolveStats st = a.solveFlow(1e-6);
        const double solve_s = seconds(t_solve, Clock::now());
        a.fill(22.0);
        const double dt = a.stableDt();
        for (int i = 0; i < 10; ++i) a.step(dt);  // warm-up
        sim::cudaSynchronize();
        const int reps = 1000;
        const auto t0 = Clock::now();
        for (int i = 0; i < reps; ++i) a.step(dt);
        sim::cudaSynchronize();
        const double s = seconds(t0, Clock::now());
        const double rate = static_cast<double>(a.cellCount()) * reps / s;
        char name[64];
        std::snprintf(name, sizeof name, "thermal_cuda_%.1fM", a.cellCount() / 1e6);
        if (as_json) {
            std::cout << json{{"name", name},
                              {"backend", "cuda"},
                              {"device", all[1]},
                              {"cells", a.cellCount()},
                              {"cell_updates_per_s", rate},
                              {"roofline_fraction", rate / roofline},
                              {"copy_bandwidth_gbs", bw / 1e9},
                              {"bytes_per_cell_update", bytes_per_cell},
                              {"steps_per_s", reps / s},
                              {"flow_solve_s", solve_s},
                              {"flow_iterations", st.iterations}}
                             .dump()
                      << "\n";
        } else {
            std::printf(
                "%-20s %9zu cells  %8.1f M cell-updates/s  copy bandwidth %6.0f GB/s  roofline %7.0f M/s (%.0f %%)  %8.0f steps/s  "
                "flow solve %.2f s (%d it)  on %s\n",
                name, a.cellCount(), rate / 1e6, bw / 1e9, roofline / 1e6, 100 * rate / roofline, reps / s, solve_s, st.iterations,
                all[1].c_str());
        }
    }
    return 0;
}

/// One simulated hour (or `minutes`) of the generated 100k-GPU campus (`generate --gpus 100000`: eight halls of
/// 400 DGX H100 racks, in-row cooled with hot-aisle containment, 102,400 GPUs) on a backend (issue 21 target on a
/// GPU: the hour in <= 60 s in quick mode).
ct::model::Scenario campusScenario() {
    ct::model::HallParams p;
    p.gpus = 100000;
    p.racks_per_row = 20;
    p.nodes_per_rack = 4;
    p.topology = "none";
    ct::model::Scenario s = ct::model::buildHall(p);
    ct::bench::runEveryNode(s, "campus", 0.8);
    return s;
}

int benchCampus(bool as_json, const std::string& backend, const std::string& air, double minutes) {
    const ct::model::Scenario s = campusScenario();
    const auto& cat = ct::model::Catalog::builtin();
    sim::EngineOptions o;
    o.backend = backend;
    o.air = air;
    const auto tb = Clock::now();
    sim::Engine e(s, cat, o);
    const double build_s = seconds(tb, Clock::now());
    if (!as_json)
        std::printf("campus: built in %.1f s (%llu air cells, flow solved), simulating %.1f min on %s, air %s...\n", build_s,
                    static_cast<unsigned long long>(e.stats().grid_cells), minutes, backend.c_str(), e.stats().air_solver.c_str());
    std::fflush(stdout);
    const int steps = static_cast<int>(std::lround(minutes * 60 / o.step_s));
    const auto t0 = Clock::now();
    for (int i = 0; i < steps; ++i) e.step();
    const double wall = seconds(t0, Clock::now());
    const auto& f = e.frame();
    const int gpus = static_cast<int>(f.gpus.size());
    if (as_json) {
        std::cout << json{{"name", "campus_hour"},
                          {"backend", backend},
                          {"air", e.stats().air_solver},
                          {"gpus", gpus},
                          {"flow_seconds", e.stats().flow_seconds},
                          {"flow_solves", e.stats().flow_solves},
                          {"grid_cells", e.stats().grid_cells},
                          {"simulated_s", minutes * 60},
                          {"wall_s", wall},
                          {"wall_per_simulated_hour_s", wall * 60 / minutes},
                          {"air_substeps", e.stats().air_substeps},
                          {"build_s", build_s},
                          {"it_power_w", f.it_power_w},
                          {"max_inlet_c", f.max_inlet_c},
                          {"air_seconds", e.stats().air_seconds},
                          {"other_seconds", e.stats().other_seconds},
                          {"other_fraction", e.stats().other_seconds / wall}}
                         .dump()
                  << "\n";
    } else {
        std::printf(
            "campus: %d GPUs, %llu air cells, %.0f simulated min on %s (air %s) in %.1f s (%.1f s per simulated hour), %lld air "
            "sub-steps, %lld flow solves taking %.1f s (%.0f %%), build %.1f s; IT %.1f MW, max inlet %.1f C; per step: "
            "air %.1f ms, everything else (events, jobs, power, equipment, liquid, GPUs, frame) %.2f ms = %.1f %% of a step\n",
            gpus, static_cast<unsigned long long>(e.stats().grid_cells), minutes, backend.c_str(), e.stats().air_solver.c_str(), wall,
            wall * 60 / minutes, static_cast<long long>(e.stats().air_substeps), static_cast<long long>(e.stats().flow_solves),
            e.stats().flow_seconds, 100 * e.stats().flow_seconds / wall, build_s, f.it_power_w / 1e6, f.max_inlet_c,
            1e3 * e.stats().air_seconds / steps, 1e3 * e.stats().other_seconds / steps, 100 * e.stats().other_seconds / wall);
        std::printf("campus: everything else by phase (ms per step):");
        for (int ph = 0; ph < sim::EngineStats::kPhases; ++ph)
            std::printf(" %s %.2f%s", sim::kEnginePhases[ph], 1e3 * e.stats().phase_seconds[ph] / steps,
                        ph + 1 < sim::EngineStats::kPhases ? "," : "\n");
    }
    return 0;
}

int benchSimulate(bool as_json, const std::string& resources) {
    const std::string path = resources + "/scenarios/superpod-h100-su.json";
    auto rep = ct::model::loadAndValidate(path);
    if (ct::model::hasErrors(rep.diagnostics)) {
        std::cerr << path << ": invalid\n";
        return 2;
    }
    ct::bench::runEveryNode(rep.scenario, "bench", 0.9);  // all 32 nodes in one training job at 90 %
    sim::EngineOptions o;
    o.cell_m = 0.25;
    o.step_s = 1;
    o.air = "quick";  // the quick mode's figure; the lattice's is clustertwin-bench air (issue 14)
    const auto t0 = Clock::now();
    sim::Engine e(rep.scenario, rep.catalog, o);
    while (e.timeS() < 3600 - 1e-9) e.step();
    const double wall = seconds(t0, Clock::now());
    const auto& st = e.stats();
    if (as_json) {
        std::cout << json{{"name", "simulate_superpod_h100_su"},
                          {"air", st.air_solver},
                          {"cells", st.grid_cells},
                          {"threads", sim::ThreadPool(0).size()},
                          {"wall_s_per_sim_hour", wall},
                          {"air_substeps", st.air_substeps},
                          {"flow_solves", st.flow_solves},
                          {"it_power_w", e.frame().it_power_w}}
                         .dump()
                  << "\n";
    } else {
        std::printf("simulate superpod-h100-su, quick air, 1 h at 0.25 m: %.2f s wall (%lld air sub-steps, %lld flow solves, %llu cells)\n",
                    wall, static_cast<long long>(st.air_substeps), static_cast<long long>(st.flow_solves),
                    static_cast<unsigned long long>(st.grid_cells));
    }
    return 0;
}

int benchNetwork(bool as_json) {
    namespace net = sim::net;
    // 100k GPUs: 12,500 nodes of 8, rail-optimized, three levels of radix-128 switches.
    net::ClusterParams p;
    p.nodes = 12500;
    p.gpus_per_node = 8;
    p.topology = "rail-optimized";
    p.levels = 3;
    p.radix = 128;
    auto t0 = Clock::now();
    net::Topology t = net::buildCluster(p);
    const double build_s = seconds(t0, Clock::now());
    net::Router router(t);
    const std::vector<int> hosts = t.hosts();
    // 100k concurrent flows: every GPU sends to another chosen by a fixed-seed permutation.
    std::vector<int> perm(hosts.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
    std::uint64_t x = 88172645463325252ull;
    for (std::size_t i = perm.size() - 1; i > 0; --i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::swap(perm[i], perm[x % (i + 1)]);
    }
    t0 = Clock::now();
    std::vector<std::vector<int>> paths;
    paths.reserve(hosts.size());
    for (std::size_t i = 0; i < hosts.size(); ++i)
        if (perm[i] != static_cast<int>(i)) paths.push_back(router.route(hosts[i], hosts[perm[i]]));
    const double route_s = seconds(t0, Clock::now());
    std::vector<double> cap(static_cast<std::size_t>(t.arcCount()));
    for (int a = 0; a < t.arcCount(); ++a) cap[a] = t.arc(a).capacity_Bps;
    double recompute_s = 1e300;
    std::vector<double> rates;
    for (int rep = 0; rep < 3; ++rep) {
        t0 = Clock::now();
        rates = net::maxMinRates(paths, cap);
        recompute_s = std::min(recompute_s, seconds(t0, Clock::now()));
    }
    double mean_rate = 0;
    for (double r : rates) mean_rate += r / rates.size();
    // One 16k-rank ring all-reduce of 1 GiB, end to end (routing, rates, steps).
    std::vector<int> ranks, node_of;
    for (int n = 0; n < 2048; ++n)
        for (int g = 0; g < 8; ++g) {
            node_of.push_back(n);
            std::string id = "n";  // built by appending: GCC 12's -Wrestrict misfires on "n" + std::string
            id += std::to_string(n);
            id += "/gpu";
            id += std::to_string(g);
            ranks.push_back(t.find(id));
        }
    t0 = Clock::now();
    const auto ar = net::runCollective(t, router, net::CollectiveOp::AllReduce, ranks, 1024.0 * 1024 * 1024);
    const double allreduce_s = seconds(t0, Clock::now());
    // The same as NCCL runs it (issue 41): a channel per rail, the tuner's algorithm and protocol, Hopper's ceilings.
    net::NcclChoice how;
    how.architecture = "hopper";
    t0 = Clock::now();
    const auto nc = net::runNcclCollective(t, router, net::CollectiveOp::AllReduce, ranks, node_of, 1024.0 * 1024 * 1024, how);
    const double nccl_s = seconds(t0, Clock::now());
    if (as_json) {
        std::cout << json{{"name", "network_100k_gpus"},
                          {"gpus", hosts.size()},
                          {"links", t.cableCount()},
                          {"flows", paths.size()},
                          {"build_s", build_s},
                          {"route_s", route_s},
                          {"recompute_s", recompute_s},
                          {"mean_rate_GBps", mean_rate / 1e9},
                          {"allreduce_16k_s", allreduce_s},
                          {"allreduce_16k_sim_time_s", ar.time_s},
                          {"allreduce_16k_busbw_GBps", ar.busbw_Bps / 1e9},
                          {"nccl_allreduce_16k_s", nccl_s},
                          {"nccl_allreduce_16k_algorithm", nc.algorithm + "/" + nc.protocol},
                          {"nccl_allreduce_16k_channels", nc.channels},
                          {"nccl_allreduce_16k_busbw_GBps", nc.busbw_Bps / 1e9}}
                         .dump()
                  << "\n";
    } else {
        std::printf(
            "network: %zu GPUs, %d links built in %.2f s; %zu flows routed in %.2f s; one max-min recomputation %.3f s "
            "(mean rate %.2f GB/s)\n16k-rank ring all-reduce of 1 GiB: %.2f s wall, %.4f s simulated, busbw %.2f GB/s\n"
            "the same as NCCL runs it (%s/%s, %d channels): %.2f s wall, %.4f s simulated, busbw %.2f GB/s\n",
            hosts.size(), t.cableCount(), build_s, paths.size(), route_s, recompute_s, mean_rate / 1e9, allreduce_s, ar.time_s,
            ar.busbw_Bps / 1e9, nc.algorithm.c_str(), nc.protocol.c_str(), nc.channels, nccl_s, nc.time_s, nc.busbw_Bps / 1e9);
    }
    return 0;
}

}  // namespace

int benchImport(bool as_json, int scrapes);  // import_bench.cpp
int benchRender(bool as_json);               // render_bench.cpp
int benchScore(bool as_json);                // score_bench.cpp

namespace ct::bench {
int benchAir(bool as_json, double minutes, sim::Backend backend);  // air_bench.cpp
int benchCampusRanks(bool as_json, const model::Scenario& s, const std::string& label, const std::string& backend, const std::string& air,
                     double minutes, const std::vector<int>& counts, int threads);  // ranks_bench.cpp
double triadBandwidthOf(sim::ThreadPool& pool) { return triadBandwidth(pool); }
}  // namespace ct::bench

namespace {

const char* kBenchHelp = R"(Usage: clustertwin-bench BENCHMARK [--json] [--backend cpu|cuda|auto] [--minutes M] [--scrapes N]

Measures ClusterTwin's hot paths and prints each figure with a roofline or reference ratio measured in the
same run (docs/performance.md records them).
Benchmarks:
  thermal    finite-volume temperature step: cell-updates/s against the memory-bandwidth roofline
  air        lattice-Boltzmann kernel (1 and 2 threads; on CUDA ~1M and ~10M cells) and the generated 1024-GPU
             slab hall (--minutes, 60; --backend)
  simulate   the coupled engine on the shipped samples: simulated seconds per wall second
  network    max-min flow sharing and collectives on growing fat trees
  import     DCGM scrape parsing and storing (--scrapes, 360): samples/s
  render     3D frame time of growing halls (needs a display; a private Xvfb is started without one)
  campus     a 100k-GPU campus (--backend, --air, --minutes); with --ranks 1,2,...: its halls over that many
             MPI ranks each (clustertwin-cli simulate under mpirun; --threads per rank, 1; --scenario FILE for
             another site): wall time per simulated hour, speed-up, parallel efficiency, bytes exchanged
  score      scoring 1,000 simulated series against 10,000 measured samples each, against a memory roofline
Options:
  --json             one JSON object per figure on stdout
  --backend B        cpu (default), cuda or auto, for thermal, air and campus
  --minutes M        simulated minutes for air and campus
  --air A            room air for campus: lbm (default) or quick
  --ranks LIST       campus: the rank counts to run it on, e.g. 1,2
  --threads N        campus --ranks: threads per rank (1)
  --scenario FILE    campus --ranks: this site rather than the generated campus
  --scrapes N        scrapes for import
  -h, --help         this help
Exit codes: 0 done, 1 runtime error, 2 usage error (nothing is run).
)";

/// campus --ranks LIST: the generated campus, or --scenario's site, over each count of ranks.
int campusOverRanks(const ct::cli::Args& a, bool as_json, const std::string& backend, double minutes) {
    std::vector<int> counts;
    std::stringstream list(a.get("ranks"));
    for (std::string x; std::getline(list, x, ',');) {
        char* end = nullptr;
        const long n = std::strtol(x.c_str(), &end, 10);
        if (x.empty() || *end != '\0' || n < 1 || n > 4096)
            throw ct::cli::UsageError("--ranks takes counts like 1,2,4 (got '" + a.get("ranks") + "')");
        counts.push_back(static_cast<int>(n));
    }
    const int threads = a.getInt("threads", 1);
    if (threads < 1) throw ct::cli::UsageError("--threads must be >= 1");
    ct::model::Scenario s;
    std::string label = "campus";
    if (a.has("scenario")) {
        auto rep = ct::model::loadAndValidate(a.get("scenario"));
        if (ct::model::hasErrors(rep.diagnostics))
            throw std::runtime_error(a.get("scenario") + ": invalid (clustertwin-cli validate says why)");
        s = rep.scenario;
        label = std::filesystem::path(a.get("scenario")).stem().string();
    } else {
        s = campusScenario();
    }
    return ct::bench::benchCampusRanks(as_json, s, label, backend, a.get("air", "lbm"), minutes, counts, threads);
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> argv_list(argv + 1, argv + argc);
    std::optional<ct::cli::Args> parsed;
    try {
        parsed.emplace(argv_list, std::set<std::string>{"json", "help"},
                       std::set<std::string>{"backend", "minutes", "scrapes", "air", "ranks", "threads", "scenario"});
    } catch (const ct::cli::UsageError& e) {
        std::cerr << "clustertwin-bench: " << e.what() << "\n\n" << kBenchHelp;
        return 2;
    }
    const ct::cli::Args& a = *parsed;
    if (a.flag("help")) {
        std::cout << kBenchHelp;
        return 0;
    }
    if (argv_list.empty()) {
        std::cerr << kBenchHelp;
        return 2;
    }
    static const std::set<std::string> known = {"thermal", "air", "simulate", "network", "import", "render", "campus", "score"};
    if (a.positional().size() != 1 || !known.count(a.positional()[0])) {
        std::cerr << "clustertwin-bench: ";
        if (a.positional().size() != 1) std::cerr << "give exactly one benchmark";
        else std::cerr << "unknown benchmark '" << a.positional()[0] << "'";
        std::cerr << "\n\n" << kBenchHelp;
        return 2;
    }
    const std::string what = a.positional()[0];
    const bool as_json = a.flag("json");
    try {
        const std::string backend = a.get("backend", "cpu");
        const double minutes = a.getDouble("minutes", 60);
        const int scrapes = a.getInt("scrapes", 360);
        if (!(minutes > 0) || scrapes < 1) throw ct::cli::UsageError("--minutes must be > 0 and --scrapes >= 1");
        if (what == "thermal") {
            const sim::Backend b = sim::chooseBackend(backend);  // says why when CUDA is asked for and absent
            return b == sim::Backend::Cuda ? benchThermalCuda(as_json) : benchThermal(as_json);
        }
        if (what == "campus" && a.has("ranks")) return campusOverRanks(a, as_json, backend, minutes);
        if (what == "campus") return benchCampus(as_json, backend, a.get("air", "lbm"), minutes);
        if (what == "air") return ct::bench::benchAir(as_json, minutes, sim::chooseBackend(backend));
        if (what == "simulate") {
            const std::string resources = ct::model::resourceDir();
            if (resources.empty()) throw std::runtime_error("the sample scenarios were not found: set CT_RESOURCE_DIR");
            return benchSimulate(as_json, resources);
        }
        if (what == "network") return benchNetwork(as_json);
        if (what == "render") return benchRender(as_json);
        if (what == "score") return benchScore(as_json);
        return benchImport(as_json, scrapes);
    } catch (const ct::cli::UsageError& e) {
        std::cerr << "clustertwin-bench: " << e.what() << "\n\n" << kBenchHelp;
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "clustertwin-bench: " << e.what() << "\n";
        return 1;
    }
}
