// The device path's profile table (profile.cuh).
#include "profile.cuh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ct::sim::cuda {

namespace {

struct Row {
    long long calls = 0;
    double seconds = 0;
    double bytes = 0;
};

struct Table {
    std::mutex m;
    std::map<std::string, Row> rows;
    ~Table() {  // at exit: the table, slowest first
        std::vector<std::pair<std::string, Row>> all(rows.begin(), rows.end());
        std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
        std::fprintf(stderr, "CT_CUDA_PROFILE: host-side time of the device path's entry points (device waits included)\n");
        std::fprintf(stderr, "  %-34s %10s %10s %10s %12s\n", "entry point", "calls", "total s", "us/call", "MB copied");
        for (const auto& [name, r] : all)
            std::fprintf(stderr, "  %-34s %10lld %10.3f %10.1f %12.1f\n", name.c_str(), r.calls, r.seconds,
                         r.calls ? 1e6 * r.seconds / static_cast<double>(r.calls) : 0.0, r.bytes / 1e6);
    }
};

Table& table() {
    static Table t;
    return t;
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

bool profiling() {
    static const bool on = std::getenv("CT_CUDA_PROFILE") != nullptr;
    return on;
}

void profileAdd(const char* name, double seconds, std::size_t bytes) {
    Table& t = table();
    std::lock_guard<std::mutex> lock(t.m);
    Row& r = t.rows[name];
    ++r.calls;
    r.seconds += seconds;
    r.bytes += static_cast<double>(bytes);
}

ProfileScope::ProfileScope(const char* name, std::size_t bytes) : name_(name), bytes_(bytes) {
    if (profiling()) t0_ = now();
}

ProfileScope::~ProfileScope() {
    if (profiling()) profileAdd(name_, now() - t0_, bytes_);
}

}  // namespace ct::sim::cuda
