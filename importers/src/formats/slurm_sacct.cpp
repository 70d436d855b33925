// Slurm sacct --parsable[2] (any delimiter) and squeue columns with a header: jobs.
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

namespace {

/// The delimiter of sacct's or squeue's parsable output: |, squeue's %all-style \x1F or a snowman, whichever the
/// first line has most of.
std::string delimiterOf(const std::string& line) {
    const std::string snowman = "\xE2\x98\x83";
    const auto pipes = std::count(line.begin(), line.end(), '|');
    const auto units = std::count(line.begin(), line.end(), '\x1F');
    std::size_t snowmen = 0;
    for (std::size_t p = line.find(snowman); p != std::string::npos; p = line.find(snowman, p + 3)) ++snowmen;
    return snowmen > static_cast<std::size_t>(std::max(pipes, units)) ? snowman : units > pipes ? "\x1F" : "|";
}

/// A header line's fields, squeue's column names as sacct's; a repeated column after the first is "#dup".
std::vector<std::string> headerFields(const std::string& line, const std::string& delim) {
    std::vector<std::string> fields = splitOn(line, delim);
    while (!fields.empty() && fields.back().empty()) fields.pop_back();
    static const std::map<std::string, std::string> alias = {
        {"JOBID", "JobID"},       {"NAME", "JobName"},       {"USER", "User"},           {"PARTITION", "Partition"},
        {"NODELIST", "NodeList"}, {"EXEC_HOST", "NodeList"}, {"STATE", "State"},         {"SUBMIT_TIME", "Submit"},
        {"START_TIME", "Start"},  {"END_TIME", "End"},       {"TRES_ALLOC", "AllocTRES"}};
    std::set<std::string> seen_fields;
    for (auto& f : fields) {
        if (auto it = alias.find(f); it != alias.end()) f = it->second;
        if (!seen_fields.insert(f).second) f += "#dup";  // first of a repeated column wins
    }
    return fields;
}

bool isHeader(const std::string& line, const std::string& delim) {
    std::string upper = line;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return upper.rfind("JOBID", 0) == 0 || upper.find(delim + "JOBID" + delim) != std::string::npos;
}

/// A job line's job (warnings through `warn`).
template <class Warn>
SlurmJob jobOf(std::map<std::string, std::string>& row, const std::string& job_id, double tz, Warn&& warn) {
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
    j.submit_s = slurmTime(row["Submit"], tz);
    j.start_s = slurmTime(row["Start"], tz);
    j.end_s = slurmTime(row["End"], tz);
    // squeue's END_TIME (and sacct's End) of a job still queued or running is its time limit, a projection:
    // the job has not stopped.
    if (detail::liveJobState(j.state)) j.end_s.reset();
    const std::string tres = row.count("AllocTRES") ? row["AllocTRES"] : "";
    if (const auto g = tres.find("gres/gpu="); g != std::string::npos) j.gpus = std::atoi(tres.c_str() + g + 9);
    return j;
}

}  // namespace

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
            delim = delimiterOf(line);
            if (isHeader(line, delim)) {
                fields = headerFields(line, delim);
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
            if (auto it = job_index.find(job_id); it != job_index.end()) {
                SlurmJob& j = res.jobs[it->second];
                if (!j.start_s) j.start_s = slurmTime(row["Start"], opt.tz_offset_s);
                if (!j.end_s) j.end_s = slurmTime(row["End"], opt.tz_offset_s);
            }
            continue;
        }
        job_index[job_id] = res.jobs.size();
        res.jobs.push_back(jobOf(row, job_id, opt.tz_offset_s, warn));
    }
    res.warnings.insert(res.warnings.begin(), lines_res.warnings.begin(), lines_res.warnings.end());
    return res;
}

using json = nlohmann::json;

namespace format_rows {

FormatInfo slurmSacct() {
    FormatInfo f;
    f.id = "slurm-sacct";
    f.label = "Slurm sacct --parsable / squeue columns";
    f.kind = FormatKind::Jobs;
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        const std::string_view line = h.first_line;
        if (line.find('\x1F') != std::string_view::npos &&
            (line.find("JOBID\x1F") != std::string_view::npos || line.find("\x1FJOBID") != std::string_view::npos))
            return {75, "squeue columns with JOBID"};
        const std::string& l = h.first_line_lower;
        if (l.find("jobid") != std::string::npos && l.find('|') != std::string::npos) return {85, "pipe-separated header with JobID"};
        std::size_t snowmen = 0;  // sacct --delimiter=☃ without a header (hb-jobinfo)
        for (auto p = line.find("\xE2\x98\x83"); p != std::string_view::npos; p = line.find("\xE2\x98\x83", p + 3)) ++snowmen;
        if (snowmen >= 5) return {70, "fields separated by \u2603 (sacct --delimiter)"};
        return {};
    };
    f.parse = [](std::istream& in, const ParseOptions& opt, const Progress&, std::size_t) {
        return detail::asParseResult(parseSacct(in, opt, opt.sacct_fields));
    };
    return f;
}

}  // namespace format_rows

}  // namespace ct::importers
