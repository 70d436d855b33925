#pragma once
// Telemetry parsers (contributing.md habit 4): pure functions of their input stream; samples and warnings (with
// file:line) out; a progress callback that can cancel. Storing is a separate step (store.hpp).
#include <clustertwin/importers/format.hpp>
#include <clustertwin/model/time.hpp>

#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ct::importers {

struct ImportedSample {
    std::string entity;  ///< "host/gpu0", "host/gpu0/mig3", "host"
    std::string metric;  ///< the engine's names where they exist (power_w, temp_c, utilization), else the raw name lowercased
    std::string unit;
    double t_s = 0;  ///< Unix seconds
    double value = 0;
};

struct ImportWarning {
    std::string location;  ///< "file:line"
    std::string kind;      ///< "syntax", "no_data", "bad_value", "bad_utf8", "missing_field", "unknown_metric"
    std::string message;
};

struct ImportedEntity {
    std::string id, kind, parent, name;         ///< kind: "node", "gpu", "mig", "chassis", "sensor", "hca", "ib_switch", ...
    std::map<std::string, std::string> labels;  ///< what mapping rules match on: uuid, chassis, guid, lid, ...
};

/// A cable between two ports (ibnetdiscover), each end an entity id and a port number.
struct ImportedLink {
    std::string from;
    int from_port = 0;
    std::string to;
    int to_port = 0;
    std::string speed;  ///< "4x EDR"
};

/// A job from a scheduler or a job trace (Slurm sacct/squeue/scontrol, ClusterCockpit, the Alibaba GPU trace).
struct SlurmJob {
    std::string id;                                  ///< "4034541", array task "5908801_3", het-job "176+0", pod "openb-pod-0017"
    std::string name, user, partition, state;        ///< state without "by <uid>" ("CANCELLED")
    std::vector<std::string> nodes;                  ///< expanded host list; empty when none was assigned
    std::optional<double> submit_s, start_s, end_s;  ///< Unix seconds
    int gpus = 0;                                    ///< GPUs allocated (AllocTRES gres/gpu=N; 0 when absent)
    double gpu_share = 1;                            ///< the share of each GPU it may use: < 1 for GPU-sharing pods (gpu_milli/1000)
};

struct ParseResult {
    std::vector<ImportedSample> samples;
    std::vector<ImportWarning> warnings;
    std::vector<ImportedEntity> entities;
    std::vector<ImportedLink> links;
    std::vector<SlurmJob> jobs;  ///< formats that describe jobs (scontrol show job, job archives, traces)
    bool cancelled = false;
};

struct ParseOptions {
    std::string file_name = "<stream>";  ///< for warning locations
    /// Time of samples that carry none (a scrape): Unix seconds. NaN = the caller must set it.
    double default_time_s = std::numeric_limits<double>::quiet_NaN();
    /// Host the file came from, for formats that do not say (nvidia-smi XML, Redfish): entity ids are prefixed
    /// with it. Empty: "unknown-host" for nvidia-smi, no prefix for Redfish.
    std::string host;
    /// When `host` is empty, name the host after the file instead: nvidia-smi files (XML, CSV without a
    /// hostname column) take the file's name up to its first '.', Redfish resources the directory of their
    /// crawl. parseFile sets it; a parse of a stream leaves it off.
    bool host_from_path = false;
    /// Offset from UTC of times written without a zone (Slurm, nvidia-smi XML and dmon), in seconds.
    double tz_offset_s = 0;
    /// Unix time of a trace's t = 0, for traces whose times count from their start (the Alibaba GPU trace).
    double trace_start_s = 0;
    /// The --format list of sacct text printed without a header (comma-separated field names).
    std::string sacct_fields;
};

using model::parseUtcOffset;

/// The 1-based line of `text` that a JSON parser's error `e` (nlohmann_json's parse_error) points at; 1 when `e`
/// says no position. For messages that name the line of a bad JSON file.
std::size_t jsonErrorLine(const std::string& text,
                          const std::exception& e);  // model/time.hpp: "+02:00" and the like, in seconds east of UTC

/// Progress in 0..1; return false to cancel (the result keeps what was parsed so far).
using Progress = std::function<bool(double)>;

