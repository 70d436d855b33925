// DMTF Redfish (FORMATS.md §3): legacy Chassis Thermal/Power, and the newer ThermalMetrics, Fans,
// PowerSupplyMetrics, EnvironmentMetrics, Sensors, outlets/circuits, pumps and coolant connectors (all read as
// "excerpt" properties: an object with a Reading), and TelemetryService MetricReports (timed values).
// Locations are JSON pointers: "file#/PowerControl/0/PowerConsumedWatts".
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"

#include <cctype>
#include <cstring>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace ct::importers {

namespace {

using json = nlohmann::json;

struct Metric {
    std::string name, unit;
    double scale = 1;
};

/// CamelCase → snake_case ("PowerConsumedWatts" → "power_consumed_watts").
std::string snake(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (std::isupper(c)) {
            if (i > 0 && (std::islower(static_cast<unsigned char>(s[i - 1])) ||
                          (i + 1 < s.size() && std::islower(static_cast<unsigned char>(s[i + 1])) &&
                           std::isupper(static_cast<unsigned char>(s[i - 1])))))
                out += '_';
            out += static_cast<char>(std::tolower(c));
        } else if (std::isalnum(c)) {
            out += static_cast<char>(c);
        } else if (!out.empty() && out.back() != '_') {
            out += '_';
        }
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

/// Property names of readings → engine metric names and units.
Metric propertyMetric(const std::string& key) {
    static const std::map<std::string, Metric> m = {
        {"ReadingCelsius", {"temp_c", "degC"}},
        {"TemperatureCelsius", {"temp_c", "degC"}},
        {"PowerConsumedWatts", {"power_w", "W"}},
        {"PowerWatts", {"power_w", "W"}},
        {"PowerCapacityWatts", {"power_capacity_w", "W"}},
        {"PowerInputWatts", {"power_in_w", "W"}},
        {"InputPowerWatts", {"power_in_w", "W"}},
        {"LastPowerOutputWatts", {"power_out_w", "W"}},
        {"PowerOutputWatts", {"power_out_w", "W"}},
        {"OutputPowerWatts", {"power_out_w", "W"}},
        {"LineInputVoltage", {"voltage_in_v", "V"}},
        {"InputVoltage", {"voltage_in_v", "V"}},
        {"ReadingVolts", {"voltage_v", "V"}},
        {"Voltage", {"voltage_v", "V"}},
        {"CurrentAmps", {"current_a", "A"}},
        {"InputCurrentAmps", {"current_in_a", "A"}},
        {"FrequencyHz", {"frequency_hz", "Hz"}},
        {"EnergykWh", {"energy_kwh", "kWh"}},
        {"HumidityPercent", {"humidity", "ratio", 0.01}},
        {"SpeedPercent", {"fan_speed", "ratio", 0.01}},
        {"FanSpeedsPercent", {"fan_speed", "ratio", 0.01}},
        {"PumpSpeedPercent", {"pump_speed", "ratio", 0.01}},
        {"SupplyTemperatureCelsius", {"supply_c", "degC"}},
        {"ReturnTemperatureCelsius", {"return_c", "degC"}},
        {"DeltaTemperatureCelsius", {"delta_t_c", "degC"}},
        {"FlowLitersPerMinute", {"flow_lpm", "L/min"}},
        {"SupplyPressurekPa", {"supply_kpa", "kPa"}},
        {"ReturnPressurekPa", {"return_kpa", "kPa"}},
        {"DeltaPressurekPa", {"delta_kpa", "kPa"}},
        {"HeatRemovedkW", {"heat_removed_w", "W", 1000}},
        {"DewPointCelsius", {"dew_point_c", "degC"}},
        {"TemperatureReadingsCelsius", {"temp_c", "degC"}},
        {"TemperatureSummaryCelsius", {"temp_c", "degC"}},
        {"FanSpeedPercent", {"fan_speed", "ratio", 0.01}},
        {"AverageConsumedWatts", {"power_avg_w", "W"}},
        {"MaxConsumedWatts", {"power_max_w", "W"}},
        {"MinConsumedWatts", {"power_min_w", "W"}},
        {"LimitInWatts", {"power_limit_w", "W"}},
    };
    if (auto it = m.find(key); it != m.end()) return it->second;
    // Other properties say their unit at the end of their name (Redfish's naming rule): RailCurrentAmps,
    // CellVoltages, ChargePercent, StoredEnergyWattHours.
    struct Suffix {
        const char* suffix;
        const char* name_end;
        Metric unit;
    };
    static const Suffix suffixes[] = {
        {"Celsius", "_c", {"", "degC"}},
        {"WattHours", "_wh", {"", "Wh"}},
        {"kWh", "_kwh", {"", "kWh"}},
        {"kW", "_w", {"", "W", 1000}},
        {"Watts", "_w", {"", "W"}},
        {"Amps", "_a", {"", "A"}},
        {"Voltages", "_v", {"", "V"}},
        {"Voltage", "_v", {"", "V"}},
        {"Volts", "_v", {"", "V"}},
        {"Percent", "", {"", "ratio", 0.01}},
        {"RPM", "_rpm", {"", "RPM"}},
        {"Hz", "_hz", {"", "Hz"}},
        {"LitersPerMinute", "_lpm", {"", "L/min"}},
        {"LPM", "_lpm", {"", "L/min"}},
        {"kPa", "_kpa", {"", "kPa"}},
    };
    for (const auto& sf : suffixes) {
        const std::size_t n = std::strlen(sf.suffix);
        if (key.size() > n && key.compare(key.size() - n, n, sf.suffix) == 0) {
            Metric m2 = sf.unit;
            m2.name = snake(key.substr(0, key.size() - n)) + sf.name_end;
            return m2;
        }
    }
    return {snake(key), ""};
}

/// A Sensor without ReadingType: its ReadingUnits (UCUM, as Redfish specifies) say what it measures.
Metric unitMetric(const std::string& units) {
    static const std::map<std::string, Metric> m = {
        {"Cel", {"temp_c", "degC"}},
        {"W", {"power_w", "W"}},
        {"kW", {"power_w", "W", 1000}},
        {"V", {"voltage_v", "V"}},
        {"A", {"current_a", "A"}},
        {"Hz", {"frequency_hz", "Hz"}},
        {"kW.h", {"energy_kwh", "kWh"}},
        {"J", {"energy_j", "J"}},
        {"L/min", {"flow_lpm", "L/min"}},
        {"kPa", {"pressure_kpa", "kPa"}},
        {"Pa", {"pressure_kpa", "kPa", 0.001}},
        {"RPM", {"fan_rpm", "RPM"}},
        {"{rev}/min", {"fan_rpm", "RPM"}},
    };
    if (auto it = m.find(units); it != m.end()) return it->second;
    return {"reading", units};
}

/// Sensor resources: ReadingType (and ReadingUnits, UCUM) → metric. A percentage is named by what the
/// sensor is (its Id, Name and PhysicalContext): a fan's or pump's speed, humidity, a valve's opening, a load.
Metric sensorMetric(const std::string& type, const std::string& units, const std::string& what) {
    if (type == "Percent" || (type.empty() && units == "%")) {
        std::string w;
        for (char c : what) w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto has = [&](const char* k) { return w.find(k) != std::string::npos; };
        if (has("fan")) return {"fan_speed", "ratio", 0.01};
        if (has("pump")) return {"pump_speed", "ratio", 0.01};
        if (has("humid")) return {"humidity", "ratio", 0.01};
        if (has("valve")) return {"valve_opening", "ratio", 0.01};
        if (has("util") || has("load") || has("usage")) return {"utilization", "ratio", 0.01};
        if (has("level") || has("fill") || has("reservoir")) return {"level", "ratio", 0.01};
        return {"percent", "ratio", 0.01};
    }
    if (type.empty()) return unitMetric(units);
    if (type == "Temperature") return {"temp_c", "degC"};
    if (type == "Power") return units == "kW" ? Metric{"power_w", "W", 1000} : Metric{"power_w", "W"};
    if (type == "Voltage") return {"voltage_v", "V"};
    if (type == "Current") return {"current_a", "A"};
    if (type == "Frequency") return {"frequency_hz", "Hz"};
    if (type == "EnergykWh") return {"energy_kwh", "kWh"};
    if (type == "EnergyJoules") return {"energy_j", "J"};
    if (type == "Humidity") return {"humidity", "ratio", 0.01};
    if (type == "LiquidFlowLPM" || type == "LiquidFlow") return {"flow_lpm", "L/min"};
    if (type == "PressurekPa" || type == "PressurePa" || type == "Pressure")
        return units == "Pa" ? Metric{"pressure_kpa", "kPa", 0.001} : Metric{"pressure_kpa", "kPa"};
    if (type == "Heat") return units == "kW" ? Metric{"heat_w", "W", 1000} : Metric{"heat_w", "W"};
    if (type == "Rotational" || units == "RPM") return {"fan_rpm", "RPM"};
    return {snake(type), units};
}

/// Not a reading: a sensor or device that is not there, or switched off (Status.State).
bool notPresent(const json& item) {
    if (!item.is_object() || !item.contains("Status") || !item["Status"].is_object()) return false;
    const std::string state = detail::jsonText(item["Status"], "State");
    return state == "Absent" || state == "Disabled" || state == "UnavailableOffline" || state == "StandbyOffline";
}

std::string urlDecode(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

/// The non-empty '/'-separated parts of a path or URI.
std::vector<std::string> segments(const std::string& path) {
    std::vector<std::string> out;
    for (std::size_t b = 0; b < path.size();) {
        const auto e = path.find('/', b);
        std::string seg = path.substr(b, e == std::string::npos ? std::string::npos : e - b);
        if (!seg.empty() && seg != ".") out.push_back(std::move(seg));
        if (e == std::string::npos) break;
        b = e + 1;
    }
    return out;
}

/// "/redfish/v1/Chassis/1U/ThermalSubsystem/ThermalMetrics" → {"1U/ThermalSubsystem", chassis "1U"}: the
/// entity that owns the readings. Vendor prefixes (/hmc, /api-explorer/resources) are skipped; the metric
/// resource names themselves (Thermal, Power, ThermalMetrics, EnvironmentMetrics, Metrics) are dropped.
struct Owner {
    std::string entity, top, chassis;
};
Owner ownerOf(std::string uri) {
    uri = urlDecode(uri.substr(0, uri.find('#')));
    const auto v1 = uri.find("redfish/v1/");
    std::string path = v1 == std::string::npos ? uri : uri.substr(v1 + 11);
    while (!path.empty() && path.back() == '/') path.pop_back();
    std::vector<std::string> segs = segments(path);
    static const std::set<std::string> resource_names = {
        "Thermal", "Power", "ThermalSubsystem", "PowerSubsystem", "ThermalMetrics", "EnvironmentMetrics", "Metrics"};
    while (segs.size() > 1 && resource_names.count(segs.back())) segs.pop_back();
    Owner o;
    if (!segs.empty()) o.top = segs.front();
    std::size_t first = 0;
    if (o.top == "Chassis" && segs.size() > 1) {
        o.chassis = segs[1];
        first = 1;
    }
    for (std::size_t k = first; k < segs.size(); ++k) o.entity += (o.entity.empty() ? "" : "/") + segs[k];
    return o;
}

/// The host of a resource saved from a crawl, when none was given: the directory the crawl was saved in. A
/// mockup-style tree (…/<crawl>/Chassis/1U/Thermal/index.json, or …/<crawl>/redfish/v1/Chassis/…) mirrors
/// the resource's URI below that directory; a loose file (hp/hp_power.json) is in it.
std::string crawlHost(const std::string& file, const std::string& odata_id) {
    std::vector<std::string> dirs = segments(file);
    if (dirs.empty()) return {};
    const std::string name = dirs.back();
    dirs.pop_back();
    if (name == "index.json" || name == "index.json.gz") {
        std::vector<std::string> segs = segments(urlDecode(odata_id.substr(0, odata_id.find('#'))));
        while (!segs.empty() && !dirs.empty() && dirs.back() == segs.back()) {
            dirs.pop_back();
            segs.pop_back();
        }
        if (!dirs.empty() && dirs.back() == "v1") dirs.pop_back();
        if (!dirs.empty() && dirs.back() == "redfish") dirs.pop_back();
    }
    return dirs.empty() ? std::string() : dirs.back();
}

class RedfishReader {
public:
    RedfishReader(const ParseOptions& opt, ParseResult& res) : opt_(opt), res_(res) {}

    void resource(const json& r) {
        const std::string id = detail::jsonText(r, "@odata.id");
        std::string type = detail::jsonText(r, "@odata.type");
        if (!type.empty() && type[0] == '#') type = type.substr(1);
        type = type.substr(0, type.find('.'));
        if (id.empty()) {
            warn("", "missing_field", "resource has no @odata.id; its readings cannot be placed");
            return;
        }
        host_ = opt_.host;
        if (host_.empty() && opt_.host_from_path) host_ = crawlHost(opt_.file_name, id);
        const Owner o = ownerOf(id);
        owner_ = entity(o);
        if (absent(r, "")) return;  // a sensor, supply or fan that is not there: no readings, however shown
        if (type == "Thermal") thermal(r);
        else if (type == "Power") power(r);
        else if (type == "Sensor") sensor(r);
        else if (type == "MetricReport") metricReport(r);
        else if (type == "Control") control(r);
        else if (type.find("Collection") == std::string::npos) excerpts(r, "", owner_);
    }

private:
    void warn(const std::string& ptr, const std::string& kind, const std::string& msg) {
        res_.warnings.push_back({opt_.file_name + "#" + ptr, kind, msg});
    }

    std::string entity(const Owner& o) {
        std::string id = host_.empty() ? o.entity : host_ + "/" + o.entity;
        if (id.empty()) id = host_.empty() ? "redfish" : host_;
        if (entities_.insert(id).second) {
            std::map<std::string, std::string> labels;
            if (!o.chassis.empty()) labels["chassis"] = o.chassis;
            if (!host_.empty()) labels["host"] = host_;
            const std::string kind = o.top == "Chassis"            ? "chassis"
                                     : o.top == "PowerEquipment"   ? "power"
                                     : o.top == "ThermalEquipment" ? "cooling"
                                                                   : "redfish";
            res_.entities.push_back({id, kind, "", o.entity, labels});
        }
        return id;
    }

    static std::string itemName(const json& item) {
        for (const char* k : {"Name", "FanName", "DeviceName", "MemberId"})
            if (item.contains(k) && item[k].is_string() && !item[k].get<std::string>().empty()) return item[k].get<std::string>();
        return {};
    }

    /// The entity of array member `index`: named by its Name, unless another member of the array has the same
    /// name (HPE lists every supply as "HpeServerPowerSupply"): then by MemberId, or by position.
    std::string child(const std::string& parent, const json& item, std::size_t index, const json* array = nullptr) {
        std::string name = itemName(item);
        if (array && !name.empty()) {
            std::size_t same = 0;
            for (const auto& other : *array) same += other.is_object() && itemName(other) == name;
            if (same > 1) {
                const std::string member =
                    item.contains("MemberId") && item["MemberId"].is_string() ? item["MemberId"].get<std::string>() : "";
                name += "_" + (member.empty() || member == name ? std::to_string(index) : member);
            }
        }
        std::string id = parent + "/" + (name.empty() ? std::to_string(index) : snake(name));
        if (entities_.insert(id).second) res_.entities.push_back({id, "sensor", parent, name, {}});
        return id;
    }

    /// Adds one reading. Nulls are common (a sensor with no value): warned as no_data, not an error.
    void add(const std::string& ent, const Metric& m, const json& v, const std::string& ptr, double t) {
        if (v.is_null()) {
            warn(ptr, "no_data", "reading is null");
            return;
        }
        double x;
        if (v.is_number()) x = v.get<double>();
        else if (v.is_string() && detail::parseNumber(v.get<std::string>(), x)) {
        } else {
            warn(ptr, "bad_value", "reading is not a number: " + v.dump());
            return;
        }
        if (std::isnan(t)) {
            warn(ptr, "missing_field", "no time for this reading (no Timestamp and no default time)");
            return;
        }
        res_.samples.push_back({ent, m.name, m.unit, t, x * m.scale});
    }

    double now() const { return opt_.default_time_s; }

    void thermal(const json& r) {
        if (r.contains("Temperatures") && r["Temperatures"].is_array())
            for (std::size_t i = 0; i < r["Temperatures"].size(); ++i) {
                const json& s = r["Temperatures"][i];
                if (!s.is_object() || !s.contains("ReadingCelsius")) continue;
                const std::string ptr = "/Temperatures/" + std::to_string(i) + "/ReadingCelsius";
                if (absent(s, "/Temperatures/" + std::to_string(i))) continue;
                add(child(owner_, s, i, &r["Temperatures"]), {"temp_c", "degC"}, s["ReadingCelsius"], ptr, now());
                if (detail::jsonText(s, "PhysicalContext") == "Intake") add(owner_, {"inlet_c", "degC"}, s["ReadingCelsius"], ptr, now());
            }
        if (r.contains("Fans") && r["Fans"].is_array())
            for (std::size_t i = 0; i < r["Fans"].size(); ++i) {
                const json& f = r["Fans"][i];
                // Thermal v1.0 (iLO 4) calls the reading CurrentReading, in percent unless Units says otherwise.
                const char* key = f.is_object() && f.contains("Reading")          ? "Reading"
                                  : f.is_object() && f.contains("CurrentReading") ? "CurrentReading"
                                                                                  : nullptr;
                if (!key || absent(f, "/Fans/" + std::to_string(i))) continue;
                const std::string dflt = std::string(key) == "CurrentReading" ? "Percent" : "RPM";
                const std::string units = detail::jsonText(f, "ReadingUnits", detail::jsonText(f, "Units", dflt));
                const bool percent = units == "Percent" || units == "%";  // HPE
                add(child(owner_, f, i, &r["Fans"]), percent ? Metric{"fan_speed", "ratio", 0.01} : Metric{"fan_rpm", "RPM"}, f[key],
                    "/Fans/" + std::to_string(i) + "/" + key, now());
            }
    }

    void power(const json& r) {
        auto list = [&](const char* key, std::initializer_list<const char*> props, bool first_is_owner) {
            if (!r.contains(key) || !r[key].is_array()) return;
            for (std::size_t i = 0; i < r[key].size(); ++i) {
                const json& item = r[key][i];
                if (!item.is_object()) continue;
                const std::string base = std::string("/") + key + "/" + std::to_string(i) + "/";
                if (absent(item, base.substr(0, base.size() - 1))) continue;
                const std::string ent = first_is_owner && i == 0 ? owner_ : child(owner_, item, i, &r[key]);
                for (const char* p : props)
                    if (item.contains(p)) add(ent, propertyMetric(p), item[p], base + p, now());
                if (item.contains("PowerLimit") && item["PowerLimit"].is_object() && item["PowerLimit"].contains("LimitInWatts"))
                    add(ent, propertyMetric("LimitInWatts"), item["PowerLimit"]["LimitInWatts"], base + "PowerLimit/LimitInWatts", now());
                if (item.contains("PowerMetrics") && item["PowerMetrics"].is_object())
                    for (const char* p : {"AverageConsumedWatts", "MaxConsumedWatts", "MinConsumedWatts"})
                        if (item["PowerMetrics"].contains(p))
                            add(ent, propertyMetric(p), item["PowerMetrics"][p], base + "PowerMetrics/" + p, now());
            }
        };
        list("PowerControl", {"PowerConsumedWatts", "PowerCapacityWatts"}, true);
        list("PowerSupplies", {"PowerInputWatts", "LastPowerOutputWatts", "PowerOutputWatts", "LineInputVoltage", "PowerCapacityWatts"},
             false);
        list("Voltages", {"ReadingVolts"}, false);
    }

    void sensor(const json& r) {
        if (!r.contains("Reading")) return;
        const std::string what =
            detail::jsonText(r, "Id") + " " + detail::jsonText(r, "Name") + " " + detail::jsonText(r, "PhysicalContext");
        const Metric m = sensorMetric(detail::jsonText(r, "ReadingType"), detail::jsonText(r, "ReadingUnits"), what);
        add(owner_, m, r["Reading"], "/Reading", now());
        if (m.name == "temp_c" && detail::jsonText(r, "PhysicalContext") == "Intake") {
            // The inlet of the chassis the sensor belongs to.
            const std::string sensors = "/Sensors/";
            const auto p = owner_.find(sensors);
            if (p != std::string::npos) add(owner_.substr(0, p), {"inlet_c", "degC"}, r["Reading"], "/Reading", now());
        }
    }

    /// Generic: top-level properties that are excerpts ({"Reading": x}), maps of them
    /// (TemperatureSummaryCelsius, PolyPhaseVoltage) and arrays of them (TemperatureReadingsCelsius).
    void excerpts(const json& r, const std::string& ptr, const std::string& ent) {
        for (auto it = r.begin(); it != r.end(); ++it) {
            const std::string& key = it.key();
            if (key == "Oem" || key == "Links" || key == "Actions" || key == "Status" || key.find('@') != std::string::npos) continue;
            const json& v = it.value();
            const std::string p = ptr + "/" + key;
            if (v.is_object() && v.contains("Reading")) {
                add(ent, propertyMetric(key), v["Reading"], p + "/Reading", now());
                if (key == "SpeedPercent" && v.contains("SpeedRPM")) add(ent, {"fan_rpm", "RPM"}, v["SpeedRPM"], p + "/SpeedRPM", now());
            } else if (v.is_object()) {
                for (auto s = v.begin(); s != v.end(); ++s) {
                    if (!s.value().is_object() || !s.value().contains("Reading")) continue;
                    Metric m = propertyMetric(key);
                    if (key == "TemperatureSummaryCelsius")
                        m.name = s.key() == "Intake" ? "inlet_c" : s.key() == "Exhaust" ? "exhaust_c" : snake(s.key()) + "_c";
                    else m.name += "_" + snake(s.key());
                    add(ent, m, s.value()["Reading"], p + "/" + s.key() + "/Reading", now());
                }
            } else if (v.is_array() && !v.empty() && v[0].is_object() && (v[0].contains("Time") || v[0].contains("Timestamp"))) {
                timedArray(key, v, p, ent);
            } else if (v.is_array()) {
                for (std::size_t i = 0; i < v.size(); ++i)
                    if (v[i].is_object() && v[i].contains("Reading"))
                        add(child(ent, v[i], i, &v), propertyMetric(key), v[i]["Reading"], p + "/" + std::to_string(i) + "/Reading", now());
            }
        }
    }

    /// A Control (a power limit, a pump's speed set point): the reading of the sensor it controls.
    void control(const json& r) {
        if (!r.contains("Sensor") || !r["Sensor"].is_object() || !r["Sensor"].contains("Reading")) return;
        const std::string what = detail::jsonText(r, "Id") + " " + detail::jsonText(r, "Name");
        const Metric m = sensorMetric(detail::jsonText(r, "ControlType"), detail::jsonText(r, "SetPointUnits"), what);
        add(owner_, m, r["Sensor"]["Reading"], "/Sensor/Reading", now());
    }

    /// A member that is not there (Status.State Absent, Disabled, offline): its readings are not readings.
    bool absent(const json& item, const std::string& ptr) {
        if (!notPresent(item)) return false;
        warn(ptr + "/Status/State", "no_data", "sensor is " + detail::jsonText(item["Status"], "State") + ": its readings are not read");
        return true;
    }

    /// An array of timestamped records (HPE's FastPowerMeter and PowerMeter: PowerDetail, one record per 10 s
    /// or 5 min with Time, Average, Minimum, Peak, AmbTemp, CpuUtil, ...): every number of a record at its time.
    void timedArray(const std::string& key, const json& v, const std::string& p, const std::string& ent) {
        static const std::map<std::string, Metric> power_detail = {
            {"Average", {"power_w", "W"}},
            {"Minimum", {"power_min_w", "W"}},
            {"Peak", {"power_max_w", "W"}},
            {"AmbTemp", {"inlet_c", "degC"}},
            {"CpuUtil", {"cpu_utilization", "ratio", 0.01}},
            {"CpuWatts", {"cpu_power_w", "W"}},
            {"DimmWatts", {"dimm_power_w", "W"}},
            {"GpuWatts", {"gpu_power_w", "W"}},
            {"CpuMax", {"cpu_power_max_w", "W"}},
            {"CpuAvgFreq", {"cpu_clock_mhz", "MHz"}},
        };
        std::size_t added = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const json& item = v[i];
            const std::string ip = p + "/" + std::to_string(i);
            if (!item.is_object()) {
                warn(ip, "syntax", "expected a record with a Time");
                continue;
            }
            const char* tk = item.contains("Time") ? "Time" : "Timestamp";
            double t = 0;
            if (!item.contains(tk) || !item[tk].is_string() || !detail::parseIsoTime(item[tk].get<std::string>(), t)) {
                warn(ip + "/" + tk, "bad_value", "record without an ISO 8601 time: not read");
                continue;
            }
            for (auto it = item.begin(); it != item.end(); ++it) {
                if (it.key() == tk || !(it.value().is_number() || it.value().is_null())) continue;
                Metric m;
                if (auto pm = power_detail.find(it.key()); key == "PowerDetail" && pm != power_detail.end()) m = pm->second;
                else m = propertyMetric(it.key());
                const std::size_t before = res_.samples.size();
                add(ent, m, it.value(), ip + "/" + it.key(), t);
                added += res_.samples.size() - before;
            }
        }
        if (added == 0) warn(p, "no_data", key + ": " + std::to_string(v.size()) + " timed records, no numeric readings in them");
    }

    void metricReport(const json& r) {
        if (!r.contains("MetricValues") || !r["MetricValues"].is_array()) return;
        const json& values = r["MetricValues"];
        for (std::size_t i = 0; i < values.size(); ++i) {
            const json& v = values[i];
            const std::string p = "/MetricValues/" + std::to_string(i);
            if (!v.is_object() || !v.contains("MetricValue")) {
                warn(p, "missing_field", "metric value without MetricValue");
                continue;
            }
            const std::string prop = detail::jsonText(v, "MetricProperty");
            const auto hash = prop.find('#');
            double t = now();
            if (v.contains("Timestamp") && v["Timestamp"].is_string() && !detail::parseIsoTime(v["Timestamp"].get<std::string>(), t)) {
                warn(p + "/Timestamp", "bad_value", "timestamp is not ISO 8601");
                continue;
            }
            if (prop.empty()) {
                add(owner_, propertyMetric(detail::jsonText(v, "MetricId", "value")), v["MetricValue"], p + "/MetricValue", t);
                continue;
            }
            const std::string pointer = hash == std::string::npos ? "" : prop.substr(hash + 1);
            const std::string last = pointer.substr(pointer.find_last_of('/') + 1);
            add(entity(ownerOf(prop)), propertyMetric(last.empty() ? detail::jsonText(v, "MetricId", "value") : last), v["MetricValue"],
                p + "/MetricValue", t);
        }
    }

    const ParseOptions& opt_;
    ParseResult& res_;
    std::string owner_, host_;
    std::set<std::string> entities_;
};

}  // namespace

ParseResult parseRedfishJson(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t) {
    ParseResult res;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 6E1226
        res.warnings.push_back({detail::loc(opt, detail::jsonErrorLine(text, e)), "syntax", std::string("not valid JSON: ") + e.what()});
        return res;
    }
    RedfishReader reader(opt, res);
    // One resource, or a list / a map of them (a crawl saved as one file).
    if (doc.is_array()) {
        for (const auto& r : doc)
            if (r.is_object()) reader.resource(r);
    } else if (doc.is_object() && !doc.contains("@odata.id") && !doc.contains("@odata.type")) {
        for (const auto& [k, r] : doc.items())
            if (r.is_object()) reader.resource(r);
    } else if (doc.is_object()) {
        reader.resource(doc);
    } else {
        res.warnings.push_back({detail::loc(opt, 1), "syntax", "a Redfish resource must be a JSON object"});
    }
    if (progress) progress(1.0);
    return res;
}

namespace format_rows {

FormatInfo redfishJson() {
    FormatInfo f;
    f.id = "redfish-json";
    f.label = "DMTF Redfish resource (JSON)";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.json() && (h.has("\"@odata.id\"") || h.has("\"@odata.type\""))) return {90, "\"@odata\" keys"};
        return {};
    };
    f.parse = parseRedfishJson;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
