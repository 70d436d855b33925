#include <clustertwin/session/drive.hpp>

#include <clustertwin/runs/score.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/measured.hpp>

#include "measured_util.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace ct::session {

namespace {

/// A measured series that can drive an input, and how its values convert.
struct Candidate {
    sim::DriveInput input;
    std::string entity;  ///< scenario id
    runs::SeriesSummary summary;
    double rpm_full = 0;  ///< fan_rpm: the full speed its rpm is divided by
};

struct Planner {
    const model::Scenario& s;
    const model::Catalog& c;
    runs::TelemetryStore store;
    MeasuredMap map;
    std::map<std::string, runs::EntityInfo> ents;
    std::set<sim::DriveInput> allowed;
    DrivePlan plan;
    std::set<std::string> unmapped;

    Planner(const model::Scenario& sc, const model::Catalog& cat, const DriveRequest& r)
        : s(sc),
          c(cat),
          store(runs::TelemetryStore::open(r.db_path, runs::TelemetryStore::Mode::Existing)),
          map(sc, MeasuredMapFile::load(r.map_path)) {}

    /// The scenario entity of a measured one; sensors below it (a server's fans) resolve through their parent
    /// (`child` says so).
    std::optional<EntityRef> resolve(const std::string& id, bool& child) const {
        child = false;
        std::string at = id;
        for (int depth = 0; depth < 4 && !at.empty(); ++depth) {
            const auto it = ents.find(at);
            const runs::EntityInfo e = it != ents.end() ? it->second : runs::EntityInfo{at, "", "", ""};
            if (auto r = map.entity(e)) return r;
            at = e.parent;
            child = true;
        }
        return std::nullopt;
    }

    /// The full fan speed of an entity's fans in rpm (0: not known).
    double fullRpm(const EntityRef& ref) const {
        if (ref.kind == "cooling_unit")
            for (const auto& h : s.halls)
                for (const auto& u : h.cooling_units)
                    if (u.id == ref.id)
                        if (const auto* m = c.coolingUnit(u.model)) return m->fan_max_rpm;
        if (ref.kind == "node")
            for (const auto& h : s.halls)
                for (const auto& row : h.rows)
                    for (const auto& r : row.racks)
                        for (const auto& n : r.nodes)
                            if (n.id == ref.id)
                                if (const auto* m = c.server(n.model)) return m->fan_max_rpm;
        return 0;
    }

    /// What the series drives, if anything; notes a series that could drive but cannot be read.
    std::optional<Candidate> candidate(const runs::SeriesSummary& ss) {
        bool child = false;
        const auto ref = resolve(ss.key.entity, child);
        if (!ref) {
            unmapped.insert(ss.key.entity);
            return std::nullopt;
        }
        const std::string metric = map.metric(ss.key.metric);
        const bool fan = metric == "fan_speed" || metric == "fan_rpm";
        if (child && !fan) return std::nullopt;  // a sensor below a node reads itself, not the node
        for (const auto& row : sim::driveInputs()) {
            const bool rpm = metric == "fan_rpm" && std::string(row.metric) == "fan_speed";
            if (ref->kind != row.entity_kind || (metric != row.metric && !rpm)) continue;
            if (!allowed.empty() && !allowed.count(row.input)) return std::nullopt;
            Candidate k{row.input, ref->id, ss};
            const std::string what = ss.key.entity + " " + ss.key.metric + " (" + row.id + " of " + ref->id + ")";
            if (rpm) {
                k.rpm_full = fullRpm(*ref);
                if (!(k.rpm_full > 0)) {
                    plan.notes.push_back(what + ": its model has no fan_max_rpm in the catalog to read rpm against; not driven");
                    return std::nullopt;
                }
            } else if (!toStoredUnit(1, ss.key.unit, row.unit)) {
                plan.notes.push_back(what + ": unit '" + ss.key.unit + "' is not one " + row.unit + " can be read from; not driven");
                return std::nullopt;
            }
            return k;
        }
        return std::nullopt;
    }

