// clustertwin-bench import: telemetry parse and store throughput, and bytes per sample on disk.
#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/runs/store.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <future>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace im = ct::importers;
using json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace {
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
}  // namespace

namespace {

/// `distinct` DCGM scrape pages of `gpus` GPUs × `metrics` metrics: the DCGM names the parser maps plus
/// DCGM_FI_PROF_* style extras up to `metrics`.
std::vector<std::string> dcgmPages(int gpus, int metrics, int gpus_per_host, int distinct) {
    std::vector<std::string> names = {"DCGM_FI_DEV_GPU_TEMP",         "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_GPU_UTIL",
                                      "DCGM_FI_DEV_MEM_COPY_UTIL",    "DCGM_FI_DEV_SM_CLOCK",    "DCGM_FI_DEV_MEM_CLOCK",
                                      "DCGM_FI_DEV_FB_USED",          "DCGM_FI_DEV_FB_FREE",     "DCGM_FI_DEV_MEMORY_TEMP",
                                      "DCGM_FI_PROF_GR_ENGINE_ACTIVE"};
    for (int k = static_cast<int>(names.size()); k < metrics; ++k) names.push_back("DCGM_FI_DEV_BENCH_FIELD_" + std::to_string(k));
    std::vector<std::string> pages(static_cast<std::size_t>(distinct));
    for (int s = 0; s < distinct; ++s) {
        std::string& page = pages[static_cast<std::size_t>(s)];
        char line[256];
        for (const auto& n : names) {
            page += "# HELP " + n + " bench\n# TYPE " + n + " gauge\n";
            for (int g = 0; g < gpus; ++g) {
                const double v = 30 + (g * 7 + s * 13 + static_cast<int>(n.size())) % 60 + 0.125;
                std::snprintf(
                    line, sizeof line,
                    "%s{gpu=\"%d\",UUID=\"GPU-%08d\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"dgx%04d\"} %.3f\n",
                    n.c_str(), g % gpus_per_host, g, g % gpus_per_host, g / gpus_per_host, v);
                page += line;
            }
        }
    }
    return pages;
}

struct ImportTimes {
    double parse_s = 0, store_s = 0, wall_s = 0;
    std::int64_t samples = 0, stored = 0, bytes = 0;
};

/// Parses `scrapes` pages (cycling through `pages`) on threads and stores them in order into a new store at db.
ImportTimes timedImport(const std::vector<std::string>& pages, int scrapes, const std::string& db) {
    ImportTimes out;
    double& parse_s = out.parse_s;
    double& store_s = out.store_s;
    std::int64_t& samples = out.samples;
    const int distinct = static_cast<int>(pages.size());
    auto store = ct::runs::TelemetryStore::open(db);
    const auto t_start = Clock::now();
    im::ImportOptions opt;
    opt.run_name = "bench";
    im::ImportSession session(store, opt);
    // Each task first frees the result stored two steps before: memory goes back to the thread that took
    // it (glibc's arenas), instead of the two threads contending for one arena's lock sample by sample.
    auto parse = [&](int s, im::ParseResult spent) {
        spent = {};
        const auto t0 = Clock::now();
        const std::string& page = pages[static_cast<std::size_t>(s % distinct)];
        std::istringstream in(page);
        im::ParseOptions po;
        po.file_name = "scrape";
        po.default_time_s = 1.7e9 + 10.0 * s;
        im::ParseResult r = im::parsePrometheusText(in, po, {}, page.size());
        return std::make_pair(std::move(r), seconds(t0, Clock::now()));
    };
    // As many pages parsed ahead as there are cores (at least one): parsing is the larger part.
    const int ahead = std::max(1u, std::thread::hardware_concurrency());
    std::deque<std::future<std::pair<im::ParseResult, double>>> pending;
    std::vector<im::ParseResult> spent(static_cast<std::size_t>(ahead));
    int launched = 0;
    auto launch = [&] {
        if (launched < scrapes) {
            pending.push_back(
                std::async(std::launch::async, parse, launched, std::move(spent[static_cast<std::size_t>(launched % ahead)])));
            ++launched;
        }
    };
    for (int i = 0; i < ahead; ++i) launch();
    for (int s = 0; s < scrapes; ++s) {
        auto [r, took] = pending.front().get();
        pending.pop_front();
        parse_s += took;
        const auto t0 = Clock::now();
        samples += static_cast<std::int64_t>(r.samples.size());
        session.add(r, "scrape " + std::to_string(s), "prometheus-text");
        spent[static_cast<std::size_t>(s % ahead)] = std::move(r);
        store_s += seconds(t0, Clock::now());
        launch();
    }
    const auto t0 = Clock::now();
    const im::ImportSummary sum = session.finish();
    store_s += seconds(t0, Clock::now());
    out.wall_s = seconds(t_start, Clock::now());
    out.stored = sum.written.stored;
    out.bytes = store.diskBytes();
    return out;
}

}  // namespace

