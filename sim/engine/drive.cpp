// Driven inputs (drive.hpp, issue 44): the table of inputs, interpolation with gaps, and the passes that put
// measured values in place of the model's own within a step.
#include "engine/drive_pass.hpp"
#include "engine/passes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace ct::sim {

const std::vector<DriveInputInfo>& driveInputs() {
    static const std::vector<DriveInputInfo> t{
        {DriveInput::JobUtilization, "job_utilization", "job", "utilization", "ratio", "a job's GPU utilization on its nodes"},
        {DriveInput::NodeFanSpeed, "node_fan_speed", "node", "fan_speed", "ratio",
         "a node's fan speed, share of full (fan_rpm through the server's fan_max_rpm)"},
        {DriveInput::NodeAirflow, "node_airflow", "node", "airflow_m3s", "m3/s", "a node's airflow"},
        {DriveInput::GpuPower, "gpu_power", "gpu", "power_w", "W", "a GPU's board power"},
        {DriveInput::NodePower, "node_power", "node", "power_w", "W", "a node's AC input power (its GPUs scaled to match)"},
        {DriveInput::UnitSetpoint, "unit_setpoint", "cooling_unit", "setpoint_c", "degC",
         "a cooling unit's setpoint (its supply's, or its return's under return-air control)"},
        {DriveInput::UnitSupply, "unit_supply", "cooling_unit", "supply_c", "degC", "a cooling unit's supply air temperature"},
        {DriveInput::UnitAirflow, "unit_airflow", "cooling_unit", "airflow_m3s", "m3/s", "a cooling unit's airflow"},
        {DriveInput::UnitFanSpeed, "unit_fan_speed", "cooling_unit", "fan_speed", "ratio",
         "a cooling unit's fan signal, share of full (airflow in proportion)"},
        {DriveInput::CduSupply, "cdu_supply", "cdu", "supply_c", "degC", "a CDU's coolant supply temperature"},
    };
    return t;
}

const DriveInputInfo& driveInputInfo(DriveInput input) {
    for (const auto& r : driveInputs())
        if (r.input == input) return r;
    return driveInputs().front();  // unreachable: every input has a row (tst_drive)
}

std::optional<DriveInput> driveInputById(std::string_view id) {
    for (const auto& r : driveInputs())
        if (id == r.id) return r.input;
    return std::nullopt;
}

double defaultMaxGapS(const std::vector<double>& t) {
    if (t.size() < 2) return 0;
    std::vector<double> d(t.size() - 1);
    for (std::size_t i = 1; i < t.size(); ++i) d[i - 1] = t[i] - t[i - 1];
    std::nth_element(d.begin(), d.begin() + static_cast<long>(d.size() / 2), d.end());
    return 3 * d[d.size() / 2];
}

std::optional<double> driveValueAt(const std::vector<double>& t_s, const std::vector<double>& v, double max_gap, double t,
                                   std::size_t& hint) {
    const std::size_t n = std::min(t_s.size(), v.size());
    if (n == 0) return std::nullopt;
    constexpr double kEps = 1e-9;
    if (t < t_s[0] - kEps || t > t_s[n - 1] + kEps) {  // beyond the span: the end sample, half a gap at most
        const std::size_t e = t < t_s[0] ? 0 : n - 1;
        if (std::abs(t - t_s[e]) <= max_gap / 2 + kEps && std::isfinite(v[e])) return v[e];
        return std::nullopt;
    }
    if (hint >= n || t_s[hint] > t + kEps) hint = 0;
    while (hint + 1 < n && t_s[hint + 1] <= t + kEps) ++hint;
    const std::size_t a = hint;
    if (std::abs(t - t_s[a]) <= kEps || a + 1 >= n) return std::isfinite(v[a]) ? std::optional<double>(v[a]) : std::nullopt;
    const std::size_t b = a + 1;
    if (t_s[b] - t_s[a] > max_gap + kEps || !std::isfinite(v[a]) || !std::isfinite(v[b])) return std::nullopt;
    const double w = (t - t_s[a]) / (t_s[b] - t_s[a]);
    return v[a] + w * (v[b] - v[a]);
}

}  // namespace ct::sim

