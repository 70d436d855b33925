// clustertwin-bench score: pairing measured with simulated series and their error statistics (issue 44), in
// memory (session::scorePairs) and end to end from two run databases (session::scoreRun).
#include <clustertwin/runs/store.hpp>
#include <clustertwin/session/score_run.hpp>
#include <clustertwin/sim/thread_pool.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace ct::bench {
double triadBandwidthOf(sim::ThreadPool& pool);  // main.cpp
}

namespace {

using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// `series` inlet series: measured every 60 s (`samples` of them) with a reproducible ripple, simulated every
/// 10 s over the same span.
std::vector<ct::session::PairedSeries> makePairs(int series, int samples) {
    std::vector<ct::session::PairedSeries> out(static_cast<std::size_t>(series));
    for (int s = 0; s < series; ++s) {
        auto& p = out[static_cast<std::size_t>(s)];
        p.entity = "n" + std::to_string(s);
        p.kind = s % 10 == 0 ? "rack" : "node";
        p.metric = "inlet_c";
        p.unit = "degC";
        p.measured.reserve(static_cast<std::size_t>(samples));
        for (int i = 0; i < samples; ++i) p.measured.emplace_back(60.0 * i, 22 + std::sin(0.01 * i + s) + 0.1 * std::sin(7.3 * i));
        const int sim_samples = 6 * (samples - 1) + 1;
        p.simulated.reserve(static_cast<std::size_t>(sim_samples));
        for (int i = 0; i < sim_samples; ++i) p.simulated.emplace_back(10.0 * i, 22 + std::sin(0.01 * i / 6.0 + s));
    }
    return out;
}

}  // namespace

int benchScore(bool as_json) {
    constexpr int kSeries = 1000, kSamples = 10000;
    const auto pairs = makePairs(kSeries, kSamples);
    ct::runs::Points supply;
    for (int i = 0; i < kSamples; ++i) supply.emplace_back(60.0 * i, 18);
    double best = 1e30;
    ct::session::ScoreReport rep;
    for (int rep_i = 0; rep_i < 3; ++rep_i) {
        ct::session::ScoreReport r;
        const auto t0 = Clock::now();
        ct::session::scorePairs(pairs, supply, -1e300, 1e300, 3600, r);
        best = std::min(best, seconds(t0, Clock::now()));
        rep = std::move(r);
    }
    ct::sim::ThreadPool one(1);
    const double triad = ct::bench::triadBandwidthOf(one);
    // What a pass must read at least: every measured sample once (16 B) and the simulated series (16 B a sample).
    double bytes = 0;
    for (const auto& p : pairs) bytes += 16.0 * static_cast<double>(p.measured.size() + p.simulated.size());
    const double n = static_cast<double>(kSeries) * kSamples;
    if (as_json)
        std::cout << json{{"benchmark", "score"},
                          {"series", kSeries},
                          {"samples_per_series", kSamples},
                          {"seconds", best},
                          {"samples_per_s", n / best},
                          {"bytes_read", bytes},
                          {"triad_gbs_1thread", triad / 1e9},
                          {"roofline_fraction", bytes / best / triad},
                          {"overall_mae", rep.overall.front().twin.mae}}
                         .dump()
                  << "\n";
    else
        std::printf(
            "score: %d series x %d samples paired and scored (per series, kind, hourly window, overall, baseline) in %.3f s "
            "(%.1f M samples/s, one thread); it reads %.0f MB: %.0f %% of the one-thread triad roofline (%.1f GB/s)\n",
            kSeries, kSamples, best, n / best / 1e6, bytes / 1e6, 100 * bytes / best / triad, triad / 1e9);
    return 0;
}
