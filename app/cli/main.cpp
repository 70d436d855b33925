// clustertwin-cli: validate, inspect, generate and render scenarios without a display.
// Exit codes: 0 ok, 1 runtime error, 2 usage error or invalid input. Messages go to stderr.
#include "alerts.hpp"
#include "args.hpp"
#include "calibrate.hpp"
#include "capacity.hpp"
#include "collective.hpp"
#include "export.hpp"
#include "flows.hpp"
#include "impact.hpp"
#include "inference.hpp"
#include "inventory.hpp"
#include "io.hpp"
#include "path.hpp"
#include "reliability.hpp"
#include "render.hpp"
#include "runs.hpp"
#include "scenario_commands.hpp"
#include "score.hpp"
#include "simulate.hpp"
#include "sweep.hpp"
#include "telemetry.hpp"
#include "training.hpp"

#include <clustertwin/importers/format.hpp>
#include <clustertwin/model/analysis.hpp>
#include <clustertwin/model/builder.hpp>
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/time.hpp>
#include <clustertwin/model/validate.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/sim/air/air_solver.hpp>
#include <clustertwin/sim/backend.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using ct::cli::Args;
using ct::cli::UsageError;
namespace m = ct::model;
using json = nlohmann::ordered_json;

namespace {

constexpr int kOk = 0, kRuntimeError = 1, kInvalid = 2;

const char* kMainHelpTemplate = R"(clustertwin-cli — ClusterTwin without a display

Usage: clustertwin-cli COMMAND [options]

Commands:
%COMMANDS%
Options of every command: -h/--help; "--" ends the options; "-" stands for standard input or output where a
command reads or writes a file (scenarios, import, generate -o, render -o, query -o). --version prints the
version.

Exit codes: 0 ok, 1 runtime error, 2 usage error or invalid input.
)";

struct Command {
    std::string name, synopsis, summary;
    std::function<int(const Args&)> run;
    std::set<std::string> flags, options;
    std::function<std::string()> help;
};

/// simulate's options: its own and each air solver's (sim::airSolvers()).
std::set<std::string> simulateOptions() {
    std::set<std::string> o{"out",          "duration",    "step",         "events",          "jobs", "cell",  "threads",
                            "record-every", "field-every", "backend",      "max-grid-memory", "air",  "drive", "drive-run",
                            "drive-map",    "drive-from",  "drive-max-gap"};
    for (const auto& p : ct::cli::simulateSolverOptions()) o.insert(p);
    return o;
}

/// sweep's: simulate's for every run (not --drive's) and its own.
std::set<std::string> sweepOptions() {
    std::set<std::string> o;
    for (const auto& x : simulateOptions())
        if (x.rfind("drive", 0) != 0) o.insert(x);
    o.insert({"what-if", "vary", "fail-at"});
    return o;
}

/// The processes of this command: MPI ranks when mpirun or srun started it (ranks.hpp), else one.
ct::ranks::World& world() {
    static ct::ranks::World w;
    return w;
}

/// A command's own flags or options and the overlays' (render/overlays.hpp).
std::set<std::string> withOverlays(std::set<std::string> own, const std::vector<std::string>& overlays) {
    own.insert(overlays.begin(), overlays.end());
    return own;
}

std::function<std::string()> text(const char* help) {
    return [help] { return std::string(help); };
}

