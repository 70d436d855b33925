#include <clustertwin/importers/format.hpp>

#include "input.hpp"

#include <algorithm>
#include <cctype>

namespace ct::importers {

std::string_view toString(Format f) {
    switch (f) {
    case Format::Unknown: return "unknown";
    case Format::PrometheusText: return "prometheus-text";
    case Format::PrometheusApiJson: return "prometheus-api-json";
    case Format::NvidiaSmiCsv: return "nvidia-smi-csv";
    case Format::NvidiaSmiXml: return "nvidia-smi-xml";
    case Format::RedfishJson: return "redfish-json";
    case Format::SlurmSacct: return "slurm-sacct";
    case Format::SlurmJson: return "slurm-json";
    case Format::IbPerfquery: return "ib-perfquery";
    case Format::IbNetdiscover: return "ib-netdiscover";
    case Format::IbSwinfo: return "ib-swinfo";
    case Format::SlurmNodes: return "slurm-nodes";
    case Format::LongCsv: return "long-csv";
    case Format::NvidiaSmiDmon: return "nvidia-smi-dmon";
    case Format::SlurmJobs: return "slurm-scontrol-jobs";
    case Format::SlurmNodesJson: return "slurm-nodes-json";
    case Format::ClusterCockpitJob: return "clustercockpit-job";
    case Format::ClusterCockpitData: return "clustercockpit-data";
    case Format::AlibabaPods: return "alibaba-pods";
    }
    return "unknown";
}

namespace {

bool has(std::string_view s, std::string_view needle) { return s.find(needle) != std::string_view::npos; }

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view firstLine(std::string_view s) {
    const auto nl = s.find('\n');
    return nl == std::string_view::npos ? s : s.substr(0, nl);
}

/// Content sniffers, most specific first. Each returns a score (0 = no).
Detection sniff(std::string_view head) {
    const std::string_view line = firstLine(head);
    const auto start = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    const char first = start == std::string_view::npos ? '\0' : head[start];
    if (first == '<') {
        if (has(head, "<nvidia_smi_log")) return {Format::NvidiaSmiXml, 95, "root element <nvidia_smi_log>"};
        return {Format::Unknown, 0, "XML without <nvidia_smi_log> (a Redfish $metadata document, say)"};
    }
    if (first == '{' || first == '[') {
        if (has(head, "\"resultType\"") && has(head, "\"result\"")) return {Format::PrometheusApiJson, 90, "\"resultType\" and \"result\""};
        if (has(head, "\"@odata.id\"") || has(head, "\"@odata.type\"")) return {Format::RedfishJson, 90, "\"@odata\" keys"};
        if (has(head, "\"jobs\"") && (has(head, "\"job_id\"") || has(head, "\"meta\""))) return {Format::SlurmJson, 80, "\"jobs\" with \"job_id\""};
        if (has(head, "\"sinfo\"") || (has(head, "\"nodes\"") && (has(head, "\"gres\"") || has(head, "\"real_memory\"") || has(head, "\"cpus\""))))
            return {Format::SlurmNodesJson, 80, "\"sinfo\" or \"nodes\" with gres/cpus"};
        if (has(head, "\"jobId\"") && has(head, "\"startTime\"") && has(head, "\"resources\""))
            return {Format::ClusterCockpitJob, 85, "\"jobId\", \"startTime\" and \"resources\" (ClusterCockpit meta.json)"};
        if (has(head, "\"timestep\"") && has(head, "\"series\"") && has(head, "\"unit\""))
            return {Format::ClusterCockpitData, 80, "metrics with \"timestep\" and \"series\" (ClusterCockpit data.json)"};
        // A bare result array as some clients save it: [{"metric": {...}, "values"|"value": ...}]
        if (first == '[' && has(head, "\"metric\"") && (has(head, "\"values\"") || has(head, "\"value\"")))
            return {Format::PrometheusApiJson, 75, "array of {metric, values}"};
        return {};
    }
    if (has(head, "DCGM_FI_") && (has(head, ", gauge,") || has(head, ", counter,") || has(head, ",gauge,")))
        return {Format::Unknown, 0, "DCGM exporter counter list (configuration, no samples)"};
    if (has(head, "# TYPE DCGM_") || has(head, "# HELP DCGM_") || has(head, "\nDCGM_FI_") || head.rfind("DCGM_FI_", 0) == 0)
        return {Format::PrometheusText, 95, "DCGM_FI_ metrics"};
    if (has(head, "# TYPE ") || has(head, "# HELP ")) return {Format::PrometheusText, 70, "# HELP/# TYPE lines"};
    if (has(head, "# Port counters:") || has(head, "# Port extended counters:") || has(head, "# PortRcvErrorDetails counters:") || has(head, "PortXmitData:") || has(head, "PortRcvData:"))
        return {Format::IbPerfquery, 90, "Port counters"};
    if (has(head, "# Topology file:") || has(head, "\nSwitch\t") || has(head, "\nCa\t") || has(head, "\nvendid="))
        return {Format::IbNetdiscover, 85, "ibnetdiscover header"};
    if ((has(head, "\nGUID ") && has(head, "\nfirmware version")) || (has(head, "=====\n") && has(head, "\npart number ")))
        return {Format::IbSwinfo, 80, "ibswinfo key | value table"};
    if (line.rfind("NodeName=", 0) == 0) return {Format::SlurmNodes, 85, "scontrol show node"};
    if (line.rfind("JobId=", 0) == 0) return {Format::SlurmJobs, 85, "scontrol show job"};
    if (line.size() > 1 && line[0] == '#' && has(line, "gpu") &&
        (has(line, " pwr") || has(line, " sm ") || has(line, " mclk") || has(line, " gtemp") || has(line, " fb ")))
        return {Format::NvidiaSmiDmon, 85, "nvidia-smi dmon header (# gpu pwr ...)"};
    if (line.rfind("sn,", 0) == 0 && has(line, "gpu")) return {Format::SlurmNodes, 70, "node list with GPU counts (sn,...,gpu,model)"};
    if (line.rfind("name,", 0) == 0 && has(line, "num_gpu") && has(line, "creation_time"))
        return {Format::AlibabaPods, 85, "Alibaba GPU trace pod list (name, num_gpu, creation_time)"};
    {
        const auto sp = line.find_first_of(" \t");
        if (sp != std::string_view::npos && sp > 0 && line.find_first_not_of(" \t", sp) != std::string_view::npos &&
            line.substr(line.find_first_not_of(" \t", sp)).rfind("gpu:", 0) == 0)
            return {Format::SlurmNodes, 70, "sinfo host and gres columns"};
    }
    if (has(line, "\x1F") && (has(line, "JOBID\x1F") || has(line, "\x1FJOBID"))) return {Format::SlurmSacct, 75, "squeue columns with JOBID"};
    if ((line.rfind("CA ", 0) == 0 || line.rfind("SW ", 0) == 0) && has(line, " 0x"))
        return {Format::IbNetdiscover, 80, "ibnetdiscover -p port lines"};
    const std::string l = lower(line);
    if ((has(l, "jobid|") || has(l, "jobid|jobname") || (has(l, "jobid") && has(l, "|"))) && has(l, "|"))
        return {Format::SlurmSacct, 85, "pipe-separated header with JobID"};
    std::size_t snowmen = 0;  // sacct --delimiter=☃ without a header (hb-jobinfo)
    for (auto p = line.find("\xE2\x98\x83"); p != std::string_view::npos; p = line.find("\xE2\x98\x83", p + 3)) ++snowmen;
    if (snowmen >= 5) return {Format::SlurmSacct, 70, "fields separated by \u2603 (sacct --delimiter)"};
    if (has(l, "pci.bus_id") || has(l, "utilization.gpu") || has(l, "temperature.gpu") || has(l, "power.draw") ||
        (has(l, "name") && has(l, "memory.total")))
        return {Format::NvidiaSmiCsv, 85, "nvidia-smi query-gpu header"};
    if (has(l, "time") && has(l, "entity") && has(l, "metric") && has(l, "value"))
        return {Format::LongCsv, 80, "time,entity,metric,value header"};
    return {};
}

} // namespace

Detection detectFormat(std::string_view file_name, std::string_view head) {
    const std::string name = lower(file_name);
    // Documentation and pictures beside telemetry (a README in a scrape directory) are never telemetry.
    for (const char* doc : {".md", ".rst", ".html", ".htm", ".pdf", ".png", ".jpg", ".svg"})
        if (endsWith(name, doc)) return {Format::Unknown, 0, "documentation or image file"};
    Detection by_content = sniff(head);
    Detection by_ext;
    if (endsWith(name, ".prom") || endsWith(name, ".metrics")) by_ext = {Format::PrometheusText, 60, "extension"};
    else if (endsWith(name, ".xml")) by_ext = {Format::NvidiaSmiXml, 40, "extension"};
    else if (endsWith(name, ".csv")) by_ext = {Format::Unknown, 0, "a CSV whose header is neither nvidia-smi's nor time,entity,metric,value"};
    // Content that says what it is (or what it is not) wins; the extension decides only when it is silent.
    if (by_content.format == Format::Unknown && !by_content.reason.empty()) return by_content;
    if (by_content.format != Format::Unknown) {
        if (by_content.format == by_ext.format) by_content.score = std::min(100, by_content.score + 5);
        return by_content;
    }
    return by_ext;
}

Detection detectFileFormat(const std::string& path) {
    detail::InputFile in(path);  // a .gz is recognised by what it holds, under its name without ".gz"
    std::string head(64 * 1024, '\0');
    in.stream().read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.stream().gcount()));
    return detectFormat(in.formatName(), head);
}

} // namespace ct::importers
