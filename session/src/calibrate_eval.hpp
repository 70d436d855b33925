#pragma once
// The calibration's runs, private to the session library (calibrate.cpp, calibrate_lsq.cpp): an evaluator that runs
// the scenario in memory with a set of parameters and scores what it gave on a window, and a run on the fine grid
// kept so that it can go on.
#include <clustertwin/runs/frame_series.hpp>
#include <clustertwin/session/calibrate.hpp>
#include <clustertwin/session/manifold_map.hpp>
#include <clustertwin/session/measured.hpp>
#include <clustertwin/sim/engine.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ct::session::calib {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// A parameter that belongs to the scoring, not to the runs.
inline bool scoringOnly(const CalibParam& p) { return p.name == "sensor_offset"; }

/// Reads one series of a frame: the entry's index in its list and the table row's getter.
struct Probe {
    std::function<double(const model::Frame&)> get;
};

template <class E>
std::optional<Probe> probeIn(const std::vector<E> model::Frame::*list, const std::vector<runs::SeriesField<E>>& table,
                             const model::Frame& f, const std::string& entity, const std::string& metric) {
    const auto& entries = f.*list;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].id != entity) continue;
        for (const auto& row : table)
            if (row.metric == metric) return Probe{[list, i, get = row.get](const model::Frame& fr) { return get((fr.*list)[i]); }};
    }
    return std::nullopt;
}

/// The probe of a scored series in the engine's frames (frame_series.hpp's table: what a run records).
inline std::optional<Probe> probeOf(const model::Frame& f, const std::string& kind, const std::string& entity, const std::string& metric) {
    if (kind == "node") return probeIn(&model::Frame::nodes, runs::nodeSeries(), f, entity, metric);
    if (kind == "gpu") return probeIn(&model::Frame::gpus, runs::gpuSeries(), f, entity, metric);
    if (kind == "rack") return probeIn(&model::Frame::racks, runs::rackSeries(), f, entity, metric);
    if (kind == "cooling_unit") return probeIn(&model::Frame::cooling_units, runs::coolingUnitSeries(), f, entity, metric);
    if (kind == "cdu") return probeIn(&model::Frame::cdus, runs::cduSeries(), f, entity, metric);
    if (kind == "sensor") return probeIn(&model::Frame::sensors, runs::sensorSeries(), f, entity, metric);
    if (kind == "water_loop") return probeIn(&model::Frame::loops, runs::waterLoopSeries(), f, entity, metric);
    if (kind == "job") return probeIn(&model::Frame::jobs, runs::jobSeries(), f, entity, metric);
    return std::nullopt;
}

/// One evaluation's engine, kept so that a run can go on later (the best fine run to the validation window's end).
struct Run {
    std::vector<double> x;
    std::unique_ptr<sim::Engine> engine;
    std::vector<Probe> probes;
    std::vector<runs::Points> raw;  ///< the scored series as the engine gave them
    double next_sample = 0;
    /// Cooling units (index in the frame) whose airflow, return and supply each sample adds to a heat balance:
    /// the start run's, for heatBalanceStarts.
    std::vector<std::pair<std::size_t, UnitHeatBalance*>> watched;
};

struct Evaluator {
    const CalibRequest& r;
    std::vector<PairedSeries> pairs;  ///< measured as requested; simulated: the last run's, offset and corrected
    runs::Points supply;
    sim::EngineOptions engine;  ///< r.engine, on the grid of the current stage
    /// While set, each run's series are mapped onto the fine grid's (space mapping) at `times` (per pair).
    const ManifoldMap* mapping = nullptr;
    std::vector<std::vector<double>> times;
    /// Least squares: each pair's weight in the residuals (noiseWeights of the start's), or none (all 1).
    std::vector<double> weight;
    int runs = 0;
    double longest_s = 0, last_s = 0;
    bool stopped = false;

    /// A new run of the scenario with parameters x, at t = 0.
    Run start(const std::vector<double>& x) const {
        model::Scenario s = r.scenario;
        model::Catalog c = r.catalog;
        applyCalibParams(s, c, r.params, x);
        Run run{x, std::make_unique<sim::Engine>(s, c, engine), {}, std::vector<runs::Points>(pairs.size()), 0, {}};
        for (const auto& p : pairs) {
            auto pr = probeOf(run.engine->frame(), p.kind, p.entity, p.metric);
            if (!pr) throw InputError("calibrate: the twin has no " + p.metric + " of " + p.entity);
            run.probes.push_back(std::move(*pr));
        }
        return run;
    }

