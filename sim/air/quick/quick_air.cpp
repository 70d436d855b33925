// Quick mode: heat carried on the potential flow of the ports (AirModel::solveFlow), first-order upwind. No
// momentum and no buoyancy, so a jet does not cross the room: approximate, and labelled so (docs/simulation.md).
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace ct::sim {

namespace {

class QuickAir final : public AirSolver {
public:
    QuickAir(const AirSolverSpec& spec, ThreadPool& pool) : spec_(spec) {
        AirGridSpec g = spec.grid;
        g.tvd = false;
        air_ = std::make_unique<AirModel>(g, pool);
    }

    std::string_view name() const override { return "quick"; }
    bool approximate() const override { return true; }
    AirModel& air() override { return *air_; }
    const AirModel& air() const override { return *air_; }
    void addSolidBox(double x0, double y0, double z0, double x1, double y1, double z1) override {
        air_->addSolidBox(x0, y0, z0, x1, y1, z1);
    }
    int addPort(const std::vector<int>& cells, bool source, const PortJet&) override {
        const int p = air_->addPort(cells, source);
        at_solve_.push_back(-1.0);  // never solved
        return p;
    }
    void setPortFlow(int port, double q) override { air_->setPortFlow(port, q); }

    int advance(double duration, const std::function<void(double)>& before) override {
        prepare();
        return air_->advance(duration, before);
    }
    bool advancesSideBySide() const override { return air_->backend() == Backend::Cuda; }
    void finish() override { air_->finishDeviceWork(); }

    void prepare() override {
        // Solve again only when the port flows moved by enough of the hall's airflow (a unit failed, fans
        // changed speed): the L1 change since the last solve against the total.
        // Also when one port moved by twice that share of its own flow (a unit failed or stopped: a few per cent
        // of the hall's airflow, but all of its own), since the room moves heat at the solved flows until then.
        double total = 0, moved = 0;
        bool never = false, one = false;
        for (std::size_t p = 0; p < at_solve_.size(); ++p) {
            const double q = air_->portFlow(static_cast<int>(p));
            total += std::fabs(q);
            if (at_solve_[p] < 0) {
                never = true;
            } else {
                const double d = std::fabs(q - at_solve_[p]);
                moved += d;
                one = one || d > 2 * spec_.flow_resolve_change * std::max(std::fabs(at_solve_[p]), 1e-9);
            }
        }
        if (never || one || moved > spec_.flow_resolve_change * std::max(total, 1e-12)) {
            const auto t0 = std::chrono::steady_clock::now();
            const FlowSolveStats st = air_->solveFlow(spec_.flow_residual);
            stats_.flow_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            ++stats_.flow_solves;
            stats_.flow_iterations += st.iterations;
            stats_.last_flow_residual = st.relative_residual;
            stats_.max_divergence_error = std::max(stats_.max_divergence_error, st.max_divergence_error);
            for (std::size_t p = 0; p < at_solve_.size(); ++p) at_solve_[p] = air_->portFlow(static_cast<int>(p));
        }
    }

    std::string summary() const override {
        char buf[320];
        std::snprintf(
            buf, sizeof buf,
            "quick (approximate): potential flow, no momentum or buoyancy, %d x %d x %d cells of %.2f m; heat: first-order upwind",
            air_->nx(), air_->ny(), air_->nz(), air_->cellM());
        std::string s = buf;
        if (spec_.grid.substep_s > 0 && air_->backend() == Backend::Cpu) {
            std::snprintf(buf, sizeof buf, ", sub-steps of up to %.2f s (faster cells hold their air that long)", spec_.grid.substep_s);
            s += buf;
        }
        return s;
    }
    const AirSolverStats& stats() const override { return stats_; }

private:
    AirSolverSpec spec_;
    std::unique_ptr<AirModel> air_;
    std::vector<double> at_solve_;
    AirSolverStats stats_;
};

}  // namespace

std::unique_ptr<AirSolver> makeQuickAir(const AirSolverSpec& spec, ThreadPool& pool) { return std::make_unique<QuickAir>(spec, pool); }

}  // namespace ct::sim
