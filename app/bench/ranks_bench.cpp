// clustertwin-bench campus --ranks 1,2,... (issue 42): the campus's halls over MPI ranks. Each count runs
// `clustertwin-cli simulate` (beside this program) under `mpirun -np N` (one process for 1), one thread per
// rank unless --threads says otherwise, and reads its --json: wall time per simulated hour, the speed-up and
// parallel efficiency against the first count, the bytes a rank receives per step. The scenario is written to a
// temporary file first (the generated campus, or --scenario's); the runs store no air field and only their first
// and last samples, so that rank 0's recording weighs as little as it can.
#include <clustertwin/model/scenario_io.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
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
    try {
        for (int n : counts) {
            const std::string db = (dir / ("run-np" + std::to_string(n) + ".sqlite")).string();
            std::string cmd = n > 1 ? "mpirun --oversubscribe -np " + std::to_string(n) + " " : "";
            cmd += shellQuote(cli) + " simulate " + shellQuote(file) + " --air " + air + " --backend " + backend + " --duration " +
                   std::to_string(minutes * 60) + "s --threads " + std::to_string(threads) +
                   " --field-every 0 --record-every " + std::to_string(minutes * 60) + "s --json -q --out " + shellQuote(db) + " 2>&1 >" + shellQuote(db + ".json");
            if (!as_json) std::printf("%s over ranks: %d rank(s), %d thread(s) each...\n", label.c_str(), n, threads), std::fflush(stdout);
            const std::string said = capture(cmd);
            nlohmann::json j;
            try {
                j = nlohmann::json::parse(std::ifstream(db + ".json"));
            } catch (const std::exception&) {
                throw std::runtime_error("simulate said no JSON: " + said);
            }
            const double wall = j.at("wall_s").get<double>(), per_hour = wall * 60 / minutes;
            if (count1 == 0) {
                wall1 = wall;
                count1 = n;
            }
            const double speedup = wall1 / wall, efficiency = speedup * count1 / n;
            const double bytes = j.value("exchanged_bytes_per_step", 0.0);
            if (as_json) {
                std::cout << nlohmann::json{{"name", "campus_ranks"}, {"scenario", label},    {"air", air},
                                            {"backend", backend},     {"ranks", n},           {"threads_per_rank", threads},
                                            {"grid_cells", j.at("grid_cells")},              {"hall_ranks", j.at("hall_ranks")},
                                            {"simulated_s", minutes * 60},                   {"wall_s", wall},
                                            {"wall_per_simulated_hour_s", per_hour},         {"speedup", speedup},
                                            {"efficiency", efficiency},                     {"exchanged_bytes_per_step", bytes}}
                                 .dump()
                          << "\n";
            } else {
                std::printf("%s over ranks: %d rank(s) (halls on ranks %s): %.1f s for %.0f simulated min (%.1f s per simulated hour), "
                            "speed-up %.2f over %d, parallel efficiency %.0f %%, %.0f bytes received per step by rank 0\n",
                            label.c_str(), n, j.at("hall_ranks").dump().c_str(), wall, minutes, per_hour, speedup, count1, 100 * efficiency, bytes);
            }
            std::fflush(stdout);
        }
    } catch (...) {
        std::filesystem::remove_all(dir);
        throw;
    }
    std::filesystem::remove_all(dir);
    return 0;
}

}  // namespace ct::bench