    /// Steps `run` up to `until_s`, sampling every scored series; pairs' simulated series become its own.
    void advance(Run& run, double until_s) {
        const auto t0 = Clock::now();
        auto sample = [&](const model::Frame& f) {
            for (std::size_t i = 0; i < run.probes.size(); ++i) run.raw[i].emplace_back(f.time_s, run.probes[i].get(f));
            for (auto& [i, b] : run.watched) {
                const model::CoolingUnitFrame& u = f.cooling_units[i];
                b->airflow.emplace_back(f.time_s, u.airflow_m3s);
                b->return_c.emplace_back(f.time_s, u.return_c);
                b->supply_c.emplace_back(f.time_s, u.supply_c);
            }
            run.next_sample += r.sample_s;
        };
        if (run.raw.front().empty()) sample(run.engine->frame());
        while (run.engine->timeS() + 1e-9 < until_s) {
            if (r.cancelled && r.cancelled()) {
                stopped = true;
                return;
            }
            const model::Frame& f = run.engine->step();
            if (f.time_s + 1e-9 >= run.next_sample || f.time_s + 1e-9 >= until_s) sample(f);
        }
        for (std::size_t i = 0; i < pairs.size(); ++i) pairs[i].simulated = run.raw[i];
        offsets(run.x);
        corrected();
        last_s = std::chrono::duration<double>(Clock::now() - t0).count();
        longest_s = std::max(longest_s, last_s);
    }

    void report(const std::vector<double>& x, double rmse) const {
        if (r.progress) r.progress(runs, rmse);
        if (r.log) r.log({runs, engine.cell_m, x, rmse, last_s});
    }

    /// A run with parameters x up to `until_s` (one evaluation).
    void simulate(const std::vector<double>& x, double until_s) {
        Run run = start(x);
        advance(run, until_s);
        if (!stopped) ++runs;
    }

    /// sensor_offset: the twin's temperatures of the target entities read that much warmer.
    void offsets(const std::vector<double>& x) {
        for (std::size_t k = 0; k < r.params.size(); ++k) {
            if (!scoringOnly(r.params[k])) continue;
            for (auto& p : pairs)
                if (p.unit == "degC" && (r.params[k].target == "*" || r.params[k].target == p.entity))
                    for (auto& pt : p.simulated) pt.second += x[k];
        }
    }

    /// The simulated series at `times`, one after another: a run's response.
    std::vector<double> response(const std::vector<runs::Points>& series) const {
        std::vector<double> out;
        for (std::size_t i = 0; i < times.size(); ++i)
            for (double t : times[i]) out.push_back(runs::interpolateAt(series[i], t));
        return out;
    }

    void corrected() {
        if (!mapping) return;
        const std::vector<double> mapped = mapping->map(response(series()));
        std::size_t n = 0;
        for (std::size_t i = 0; i < times.size(); ++i) {
            pairs[i].simulated.clear();
            for (double t : times[i]) pairs[i].simulated.emplace_back(t, mapped[n++]);
        }
    }

    std::vector<runs::Points> series() const {
        std::vector<runs::Points> out;
        for (const auto& p : pairs) out.push_back(p.simulated);
        return out;
    }

    /// The last run's residuals on `w`, series by series: simulated − measured at every measured sample scored
    /// there (0 where the run has no value: no error there). With `averaged` and r.average_s, each series'
    /// residuals averaged over its windows (multiples of average_s on the run's clock), one per window.
    std::vector<std::vector<double>> seriesResiduals(const Window& w, bool averaged) const {
        std::vector<std::vector<double>> all;
        for (const auto& p : pairs) {
            std::vector<double>& out = all.emplace_back();
            long long window = std::numeric_limits<long long>::min();
            double sum = 0;
            int n = 0;
            auto close = [&] {
                if (n > 0) out.push_back(sum / n);
                sum = 0;
                n = 0;
            };
            for (const auto& [t, y] : p.measured) {
                if (t < w.from_s || t > w.to_s || std::isnan(y)) continue;
                const double s = runs::interpolateAt(p.simulated, t);
                const double e = std::isnan(s) ? 0.0 : s - y;
                if (!(averaged && r.average_s > 0)) {
                    out.push_back(e);
                    continue;
                }
                const auto k = static_cast<long long>(std::floor(t / r.average_s));
                if (k != window) close();
                window = k;
                sum += e;
                ++n;
            }
            close();
        }
        return all;
    }

    /// What the fit minimises the squares of: seriesResiduals (averaged), each series' times its weight, the
    /// series one after another.
    std::vector<double> residuals(const Window& w) const {
        std::vector<double> out;
        const auto all = seriesResiduals(w, true);
        for (std::size_t i = 0; i < all.size(); ++i)
            for (double e : all[i]) out.push_back(weight.empty() ? e : weight[i] * e);
        return out;
    }

