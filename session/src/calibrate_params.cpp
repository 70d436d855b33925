// The parameters a calibration can fit (calibrate.hpp): the table, the parameters file, and how each changes
// a scenario and its catalog.
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/units.hpp>
#include <clustertwin/runs/frame_series.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/drive.hpp>
#include <clustertwin/session/measured.hpp>

#include "measured_util.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <set>

namespace ct::session {

const std::vector<CalibParamInfo>& calibrationParameters() {
    static const std::vector<CalibParamInfo> t{
        {"unit_airflow_margin", "", 0.5, 2.0, 1.1,
         "the cooling units' airflow as a multiple of what the racks draw (the engine's rule; 1.1 by default)"},
        {"unit_airflow_scale", "cooling-unit model", 0.3, 1.5, 1.0, "a cooling-unit model's rated airflow, scaled"},
        {"unit_supply_offset", "cooling unit", -5.0, 5.0, 0.0, "added to a cooling unit's supply setpoint (K)"},
        {"server_airflow_scale", "server model", 0.5, 1.5, 1.0, "a server model's airflow at full fan speed, scaled"},
        {"rack_recirculation", "rack", 0.0, 0.5, 0.05, "the share of a rack's exhaust that returns to its intake inside it"},
        {"containment_leakage", "containment", 0.0, 0.5, 0.1, "the share of a contained aisle's air that leaks through it"},
        {"sensor_offset", "entity", -3.0, 3.0, 0.0,
         "added to the twin's temperatures of an entity before scoring: a sensor reading warmer than the air before it (K)"},
    };
    return t;
}

namespace {

const CalibParamInfo* info(const std::string& name) {
    for (const auto& p : calibrationParameters())
        if (name == p.name) return &p;
    return nullptr;
}

double number(const nlohmann::json& x, const char* key, double fallback, const std::string& where) {
    if (!x.contains(key)) return fallback;
    if (!x[key].is_number()) throw InputError(where + "/" + key + ": expected a number");
    return x[key].get<double>();
}

/// Sets `field` of catalog entry `id` of `section` in the scenario's own catalog JSON (added when missing), so the
/// scenario alone carries the fitted value.
void setCatalogField(model::Scenario& s, const char* section, const std::string& id, const char* field, double v) {
    nlohmann::json cat = s.catalog_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(s.catalog_json);
    auto& list = cat[section];
    if (!list.is_array()) list = nlohmann::json::array();
    auto it = std::find_if(list.begin(), list.end(), [&](const nlohmann::json& e) { return e.value("id", "") == id; });
    if (it == list.end()) {
        list.push_back({{"id", id}});
        it = list.end() - 1;
    }
    (*it)[field] = v;
    s.catalog_json = cat.dump();
}

std::string unknownTarget(const CalibParam& p) {
    return "parameter " + p.name + ": the scenario has no " + info(p.name)->target + " '" + p.target + "'";
}

}  // namespace

std::vector<CalibParam> loadCalibParams(const std::string& path) {
    nlohmann::json j = detail::readJsonFile(path);
    if (!j.is_object() || !j.contains("parameters") || !j["parameters"].is_array() || j["parameters"].empty())
        throw InputError(path + ": expected {\"parameters\": [{\"name\": ..., \"target\"?, \"min\"?, \"max\"?, \"start\"?}, ...]}");
    std::vector<CalibParam> out;
    for (std::size_t i = 0; i < j["parameters"].size(); ++i) {
        const auto& x = j["parameters"][i];
        const std::string where = path + ": /parameters/" + std::to_string(i);
        if (!x.is_object() || !x.contains("name") || !x["name"].is_string()) throw InputError(where + ": expected an object with a name");
        const CalibParamInfo* pi = info(x["name"].get<std::string>());
        if (!pi) {
            std::string known;
            for (const auto& p : calibrationParameters()) known += std::string(known.empty() ? "" : ", ") + p.name;
            throw InputError(where + "/name: no parameter '" + x["name"].get<std::string>() + "' (" + known + ")");
        }
        CalibParam p{pi->name};
        if (x.contains("target")) {
            if (!x["target"].is_string()) throw InputError(where + "/target: expected a string");
            p.target = x["target"].get<std::string>();
        }
        p.min = number(x, "min", pi->min, where);
        p.max = number(x, "max", pi->max, where);
        p.start = number(x, "start", std::clamp(pi->start, p.min, p.max), where);
        p.start_given = x.contains("start");
        if (!(p.min < p.max)) throw InputError(where + ": min must be below max");
        if (p.start < p.min || p.start > p.max) throw InputError(where + "/start: must be within min and max");
        p.value = p.start;
        out.push_back(std::move(p));
    }
    return out;
}

void applyCalibParams(model::Scenario& s, model::Catalog& c, const std::vector<CalibParam>& params, const std::vector<double>& x) {
    for (std::size_t i = 0; i < params.size(); ++i) {
        const CalibParam& p = params[i];
        const double v = x.at(i);
        const bool all = p.target == "*" || p.target.empty();
        bool hit = false;
        if (p.name == "unit_airflow_margin") {
            s.simulation.unit_airflow_margin = v;
            hit = true;
        } else if (p.name == "unit_supply_offset") {
            for (auto& h : s.halls)
                for (auto& u : h.cooling_units)
                    if (all || u.id == p.target) {
                        u.supply_setpoint_c += v;
                        hit = true;
                    }
        } else if (p.name == "unit_airflow_scale") {
            for (auto& m : c.cooling_units)
                if (all || m.id == p.target) {
                    m.airflow_m3s *= v;
                    setCatalogField(s, "cooling_units", m.id, "airflow_m3s", m.airflow_m3s);
                    hit = true;
                }
        } else if (p.name == "server_airflow_scale") {
            for (auto& m : c.servers)
                if (all || m.id == p.target) {
                    m.airflow_m3s *= v;
                    setCatalogField(s, "servers", m.id, "airflow_cfm", model::units::m3sToCfm(m.airflow_m3s));
                    hit = true;
                }
        } else if (p.name == "rack_recirculation") {
            for (auto& h : s.halls)
                for (auto& row : h.rows)
                    for (auto& r : row.racks)
                        if (all || r.id == p.target) {
                            r.recirculation_fraction = v;
                            hit = true;
                        }
        } else if (p.name == "containment_leakage") {
            for (auto& h : s.halls)
                for (auto& k : h.containments)
                    if (all || k.id == p.target) {
                        k.leakage_fraction = v;
                        hit = true;
                    }
        } else {
            hit = true;  // sensor_offset: applied to the twin's values when scoring
        }
        if (!hit) throw InputError(unknownTarget(p));
    }
}

Window parseWindow(const std::string& text, double origin_unix) {
    const auto dots = text.find("..");
    if (dots == std::string::npos) throw InputError("'" + text + "': expected a window A..B (0..2h, 2h..3h or ISO 8601 times)");
    auto side = [&](const std::string& v) {
        double t = 0;
        if (model::parseIsoTime(v, t)) return t - origin_unix;
        try {
            return model::parseDurationS(v);
        } catch (const model::ModelError& e) {
            throw InputError("'" + text + "': " + e.what());
        }
    };
    Window w{side(text.substr(0, dots)), side(text.substr(dots + 2))};
    if (!(w.to_s > w.from_s)) throw InputError("'" + text + "': the window ends before it starts");
    return w;
}

CalibRequest calibrationRequest(const model::Scenario& s, const model::Catalog& c, const DriveRequest& drive,
                                const std::vector<std::string>& metrics, DrivePlan& plan) {
    plan = planDrive(drive, s, c);
    CalibRequest r;
    r.scenario = s;
    r.catalog = c;
    r.engine.drive = plan.series;
    std::set<std::pair<std::string, std::string>> driven;
    for (const auto& d : plan.series) {
        const auto& info = sim::driveInputInfo(d.input);
        driven.insert({info.entity_kind, info.metric});
    }
    const auto store = runs::TelemetryStore::open(drive.db_path, runs::TelemetryStore::Mode::Existing);
    MeasuredMap map(s, MeasuredMapFile::load(drive.map_path));
    const auto rows = runs::recordedSeries();
    r.measured = loadMeasured(store, plan.measured_run, map, metrics.empty() ? std::vector<std::string>{"inlet_c"} : metrics,
                              plan.origin_unix, driven, [&](const EntityRef& e, const std::string& metric) -> std::optional<std::string> {
                                  for (const auto& row : rows)
                                      if (row.kind == e.kind && row.metric == metric) return std::string(row.unit);
                                  return std::nullopt;
                              });
    return r;
}

namespace {

nlohmann::json statsJson(const runs::ErrorStats& s) {
    auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    return {{"n", s.n}, {"rmse", num(s.rmse)}, {"mae", num(s.mae)}, {"bias", num(s.bias)}};
}

/// The parameters the search started from the units' heat balance, and the start.
nlohmann::json startsJson(const CalibResult& out) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& [name, value] : out.heat_balance_starts) j.push_back({{"name", name}, {"start", value}});
    return j;
}

}  // namespace

