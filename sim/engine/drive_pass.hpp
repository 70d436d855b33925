#pragma once
// The driven inputs of a run as the engine applies them (drive.hpp): each measured series resolved to its node,
// GPU, unit, CDU or job, and the passes that put its value in place of the model's within a step — jobs before
// the workload, nodes after equipment(), cooling before the port flows. Private to ct_sim.
#include "engine/site.hpp"

#include <clustertwin/sim/backend.hpp>
#include <clustertwin/sim/drive.hpp>

#include <limits>
#include <optional>
#include <vector>

namespace ct::sim::detail {

struct DriveRt {
    DriveSeries s;
    int index = -1;          ///< node, unit or CDU index (0 for a job)
    int gpu = -1;            ///< GPU within the node
    std::vector<int> nodes;  ///< a job's nodes
    std::size_t count = 0;   ///< its DriveCount
    std::size_t hint = 0;    ///< driveValueAt's
    bool was_driven = false;
    /// A setpoint as it was before the series drove it, put back when the series has no data (NaN: not held).
    double saved = std::numeric_limits<double>::quiet_NaN();
    /// `target` = v while the series has data, the value it had before otherwise.
    void hold(double& target, const std::optional<double>& v) {
        if (v) {
            if (saved != saved) saved = target;
            target = *v;
        } else if (saved == saved) {
            target = saved;
            saved = std::numeric_limits<double>::quiet_NaN();
        }
    }
};

struct DriveState {
    std::vector<DriveRt> rows;
    std::vector<DriveCount> counts;  ///< one per input driven, in the order first met

    /// Resolves every series to the site's entities (throws SimError naming one that is not there) and sorts
    /// them into the table's order.
    void build(const Site& s, const std::vector<model::Job>& jobs, std::vector<DriveSeries> series);
    bool empty() const { return rows.empty(); }
    /// Job utilization at t (override_util of the job's nodes; back to the model's when a gap starts).
    void jobs(Site& s, double t, bool count);
    /// Node fans, GPU power and node power at t, after equipment(); the nodes' PSU draw follows.
    void nodes(Site& s, double t, bool count);
    /// Unit supply, setpoint and airflow, CDU supply at t, before the port flows.
    void cooling(Site& s, double t, bool count);

private:
    /// The row's value at t when `on` (nullopt: the model's own), counted when `count`.
    std::optional<double> value(DriveRt& r, double t, bool on, bool count);
};

}  // namespace ct::sim::detail
