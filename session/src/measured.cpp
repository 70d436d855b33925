#include <clustertwin/session/measured.hpp>

#include "measured_util.hpp"

#include <clustertwin/importers/mapping.hpp>
#include <clustertwin/model/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ct::session {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// A JSON object of strings (member `key` of `j`) into `out`; errors name the file and the pointer.
void stringMap(const nlohmann::json& j, const char* key, const std::string& file, std::map<std::string, std::string>& out) {
    if (!j.contains(key)) return;
    const auto& o = j[key];
    if (!o.is_object()) throw InputError(file + ": /" + key + ": expected an object of names");
    for (const auto& [k, v] : o.items()) {
        if (!v.is_string()) throw InputError(file + ": /" + key + "/" + k + ": expected a string");
        out[k] = v.get<std::string>();
    }
}

}  // namespace

namespace detail {

nlohmann::json readJsonFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw InputError(path + ": cannot open");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw InputError(path + ": not JSON: " + e.what());
    }
}

runs::Points meanSeries(const std::vector<runs::Points>& all) {
    std::vector<double> times;
    for (const auto& p : all)
        for (const auto& x : p) times.push_back(x.first);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    runs::Points out;
    for (double t : times) {
        double sum = 0;
        int n = 0;
        for (const auto& p : all)
            if (const double v = runs::interpolateAt(p, t); std::isfinite(v)) {
                sum += v;
                ++n;
            }
        if (n > 0) out.emplace_back(t, sum / n);
    }
    return out;
}

}  // namespace detail

MeasuredMapFile MeasuredMapFile::load(const std::string& path) {
    MeasuredMapFile m;
    if (path.empty()) return m;
    const nlohmann::json j = detail::readJsonFile(path);
    if (!j.is_object()) throw InputError(path + ": expected a JSON object with entities, metrics and inputs");
    for (const auto& [k, v] : j.items())
        if (k != "entities" && k != "metrics" && k != "inputs")
            throw InputError(path + ": /" + k + ": unknown member (entities, metrics, inputs)");
    stringMap(j, "entities", path, m.entities);
    stringMap(j, "metrics", path, m.metrics);
    if (j.contains("inputs")) {
        if (!j["inputs"].is_array()) throw InputError(path + ": /inputs: expected an array of input names");
        for (std::size_t i = 0; i < j["inputs"].size(); ++i) {
            if (!j["inputs"][i].is_string()) throw InputError(path + ": /inputs/" + std::to_string(i) + ": expected a string");
            m.inputs.push_back(j["inputs"][i].get<std::string>());
        }
    }
    return m;
}

struct MeasuredMap::Impl {
    MeasuredMapFile file;
    importers::EntityMapper mapper;
    std::map<std::string, EntityRef> ids;      ///< every scenario id and its kind
    std::map<std::string, EntityRef> by_name;  ///< names of units, CDUs, racks and jobs
    Impl(const model::Scenario& s, MeasuredMapFile f) : file(std::move(f)), mapper(s) {}

    std::optional<EntityRef> known(const std::string& id) const {
        if (auto it = ids.find(id); it != ids.end()) return it->second;
        // A GPU of a known node: "n0001/gpu3".
        const auto slash = id.rfind("/gpu");
        if (slash != std::string::npos && ids.count(id.substr(0, slash)) && ids.at(id.substr(0, slash)).kind == "node")
            return EntityRef{id, "gpu"};
        return std::nullopt;
    }
};