/// Prometheus text exposition, DCGM exporter flavour: HELP/TYPE optional, labels with escapes and optional
/// spaces, Hostname or hostname, MIG instances, NaN/±Inf, DCGM no-data sentinels (skipped with a warning),
/// optional millisecond timestamps. `size_hint` (bytes) drives progress.
ParseResult parsePrometheusText(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// Long CSV: a header naming time, entity, metric, value (unit optional), any order; time in Unix seconds or
/// ISO 8601 (UTC unless an offset is given).
ParseResult parseLongCsv(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// nvidia-smi --query-gpu CSV: units in the header ("power.draw [W]") and in values ("28.16 W"), or none
/// (nounits); "[N/A]", "[Not Supported]" and text fields are skipped. GPUs are "<hostname>/gpu<index>".
ParseResult parseNvidiaSmiCsv(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// Prometheus HTTP API query / query_range JSON (vector or matrix; string values, NaN), or a bare result array.
ParseResult parsePrometheusApiJson(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// InfiniBand perfquery counters; PortXmitData/PortRcvData are 4-byte words (reported here in bytes).
ParseResult parsePerfquery(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// nvidia-smi -q -x XML, DTD v10–v13 (power and throttle element names of every version; MIG devices become
/// "<gpu>/mig<gpu_instance_id>"). The <timestamp> (ctime form, read as UTC) is the samples' time.
ParseResult parseNvidiaSmiXml(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// One DMTF Redfish resource (or an array / map of them): Chassis Thermal and Power, ThermalMetrics, Fans,
/// PowerSupplyMetrics, EnvironmentMetrics, Sensors, outlets, circuits, pumps, coolant connectors, MetricReports.
/// Warnings are located by JSON pointer ("file#/Temperatures/3/ReadingCelsius").
ParseResult parseRedfishJson(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// InfiniBand ibnetdiscover topology file, or its ports report (-p): switches and HCAs, and the links.
ParseResult parseIbnetdiscover(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// Mellanox ibswinfo (unmanaged switch): PSU power and status, temperature, fans, uptime.
ParseResult parseIbswinfo(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// Slurm node inventory (scontrol show node, sinfo -N -O nodehost,gres): nodes and their GPUs (count, model
/// from Gres/CfgTRES), CurrentWatts where reported.
ParseResult parseSlurmNodes(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// nvidia-smi dmon (whitespace or --format csv; any -s column set; -o D/T times in local time, else rows a
/// second apart from the file's time): "<host>/gpu<idx>" in the vocabulary's names.
ParseResult parseNvidiaSmiDmon(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// scontrol show job (multi-line or -o): jobs in ParseResult::jobs; a running or queued job has no end.
ParseResult parseScontrolJobs(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// sinfo --json / scontrol show nodes --json ("nodes" or "sinfo" arrays): nodes and GPUs from gres, and the
/// readings a node carries (current_watts, cpu_load, allocated CPUs and GPUs) at the document's last_update.
ParseResult parseSlurmNodesJson(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// A ClusterCockpit job archive entry: `meta_path` is its meta.json; data.json or data.json.gz beside it gives
/// the metrics (node, socket, core, hwthread, memoryDomain and accelerator scopes; null = missing), the
/// cluster.json of the archive the accelerators' device order. The job is in ParseResult::jobs.
ParseResult parseClusterCockpitJob(const std::string& meta_path, const ParseOptions& opt, const Progress& progress = {});

/// The Alibaba GPU trace's pod list (cluster-trace-gpu-v2023): one job per pod, times from the trace's start
/// placed at ParseOptions::trace_start_s, GPU sharing (gpu_milli) as SlurmJob::gpu_share.
ParseResult parseAlibabaPods(std::istream& in, const ParseOptions& opt, const Progress& progress = {}, std::size_t size_hint = 0);

/// Detects the format of a file (formats.hpp: content, then extension) and runs its parser; a scrape without
/// timestamps takes the file's modification time; files that name no host are named after the file
/// (host_from_path). Formats that hold jobs (Slurm accounting, traces) return them in ParseResult::jobs. Throws
/// ImportError when the file cannot be read or its format is not recognised.
ParseResult parseFile(const std::string& path, const Progress& progress = {}, const std::string& host = {});
/// The same with options: `base.host`, `base.host_from_path` and `base.tz_offset_s` are used (file_name and
/// the default time are the file's).
ParseResult parseFile(const std::string& path, const ParseOptions& base, const Progress& progress = {});
/// The same for a file whose format is known already (detectFileFormat's answer, not detected again).
ParseResult parseFileAs(const std::string& path, Detection det, const ParseOptions& base, const Progress& progress = {});

}  // namespace ct::importers
