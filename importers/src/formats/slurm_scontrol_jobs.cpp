// Slurm scontrol show job (records or -o): jobs.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/slurm.hpp>

#include "../input.hpp"
#include "../parse_common.hpp"
#include "../slurm_common.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace ct::importers {

using detail::slurmEpoch;
using detail::slurmNumber;
using detail::slurmTime;
using detail::slurmWhole;
using detail::splitOn;

ParseResult parseScontrolJobs(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    // A record is the JobId= line and the indented lines after it (one line per job with -o). Values are
    // single words except Command=, WorkDir=, StdOut=, Comment= and Reason= text, which never hold the keys
    // read here before them on their line.
    std::map<std::string, std::string> kv;
    std::string record_loc;
    auto take = [&](const std::string& text) {
        std::size_t p = 0;
        while (p < text.size()) {
            p = text.find_first_not_of(" \t", p);
            if (p == std::string::npos) break;
            const auto eq = text.find('=', p);
            const auto sp = text.find_first_of(" \t", p);
            if (eq == std::string::npos || (sp != std::string::npos && sp < eq)) {  // a word without '=': part of a value
                p = sp;
                continue;
            }
            const std::string key = text.substr(p, eq - p);
            const auto end = text.find_first_of(" \t", eq + 1);
            kv.emplace(key, text.substr(eq + 1, end == std::string::npos ? std::string::npos : end - eq - 1));
            p = end;
        }
    };
    auto flush = [&] {
        if (kv.empty()) return;
        SlurmJob j;
        j.id = kv["JobId"];
        if (!kv["ArrayJobId"].empty() && !kv["ArrayTaskId"].empty()) j.id = kv["ArrayJobId"] + "_" + kv["ArrayTaskId"];
        if (!kv["HetJobId"].empty() && !kv["HetJobOffset"].empty()) j.id = kv["HetJobId"] + "+" + kv["HetJobOffset"];
        if (j.id.empty()) {
            res.warnings.push_back({record_loc, "missing_field", "JobId= without an id"});
            kv.clear();
            return;
        }
        j.name = kv["JobName"];
        j.user = kv["UserId"].substr(0, kv["UserId"].find('('));  // "k106eb10(210387)"
        j.partition = kv["Partition"];
        j.state = kv["JobState"];
        try {
            j.nodes = expandHostlist(kv["NodeList"]);
        } catch (const ImportError& e) {
            res.warnings.push_back({record_loc, "bad_value", e.what()});
        }
        j.submit_s = slurmTime(kv["SubmitTime"], opt.tz_offset_s);
        j.start_s = slurmTime(kv["StartTime"], opt.tz_offset_s);
        j.end_s = slurmTime(kv["EndTime"], opt.tz_offset_s);
        if (detail::liveJobState(j.state)) j.end_s.reset();  // EndTime of a running job is its limit
        if (j.state == "PENDING") j.start_s.reset();         // StartTime of a queued job is an estimate
        std::string model;
        for (const char* k : {"AllocTRES", "TRES", "TRES_alloc"}) {
            if (j.gpus == 0 && !kv[k].empty()) detail::gresGpus(kv[k], j.gpus, model);
        }
        if (j.gpus == 0 && !kv["TresPerNode"].empty()) {  // gres/gpu:4 on each of NumNodes
            int per = 0;
            detail::gresGpus(kv["TresPerNode"], per, model);
            j.gpus = per * std::max(1, std::atoi(kv["NumNodes"].c_str()));
        }
        res.jobs.push_back(std::move(j));
        kv.clear();
    };
    std::string line;
    while (reader.next(line)) {
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        if (line.rfind("JobId=", 0) == 0) {
            flush();
            record_loc = reader.location();
        } else if (line[0] != ' ' && line[0] != '\t') {
            res.warnings.push_back({reader.location(), "syntax", "expected JobId= or an indented line of a job"});
            continue;
        } else if (kv.empty()) {
            res.warnings.push_back({reader.location(), "syntax", "an indented line before the first JobId="});
            continue;
        }
        take(line);
    }
    flush();
    return res;
}

namespace format_rows {

FormatInfo slurmScontrolJobs() {
    FormatInfo f;
    f.id = "slurm-scontrol-jobs";
    f.label = "Slurm scontrol show job";
    f.kind = FormatKind::Jobs;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.text() && h.first_line.rfind("JobId=", 0) == 0) return {85, "scontrol show job"};
        return {};
    };
    f.parse = parseScontrolJobs;
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