MeasuredMap::MeasuredMap(const model::Scenario& s, MeasuredMapFile file) : d_(nullptr) {
    try {
        d_ = std::make_unique<Impl>(s, std::move(file));
    } catch (const std::exception& e) {
        throw InputError(std::string("scenario ") + s.id + ": " + e.what());
    }
    auto add = [&](const std::string& id, const std::string& name, const char* kind) {
        d_->ids[id] = {id, kind};
        if (!name.empty()) d_->by_name.emplace(lower(name), EntityRef{id, kind});
    };
    for (const auto& h : s.halls) {
        for (const auto& u : h.cooling_units) add(u.id, u.name, "cooling_unit");
        for (const auto& c : h.cdus) add(c.id, c.name, "cdu");
        for (const auto& x : h.sensors) add(x.id, x.name, "sensor");
        for (const auto& row : h.rows)
            for (const auto& r : row.racks) {
                add(r.id, r.name, "rack");
                for (const auto& n : r.nodes) add(n.id, {}, "node");
            }
    }
    for (const auto& j : s.jobs) add(j.id, j.name, "job");
}

MeasuredMap::~MeasuredMap() = default;
MeasuredMap::MeasuredMap(MeasuredMap&&) noexcept = default;

const MeasuredMapFile& MeasuredMap::file() const { return d_->file; }

void MeasuredMap::addIds(const std::vector<runs::EntityInfo>& entities) {
    for (const auto& e : entities) {
        d_->ids.emplace(e.id, EntityRef{e.id, e.kind});
        if (!e.name.empty()) d_->by_name.emplace(lower(e.name), EntityRef{e.id, e.kind});
    }
}

std::optional<EntityRef> MeasuredMap::entity(const runs::EntityInfo& e) const {
    for (const std::string* key : {&e.id, &e.name})
        if (auto it = d_->file.entities.find(*key); !key->empty() && it != d_->file.entities.end()) {
            if (auto k = d_->known(it->second)) return k;
            return std::nullopt;  // mapped onto something the scenario does not have: the caller reports it
        }
    if (auto k = d_->known(e.id)) return k;
    importers::ImportedEntity ie{e.id, e.kind, e.parent, e.name, {}};
    if (const std::string m = d_->mapper.map(ie); !m.empty())
        if (auto k = d_->known(m)) return k;
    for (const std::string* key : {&e.name, &e.id})
        if (auto it = d_->by_name.find(lower(*key)); !key->empty() && it != d_->by_name.end()) return it->second;
    return std::nullopt;
}

std::string MeasuredMap::metric(const std::string& measured) const {
    const auto it = d_->file.metrics.find(measured);
    return it == d_->file.metrics.end() ? measured : it->second;
}

std::optional<double> toStoredUnit(double v, const std::string& from_unit, const std::string& to_unit) {
    const std::string f = lower(from_unit), t = lower(to_unit);
    if (f == t || f.empty()) return v;
    if (t == "w") {
        if (f == "kw") return v * 1e3;
        if (f == "mw") return v * 1e6;
    } else if (t == "degc") {
        if (f == "c" || f == "°c" || f == "cel" || f == "celsius") return v;
        if (f == "degf" || f == "f" || f == "°f") return (v - 32) * 5.0 / 9.0;
        if (f == "k" || f == "kelvin") return v - 273.15;
    } else if (t == "ratio") {
        if (f == "percent" || f == "%") return v / 100;
    } else if (t == "m3/s") {
        if (f == "m3s" || f == "m^3/s") return v;
        if (f == "m3/h") return v / 3600;
        if (f == "l/s") return v / 1000;
        if (f == "cfm") return v * 0.00047194745;  // 1 ft³/min = 0.3048³ m³ / 60 s
    }
    return std::nullopt;
}

runs::RunInfo pickRun(const runs::TelemetryStore& store, const std::string& kind, std::optional<std::int64_t> want) {
    const auto all = store.runs();
    const runs::RunInfo* pick = nullptr;
    for (const auto& r : all) {
        if (want && r.id == *want) {
            if (r.kind != kind) throw InputError(store.path() + ": run " + std::to_string(r.id) + " is " + r.kind + ", not " + kind);
            return r;
        }
        if (!want && r.kind == kind && (!pick || r.id > pick->id)) pick = &r;
    }
    if (want) throw InputError(store.path() + ": no run " + std::to_string(*want));
    if (!pick) throw InputError(store.path() + ": no " + kind + " run in it");
    return *pick;
}

}  // namespace ct::session
