#include <clustertwin/session/score_run.hpp>

#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/measured.hpp>

#include <clustertwin/sim/drive.hpp>
#include "measured_util.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace ct::session {

bool isInletMetric(const std::string& metric) { return metric == "inlet_c" || metric == "inlet_mean_c" || metric == "inlet_max_c"; }

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Accumulators keyed by (key, metric), in the order keys are first met.
struct Table {
    struct Acc {
        std::string unit;
        runs::ErrorAccumulator twin, base;
        bool has_base = false;
    };
    std::map<std::pair<std::string, std::string>, Acc> acc;
    std::vector<std::pair<std::string, std::string>> order;
    Acc& at(const std::string& key, const std::string& metric, const std::string& unit) {
        auto [it, fresh] = acc.try_emplace({key, metric});
        if (fresh) {
            order.push_back({key, metric});
            it->second.unit = unit;
        }
        return it->second;
    }
    std::vector<ScoreRow> rows() const {
        std::vector<ScoreRow> out;
        for (const auto& k : order) {
            const Acc& a = acc.at(k);
            if (a.twin.count() == 0) continue;
            ScoreRow r{k.first, k.second, a.unit, a.twin.stats(), std::nullopt};
            if (a.has_base) r.baseline = a.base.stats();
            out.push_back(std::move(r));
        }
        return out;
    }
};

std::string windowLabel(double t0, double w) { return model::formatDuration(t0) + "–" + model::formatDuration(t0 + w); }

}  // namespace

namespace {

/// A series read at ascending times: linear between the samples around t (NaN outside its span), each step
/// moving on from the last one (a measured series against a simulated one is a merge, not a search per sample).
class Cursor {
public:
    explicit Cursor(const runs::Points& p) : p_(p) {}
    double at(double t) {
        if (p_.empty() || !(t >= p_.front().first) || !(t <= p_.back().first)) return std::nan("");
        if (i_ >= p_.size() || p_[i_].first > t) i_ = 0;  // went back: start over
        while (i_ + 1 < p_.size() && p_[i_ + 1].first <= t) ++i_;
        if (p_[i_].first == t || i_ + 1 >= p_.size()) return p_[i_].second;
        const auto& a = p_[i_];
        const auto& b = p_[i_ + 1];
        return a.second + (t - a.first) / (b.first - a.first) * (b.second - a.second);
    }

private:
    const runs::Points& p_;
    std::size_t i_ = 0;
};

}  // namespace

void scorePairs(const std::vector<PairedSeries>& pairs, const runs::Points& supply, double from_s, double to_s, double window_s,
                ScoreReport& out) {
    Table series, kinds, windows, overall;
    const double w = window_s > 0 ? window_s : kInf;
    std::map<long long, std::pair<runs::ErrorAccumulator, runs::ErrorAccumulator>> per_window;  // one series'
    for (const auto& p : pairs) {
        const bool inlet = isInletMetric(p.metric) && !supply.empty();
        Table::Acc& s = series.at(p.entity, p.metric, p.unit);
        s.has_base = inlet;
        Cursor sim(p.simulated), base(supply);
        per_window.clear();
        long long wi_last = std::numeric_limits<long long>::min();
        std::pair<runs::ErrorAccumulator, runs::ErrorAccumulator>* win = nullptr;
        for (const auto& [t, y] : p.measured) {
            if (t < from_s || t > to_s || std::isnan(y)) continue;
            const double yhat = sim.at(t);
            if (std::isnan(yhat)) continue;
            s.twin.add(y, yhat);
            const long long wi = std::isfinite(w) ? static_cast<long long>(std::floor(t / w)) : 0;
            if (wi != wi_last || !win) {
                win = &per_window[wi];
                wi_last = wi;
            }
            win->first.add(y, yhat);
            if (inlet)
                if (const double b = base.at(t); !std::isnan(b)) {
                    s.base.add(y, b);
                    win->second.add(y, b);
                }
        }
        for (const auto& [wi, acc] : per_window) {
            Table::Acc& a = windows.at(std::to_string(wi), p.metric, p.unit);
            a.twin.add(acc.first);
            a.base.add(acc.second);
            a.has_base = a.has_base || acc.second.count() > 0;
        }
        for (Table* t : {&kinds, &overall}) {
            Table::Acc& a = t->at(t == &kinds ? p.kind : std::string("all"), p.metric, p.unit);
            a.twin.add(s.twin);
            a.base.add(s.base);
            a.has_base = a.has_base || inlet;
        }
    }
    out.series = series.rows();
    out.kinds = kinds.rows();
    out.overall = overall.rows();
    // Windows in time order, named by their span.
    std::vector<ScoreRow> wr = windows.rows();
    std::stable_sort(wr.begin(), wr.end(), [](const ScoreRow& a, const ScoreRow& b) { return std::stoll(a.key) < std::stoll(b.key); });
    for (auto& r : wr) r.key = std::isfinite(w) ? windowLabel(static_cast<double>(std::stoll(r.key)) * w, w) : "all";
    out.windows = std::move(wr);
}

namespace {

/// The (entity kind, metric) of every input that drove the run: those measured series matched by design.
std::set<std::pair<std::string, std::string>> drivenKinds(const runs::RunMeta& m) {
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& d : m.driven)
        if (const auto in = sim::driveInputById(d.input)) {
            const auto& info = sim::driveInputInfo(*in);
            out.insert({info.entity_kind, info.metric});
        }
    return out;
}

}  // namespace

