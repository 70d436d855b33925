#include <clustertwin/importers/slurm.hpp>

#include "input.hpp"
#include "parse_common.hpp"
#include "slurm_common.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

namespace ct::importers {

namespace detail {

std::vector<std::string> splitOn(const std::string& s, const std::string& delim) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto p = s.find(delim, start);
        if (p == std::string::npos) {
            out.push_back(s.substr(start));
            return out;
        }
        out.push_back(s.substr(start, p - start));
        start = p + delim.size();
    }
}

std::optional<double> slurmTime(const std::string& s, double tz_offset_s) {
    double t = 0;
    if (s.empty() || s == "Unknown" || s == "None" || s == "(null)" || s == "N/A") return std::nullopt;
    if (parseIsoTime(s, t, tz_offset_s)) return t;
    return std::nullopt;
}

std::optional<double> slurmNumber(const nlohmann::json& v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_object()) {
        if (!jsonFlag(v, "set", true) || jsonFlag(v, "infinite", false)) return std::nullopt;
        if (v.contains("number") && v["number"].is_number()) return v["number"].get<double>();
    }
    return std::nullopt;
}

std::optional<long long> slurmWhole(const nlohmann::json& v, double max) {
    const auto x = slurmNumber(v);
    if (!x || !std::isfinite(*x) || *x < 0 || *x > max || *x != std::floor(*x)) return std::nullopt;
    return static_cast<long long>(*x);
}

std::optional<double> slurmEpoch(const nlohmann::json& v) {
    auto t = slurmNumber(v);
    if (t && *t <= 0) return std::nullopt;
    return t;
}

void gresGpus(const std::string& text, int& count, std::string& model) {
    for (std::size_t p = text.find("gpu:"); p != std::string::npos; p = text.find("gpu:", p + 4)) {
        const std::string item = text.substr(p + 4, text.find_first_of(",( ", p) - p - 4);  // "a100:4" or "4"
        if (p > 0 && text[p - 1] == '/' && item.find('=') != std::string::npos) continue;  // gres/gpu:a100=4 is read below
        const auto colon = item.rfind(':');
        const std::string n = colon == std::string::npos ? item : item.substr(colon + 1);
        if (!n.empty() && n.size() < 5 && n.find_first_not_of("0123456789") == std::string::npos) {
            count = std::max(count, std::stoi(n));
            if (colon != std::string::npos) model = item.substr(0, colon);
        }
    }
    if (const auto g = text.find("gres/gpu="); g != std::string::npos && count == 0) {
        const std::string n = text.substr(g + 9, text.find_first_of(", ", g) - g - 9);
        if (!n.empty() && n.size() < 5 && n.find_first_not_of("0123456789") == std::string::npos) count = std::stoi(n);
    }
    if (const auto g = text.find("gres/gpu:"); g != std::string::npos && model.empty()) model = text.substr(g + 9, text.find('=', g) - g - 9);
}

bool plausibleGpuCount(const std::string& host, int count, const std::string& where, std::vector<ImportWarning>& warnings) {
    if (count <= kMaxGpusPerNode) return true;
    warnings.push_back({where, "bad_value",
                        host + ": " + std::to_string(count) + " GPUs on one node is more than any node has (at most " + std::to_string(kMaxGpusPerNode) +
                            "); its GPUs are not created"});
    return false;
}

bool readSlurmDocument(std::istream& in, const ParseOptions& opt, nlohmann::json& doc, std::vector<ImportWarning>& warnings) {
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number like 6E1226
        warnings.push_back({loc(opt, jsonErrorLine(text, e)), "syntax", std::string("not valid JSON: ") + e.what()});
        return false;
    }
    if (!doc.is_object()) {
        warnings.push_back({opt.file_name + "#", "syntax", "expected a JSON object"});
        return false;
    }
    if (doc.contains("errors") && doc["errors"].is_array())
        for (std::size_t i = 0; i < doc["errors"].size(); ++i) {
            const nlohmann::json& e = doc["errors"][i];
            warnings.push_back({opt.file_name + "#/errors/" + std::to_string(i), "source_error", detail::jsonText(e, "error", e.dump())});
        }
    return true;
}