    /// The candidate's samples in the input's stored unit, measured time.
    runs::Points load(const Candidate& k) const {
        runs::Points out;
        const auto inf = std::numeric_limits<double>::infinity();
        for (const auto& sv : store.values(plan.measured_run, k.summary.key.metric, {k.summary.key.entity}, -inf, inf)) {
            if (sv.series != k.summary.series) continue;
            const std::string unit = sim::driveInputInfo(k.input).unit;
            for (const auto& [t, v] : sv.points)
                out.emplace_back(t, k.rpm_full > 0 ? v / k.rpm_full : toStoredUnit(v, k.summary.key.unit, unit).value_or(std::nan("")));
        }
        return out;
    }
};

}  // namespace

DrivePlan planDrive(const DriveRequest& r, const model::Scenario& s, const model::Catalog& c) {
    Planner p(s, c, r);
    const runs::RunInfo run = pickRun(p.store, "imported", r.run);
    p.plan.measured_run = run.id;
    p.plan.measured_label = r.db_path + ", run " + std::to_string(run.id);
    const auto& inputs = p.map.file().inputs;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const auto in = sim::driveInputById(inputs[i]);
        if (!in) {
            std::string known;
            for (const auto& row : sim::driveInputs()) known += std::string(known.empty() ? "" : ", ") + row.id;
            throw InputError(r.map_path + ": /inputs/" + std::to_string(i) + ": no input '" + inputs[i] + "' (" + known + ")");
        }
        p.allowed.insert(*in);
    }
    for (auto& e : p.store.entities()) p.ents[e.id] = e;
    std::map<std::pair<sim::DriveInput, std::string>, std::vector<Candidate>> groups;
    for (const auto& ss : p.store.seriesSummary(run.id)) {
        ++p.plan.measured_series;
        if (auto k = p.candidate(ss)) groups[{k->input, k->entity}].push_back(std::move(*k));
    }
    double first = std::numeric_limits<double>::infinity(), last = -first;
    std::vector<std::pair<sim::DriveSeries, runs::Points>> out;
    for (auto& [key, ks] : groups) {
        const auto& [input, entity] = key;
        const bool fans = input == sim::DriveInput::NodeFanSpeed || input == sim::DriveInput::UnitFanSpeed;
        runs::Points pts;
        std::string source = ks.front().summary.key.entity + " " + ks.front().summary.key.metric;
        if (fans && ks.size() > 1) {
            std::vector<runs::Points> all;
            for (const auto& k : ks) all.push_back(p.load(k));
            pts = detail::meanSeries(all);
            source = std::to_string(ks.size()) + " fans of " + entity;
        } else {
            // One series per input and entity: the one with most samples; the others are named.
            std::stable_sort(ks.begin(), ks.end(),
                             [](const Candidate& a, const Candidate& b) { return a.summary.count > b.summary.count; });
            pts = p.load(ks.front());
            for (std::size_t i = 1; i < ks.size(); ++i)
                p.plan.notes.push_back(ks[i].summary.key.entity + " " + ks[i].summary.key.metric + " (source " + ks[i].summary.key.source +
                                       "): " + sim::driveInputInfo(input).id + " of " + entity + " is driven by " + source +
                                       " (more samples); not used");
        }
        if (pts.empty()) continue;
        first = std::min(first, pts.front().first);
        last = std::max(last, pts.back().first);
        sim::DriveSeries ds;
        ds.input = input;
        ds.entity = entity;
        ds.max_gap_s = r.max_gap_s;
        ds.source = p.plan.measured_label + ": " + source;
        out.emplace_back(std::move(ds), std::move(pts));
    }
    if (out.empty())
        throw InputError(p.plan.measured_label + ": none of its " + std::to_string(p.plan.measured_series) +
                         " series drives an input of scenario " + s.id + " (" + std::to_string(p.unmapped.size()) +
                         " measured entities are not in it; see --drive-map)");
    p.plan.origin_unix = r.from_unix ? *r.from_unix : first;
    p.plan.span_s = last - p.plan.origin_unix;
    for (auto& [ds, pts] : out) {
        for (const auto& [t, v] : pts) {
            ds.t_s.push_back(t - p.plan.origin_unix);
            ds.values.push_back(v);
        }
        p.plan.series.push_back(std::move(ds));
    }
    p.plan.unmapped.assign(p.unmapped.begin(), p.unmapped.end());
    return std::move(p.plan);
}

}  // namespace ct::session