MeasuredSet loadMeasured(const runs::TelemetryStore& meas, std::int64_t run, const MeasuredMap& map,
                         const std::vector<std::string>& metrics, double origin_unix,
                         const std::set<std::pair<std::string, std::string>>& skip, const UnitOf& unit_of) {
    MeasuredSet out;
    std::map<std::string, runs::EntityInfo> ents;
    for (auto& e : meas.entities()) ents[e.id] = e;
    for (const auto& ms : meas.seriesSummary(run)) {
        ++out.total;
        const auto eit = ents.find(ms.key.entity);
        const auto ref = map.entity(eit != ents.end() ? eit->second : runs::EntityInfo{ms.key.entity, "", "", ""});
        const std::string metric = map.metric(ms.key.metric);
        const std::string what = ms.key.entity + " " + ms.key.metric;
        if (!ref) {
            out.unpaired.push_back(what);
            continue;
        }
        const bool supply = ref->kind == "cooling_unit" && metric == "supply_c";
        const bool wanted = metrics.empty() || std::find(metrics.begin(), metrics.end(), metric) != metrics.end();
        if (!wanted && !supply) continue;
        const auto unit = unit_of(*ref, metric);
        if (!unit) {
            if (wanted) out.unpaired.push_back(what);
            continue;
        }
        PairedSeries p{ref->id, ref->kind, metric, *unit, {}, {}};
        for (const auto& sv : meas.values(run, ms.key.metric, {ms.key.entity}, -kInf, kInf)) {
            if (sv.series != ms.series) continue;
            for (const auto& [t, v] : sv.points)
                if (const auto x = toStoredUnit(v, ms.key.unit, p.unit)) p.measured.emplace_back(t - origin_unix, *x);
        }
        if (supply) out.unit_supply.push_back(p.measured);
        if (!wanted) continue;
        if (skip.count({ref->kind, metric})) {
            out.driven.push_back(what);
            continue;
        }
        out.series.push_back(std::move(p));
    }
    return out;
}

ScoreReport scoreRun(const ScoreRequest& r, std::vector<PairedSeries>* pairs_out) {
    using Mode = runs::TelemetryStore::Mode;
    const runs::TelemetryStore sim = runs::TelemetryStore::open(r.run_db, Mode::Existing);
    const runs::TelemetryStore meas = runs::TelemetryStore::open(r.measured_db, Mode::Existing);
    const runs::RunInfo run = pickRun(sim, "simulated", r.run);
    const runs::RunInfo mrun = pickRun(meas, "imported", r.measured_run);
    ScoreReport rep;
    rep.run = run.id;
    rep.measured_run = mrun.id;
    if (r.origin_unix) rep.origin_unix = *r.origin_unix;
    else if (run.meta.time_origin_unix) rep.origin_unix = *run.meta.time_origin_unix;
    else
        throw InputError(r.run_db + ": run " + std::to_string(run.id) +
                         " has no measured time for its t = 0 (it was not driven by measurements); give --origin T");
    static const model::Scenario kNone;
    MeasuredMap map(r.scenario ? *r.scenario : kNone, MeasuredMapFile::load(r.map_path));
    map.addIds(sim.entities());
    const auto driven = r.include_driven ? std::set<std::pair<std::string, std::string>>{} : drivenKinds(run.meta);
    std::map<std::pair<std::string, std::string>, runs::SeriesSummary> simulated;
    for (const auto& ss : sim.seriesSummary(run.id)) simulated.emplace(std::pair{ss.key.entity, ss.key.metric}, ss);
    MeasuredSet set = loadMeasured(meas, mrun.id, map, r.metrics, rep.origin_unix, driven,
                                   [&](const EntityRef& e, const std::string& metric) -> std::optional<std::string> {
                                       const auto it = simulated.find({e.id, metric});
                                       if (it == simulated.end()) return std::nullopt;
                                       return it->second.key.unit;
                                   });
    rep.measured_series = set.total;
    rep.unpaired = std::move(set.unpaired);
    rep.driven = std::move(set.driven);
    for (auto& p : set.series)
        for (const auto& sv : sim.values(run.id, p.metric, {p.entity}, -kInf, kInf))
            if (sv.series == simulated.at({p.entity, p.metric}).series) p.simulated = sv.points;
    std::vector<PairedSeries>& pairs = set.series;
    rep.paired_series = pairs.size();
    if (pairs.empty())
        throw InputError("nothing to score: none of the " + std::to_string(rep.measured_series) + " measured series of " + r.measured_db +
                         " (run " + std::to_string(mrun.id) + ") pairs with a series of run " + std::to_string(run.id) +
                         (rep.unpaired.empty() ? "" : " (first unpaired: " + rep.unpaired.front() + ")"));
    const auto& unit_supply = set.unit_supply;
    // The baseline's supply temperature: the measured units' mean, else the simulated units'.
    runs::Points supply = detail::meanSeries(unit_supply);
    rep.baseline_source = std::to_string(unit_supply.size()) + " measured cooling-unit supply temperatures";
    if (supply.empty()) {
        std::vector<runs::Points> sim_supply;
        std::vector<std::string> units;
        for (const auto& e : sim.entities())
            if (e.kind == "cooling_unit" && simulated.count({e.id, "supply_c"})) units.push_back(e.id);
        if (!units.empty())
            for (const auto& sv : sim.values(run.id, "supply_c", units, -kInf, kInf)) sim_supply.push_back(sv.points);
        supply = detail::meanSeries(sim_supply);
        rep.baseline_source = std::to_string(sim_supply.size()) + " simulated cooling-unit supply temperatures (none measured)";
    }
    scorePairs(pairs, supply, r.from_s.value_or(-kInf), r.to_s.value_or(kInf), r.window_s, rep);
    if (pairs_out) *pairs_out = std::move(pairs);
    return rep;
}

}  // namespace ct::session