bool liveJobState(const std::string& state) {
    static const std::set<std::string> live = {"RUNNING", "PENDING", "SUSPENDED", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING",
                                               "R", "PD", "S", "CF", "CG"};
    return live.count(state) > 0;
}

} // namespace detail

using detail::slurmEpoch;
using detail::slurmNumber;
using detail::slurmWhole;
using detail::slurmTime;
using detail::splitOn;

std::vector<std::string> expandHostlist(const std::string& list) {
    std::vector<std::string> out;
    if (list.empty() || list == "None assigned" || list == "(null)") return out;
    // Split on commas outside brackets.
    std::vector<std::string> parts;
    std::string cur;
    int depth = 0;
    for (char c : list) {
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (depth < 0) throw ImportError("host list '" + list + "': unbalanced ']'");
        if (c == ',' && depth == 0) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (depth != 0) throw ImportError("host list '" + list + "': unbalanced '['");
    parts.push_back(cur);
    for (const auto& p : parts) {
        const auto lb = p.find('[');
        if (lb == std::string::npos) {
            if (!p.empty()) out.push_back(p);
            continue;
        }
        const auto rb = p.find(']', lb);
        const std::string prefix = p.substr(0, lb), suffix = p.substr(rb + 1), body = p.substr(lb + 1, rb - lb - 1);
        for (const auto& range : splitOn(body, ",")) {
            const auto dash = range.find('-');
            const std::string a = range.substr(0, dash), b = dash == std::string::npos ? a : range.substr(dash + 1);
            if (a.empty() || b.empty() || a.find_first_not_of("0123456789") != std::string::npos ||
                b.find_first_not_of("0123456789") != std::string::npos)
                throw ImportError("host list '" + list + "': bad range '" + range + "'");
            if (a.size() > 9 || b.size() > 9) throw ImportError("host list '" + list + "': number too long in '" + range + "'");
            const long lo = std::stol(a), hi = std::stol(b);
            if (hi < lo || hi - lo > 100000 || out.size() + static_cast<std::size_t>(hi - lo) > 1000000) throw ImportError("host list '" + list + "': bad range '" + range + "'");
            for (long v = lo; v <= hi; ++v) {
                std::string n = std::to_string(v);
                if (n.size() < a.size()) n.insert(0, a.size() - n.size(), '0');  // keep zero padding
                out.push_back(prefix + n + suffix);
            }
        }
    }
    return out;
}

SlurmResult parseSacct(std::istream& in, const ParseOptions& opt, const std::string& fields_arg) {
    SlurmResult res;
    ParseResult lines_res;  // collects the line reader's warnings
    detail::LineReader reader(in, opt, {}, 0, lines_res);
    std::string line, delim;
    std::vector<std::string> fields = fields_arg.empty() ? std::vector<std::string>{} : splitOn(fields_arg, ",");
    std::map<std::string, std::size_t> job_index;
    auto warn = [&](const char* kind, std::string msg) { res.warnings.push_back({reader.location(), kind, std::move(msg)}); };
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (delim.empty()) {
            const std::string snowman = "\xE2\x98\x83";
            const auto pipes = std::count(line.begin(), line.end(), '|');
            const auto units = std::count(line.begin(), line.end(), '\x1F');  // squeue -o with %all-style separators
            std::size_t snowmen = 0;
            for (std::size_t p = line.find(snowman); p != std::string::npos; p = line.find(snowman, p + 3)) ++snowmen;
            delim = snowmen > static_cast<std::size_t>(std::max(pipes, units)) ? snowman : units > pipes ? "\x1F" : "|";
            std::string upper = line;
            std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
            if (upper.rfind("JOBID", 0) == 0 || upper.find(delim + "JOBID" + delim) != std::string::npos) {  // a header
                fields = splitOn(line, delim);
                while (!fields.empty() && fields.back().empty()) fields.pop_back();
                // squeue's column names → sacct's
                static const std::map<std::string, std::string> alias = {
                    {"JOBID", "JobID"}, {"NAME", "JobName"}, {"USER", "User"}, {"PARTITION", "Partition"},
                    {"NODELIST", "NodeList"}, {"EXEC_HOST", "NodeList"}, {"STATE", "State"}, {"SUBMIT_TIME", "Submit"},
                    {"START_TIME", "Start"}, {"END_TIME", "End"}, {"TRES_ALLOC", "AllocTRES"}};
                std::set<std::string> seen_fields;
                for (auto& f : fields) {
                    if (auto it = alias.find(f); it != alias.end()) f = it->second;
                    if (!seen_fields.insert(f).second) f += "#dup";  // first of a repeated column wins
                }
                continue;
            }
            if (fields.empty()) {
                warn("missing_field", "no header line and no field list (pass the sacct --format list)");
                break;
            }
        }
        auto cells = splitOn(line, delim);
        if (cells.size() == fields.size() + 1 && cells.back().empty()) cells.pop_back();  // --parsable's trailing delimiter
        if (cells.size() != fields.size()) {
            warn("syntax", "expected " + std::to_string(fields.size()) + " fields, got " + std::to_string(cells.size()));
            continue;
        }
        std::map<std::string, std::string> row;
        for (std::size_t k = 0; k < fields.size(); ++k) row[fields[k]] = cells[k];
        const std::string id = row.count("JobID") ? row["JobID"] : row["JobIDRaw"];
        if (id.empty()) {
            warn("missing_field", "empty JobID");
            continue;
        }
        const auto dot = id.find('.');
        const std::string job_id = id.substr(0, dot);
        if (dot != std::string::npos) {  // a step: fills in what the job line left open
            auto it = job_index.find(job_id);
            if (it != job_index.end()) {
                SlurmJob& j = res.jobs[it->second];
                if (!j.start_s) j.start_s = slurmTime(row["Start"], opt.tz_offset_s);
                if (!j.end_s) j.end_s = slurmTime(row["End"], opt.tz_offset_s);
            }
            continue;
        }
        SlurmJob j;
        j.id = job_id;
        j.name = row["JobName"];
        j.user = row["User"];
        j.partition = row["Partition"];
        j.state = row["State"].substr(0, row["State"].find(' '));  // "CANCELLED by 10304007"
        try {
            j.nodes = expandHostlist(row["NodeList"]);
        } catch (const ImportError& e) {
            warn("bad_value", e.what());
        }
        j.submit_s = slurmTime(row["Submit"], opt.tz_offset_s);
        j.start_s = slurmTime(row["Start"], opt.tz_offset_s);
        j.end_s = slurmTime(row["End"], opt.tz_offset_s);
        // squeue's END_TIME (and sacct's End) of a job still queued or running is its time limit, a projection:
        // the job has not stopped.
        if (detail::liveJobState(j.state)) j.end_s.reset();
        const std::string tres = row.count("AllocTRES") ? row["AllocTRES"] : "";
        if (const auto g = tres.find("gres/gpu="); g != std::string::npos) j.gpus = std::atoi(tres.c_str() + g + 9);
        job_index[job_id] = res.jobs.size();
        res.jobs.push_back(std::move(j));
    }
    res.warnings.insert(res.warnings.begin(), lines_res.warnings.begin(), lines_res.warnings.end());
    return res;
}

using json = nlohmann::json;

SlurmResult parseSlurmJson(std::istream& in, const ParseOptions& opt) {
    SlurmResult res;
    auto warn = [&](const std::string& ptr, const char* kind, std::string msg) { res.warnings.push_back({opt.file_name + "#" + ptr, kind, std::move(msg)}); };
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

SlurmResult parseSlurmFile(const std::string& path, const std::string& fields, double tz_offset_s) {
    const Detection det = detectFileFormat(path);
    detail::InputFile file(path);
    std::istream& in = file.stream();
    ParseOptions opt;
    opt.file_name = path;
    opt.tz_offset_s = tz_offset_s;
    if (det.format == Format::SlurmJson) return parseSlurmJson(in, opt);
    if (det.format == Format::SlurmSacct || !fields.empty()) return parseSacct(in, opt, fields);
    throw ImportError(path + ": not Slurm accounting (" + std::string(toString(det.format)) + "); for sacct without a header pass its --format list");
}

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
        if (j.state == "PENDING") j.start_s.reset();           // StartTime of a queued job is an estimate
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

} // namespace ct::importers