/// Parse + store throughput for a generated DCGM scrape series (issue 4): `gpus` GPUs × 40 metrics × `scrapes`
/// scrapes, each scrape a Prometheus text page parsed by the real parser and stored by the real import session
/// (series lookup, compressed chunks), the next pages parsed on other threads (one per core) while this one is
/// stored, as `clustertwin-cli import` does with files. The values repeat every 60 scrapes, so 60 pages are made before the clock
/// starts.
int benchImport(bool as_json, int scrapes) {
    const int gpus = 1024, metrics = 40, gpus_per_host = 8, distinct = std::min(scrapes, 60);
    const std::vector<std::string> pages = dcgmPages(gpus, metrics, gpus_per_host, distinct);
    const std::string db =
        (std::filesystem::temp_directory_path() / ("ct-bench-import-" + std::to_string(::getpid()) + ".sqlite")).string();
    const ImportTimes r = timedImport(pages, scrapes, db);
    const double parse_s = r.parse_s, store_s = r.store_s, wall_s = r.wall_s;
    const std::int64_t samples = r.samples, stored = r.stored, bytes = r.bytes;
    std::filesystem::remove(db);
    std::filesystem::remove(db + "-wal");
    std::filesystem::remove(db + "-shm");
    const double per_sample = static_cast<double>(bytes) / static_cast<double>(samples);
    if (stored != samples)
        std::fprintf(stderr, "import: %lld of %lld samples stored\n", static_cast<long long>(stored), static_cast<long long>(samples));
    if (as_json) {
        std::cout << json{{"name", "import_dcgm"},
                          {"gpus", gpus},
                          {"metrics", metrics},
                          {"scrapes", scrapes},
                          {"samples", samples},
                          {"stored", stored},
                          {"wall_s", wall_s},
                          {"parse_s", parse_s},
                          {"store_s", store_s},
                          {"samples_per_s", samples / wall_s},
                          {"parse_samples_per_s", samples / parse_s},
                          {"store_samples_per_s", samples / store_s},
                          {"bytes", bytes},
                          {"bytes_per_sample", per_sample},
                          {"raw_bytes_per_sample", 16}}
                  << "\n";
    } else {
        std::printf(
            "import: %lld samples (%d GPUs x %d metrics x %d scrapes) in %.2f s: %.2f M samples/s end to end, parse on "
            "threads (parse %.2f M/s per thread, store %.2f M/s; target >= 2 M/s)\n"
            "store: %lld bytes on disk, %.2f bytes/sample (a time and a double raw: 16; target <= 4)\n",
            static_cast<long long>(samples), gpus, metrics, scrapes, wall_s, samples / wall_s / 1e6, samples / parse_s / 1e6,
            samples / store_s / 1e6, static_cast<long long>(bytes), per_sample);
    }
    return stored == samples ? 0 : 1;
}
