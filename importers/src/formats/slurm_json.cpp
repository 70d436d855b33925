// Slurm sacct --json / squeue --json: jobs.
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
using json = nlohmann::json;

SlurmResult parseSlurmJson(std::istream& in, const ParseOptions& opt) {
    SlurmResult res;
    auto warn = [&](const std::string& ptr, const char* kind, std::string msg) {
        res.warnings.push_back({opt.file_name + "#" + ptr, kind, std::move(msg)});
    };
    json doc;
    if (!detail::readSlurmDocument(in, opt, doc, res.warnings)) return res;
    if (!doc.contains("jobs") || !doc["jobs"].is_array()) {
        warn("", "missing_field", "no \"jobs\" array");
        return res;
    }
    const json& jobs = doc["jobs"];
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const std::string p = "/jobs/" + std::to_string(i);
        const json& x = jobs[i];
        if (!x.is_object()) {
            warn(p, "syntax", "a job must be an object");
            continue;
        }
        SlurmJob j;
        const auto id = x.contains("job_id") ? slurmWhole(x["job_id"]) : std::nullopt;
        if (!id) {
            if (x.contains("job_id")) warn(p + "/job_id", "bad_value", "the job_id is not a whole number");
            else warn(p + "/job_id", "missing_field", "job without a job_id");
            continue;
        }
        j.id = std::to_string(*id);
        // Array tasks: "<array job id>_<task id>" as sacct prints them.
        if (x.contains("array") && x["array"].is_object()) {
            const json& arr = x["array"];
            const long long aj = arr.contains("job_id") ? slurmWhole(arr["job_id"]).value_or(0) : 0;
            const long long at = arr.contains("task_id") ? slurmWhole(arr["task_id"]).value_or(-1) : -1;
            if (aj > 0 && at >= 0) j.id = std::to_string(aj) + "_" + std::to_string(at);
        }
        auto str = [&](const char* k) { return x.contains(k) && x[k].is_string() ? x[k].get<std::string>() : std::string(); };
        j.name = str("name");
        j.user = str("user");
        j.partition = str("partition");
        if (x.contains("state")) {
            const json& st = x["state"];
            const json& cur = st.is_object() && st.contains("current") ? st["current"] : st;
            if (cur.is_string()) j.state = cur.get<std::string>();
            else if (cur.is_array() && !cur.empty() && cur[0].is_string()) j.state = cur[0].get<std::string>();
        } else if (x.contains("job_state")) {  // squeue --json
            const json& st = x["job_state"];
            if (st.is_string()) j.state = st.get<std::string>();
            else if (st.is_array() && !st.empty() && st[0].is_string()) j.state = st[0].get<std::string>();
        }
        const std::string nodes = str("nodes");
        try {
            j.nodes = expandHostlist(nodes);
        } catch (const ImportError& e) {
            warn(p + "/nodes", "bad_value", e.what());
        }
        if (x.contains("time") && x["time"].is_object()) {
            const json& t = x["time"];
            if (t.contains("submission")) j.submit_s = slurmEpoch(t["submission"]);
            if (t.contains("start")) j.start_s = slurmEpoch(t["start"]);
            if (t.contains("end")) j.end_s = slurmEpoch(t["end"]);
        } else {  // squeue --json
            if (x.contains("submit_time")) j.submit_s = slurmEpoch(x["submit_time"]);
            if (x.contains("start_time")) j.start_s = slurmEpoch(x["start_time"]);
            if (x.contains("end_time")) j.end_s = slurmEpoch(x["end_time"]);
        }
        if (x.contains("tres") && x["tres"].is_object() && x["tres"].contains("allocated") && x["tres"]["allocated"].is_array())
            for (const json& t : x["tres"]["allocated"])
                if (t.is_object() && detail::jsonText(t, "type") == "gres" && detail::jsonText(t, "name") == "gpu")
                    if (auto c = t.contains("count") ? slurmWhole(t["count"], 1e6) : std::nullopt) j.gpus = static_cast<int>(*c);
        res.jobs.push_back(std::move(j));
    }
    return res;
}

namespace format_rows {

FormatInfo slurmJson() {
    FormatInfo f;
    f.id = "slurm-json";
    f.label = "Slurm sacct --json / squeue --json";
    f.kind = FormatKind::Jobs;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (h.json() && h.has("\"jobs\"") && (h.has("\"job_id\"") || h.has("\"meta\""))) return {80, "\"jobs\" with \"job_id\""};
        return {};
    };
    f.parse = [](std::istream& in, const ParseOptions& opt, const Progress&, std::size_t) {
        return detail::asParseResult(parseSlurmJson(in, opt));
    };
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
