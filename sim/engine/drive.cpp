// Driven inputs (drive.hpp, issue 44): the table of inputs, interpolation with gaps, and the passes that put
// measured values in place of the model's own within a step.
#include "engine/drive_pass.hpp"
#include "engine/passes.hpp"

#include <algorithm>
#include <cmath>

namespace ct::sim {

const std::vector<DriveInputInfo>& driveInputs() {
    static const std::vector<DriveInputInfo> t{
        {DriveInput::JobUtilization, "job_utilization", "job", "utilization", "ratio", "a job's GPU utilization on its nodes"},
        {DriveInput::NodeFanSpeed, "node_fan_speed", "node", "fan_speed", "ratio",
         "a node's fan speed, share of full (fan_rpm through the server's fan_max_rpm)"},
        {DriveInput::NodeAirflow, "node_airflow", "node", "airflow_m3s", "m3/s", "a node's airflow"},
        {DriveInput::GpuPower, "gpu_power", "gpu", "power_w", "W", "a GPU's board power"},
        {DriveInput::NodePower, "node_power", "node", "power_w", "W", "a node's AC input power (its GPUs scaled to match)"},
        {DriveInput::UnitSetpoint, "unit_setpoint", "cooling_unit", "setpoint_c", "degC", "a cooling unit's supply setpoint"},
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

/// A node's DC load moved by `delta_w` through its GPUs (each kept within 0 and its maximum).
void scaleGpus(NodeRt& n, double delta_w) {
    double gpu_w = 0;
    for (const auto& g : n.gpus) gpu_w += g.power_w;
    if (n.gpus.empty() || !n.gpu) return;
    const double target = std::max(0.0, gpu_w + delta_w);
    for (auto& g : n.gpus) {
        if (g.failed || g.shutdown) continue;
        const double share = gpu_w > 0 ? g.power_w / gpu_w : 1.0 / static_cast<double>(n.gpus.size());
        g.power_w = std::clamp(target * share, 0.0, n.gpu->max_power_w);
    }
}

/// The node draws `ac_w` at its PSUs: its DC load from the PSU curve (two fixed-point passes, the efficiency
/// barely moves), its GPUs scaled to make up the difference with the model and, unless measured too, its fans
/// following that load as equipment() has them follow the model's; heat to liquid and air.
void setNodeAc(NodeRt& n, double ac_w, bool fans_driven) {
    const auto& sm = *n.server;
    const int psus = std::max(
        1, static_cast<int>(std::lround(sm.psu_count * static_cast<double>(n.live_feeds) / std::max<std::size_t>(1, n.feeds.size()))));
    double dc = ac_w;
    for (int i = 0; i < 2; ++i) dc = ac_w * (n.psu_curve ? n.psu_curve->efficiencyAt(dc / (psus * sm.psu_rating_w)) : 1.0);
    double gpu_w = 0;
    for (const auto& g : n.gpus) gpu_w += g.power_w;
    const double rest = n.power_dc_w - gpu_w - n.fan_power_w;  // CPUs, NICs, the board: the model's
    const double compute_max = (n.gpu ? n.gpu->max_power_w * static_cast<double>(n.gpus.size()) : 0.0) + sm.cpu_count * sm.cpu_max_power_w;
    double fan_w = n.fan_power_w;
    for (int i = 0; i < 4 && !fans_driven; ++i) {  // GPUs and fans share what the node draws; fans follow the GPUs
        const double gpus = std::max(0.0, dc - rest - fan_w);
        n.fan_speed = fanSpeedFor(compute_max > 0 ? (gpus + n.cpu_w) / compute_max : 0.0, n.inlet_c);
        fan_w = sm.fan_max_power_w * n.fan_speed * n.fan_speed * n.fan_speed;
    }
    n.fan_power_w = fan_w;
    n.airflow_m3s = sm.airflow_m3s * n.fan_speed;
    scaleGpus(n, dc - rest - fan_w - gpu_w);
    n.power_dc_w = dc;
    n.power_ac_w = ac_w;
    n.psu_loss_w = ac_w - dc;
    n.heat_liquid_w = dc * sm.liquid_fraction;
    n.heat_air_w = ac_w - n.heat_liquid_w;
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
    enum : unsigned char { kFans = 1, kGpus = 2, kAc = 4 };  // what was measured of each node this step
    std::vector<unsigned char> got(s.nodes.size(), 0);
    for (auto& r : rows) {
        const DriveInput in = r.s.input;
        if (in != DriveInput::NodePower && in != DriveInput::GpuPower && in != DriveInput::NodeFanSpeed && in != DriveInput::NodeAirflow)
            continue;
        const auto ni = static_cast<std::size_t>(r.index);
        NodeRt& n = s.nodes[ni];
        const bool on = nodeOn(n) && (in != DriveInput::GpuPower || (!n.gpus[r.gpu].failed && !n.gpus[r.gpu].shutdown));
        const auto v = value(r, t, on, count);
        if (!v) continue;
        if (in == DriveInput::NodeFanSpeed) setNodeFans(n, *v);
        else if (in == DriveInput::NodeAirflow) setNodeFans(n, n.server->airflow_m3s > 0 ? std::max(0.0, *v) / n.server->airflow_m3s : 0.0);
        else if (in == DriveInput::GpuPower) {
            GpuRt& g = n.gpus[static_cast<std::size_t>(r.gpu)];
            const double w = std::max(0.0, *v);
            n.power_dc_w += w - g.power_w;
            g.power_w = w;
        } else setNodeAc(n, std::max(0.0, *v), (got[ni] & kFans) != 0);
        got[ni] |= in == DriveInput::NodePower ? kAc : in == DriveInput::GpuPower ? kGpus : kFans;
    }
    // Nodes whose DC load moved (fans, GPUs) draw it through their PSUs, their fans following measured GPUs unless
    // measured themselves; a measured AC draw is final.
    for (std::size_t i = 0; i < s.nodes.size(); ++i) {
        if (!got[i] || (got[i] & kAc)) continue;
        NodeRt& n = s.nodes[i];
        if ((got[i] & kGpus) && !(got[i] & kFans) && n.gpu) {
            double gpu_w = 0;
            for (const auto& g : n.gpus) gpu_w += g.power_w;
            const double max_w = n.gpu->max_power_w * static_cast<double>(n.gpus.size()) + n.server->cpu_count * n.server->cpu_max_power_w;
            setNodeFans(n, fanSpeedFor(max_w > 0 ? (gpu_w + n.cpu_w) / max_w : 0.0, n.inlet_c));
        }
        n.heat_liquid_w = n.power_dc_w * n.server->liquid_fraction;
        nodePsus(n);
    }
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
