#pragma once
// Telemetry formats ClusterTwin imports (models.md §7) and how a file's format is recognised:
// by extension first, then by sniffing its first bytes (F3D's canRead + score, contributing.md habit 4).
#include <clustertwin/model/error.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ct::importers {

/// Failures of an importer or the telemetry store.
class ImportError : public Error {
public:
    using Error::Error;
};

/// A long read stopped on request (a progress callback said no).
class LoadCancelled : public ImportError {
public:
    LoadCancelled() : ImportError("cancelled") {}
};

enum class Format {
    Unknown,
    PrometheusText,      ///< DCGM exporter / Prometheus text exposition
    PrometheusApiJson,   ///< Prometheus HTTP API query / query_range
    NvidiaSmiCsv,        ///< nvidia-smi --query-gpu --format=csv
    NvidiaSmiXml,        ///< nvidia-smi -q -x
    RedfishJson,         ///< DMTF Redfish resource
    SlurmSacct,          ///< sacct --parsable / --parsable2
    SlurmJson,           ///< sacct --json
    IbPerfquery,         ///< perfquery counters
    IbNetdiscover,       ///< ibnetdiscover topology
    IbSwinfo,            ///< ibswinfo switch health
    SlurmNodes,          ///< scontrol show node / sinfo gres: node inventory
    LongCsv,             ///< time, entity, metric, value, unit
    NvidiaSmiDmon,       ///< nvidia-smi dmon: one row per GPU per interval
    SlurmJobs,           ///< scontrol show job: jobs
    SlurmNodesJson,      ///< sinfo --json / scontrol show nodes --json: node inventory
    ClusterCockpitJob,   ///< ClusterCockpit job archive: meta.json (with its data.json[.gz] beside it)
    ClusterCockpitData,  ///< ClusterCockpit job archive: data.json, read through the meta.json beside it
    AlibabaPods,         ///< Alibaba cluster-trace-gpu-v2023 pod list: jobs of a trace
};

std::string_view toString(Format f);

struct Detection {
    Format format = Format::Unknown;
    int score = 0;            ///< 0..100: how sure
    std::string reason;       ///< what gave it away
};

/// Recognises a format from a file name and the first bytes of its content (a few KiB are enough). Pure.
Detection detectFormat(std::string_view file_name, std::string_view head);

/// Reads the first 64 KiB of `path` and calls detectFormat. Throws ImportError if it cannot be read.
Detection detectFileFormat(const std::string& path);

} // namespace ct::importers
