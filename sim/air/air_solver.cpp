// The table of room-air solvers: a new solver is a factory in its own file and one line here.
#include <clustertwin/sim/air/air_solver.hpp>

#include <cmath>

namespace ct::sim {

std::unique_ptr<AirSolver> makeLbmAir(const AirSolverSpec& spec, ThreadPool& pool);
std::unique_ptr<AirSolver> makeQuickAir(const AirSolverSpec& spec, ThreadPool& pool);

double AirSolver::probePressurePa(int /*probe*/) const { return std::nan(""); }

namespace {

struct Entry {
    const char* name;
    std::unique_ptr<AirSolver> (*make)(const AirSolverSpec&, ThreadPool&);
    /// Memory beyond the air model's, per cell of the grid padded by one on every side (bytes).
    std::uint64_t bytes_per_padded_cell;
    const char* label;
    const char* help;
    bool approximate;
    /// Its own settings: option, value, help (up to six).
    const char* params[6][3];
};

// The first is the default: the answer must be right first. lbm: two copies of 19 FP32 populations, the running
// means of velocity and eddy viscosity, the buoyancy temperature and flags.
constexpr Entry kSolvers[] = {
    {"lbm",
     &makeLbmAir,
     (2 * 19 + 8) * sizeof(float),
     "Lattice Boltzmann (jets, buoyancy, turbulence)",
     "lattice Boltzmann with turbulence and buoyancy: carries supply jets, plumes and recirculation; the answer to plan with",
     false,
     {{"lattice-stride", "N",
       "once the flow has settled, run the lattice one step in N and carry heat on its mean flow in between (4; 1 = every step)"},
      {"lattice-stride-max", "T",
       "while every port's flow holds within 5 % from one lattice run to the next, the stride doubles, up to one lattice run "
       "in T of simulated time (16s; 0 = the stride stays N)"},
      {"lattice-mach", "M",
       "the lattice Mach number at the fastest air the ports can make, which sets the lattice step (0.15; 0.05–0.2: the "
       "compressibility error grows as M², the run's cost falls as 1/M)"},
      {"lattice-levels", "K",
       "while the ports blow slower than they can, the lattice step lengthens in factors of √2, up to K of them (6: 8 times; "
       "Mach ≤ M at 1.2 × the fastest port's air); 0 = the step stays set for the fastest air the ports can make"},
      {"lattice-soft-start", "C",
       "a lattice starting from rest brings the ports' flows up in 8 stages over C sound crossings of the hall's longest side "
       "(2; 0 = all at once, whose pressure pulse can drive the lattice unstable and restart it at a shorter step)"},
      {"heat-substep", "T",
       "the heat transport's sub-step (0.05s); cells whose air would leave faster (the jets) hold it that long (same steady "
       "state, transport through them delayed by at most T per cell); 0 = the explicit limit"}}},
    {"quick",
     &makeQuickAir,
     0,
     "Quick: potential flow (approximate)",
     "potential flow without momentum or buoyancy: jets do not cross the room, inlets can be far off; approximate, fast",
     true,
     {{"quick-substep", "T",
       "the heat transport's sub-step (0.1s); cells whose air would leave faster hold it that long (same steady state, fastest transport "
       "delayed); 0 = the explicit limit"},
      {nullptr, nullptr, nullptr}}},
};

const Entry& entry(std::string_view name) {
    if (name.empty()) return kSolvers[0];
    for (const Entry& e : kSolvers)
        if (name == e.name) return e;
    std::string msg = "unknown air solver '" + std::string(name) + "' (known:";
    for (const Entry& e : kSolvers) msg.append(" ").append(e.name);
    throw SimError(msg + ")");
}

}  // namespace

std::vector<AirSolverInfo> airSolvers() {
    std::vector<AirSolverInfo> v;
    for (const Entry& e : kSolvers) {
        AirSolverInfo i{e.name, e.label, e.help, e.approximate, {}};
        for (const auto& p : e.params)
            if (p[0]) i.params.push_back({p[0], p[1], p[2]});
        v.push_back(std::move(i));
    }
    return v;
}

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

}  // namespace ct::sim