namespace ct::sim::detail {

namespace {

int find(const std::unordered_map<std::string, int>& ids, const std::string& id) {
    const auto it = ids.find(id);
    return it == ids.end() ? -1 : it->second;
}

/// The node and GPU index of a GPU id ("n0001/gpu3"), or −1.
std::pair<int, int> gpuOf(const Site& s, const std::string& id) {
    const auto slash = id.rfind("/gpu");
    if (slash == std::string::npos) return {-1, -1};
    const int n = find(s.node_by_id, id.substr(0, slash));
    char* end = nullptr;
    const long g = std::strtol(id.c_str() + slash + 4, &end, 10);
    if (n < 0 || end == id.c_str() + slash + 4 || *end != '\0') return {-1, -1};
    if (g < 0 || g >= static_cast<long>(s.nodes[static_cast<std::size_t>(n)].gpus.size())) return {-1, -1};
    return {n, static_cast<int>(g)};
}

bool nodeOn(const NodeRt& n) { return n.powered && !n.failed; }

bool gpuLive(const GpuRt& g) { return !g.failed && !g.shutdown; }

/// The utilization at which a GPU draws `w` by its power law (power = idle + (max − idle)·u^exponent).
double utilAt(const model::GpuModel& gm, double w) {
    const double span = gm.max_power_w - gm.idle_power_w;
    if (!(span > 0)) return 1;
    return std::pow(std::clamp((w - gm.idle_power_w) / span, 0.0, 1.0), 1.0 / gm.power_exponent);
}

/// The node's fans at `speed` (share of full): airflow in proportion, fan power by the cube, the DC load with it.
void setNodeFans(NodeRt& n, double speed) {
    const auto& sm = *n.server;
    n.fan_speed = std::clamp(speed, 0.0, 1.5);
    const double fan_w = sm.fan_max_power_w * n.fan_speed * n.fan_speed * n.fan_speed;
    n.power_dc_w += fan_w - n.fan_power_w;
    n.fan_power_w = fan_w;
    n.airflow_m3s = sm.airflow_m3s * n.fan_speed;
}

/// The node's load from its GPUs as they are (the CPUs and board at their mean utilization, the fans following
/// unless `fans` is measured), through its PSUs.
void nodeFromGpus(NodeRt& n, double fans) {
    double gpu_w = 0, u = 0;
    for (const auto& g : n.gpus) {
        gpu_w += g.power_w;
        u += g.util;
    }
    nodeLoad(n, gpu_w, n.gpus.empty() ? 0.0 : u / static_cast<double>(n.gpus.size()));
    if (!std::isnan(fans)) setNodeFans(n, fans);
    nodePsus(n);
}

/// Every live GPU of the node at utilization u, and the node with them.
void nodeAtUtil(NodeRt& n, double u, double fans) {
    if (n.gpu)
        for (auto& g : n.gpus)
            if (gpuLive(g)) {
                g.util = u;
                g.throttle = 1;
                g.power_w = n.gpu->idle_power_w + (n.gpu->max_power_w - n.gpu->idle_power_w) * std::pow(u, n.gpu->power_exponent);
            }
    nodeFromGpus(n, fans);
}

/// The node draws `ac_w` at its PSUs: the GPU utilization at which the node's model draws it (bisection: the draw
/// grows with utilization), so CPUs, fans and GPU temperatures follow the measured load; what the model cannot
/// reach at 0 or 100 % is put on the GPUs, so the draw is exactly the measured one.
void setNodeAc(NodeRt& n, double ac_w, double fans) {
    double lo = 0, hi = 1;
    nodeAtUtil(n, 1, fans);
    if (n.power_ac_w > ac_w) {
        nodeAtUtil(n, 0, fans);
        if (n.power_ac_w < ac_w) {
            for (int i = 0; i < 40; ++i) {
                const double mid = 0.5 * (lo + hi);
                nodeAtUtil(n, mid, fans);
                (n.power_ac_w < ac_w ? lo : hi) = mid;
            }
            nodeAtUtil(n, 0.5 * (lo + hi), fans);
        }
    }
    const auto& sm = *n.server;
    const int psus = std::max(
        1, static_cast<int>(std::lround(sm.psu_count * static_cast<double>(n.live_feeds) / std::max<std::size_t>(1, n.feeds.size()))));
    double dc = ac_w;
    for (int i = 0; i < 3; ++i) dc = ac_w * (n.psu_curve ? n.psu_curve->efficiencyAt(dc / (psus * sm.psu_rating_w)) : 1.0);
    double gpu_w = 0;
    for (const auto& g : n.gpus) gpu_w += gpuLive(g) ? g.power_w : 0.0;
    const double target = std::max(0.0, gpu_w + dc - n.power_dc_w);  // the residual on the GPUs
    for (auto& g : n.gpus)
        if (gpuLive(g) && n.gpu) g.power_w = gpu_w > 0 ? g.power_w * target / gpu_w : target / static_cast<double>(n.gpus.size());
    n.power_dc_w = dc;
    n.power_ac_w = ac_w;
    n.psu_loss_w = ac_w - dc;
    n.heat_liquid_w = dc * sm.liquid_fraction;
    n.heat_air_w = ac_w - n.heat_liquid_w;
}

}  // namespace

void DriveState::build(const Site& s, const std::vector<model::Job>& jobs, std::vector<DriveSeries> series) {
    rows.clear();
    counts.clear();
    for (auto& x : series) {
        DriveRt r;
        const DriveInputInfo& info = driveInputInfo(x.input);
        const std::string kind = info.entity_kind;
        if (kind == "node") r.index = find(s.node_by_id, x.entity);
        else if (kind == "gpu") std::tie(r.index, r.gpu) = gpuOf(s, x.entity);
        else if (kind == "cooling_unit") r.index = find(s.unit_by_id, x.entity);
        else if (kind == "cdu") r.index = find(s.cdu_by_id, x.entity);
        else if (kind == "job")
            for (const auto& j : jobs)
                if (j.id == x.entity) {
                    r.index = 0;
                    for (const auto& nid : j.nodes)
                        if (const int n = find(s.node_by_id, nid); n >= 0) r.nodes.push_back(n);
                }
        if (r.index < 0) throw SimError(std::string("drive ") + info.id + ": " + x.entity + " is no " + kind + " of the scenario");
        if (x.t_s.size() != x.values.size() || !std::is_sorted(x.t_s.begin(), x.t_s.end()))
            throw SimError(std::string("drive ") + info.id + " of " + x.entity + ": times must ascend, one value each");
        if (!(x.max_gap_s > 0)) x.max_gap_s = defaultMaxGapS(x.t_s);
        auto c = std::find_if(counts.begin(), counts.end(), [&](const DriveCount& k) { return k.input == x.input; });
        if (c == counts.end()) {
            counts.push_back({x.input});
            c = counts.end() - 1;
        }
        ++c->series;
        c->samples += x.t_s.size();
        r.count = static_cast<std::size_t>(c - counts.begin());
        r.s = std::move(x);
        rows.push_back(std::move(r));
    }
    // Applied in the table's order: fans before GPU power before node power, which sets the node's total last.
    auto order = [](DriveInput i) {
        const auto& t = driveInputs();
        return std::find_if(t.begin(), t.end(), [&](const DriveInputInfo& r) { return r.input == i; }) - t.begin();
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const DriveRt& a, const DriveRt& b) { return order(a.s.input) < order(b.s.input); });
}