/// The CLI's command table: one row per command (name, synopsis, summary, function, flags, options, help), read by
/// the dispatcher, `help`, the man pages and the completion. Over 80 lines on purpose: it is data, one row per
/// command, and reads best as one table (contributing.md habit 15).
const std::vector<Command>& commands() {
    static const std::vector<Command> c = {
        {"validate",
         "validate FILE",
         "check a scenario; every problem with its JSON pointer",
         ct::cli::cmdValidate,
         {"json", "help"},
         {"out"},
         text(ct::cli::kValidateHelp)},
        {"info",
         "info FILE",
         "racks, nodes, GPUs, nameplate IT power, cooling capacity, N-1 cooling",
         ct::cli::cmdInfo,
         {"json", "help"},
         {},
         text(ct::cli::kInfoHelp)},
        {"generate",
         "generate",
         "build a valid scenario from hall parameters",
         ct::cli::cmdGenerate,
         {"help", "quiet"},
         {"out",
          "id",
          "name",
          "description",
          "rows",
          "racks-per-row",
          "server",
          "nodes-per-rack",
          "rack-model",
          "cooling-unit",
          "cdu",
          "redundancy",
          "setpoint",
          "ceiling",
          "raised-floor",
          "topology",
          "levels",
          "radix",
          "switch",
          "routing",
          "oversubscription",
          "link-speed",
          "jobs",
          "event",
          "cooling",
          "containment",
          "containment-model",
          "inrow-model",
          "rear-door",
          "pods",
          "halls",
          "gpus"},
         text(ct::cli::kGenerateHelp)},
        {"simulate",
         "simulate FILE",
         "run the coupled power/heat/air model and record the run (SQLite)",
         [](const ct::cli::Args& a) { return ct::cli::cmdSimulate(a, world()); },
         {"json", "help", "steady", "quiet"},
         simulateOptions(),
         ct::cli::simulateHelp},
        {"score",
         "score",
         "a simulated run against the hall's measurements: RMSE, MAE, bias, CV(RMSE), NMBE, a baseline",
         ct::cli::cmdScore,
         {"json", "help", "include-driven"},
         {"run", "run-id", "measured", "measured-run", "scenario", "map", "metric", "from", "to", "window", "origin", "series"},
         text(ct::cli::kScoreHelp)},
        {"calibrate",
         "calibrate FILE",
         "fit a scenario's physical parameters to the hall's measurements, checked on a validation window",
         ct::cli::cmdCalibrate,
         {"json", "help", "quiet"},
         {"measured",    "measured-run", "map",     "params",       "train",         "validate",       "out",     "metric",
          "air",         "cell",         "step",    "sample-every", "max-runs",      "method",         "average", "coarse-cell",
          "coarse-runs", "fine-runs",    "weights", "drive-from",   "drive-max-gap", "lattice-stride", "backend"},
         ct::cli::calibrateHelp},
        {"sweep",
         "sweep FILE",
         "many variants of a scenario (N-1, what-ifs, settings varied) into one database, over MPI ranks under mpirun",
         [](const ct::cli::Args& a) { return ct::cli::cmdSweep(a, world()); },
         {"json", "help", "quiet", "steady", "n-1"},
         sweepOptions(),
         text(ct::cli::kSweepHelp)},
        {"collective",
         "collective FILE",
         "one collective (all-reduce, all-gather, ...) on the scenario's fabric",
         ct::cli::cmdCollective,
         {"json", "help"},
         {"op", "bytes", "sweep", "ranks", "placement", "order", "channels", "algo", "proto", "model", "fail-link", "links"},
         text(ct::cli::kCollectiveHelp)},
        {"compare-nccl",
         "compare-nccl FILE SCENARIO",
         "what nccl-tests measured against the twin's collective, size by size, with the ratio",
         ct::cli::cmdCompareNccl,
         {"json", "help"},
         {"op", "ranks", "placement", "channels", "algo", "proto", "model", "fail-link"},
         text(ct::cli::kCompareNcclHelp)},
        {"flows",
         "flows FILE",
         "point-to-point flows (sizes, start times) on the scenario's fabric: rates and finish times",
         ct::cli::cmdFlows,
         {"json", "help"},
         {"flows", "fail-link", "links"},
         text(ct::cli::kFlowsHelp)},
        {"reliability",
         "reliability FILE",
         "a training job's failures, checkpoints, lost work and goodput over days",
         ct::cli::cmdReliability,
         {"json", "help"},
         {"job", "jobs", "days", "seed", "events"},
         text(ct::cli::kReliabilityHelp)},
        {"inference",
         "inference FILE",
         "serving a model: tokens/s, time to first token and per output token, prefill/decode pools",
         ct::cli::cmdInference,
         {"json", "help"},
         {"job", "jobs", "seconds", "seed"},
         text(ct::cli::kInferenceHelp)},
        {"training",
         "training FILE",
         "one step of a training job on the fabric: layout, bubble, traffic, MFU",
         ct::cli::cmdTraining,
         {"json", "help"},
         {"job", "jobs"},
         text(ct::cli::kTrainingHelp)},
        {"import",
         "import FILE|DIR...",
         "telemetry into a run database (DCGM, Prometheus, nvidia-smi, Redfish, Slurm, IB, CSV)",
         ct::cli::cmdImport,
         {"json", "help", "quiet", "dcgm", "formats"},
         {"db", "name", "host", "scenario", "skeleton", "sacct-format", "jobs-out", "flush-every", "tz", "trace-start", "prometheus",
          "query", "from", "to", "step", "rules"},
         text(ct::cli::kImportHelp)},
        {"alerts",
         "alerts",
         "evaluate alert rules (built-in or a rules file) on a run: measured, live or simulated",
         ct::cli::cmdAlerts,
         {"json", "help", "default-rules"},
         {"db", "run", "rules"},
         text(ct::cli::kAlertsHelp)},
        {"query",
         "query",
         "a metric's values from a run database",
         ct::cli::cmdQuery,
         {"help"},
         {"db", "metric", "entity", "from", "to", "run", "format", "out"},
         text(ct::cli::kQueryHelp)},
        {"runs",
         "runs",
         "what a run database holds: its runs, their sources, entities and metrics",
         ct::cli::cmdRuns,
         {"json", "help"},
         {"db", "run"},
         text(ct::cli::kRunsHelp)},
        {"capacity",
         "capacity FILE",
         "headroom per rack, row, PDU, UPS, feed and hall (redundancy respected); --place N: where N racks could go",
         ct::cli::cmdCapacity,
         {"json", "help"},
         {"kind", "place", "rack-model", "server", "servers"},
         text(ct::cli::kCapacityHelp)},
        {"path",
         "path FILE",
         "the route the fabric gives traffic from one GPU to another: switches, cables, latency",
         ct::cli::cmdPath,
         {"json", "help"},
         {"from", "to"},
         text(ct::cli::kPathHelp)},
        {"impact",
         "impact FILE",
         "what loses power, cooling or connectivity if --fail ID fails",
         ct::cli::cmdImpact,
         {"json", "help"},
         {"fail"},
         text(ct::cli::kImpactHelp)},
        {"from-netbox",
         "from-netbox FILE...",
         "a scenario from a NetBox inventory (REST API JSON; floor-plan plugin positions)",
         ct::cli::cmdFromNetbox,
         {"json", "help"},
         {"out"},
         text(ct::cli::kFromNetboxHelp)},
        {"to-netbox",
         "to-netbox FILE",
         "the scenario's racks and devices as NetBox bulk-import CSV",
         ct::cli::cmdToNetbox,
         {"help"},
         {"out"},
         text(ct::cli::kToNetboxHelp)},
        {"import-fabric",
         "import-fabric FILE IBNET",
         "the scenario's fabric as cabled, from ibnetdiscover output",
         ct::cli::cmdImportFabric,
         {"json", "help"},
         {"out"},
         text(ct::cli::kImportFabricHelp)},
        {"render", "render FILE", "render a scenario's hall to a PNG, offscreen (from a run, a simulation or the design)",
         ct::cli::cmdRender, withOverlays({"help", "quiet"}, ct::cli::renderOverlayFlags()),
         withOverlays({"out", "size", "view", "run", "run-id", "time", "metric"}, ct::cli::renderOverlayOptions()), ct::cli::renderHelp},
        {"export",
         "export FILE",
         "files other tools open: VTK XML for ParaView (hall, air field, time series), glTF 2.0, an HTML report, a video",
         ct::cli::cmdExport,
         {"help", "quiet", "no-picture", "video"},
         {"out", "format", "run", "run-id", "time", "metric", "every", "tour", "seconds", "fps", "size", "view", "measured", "measured-run",
          "map"},
         text(ct::cli::kExportHelp)},
        {"backends",
         "backends",
         "list the compute backends (CPU, CUDA) and whether they are usable",
         ct::cli::cmdBackends,
         {"json", "help"},
         {},
         text(ct::cli::kBackendsHelp)},
    };
    return c;
}