/// The calibrated scenario: the fitted values written in, and a "calibration" block that says where they came
/// from.
model::Scenario calibratedScenario(const CalibRequest& r, const CalibResult& out) {
    model::Scenario s = r.scenario;
    model::Catalog c = r.catalog;
    std::vector<double> x;
    for (const auto& p : out.params) x.push_back(p.value);
    applyCalibParams(s, c, out.params, x);
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : out.params)
        params.push_back({{"name", p.name}, {"target", p.target}, {"value", p.value}, {"start", p.start}, {"min", p.min}, {"max", p.max}});
    nlohmann::json block{
        {"by", "clustertwin-cli calibrate"},
        {"at", model::formatIsoTime(static_cast<double>(std::time(nullptr)))},
        {"train_s", {r.train.from_s, r.train.to_s}},
        {"validate_s", {r.validate.from_s, r.validate.to_s}},
        {"optimiser", r.method == CalibMethod::LeastSquares
                          ? std::string(out.coarse_runs > 0 ? "Levenberg-Marquardt, Broyden, Jacobian on the coarse grid"
                                                            : "Levenberg-Marquardt, Broyden") +
                                (r.noise_weights ? ", series weighted by their noise" : "")
                          : std::string(out.coarse_runs > 0 ? "NLopt BOBYQA, manifold mapping" : "NLopt BOBYQA")},
        {"runs", out.runs},
        {"coarse", {{"cell_m", out.coarse_runs > 0 ? r.coarse_cell_m : 0.0}, {"runs", out.coarse_runs}, {"fine_runs", out.fine_runs}}},
        {"stop", out.stop},
        {"heat_balance_starts", startsJson(out)},
        {"parameters", params},
        {"train", {{"before", statsJson(out.train_before)}, {"after", statsJson(out.train_after)}}},
        {"validate", {{"before", statsJson(out.validate_before)}, {"after", statsJson(out.validate_after)}}}};
    if (r.engine.drive.size() > 0) block["driven_by"] = r.engine.drive.front().source.substr(0, r.engine.drive.front().source.find(": "));
    s.calibration_json = block.dump();
    return s;
}

}  // namespace ct::session