std::optional<double> DriveState::value(DriveRt& r, double t, bool on, bool count) {
    std::optional<double> v = on ? driveValueAt(r.s.t_s, r.s.values, r.s.max_gap_s, t, r.hint) : std::nullopt;
    if (count) {
        DriveCount& c = counts[r.count];
        if (v) ++c.driven_steps;
        else ++c.model_steps;
        if (r.was_driven && !v) ++c.gaps;
    }
    r.was_driven = v.has_value();
    return v;
}

void DriveState::jobs(Site& s, double t, bool count) {
    for (auto& r : rows) {
        if (r.s.input != DriveInput::JobUtilization) continue;
        const bool had = r.was_driven;
        const auto v = value(r, t, true, count);
        if (v || had)
            for (int n : r.nodes)
                s.nodes[static_cast<std::size_t>(n)].override_util = v ? std::optional<double>(std::clamp(*v, 0.0, 1.0)) : std::nullopt;
    }
}

void DriveState::nodes(Site& s, double t, bool count) {
    // What was measured of each node this step: its fans' speed (NaN: not), GPU power, AC draw.
    std::vector<double> fans(s.nodes.size(), std::nan(""));
    std::vector<char> gpus(s.nodes.size(), 0), ac(s.nodes.size(), 0);
    for (auto& r : rows) {
        const DriveInput in = r.s.input;
        if (in != DriveInput::NodePower && in != DriveInput::GpuPower && in != DriveInput::NodeFanSpeed && in != DriveInput::NodeAirflow)
            continue;
        const auto ni = static_cast<std::size_t>(r.index);
        NodeRt& n = s.nodes[ni];
        const bool on = nodeOn(n) && (in != DriveInput::GpuPower || gpuLive(n.gpus[static_cast<std::size_t>(r.gpu)]));
        const auto v = value(r, t, on, count);
        if (!v) continue;
        if (in == DriveInput::NodeFanSpeed) fans[ni] = std::clamp(*v, 0.0, 1.5);
        else if (in == DriveInput::NodeAirflow)
            fans[ni] = n.server->airflow_m3s > 0 ? std::clamp(*v / n.server->airflow_m3s, 0.0, 1.5) : 0.0;
        else if (in == DriveInput::NodePower) ac[ni] = 1;
        else {
            GpuRt& g = n.gpus[static_cast<std::size_t>(r.gpu)];
            g.power_w = std::max(0.0, *v);
            g.util = n.gpu ? utilAt(*n.gpu, g.power_w) : 0.0;  // what the measured power says it did
            g.throttle = 1;
            gpus[ni] = 1;
        }
        if (in == DriveInput::NodePower) setNodeAc(n, std::max(0.0, *v), fans[ni]);
    }
    // Nodes with measured GPUs or fans (and no measured draw): CPUs, board and fans follow, through the PSUs.
    for (std::size_t i = 0; i < s.nodes.size(); ++i)
        if (!ac[i] && (gpus[i] || !std::isnan(fans[i]))) nodeFromGpus(s.nodes[i], fans[i]);
}

