#include <clustertwin/importers/slurm.hpp>

#include "parse_common.hpp"

#include <algorithm>
#include <map>

namespace ct::importers {

namespace {

std::vector<std::string> split(const std::string& s, const std::string& delim) {
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

std::optional<double> slurmTime(const std::string& s) {
    double t = 0;
    if (s.empty() || s == "Unknown" || s == "None" || s == "(null)") return std::nullopt;
    if (detail::parseIsoTime(s, t)) return t;
    return std::nullopt;
}

} // namespace

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
        for (const auto& range : split(body, ",")) {
            const auto dash = range.find('-');
            const std::string a = range.substr(0, dash), b = dash == std::string::npos ? a : range.substr(dash + 1);
            if (a.empty() || b.empty() || a.find_first_not_of("0123456789") != std::string::npos ||
                b.find_first_not_of("0123456789") != std::string::npos)
                throw ImportError("host list '" + list + "': bad range '" + range + "'");
            const long lo = std::stol(a), hi = std::stol(b);
            if (hi < lo || hi - lo > 100000) throw ImportError("host list '" + list + "': bad range '" + range + "'");
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
    std::vector<std::string> fields = fields_arg.empty() ? std::vector<std::string>{} : split(fields_arg, ",");
    std::map<std::string, std::size_t> job_index;
    auto warn = [&](const char* kind, std::string msg) { res.warnings.push_back({reader.location(), kind, std::move(msg)}); };
    while (reader.next(line)) {
        if (line.empty()) continue;
        if (delim.empty()) {
            const std::string snowman = "\xE2\x98\x83";
            const auto pipes = std::count(line.begin(), line.end(), '|');
            std::size_t snowmen = 0;
            for (std::size_t p = line.find(snowman); p != std::string::npos; p = line.find(snowman, p + 3)) ++snowmen;
            delim = snowmen > static_cast<std::size_t>(pipes) ? snowman : "|";
            if (line.rfind("JobID", 0) == 0 || line.rfind("JobIDRaw", 0) == 0) {  // a header
                fields = split(line, delim);
                while (!fields.empty() && fields.back().empty()) fields.pop_back();
                continue;
            }
            if (fields.empty()) {
                warn("missing_field", "no header line and no field list (pass the sacct --format list)");
                break;
            }
        }
        auto cells = split(line, delim);
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
                if (!j.start_s) j.start_s = slurmTime(row["Start"]);
                if (!j.end_s) j.end_s = slurmTime(row["End"]);
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
        j.submit_s = slurmTime(row["Submit"]);
        j.start_s = slurmTime(row["Start"]);
        j.end_s = slurmTime(row["End"]);
        const std::string tres = row.count("AllocTRES") ? row["AllocTRES"] : "";
        if (const auto g = tres.find("gres/gpu="); g != std::string::npos) j.gpus = std::atoi(tres.c_str() + g + 9);
        job_index[job_id] = res.jobs.size();
        res.jobs.push_back(std::move(j));
    }
    res.warnings.insert(res.warnings.begin(), lines_res.warnings.begin(), lines_res.warnings.end());
    return res;
}

} // namespace ct::importers
