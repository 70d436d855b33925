// clustertwin-bench campus --ranks 1,2,... (issue 42): the campus's halls over MPI ranks. Each count runs
// `clustertwin-cli simulate` (beside this program) under `mpirun -np N` (one process for 1), one thread per
// rank unless --threads says otherwise, and reads its --json: wall time per simulated hour, the speed-up and
// parallel efficiency against the first count, the bytes a rank receives per step. The scenario is written to a
// temporary file first (the generated campus, or --scenario's); the runs store no air field and only their first
// and last samples, so that rank 0's recording weighs as little as it can.
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/hall_ranks.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ct::bench {

namespace {

std::string shellQuote(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

/// The command's stdout; throws with its exit status when it fails.
std::string capture(const std::string& command) {
    FILE* p = popen(command.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run: " + command);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = pclose(p);
    if (status != 0) throw std::runtime_error("failed (status " + std::to_string(status) + "): " + command);
    return out;
}

std::string cliBeside() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const auto cli = (ec ? std::filesystem::path(".") : self.parent_path()) / "clustertwin-cli";
    if (!std::filesystem::exists(cli)) throw std::runtime_error(cli.string() + " not found (campus --ranks runs it under mpirun)");
    return cli.string();
}

/// One count's run, as simulate --json said it.
struct Measured {
    int ranks = 1;
    double wall_s = 0, air_s = 0, steps = 0, bytes_per_step = 0;
    std::vector<int> hall_ranks;
    std::vector<int> hall_slabs;                         ///< over how many ranks each hall's lattice was split
    double flow_s = 0, lattice_steps = 0, substeps = 0;  ///< the flux projections' time; every hall's lattice steps and heat sub-steps
    double flow_iterations = 0, flow_solves = 0;         ///< the projections' CG iterations and solves, all halls
    bool split() const {
        return std::any_of(hall_slabs.begin(), hall_slabs.end(), [](int n) { return n > 1; });
    }
};

/// The time of a step on N ranks (docs/performance.md): every rank does what is not the halls' air (`other`),
/// the busiest rank's halls' air (each hall's share of the one-rank air time by its grid, halls assigned as the
/// engine assigns them), and an allgather of every hall's state, a ring: (N − 1) messages of latency α and
/// (N − 1)/N of the bytes at bandwidth β. A hall split over s ranks (more ranks than halls, lattice air): its air
/// over s (its flux projections split by the same rows) and its slabs' exchange — each lattice step the edge rows
/// (5 populations of nx · nz cells a side), each heat sub-step the others' two edge rows a side of heat and
/// tracer, each step the whole field of both; each CG iteration of a projection nine one-row halos (eight of the
/// multigrid's finest level in floats, one of doubles), two gathers of row sums and the multigrid's next level
/// (an eighth of the cells, floats), and each projection its solution round a ring (doubles).
struct StepModel {
    struct Hall {
        std::uint64_t weight = 0;  ///< its grid (its solver's bytes)
        int max_slabs = 1;
        double plane_cells = 0, cells = 0;  ///< an x-z plane of its grid (nx · nz), all its cells
    };
    std::vector<Hall> halls;
    double other_s = 0, air_s = 0, flow_s = 0;  ///< per step on one rank (flow_s: of air_s, the flux projections)
    double lattice_steps = 0, substeps = 0;     ///< per step and hall
    double cg_iterations = 0, cg_solves = 0;    ///< per step and hall
    double bytes_all = 0;                       ///< every hall's state, per step
    double step(int n, double latency_s, double bandwidth) const {
        std::vector<std::uint64_t> weights;
        std::vector<int> max_slabs;
        double total = 0;
        for (const Hall& h : halls) {
            weights.push_back(h.weight);
            max_slabs.push_back(h.max_slabs);
            total += static_cast<double>(h.weight);
        }
        const auto members = sim::assignHallRanks(weights, max_slabs, n);
        std::vector<double> load(static_cast<std::size_t>(n), 0);
        for (std::size_t h = 0; h < halls.size(); ++h) {
            const double share = static_cast<double>(halls[h].weight) / total, air = air_s * share;
            const double s = static_cast<double>(members[h].size());
            double t = air;
            if (s > 1) {
                const double plane = halls[h].plane_cells, cells = halls[h].cells;
                const double edge = lattice_steps * (latency_s + 2 * 5 * 4 * plane / bandwidth);
                const double rows = 2 * substeps * (s - 1) * (latency_s + 4 * 4 * plane / bandwidth);
                const double whole = 2 * (s - 1) * (latency_s + 4 * cells / s / bandwidth);
                const double halos = 2 * (8 * 4 + 8) * plane / bandwidth + 9 * latency_s;
                const double gathers = 3 * (s - 1) * latency_s + (s - 1) * 4 * cells / 8 / s / bandwidth;  // 2 of sums, 1 coarse
                const double cg = cg_iterations * (halos + gathers) + cg_solves * (s - 1) * (latency_s + 8 * cells / s / bandwidth);
                t = air / s + edge + rows + whole + cg;
            }
            for (int r : members[h]) load[static_cast<std::size_t>(r)] += t;
        }
        const double exchange = n > 1 ? (n - 1) * latency_s + bytes_all * (n - 1) / n / bandwidth : 0.0;
        return other_s + *std::max_element(load.begin(), load.end()) + exchange;
    }
};

/// From the 1-rank run (and a 2-rank one for the bytes): the model checked against every measured count, then
/// predicted for 8, 64 and 512 ranks on a cluster's network.
void printModel(bool as_json, const model::Scenario& s, const std::string& air, const std::vector<Measured>& runs) {
    const Measured* one = nullptr;
    const Measured* two = nullptr;
    for (const auto& m : runs) {
        if (m.ranks == 1 && !one) one = &m;
        if (m.ranks == 2 && !two) two = &m;
    }
    if (!one || one->steps <= 0) return;
    StepModel model;
    constexpr double kCell = 0.25;
    auto cellsAlong = [&](double m) { return std::max(1.0, std::round(m / kCell)); };
    for (const auto& h : s.halls) {
        StepModel::Hall mh;
        mh.weight = sim::airSolverBytes(air, sim::AirGridSpec{h.width_m, h.depth_m, h.height_m, kCell, 0.01});
        mh.max_slabs = air == "lbm" ? static_cast<int>(cellsAlong(h.depth_m)) / 2 : 1;  // as the engine splits
        mh.plane_cells = cellsAlong(h.width_m) * cellsAlong(h.height_m);
        mh.cells = mh.plane_cells * cellsAlong(h.depth_m);
        model.halls.push_back(mh);
    }
    const double halls = static_cast<double>(std::max<std::size_t>(1, s.halls.size()));
    model.air_s = one->air_s / one->steps;
    model.flow_s = std::min(one->flow_s, one->air_s) / one->steps;
    model.lattice_steps = one->lattice_steps / one->steps / halls;
    model.substeps = one->substeps / one->steps / halls;
    model.cg_iterations = one->flow_iterations / one->steps / halls;
    model.cg_solves = one->flow_solves / one->steps / halls;
    model.other_s = one->wall_s / one->steps - model.air_s;
    if (two && !two->split()) {  // rank 0 received rank 1's halls: scale to all of them by their grids
        double on1 = 0, all = 0;
        for (std::size_t h = 0; h < model.halls.size(); ++h) {
            all += static_cast<double>(model.halls[h].weight);
            if (h < two->hall_ranks.size() && two->hall_ranks[h] == 1) on1 += static_cast<double>(model.halls[h].weight);
        }
        model.bytes_all = on1 > 0 ? two->bytes_per_step * all / on1 : 0;
    }
    // What rank 0 received on 2 ranks is every hall's state only when no hall was split there: a shared hall's
    // slabs add their rows (three halls on two ranks), and the state is then not known apart from them.
    const std::string state_bytes =
        !two           ? std::string("no 2-rank run for the bytes of every hall's state a step")
        : two->split() ? std::string("every hall's state a step not known apart from the slabs' rows (a hall was split on 2 ranks)")
                       : std::to_string(static_cast<long long>(std::llround(model.bytes_all))) + " bytes of every hall's state a step";
    // This machine: ranks share its memory (Open MPI's vader transport); a cluster: one 200 Gb/s InfiniBand port
    // per rank. Both stated, not measured.
    constexpr double kLocalLatency = 1e-6, kLocalBandwidth = 5e9, kNetLatency = 5e-6, kNetBandwidth = 25e9;
    for (const auto& m : runs) {
        const double predicted = model.step(m.ranks, kLocalLatency, kLocalBandwidth) * m.steps;
        if (as_json)
            std::cout << nlohmann::json{{"name", "campus_ranks_model"},
                                        {"ranks", m.ranks},
                                        {"measured_s", m.wall_s},
                                        {"predicted_s", predicted},
                                        {"ratio", predicted / m.wall_s}}
                             .dump()
                      << "\n";
        else
            std::printf(
                "model (one rank: %.1f ms of air, %.1f of it flux projections, and %.1f ms of everything else a step, %s): "
                "%d rank(s) predicted %.1f s, measured %.1f s (ratio %.2f)\n",
                1e3 * model.air_s, 1e3 * model.flow_s, 1e3 * model.other_s, state_bytes.c_str(), m.ranks, predicted, m.wall_s,
                predicted / m.wall_s);
    }
    const double t1 = model.step(1, kNetLatency, kNetBandwidth);
    for (int n : {8, 64, 512}) {
        const double t = model.step(n, kNetLatency, kNetBandwidth);
        if (as_json)
            std::cout << nlohmann::json{{"name", "campus_ranks_prediction"},
                                        {"ranks", n},
                                        {"step_s", t},
                                        {"speedup", t1 / t},
                                        {"efficiency", t1 / t / n}}
                             .dump()
                      << "\n";
        else
            std::printf(
                "model, %d ranks on 200 Gb/s InfiniBand (5 us, 25 GB/s): %.1f ms a step (one rank %.1f ms), speed-up %.2f, "
                "efficiency %.0f %%%s\n",
                n, 1e3 * t, 1e3 * t1, t1 / t, 100 * t1 / t / n,
                n > static_cast<int>(s.halls.size())
                    ? (air == "lbm" ? " (more ranks than halls: halls split in slabs)" : " (more ranks than halls: the rest idle)")
                    : "");
    }
}

/// One `simulate` of the site on `ranks` ranks (under mpirun when more than one) of `threads` threads each:
/// what it said with --json.
nlohmann::json simulateOn(const std::string& cli, const std::string& file, const std::filesystem::path& dir, const std::string& backend,
                          const std::string& air, double minutes, int ranks, int threads) {
    const std::string db = (dir / ("run-np" + std::to_string(ranks) + "-t" + std::to_string(threads) + ".sqlite")).string();
    std::string cmd = ranks > 1 ? "mpirun --oversubscribe -np " + std::to_string(ranks) + " " : "";
    cmd += shellQuote(cli) + " simulate " + shellQuote(file) + " --air " + air + " --backend " + backend + " --duration " +
           std::to_string(minutes * 60) + "s --threads " + std::to_string(threads) + " --field-every 0 --record-every " +
           std::to_string(minutes * 60) + "s --json -q --out " + shellQuote(db) + " 2>&1 >" + shellQuote(db + ".json");
    const std::string said = capture(cmd);
    try {
        return nlohmann::json::parse(std::ifstream(db + ".json"));
    } catch (const std::exception&) {
        throw std::runtime_error("simulate said no JSON: " + said);
    }
}

/// The reference in the same run: one process on as many threads as the most ranks (`wall` s), sharing the
/// machine's cores and memory bandwidth as the ranks do, against the ranks.
void threadsReference(bool as_json, const std::string& label, double wall, int most, double wall1, const std::vector<Measured>& runs) {
    double ranks_wall = wall;
    for (const Measured& m : runs)
        if (m.ranks == most) ranks_wall = m.wall_s;
    if (as_json)
        std::cout << nlohmann::json{{"name", "campus_ranks_threads_reference"},
                                    {"scenario", label},
                                    {"threads", most},
                                    {"wall_s", wall},
                                    {"speedup", wall1 / wall},
                                    {"ranks_over_threads", wall / ranks_wall}}
                         .dump()
                  << "\n";
    else
        std::printf(
            "%s reference: one process on %d threads: %.1f s, speed-up %.2f over 1 (efficiency %.0f %%); %d ranks ran %.2f times as "
            "fast as %d threads\n",
            label.c_str(), most, wall, wall1 / wall, 100 * wall1 / wall / most, most, wall / ranks_wall, most);
}

}  // namespace

int benchCampusRanks(bool as_json, const model::Scenario& s, const std::string& label, const std::string& backend, const std::string& air,
                     double minutes, const std::vector<int>& counts, int threads) {
    const std::string cli = cliBeside();
    const auto dir = std::filesystem::temp_directory_path() / ("ct-bench-ranks-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "campus.json").string();
    model::saveScenarioFile(s, file);
    if (geteuid() == 0) {  // Open MPI refuses root unless told
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    double wall1 = 0;
    int count1 = 0;
    std::vector<Measured> runs;
    try {
        for (int n : counts) {
            if (!as_json) std::printf("%s over ranks: %d rank(s), %d thread(s) each...\n", label.c_str(), n, threads), std::fflush(stdout);
            const nlohmann::json j = simulateOn(cli, file, dir, backend, air, minutes, n, threads);
            const double wall = j.at("wall_s").get<double>(), per_hour = wall * 60 / minutes;
            if (count1 == 0) {
                wall1 = wall;
                count1 = n;
            }
            const double speedup = wall1 / wall, efficiency = speedup * count1 / n;
            const double bytes = j.value("exchanged_bytes_per_step", 0.0);
            runs.push_back({n, wall, j.value("air_s", 0.0), j.value("steps", 0.0), bytes, j.at("hall_ranks").get<std::vector<int>>(),
                            j.value("hall_slabs", std::vector<int>{}), j.value("flow_s", 0.0), j.value("lattice_steps", 0.0),
                            j.value("air_substeps", 0.0), j.value("flow_iterations", 0.0), j.value("flow_solves", 0.0)});
            if (as_json) {
                std::cout << nlohmann::json{{"name", "campus_ranks"},
                                            {"scenario", label},
                                            {"air", air},
                                            {"backend", backend},
                                            {"ranks", n},
                                            {"threads_per_rank", threads},
                                            {"grid_cells", j.at("grid_cells")},
                                            {"hall_ranks", j.at("hall_ranks")},
                                            {"hall_slabs", runs.back().hall_slabs},
                                            {"simulated_s", minutes * 60},
                                            {"wall_s", wall},
                                            {"wall_per_simulated_hour_s", per_hour},
                                            {"speedup", speedup},
                                            {"efficiency", efficiency},
                                            {"exchanged_bytes_per_step", bytes}}
                                 .dump()
                          << "\n";
            } else {
                std::printf(
                    "%s over ranks: %d rank(s) (halls on ranks %s, in %s slabs): %.1f s for %.0f simulated min (%.1f s per simulated "
                    "hour), speed-up %.2f over %d, parallel efficiency %.0f %%, %.0f bytes received per step by rank 0\n",
                    label.c_str(), n, j.at("hall_ranks").dump().c_str(), nlohmann::json(runs.back().hall_slabs).dump().c_str(), wall,
                    minutes, per_hour, speedup, count1, 100 * efficiency, bytes);
            }
            std::fflush(stdout);
        }
        const int most = *std::max_element(counts.begin(), counts.end());
        if (threads == 1 && count1 == 1 && most > 1)
            threadsReference(as_json, label, simulateOn(cli, file, dir, backend, air, minutes, 1, most).at("wall_s").get<double>(), most,
                             wall1, runs);
    } catch (...) {
        std::filesystem::remove_all(dir);
        throw;
    }
    std::filesystem::remove_all(dir);
    printModel(as_json, s, air, runs);
    return 0;
}

}  // namespace ct::bench
