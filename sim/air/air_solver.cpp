// The table of room-air solvers: a new solver is a factory in its own file and one line here.
#include <clustertwin/sim/air/air_solver.hpp>

#include <cmath>

namespace ct::sim {

std::unique_ptr<AirSolver> makeLbmAir(const AirSolverSpec& spec, ThreadPool& pool);
std::unique_ptr<AirSolver> makeQuickAir(const AirSolverSpec& spec, ThreadPool& pool);

namespace {

struct Entry {
    const char* name;
    std::unique_ptr<AirSolver> (*make)(const AirSolverSpec&, ThreadPool&);
    /// Memory beyond the air model's, per cell of the grid padded by one on every side (bytes).
    std::uint64_t bytes_per_padded_cell;
};

// The first is the default: the answer must be right first. lbm: two copies of 19 FP32 populations, the running
// means of velocity and eddy viscosity, the buoyancy temperature and flags.
constexpr Entry kSolvers[] = {
    {"lbm", &makeLbmAir, (2 * 19 + 8) * sizeof(float)},
    {"quick", &makeQuickAir, 0},
};

const Entry& entry(std::string_view name) {
    if (name.empty()) return kSolvers[0];
    for (const Entry& e : kSolvers)
        if (name == e.name) return e;
    std::string msg = "unknown air solver '" + std::string(name) + "' (known:";
    for (const Entry& e : kSolvers) msg.append(" ").append(e.name);
    throw SimError(msg + ")");
}

} // namespace

std::vector<std::string> airSolverNames() {
    std::vector<std::string> v;
    for (const Entry& e : kSolvers) v.emplace_back(e.name);
    return v;
}

void requireAirSolver(std::string_view name) { entry(name); }

std::unique_ptr<AirSolver> makeAirSolver(std::string_view name, const AirSolverSpec& spec, ThreadPool& pool) {
    return entry(name).make(spec, pool);
}

std::uint64_t airSolverBytes(std::string_view name, const AirGridSpec& grid) {
    auto n = [&](double len) { return static_cast<std::uint64_t>(std::ceil(len / grid.cell_m - 1e-9)) + 2; };
    return airModelBytes(grid) + n(grid.width_m) * n(grid.depth_m) * n(grid.height_m) * entry(name).bytes_per_padded_cell;
}

} // namespace ct::sim
