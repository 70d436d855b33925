// The table of room-air solvers: a new solver is a factory in its own file and one line here.
#include <clustertwin/sim/air/air_solver.hpp>

namespace ct::sim {

std::unique_ptr<AirSolver> makeLbmAir(const AirSolverSpec& spec, ThreadPool& pool);
std::unique_ptr<AirSolver> makeQuickAir(const AirSolverSpec& spec, ThreadPool& pool);

namespace {

struct Entry {
    const char* name;
    std::unique_ptr<AirSolver> (*make)(const AirSolverSpec&, ThreadPool&);
};

// The first is the default: the answer must be right first.
constexpr Entry kSolvers[] = {
    {"lbm", &makeLbmAir},
    {"quick", &makeQuickAir},
};

} // namespace

std::vector<std::string> airSolverNames() {
    std::vector<std::string> v;
    for (const Entry& e : kSolvers) v.emplace_back(e.name);
    return v;
}

std::unique_ptr<AirSolver> makeAirSolver(std::string_view name, const AirSolverSpec& spec, ThreadPool& pool) {
    if (name.empty()) name = kSolvers[0].name;
    for (const Entry& e : kSolvers)
        if (name == e.name) return e.make(spec, pool);
    std::string known;
    for (const Entry& e : kSolvers) known += std::string(known.empty() ? "" : ", ") + e.name;
    throw SimError("unknown air solver '" + std::string(name) + "' (known: " + known + ")");
}

} // namespace ct::sim