void DriveState::cooling(Site& s, double t, bool count) {
    for (auto& u : s.units) u.driven_supply_c = u.driven_q_m3s = std::nan("");
    for (auto& r : rows) {
        const DriveInput in = r.s.input;
        if (in == DriveInput::CduSupply) {
            CduRt& c = s.cdus[static_cast<std::size_t>(r.index)];
            r.hold(c.setpoint_c, value(r, t, !c.failed, count));
            continue;
        }
        if (in != DriveInput::UnitSupply && in != DriveInput::UnitSetpoint && in != DriveInput::UnitAirflow &&
            in != DriveInput::UnitFanSpeed)
            continue;
        UnitRt& u = s.units[static_cast<std::size_t>(r.index)];
        const auto v = value(r, t, !u.failed, count);
        if (in == DriveInput::UnitSetpoint) r.hold(u.setpoint_c, v);
        if (!v || in == DriveInput::UnitSetpoint) continue;
        if (in == DriveInput::UnitSupply) u.driven_supply_c = *v;
        else if (in == DriveInput::UnitAirflow) u.driven_q_m3s = std::max(0.0, *v);
        else u.driven_q_m3s = std::clamp(*v, 0.0, 1.5) * u.model->airflow_m3s;
    }
}

}  // namespace ct::sim::detail
