#include "twin_jobs.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/runs/error.hpp>
#include <clustertwin/session/measured.hpp>

namespace ct::app {

ScoreJob::ScoreJob(session::ScoreRequest r, model::Scenario s, QObject* parent)
    : QThread(parent), request_(std::move(r)), scenario_(std::move(s)) {}

void ScoreJob::run() {
    try {
        session::ScoreRequest r = request_;
        r.scenario = &scenario_;
        std::vector<session::PairedSeries> pairs;
        auto rep = std::make_shared<session::ScoreReport>(session::scoreRun(r, &pairs));
        auto overlay = std::make_shared<MeasuredOverlay>();
        overlay->label = r.measured_db + ", run " + std::to_string(rep->measured_run);
        for (auto& p : pairs) overlay->series[{p.entity, p.metric}] = std::move(p.measured);
        report_ = std::move(rep);
        overlay_ = std::move(overlay);
    } catch (const std::exception& e) {  // InputError, runs::StoreError: said to the user as they are
        error_ = QString::fromStdString(e.what());
    }
}

CalibrateJob::CalibrateJob(Setup s, QObject* parent) : QThread(parent), setup_(std::move(s)) {}

void CalibrateJob::run() {
    try {
        const Setup& s = setup_;
        session::DrivePlan plan;
        session::CalibRequest r = session::calibrationRequest(s.scenario, s.catalog, s.drive, {}, plan);
        r.engine = s.engine;
        r.engine.drive = std::move(plan.series);
        r.params = s.params;
        r.train = session::parseWindow(s.train, plan.origin_unix);
        r.validate = session::parseWindow(s.validate, plan.origin_unix);
        r.sample_s = s.sample_s;
        r.max_runs = s.max_runs;
        r.coarse_cell_m = s.coarse_cell_m;
        r.noise_weights = s.noise_weights;
        const int max_runs = r.max_runs;
        r.progress = [this, max_runs](int run, double rmse) { emit runDone(run, max_runs, rmse); };
        r.cancelled = [this] { return cancel_.load(); };
        auto res = std::make_shared<session::CalibResult>(session::calibrate(r));
        cancelled_ = res->cancelled;
        if (cancelled_) return;
        model::saveScenarioFile(res->calibrated, s.out_path);  // atomic
        result_ = std::move(res);
    } catch (const std::exception& e) {
        error_ = QString::fromStdString(e.what());
    }
}

}  // namespace ct::app
