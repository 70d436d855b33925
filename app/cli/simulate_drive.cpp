#include "simulate_drive.hpp"

#include <clustertwin/model/time.hpp>
#include <clustertwin/runs/error.hpp>
#include <clustertwin/session/drive.hpp>
#include <clustertwin/session/measured.hpp>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>

namespace ct::cli {

namespace m = ct::model;

double instantArg(const Args& a, const char* opt) {
    const std::string text = a.get(opt);
    double t = 0;
    if (m::parseIsoTime(text, t)) return t;
    char* end = nullptr;
    t = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !std::isfinite(t))
        throw UsageError(std::string("--") + opt + ": '" + text + "' is neither Unix seconds nor an ISO 8601 time");
    return t;
}

bool planDriveFor(const Args& a, session::RunRequest& r, std::ostream& note) {
    session::DriveRequest d;
    d.db_path = a.get("drive");
    if (a.has("drive-run")) d.run = a.getInt("drive-run", 0);
    d.map_path = a.get("drive-map", "");
    if (a.has("drive-from")) d.from_unix = instantArg(a, "drive-from");
    if (a.has("drive-max-gap")) {
        try {
            d.max_gap_s = m::parseDurationS(a.get("drive-max-gap"));
        } catch (const m::ModelError& e) {
            throw UsageError(std::string("--drive-max-gap: ") + e.what());
        }
    }
    session::DrivePlan plan;
    try {
        plan = session::planDrive(d, r.scenario, r.catalog);
    } catch (const session::InputError& e) {
        std::cerr << "simulate: --drive: " << e.what() << "\n";
        return false;
    } catch (const runs::StoreError& e) {
        std::cerr << "simulate: --drive: " << e.what() << "\n";
        return false;
    }
    if (!a.has("duration")) {
        if (!(plan.span_s > r.engine.step_s)) {
            std::cerr << "simulate: --drive: the measurements span " << plan.span_s << " s from t = 0, not one step; give --duration\n";
            return false;
        }
        r.duration_s = plan.span_s;
    }
    std::map<std::string, int> per_input;
    for (const auto& s : plan.series) ++per_input[sim::driveInputInfo(s.input).id];
    note << "simulate: driven by " << plan.measured_label << " from " << m::formatIsoTime(plan.origin_unix) << " for "
         << m::formatDuration(r.duration_s) << ": " << plan.series.size() << " of its " << plan.measured_series << " series drive";
    for (const auto& [id, n] : per_input) note << " " << id << " (" << n << ")";
    note << "\n";
    if (!plan.unmapped.empty()) {
        std::cerr << "simulate: --drive: " << plan.unmapped.size() << " measured entities are not in scenario " << r.scenario.id
                  << " and drive nothing:";
        for (std::size_t i = 0; i < plan.unmapped.size() && i < 5; ++i) std::cerr << " " << plan.unmapped[i];
        std::cerr << (plan.unmapped.size() > 5 ? " ..." : "") << " (name them in --drive-map)\n";
    }
    for (const auto& n : plan.notes) std::cerr << "simulate: --drive: " << n << "\n";
    r.engine.drive = std::move(plan.series);
    r.meta.time_origin_unix = plan.origin_unix;
    r.meta.driven_by = plan.measured_label;
    return true;
}

void printDriven(const std::vector<runs::RunMeta::Driven>& driven, std::ostream& note) {
    for (const auto& d : driven) {
        const double steps = static_cast<double>(d.driven_steps + d.model_steps);
        note << "simulate: " << d.input << ": " << d.series << " series, " << d.samples << " samples; measured in " << std::fixed
             << std::setprecision(1) << (steps > 0 ? 100.0 * static_cast<double>(d.driven_steps) / steps : 0.0)
             << " % of entity-steps, the model's own value in the rest (" << d.gaps << " gaps)" << std::defaultfloat << std::setprecision(6)
             << "\n";
    }
}

}  // namespace ct::cli
