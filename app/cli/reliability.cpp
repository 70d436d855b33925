#include "reliability.hpp"

#include "io.hpp"
#include "job_input.hpp"

#include <clustertwin/sim/reliability.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace ct::cli {

namespace m = ct::model;
using json = nlohmann::ordered_json;

const char* kReliabilityHelp =
    R"(Usage: clustertwin-cli reliability SCENARIO [--jobs FILE] [--job ID] [--days N] [--seed S] [--json] [--events FILE]

Simulates days of a training job's operation with failures (no air grid): its GPUs, HBM, NVLink domains, NICs,
nodes and its share of the fabric's switches and cables fail at the catalog's rates (failure_rates, with their
sources); any failure stops the synchronous job, which restarts after the spec's detection_s + restart_s and
reading its last checkpoint, and redoes the work since. Checkpoints every checkpoint_interval_s (0 = Young/Daly's
optimum), written and read at storage_gbytes_per_s. Prints interruptions by cause, lost work, time spent on
checkpoints and down, and goodput (the share of the time that trains).
  --job ID        the training job (the first one with a training spec)
  --jobs FILE     more jobs, as in a scenario's "jobs" (e.g. resources/jobs/*.json); theirs come first
  --days N        simulated days (54, the length of Llama 3 405B's pre-training period Meta reports on)
  --seed S        random seed (1); the same seed gives the same history
  --events FILE   every interruption as CSV: t_s, kind, device, lost_work_s, down_s ("-" = stdout)
  --json          the result as JSON
)";

int cmdReliability(const Args& a) {
    const double days = a.getDouble("days", 54);
    if (!(days > 0)) throw UsageError("--days must be > 0");
    const long long seed = a.getInt("seed", 1);
    const std::optional<JobInput> in = loadJob(a, "reliability", "training");
    if (!in) return 2;
    const m::ValidationReport& rep = in->rep;
    const m::Job* job = &in->job();
    const sim::ComponentCounts comp = sim::jobComponents(rep.scenario, rep.catalog, *job);
    sim::ReliabilityOptions o;
    o.duration_s = days * 86400;
    o.seed = static_cast<std::uint64_t>(seed);
    const sim::ReliabilityResult r = sim::simulateReliability(comp, rep.catalog, *job->training, o);
    if (a.has("events")) {
        OutputFile out(a.get("events"));
        out.stream() << "t_s,kind,device,lost_work_s,down_s\n";
        for (const auto& e : r.events)
            out.stream() << e.t_s << "," << e.kind << "," << e.device << "," << e.lost_work_s << "," << e.down_s << "\n";
        out.commit();
    }
    const double T = r.duration_s;
    if (a.flag("json")) {
        json kinds = json::object(), counts = json::object();
        for (const auto& [k, n] : r.by_kind) kinds[k] = n;
        for (const auto& [k, n] : comp.count) counts[k] = n;
        std::cout << json{{"job", job->id},
                          {"days", days},
                          {"seed", seed},
                          {"components", counts},
                          {"mtbf_h", r.mtbf_s / 3600},
                          {"checkpoint_interval_s", r.checkpoint_interval_s},
                          {"checkpoint_write_s", r.checkpoint_write_s},
                          {"interruptions", r.interruptions},
                          {"by_kind", kinds},
                          {"useful_share", r.useful_s / T},
                          {"lost_share", r.lost_s / T},
                          {"checkpoint_share", r.checkpoint_s / T},
                          {"down_share", r.down_s / T},
                          {"goodput", r.goodput}}
                         .dump(2)
                  << "\n";
    } else {
        std::printf("job %s, %.0f GPUs, %.1f days: %d interruptions (one every %.2f h; MTBF %.2f h)\n", job->id.c_str(),
                    comp.count.at("gpu"), days, r.interruptions, r.interruptions ? T / r.interruptions / 3600 : 0.0, r.mtbf_s / 3600);
        std::printf("  by cause:");
        for (const auto& [k, n] : r.by_kind) std::printf(" %s %d", k.c_str(), n);
        std::printf("\n  checkpoint every %.0f s (write %.1f s, read %.1f s); down %.0f s a failure\n", r.checkpoint_interval_s,
                    r.checkpoint_write_s, r.checkpoint_read_s, job->training->detection_s + job->training->restart_s + r.checkpoint_read_s);
        std::printf("  goodput %.1f %%: lost work %.1f %%, checkpoints %.1f %%, down %.1f %%\n", 100 * r.goodput, 100 * r.lost_s / T,
                    100 * r.checkpoint_s / T, 100 * r.down_s / T);
    }
    return 0;
}

}  // namespace ct::cli