    /// The residuals' derivative by parameter k when it only offsets scored temperatures (sensor_offset): 1 for
    /// each sample it offsets.
    std::vector<double> offsetColumn(std::size_t k, const Window& w) const {
        std::vector<double> out;
        const CalibParam& prm = r.params[k];
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            const PairedSeries& p = pairs[i];
            const double v = p.unit == "degC" && (prm.target == "*" || prm.target == p.entity) ? (weight.empty() ? 1.0 : weight[i]) : 0.0;
            long long window = std::numeric_limits<long long>::min();
            for (const auto& [t, y] : p.measured) {
                if (t < w.from_s || t > w.to_s || std::isnan(y)) continue;
                // One per residual: a sample, or a window's mean.
                const bool averaged = r.average_s > 0;
                const long long k2 = averaged ? static_cast<long long>(std::floor(t / r.average_s)) : 0;
                if (!averaged || k2 != window) out.push_back(v);
                window = k2;
            }
        }
        return out;
    }

    runs::ErrorStats score(const Window& w) const {
        ScoreReport rep;
        scorePairs(pairs, supply, w.from_s, w.to_s, kInf, rep);
        if (rep.overall.size() == 1) return rep.overall.front().twin;
        runs::ErrorStats out;  // every metric together: the objective (temperatures, in K)
        double se = 0, ae = 0, be = 0;
        std::size_t n = 0;
        for (const auto& row : rep.overall) {
            const double k = static_cast<double>(row.twin.n);
            se += row.twin.rmse * row.twin.rmse * k;
            ae += row.twin.mae * k;
            be += row.twin.bias * k;
            n += row.twin.n;
        }
        out.n = n;
        if (n > 0) {
            out.rmse = std::sqrt(se / static_cast<double>(n));
            out.mae = ae / static_cast<double>(n);
            out.bias = be / static_cast<double>(n);
        }
        return out;
    }
};

/// A run on the fine grid, kept so that it can go on: what it gave (offset, not corrected) and how it scored.
struct FineRun {
    Run run;
    std::vector<runs::Points> series;
    runs::ErrorStats train, validate;
    double sse = kInf;  ///< least squares: the sum of squares of its (weighted) training residuals
};

inline std::vector<double> toUnit(const std::vector<CalibParam>& ps, const std::vector<double>& x) {
    std::vector<double> u(ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) u[i] = std::clamp((x[i] - ps[i].min) / (ps[i].max - ps[i].min), 0.0, 1.0);
    return u;
}

inline std::vector<double> fromUnit(const std::vector<CalibParam>& ps, const std::vector<double>& u) {
    std::vector<double> x(ps.size());
    for (std::size_t i = 0; i < ps.size(); ++i) x[i] = ps[i].min + u[i] * (ps[i].max - ps[i].min);
    return x;
}

/// Steps a fine run on to `until_s` (from where it is) and scores it: on the training window, and on the
/// validation window once it got there.
inline void goOn(Evaluator& ev, FineRun& f, double until_s) {
    ev.mapping = nullptr;
    ev.advance(f.run, until_s);
    f.series = ev.series();
    f.train = ev.score(ev.r.train);
    if (f.run.engine->timeS() + 1e-9 >= ev.r.validate.to_s) f.validate = ev.score(ev.r.validate);
}

inline FineRun fineRun(Evaluator& ev, const std::vector<double>& x, double until_s, std::vector<HeatBalanceStart>* watch = nullptr,
                       bool announce = true) {
    FineRun f{ev.start(x), {}, {}, {}};
    if (watch) {  // the start run: the units a heat balance may start from, as the twin moves them
        const auto& units = f.run.engine->frame().cooling_units;
        for (auto& h : *watch)
            for (std::size_t k = 0; k < h.units.size(); ++k)
                for (std::size_t i = 0; i < units.size(); ++i)
                    if (units[i].id == h.units[k]) f.run.watched.emplace_back(i, &h.balance[k]);
    }
    goOn(ev, f, until_s);
    f.run.watched.clear();
    if (ev.stopped) return f;
    ++ev.runs;
    if (announce) ev.report(x, f.train.rmse);
    return f;
}

/// The default method (least_squares.hpp; calibrate_lsq.cpp): Levenberg–Marquardt on the training window's
/// residuals. Returns the best fine run (`start` when none beat it).
FineRun leastSquares(Evaluator& ev, FineRun start, CalibResult& out);

}  // namespace ct::session::calib
