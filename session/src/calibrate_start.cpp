// A start for the coolers' airflow scale from their heat balance (calibrate.hpp: heatBalanceStarts,
// airflowScaleFromHeatBalance). A cooling unit that follows the airflow rule (the racks' air by the margin, up to
// its rating) moves its rating only while the racks ask for more; above that a change of the scale changes nothing,
// so a derivative-based search that starts there never moves it (docs/calibration.md, "the hinge"). Its measured
// return air says what it really moved: the same heat over a larger rise is less air.
#include <clustertwin/runs/score.hpp>
#include <clustertwin/session/calibrate.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace ct::session {

namespace {

/// Whether the engine takes the unit's airflow from a measurement (its airflow or fan signal driven).
bool airflowDriven(const CalibRequest& r, const std::string& unit) {
    return std::any_of(r.engine.drive.begin(), r.engine.drive.end(), [&](const sim::DriveSeries& d) {
        return d.entity == unit && (d.input == sim::DriveInput::UnitAirflow || d.input == sim::DriveInput::UnitFanSpeed);
    });
}

const PairedSeries* measuredReturn(const CalibRequest& r, const std::string& unit) {
    for (const auto& p : r.measured.series)
        if (p.kind == "cooling_unit" && p.metric == "return_c" && p.entity == unit && !p.measured.empty()) return &p;
    return nullptr;
}

}  // namespace

std::vector<HeatBalanceStart> heatBalanceStarts(const CalibRequest& r) {
    std::vector<HeatBalanceStart> out;
    for (std::size_t i = 0; i < r.params.size(); ++i) {
        const CalibParam& p = r.params[i];
        if (p.name != "unit_airflow_scale" || p.start_given) continue;
        HeatBalanceStart h;
        h.param = i;
        for (const auto& hall : r.scenario.halls)
            for (const auto& u : hall.cooling_units) {
                if (p.target != "*" && u.model != p.target) continue;
                if (u.fan_speed || airflowDriven(r, u.id)) continue;  // its airflow is set, not the rule's
                const auto* model = r.catalog.coolingUnit(u.model);
                const PairedSeries* ret = measuredReturn(r, u.id);
                if (!model || !(model->airflow_m3s > 0) || !ret) continue;
                h.units.push_back(u.id);
                UnitHeatBalance b;
                b.rated_m3s = model->airflow_m3s;
                b.measured_return_c = ret->measured;
                h.balance.push_back(std::move(b));
            }
        if (!h.units.empty()) out.push_back(std::move(h));
    }
    return out;
}

std::optional<double> airflowScaleFromHeatBalance(const std::vector<UnitHeatBalance>& units, const Window& w, double window_s) {
    double best = -1;
    for (const auto& u : units) {
        if (!(u.rated_m3s > 0) || u.airflow.empty() || u.return_c.empty() || u.supply_c.empty()) continue;
        std::map<long long, std::vector<double>> windows;  // each window's airflows
        for (const auto& [t, measured] : u.measured_return_c) {
            if (t < w.from_s || t > w.to_s) continue;
            const double q = runs::interpolateAt(u.airflow, t), supply = runs::interpolateAt(u.supply_c, t);
            const double rise = runs::interpolateAt(u.return_c, t) - supply, measured_rise = measured - supply;
            // Under a kelvin the sensors' offsets and noise are a large part of the rise: no estimate there.
            if (!(q > 0) || !(rise > 1) || !(measured_rise > 1)) continue;
            windows[static_cast<long long>(std::floor((t - w.from_s) / window_s))].push_back(q * rise / measured_rise);
        }
        // The median of a window: after a load step the room's air warms over minutes, and the twin's, whose
        // units moved more air, sooner, so the first minutes' estimates run high.
        for (auto& [k, q] : windows) {
            if (q.size() < 5) continue;
            const auto mid = q.begin() + static_cast<std::ptrdiff_t>(q.size() / 2);
            std::nth_element(q.begin(), mid, q.end());
            best = std::max(best, *mid / u.rated_m3s);
        }
    }
    if (best > 0) return best;
    return std::nullopt;
}

}  // namespace ct::session