const Command* findCommand(const std::string& name) {
    for (const auto& c : commands())
        if (c.name == name) return &c;
    return nullptr;
}

/// The main help: the template with the command list from the table.
std::string mainHelp() {
    std::string list;
    for (const auto& c : commands()) {
        std::string head = "  " + c.synopsis;
        head += std::string(head.size() < 23 ? 23 - head.size() : 3, ' ');
        list += head + c.summary + "\n";
    }
    list += "  help COMMAND         help for one command (or COMMAND -h); help --commands lists their names\n";
    std::string h = kMainHelpTemplate;
    h.replace(h.find("%COMMANDS%"), 10, list);
    return h;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << mainHelp();
        return kInvalid;
    }
    const std::string cmd = args[0];
    if (cmd == "--help" || cmd == "-h") {
        std::cout << mainHelp();
        return kOk;
    }
    if (cmd == "--version" || cmd == "-V") {
        std::cout << "clustertwin-cli " CT_VERSION "\n";
        return kOk;
    }
    if (cmd == "help") {
        if (args.size() < 2) {
            std::cout << mainHelp();
            return kOk;
        }
        if (args[1] == "--commands") {  // for the man page and the completion
            for (const auto& c : commands()) std::cout << c.name << "\n";
            return kOk;
        }
        if (args[1] == "--air-solvers") {  // for the completion of --air
            for (const auto& n : ct::sim::airSolverNames()) std::cout << n << "\n";
            return kOk;
        }
        const Command* c = findCommand(args[1]);
        if (!c) {
            std::cerr << "clustertwin-cli: unknown command '" << args[1] << "'\n";
            return kInvalid;
        }
        std::cout << c->help();
        return kOk;
    }
    const Command* c = findCommand(cmd);
    if (!c) {
        std::cerr << "clustertwin-cli: unknown command '" << cmd << "' (see clustertwin-cli --help)\n";
        return kInvalid;
    }
    if (ct::ranks::launchedByMpi()) {
        try {
            if (world().size() > 1 && c->name != "sweep" && c->name != "simulate") {
                if (world().rank() == 0)
                    std::cerr << "clustertwin-cli " << cmd << ": runs as one process; of the commands only simulate and sweep spread "
                              << "their work over " << world().size() << " MPI ranks (docs/scale-out.md)\n";
                return kInvalid;
            }
        } catch (const std::exception& e) {
            std::cerr << "clustertwin-cli " << cmd << ": " << e.what() << "\n";
            return kInvalid;
        }
    }
    try {
        const Args a(std::vector<std::string>(args.begin() + 1, args.end()), c->flags, c->options);
        if (a.flag("help")) {
            std::cout << c->help();
            return kOk;
        }
        return c->run(a);
    } catch (const UsageError& e) {
        std::cerr << "clustertwin-cli " << cmd << ": " << e.what() << "\n\n" << c->help();
        return kInvalid;
    } catch (const ct::cli::InvalidInput&) {
        return kInvalid;
    } catch (const m::ModelError& e) {  // unreadable, malformed or invalid input
        std::cerr << "clustertwin-cli " << cmd << ": " << e.what() << "\n";
        return kInvalid;
    } catch (const std::exception& e) {
        std::cerr << "clustertwin-cli " << cmd << ": error: " << e.what() << "\n";
        return kRuntimeError;
    }
}
