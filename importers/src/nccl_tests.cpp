#include <clustertwin/importers/nccl_tests.hpp>
#include <clustertwin/model/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace ct::importers {

namespace {

/// The line without mpirun's "[1,0]<stdout>:" tag.
std::string untagged(const std::string& line) {
    if (line.empty() || line[0] != '[') return line;
    const auto close = line.find("]<stdout>:");
    return close == std::string::npos ? line : line.substr(close + 10);
}

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> w;
    for (std::string x; in >> x;) w.push_back(x);
    return w;
}

bool number(const std::string& s, double& v) {
    if (s.empty()) return false;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size();
}

/// A result row: size count type redop [root] time algbw busbw #wrong [time algbw busbw #wrong].
bool parseRow(const std::vector<std::string>& w, NcclTestsRow& r, std::string& why) {
    // 13 columns since nccl-tests 2.11 (root), 12 before; a run printing only one of the two halves has 9 or 8.
    const bool root = w.size() == 13 || w.size() == 9;
    if (w.size() != 13 && w.size() != 12 && w.size() != 9 && w.size() != 8) {
        why = std::to_string(w.size()) +
              " columns (a result row has 12 or 13: size, count, type, redop, [root,] then time, "
              "algbw, busbw, #wrong out of place and in place)";
        return false;
    }
    double v = 0;
    if (!number(w[0], r.size_B) || r.size_B < 0) return why = "size '" + w[0] + "' is not a byte count", false;
    if (!number(w[1], v) || v < 0) return why = "count '" + w[1] + "' is not a count", false;
    r.count = static_cast<long long>(v);
    r.type = w[2];
    r.redop = w[3];
    std::size_t k = 4;
    if (root) {
        if (!number(w[k], v)) return why = "root '" + w[k] + "' is not a rank", false;
        r.root = static_cast<int>(v);
        ++k;
    }
    auto half = [&](double& t, double& a, double& b, std::string& wrong) {
        if (!number(w[k], t) || !number(w[k + 1], a) || !number(w[k + 2], b) || t < 0 || a < 0 || b < 0) {
            why = "time, algbw or busbw '" + w[k] + " " + w[k + 1] + " " + w[k + 2] + "' is not a number";
            return false;
        }
        wrong = w[k + 3];
        k += 4;
        return true;
    };
    if (!half(r.time_us, r.algbw_GBps, r.busbw_GBps, r.wrong)) return false;
    return k >= w.size() || half(r.ip_time_us, r.ip_algbw_GBps, r.ip_busbw_GBps, r.ip_wrong);
}

}  // namespace

std::string ncclTestsOp(const std::string& program) {
    static const std::pair<const char*, const char*> kOps[] = {
        {"all_reduce", "allreduce"}, {"all_gather", "allgather"}, {"reduce_scatter", "reducescatter"}, {"alltoall", "alltoall"},
        {"broadcast", "broadcast"},  {"sendrecv", "sendrecv"},    {"hypercube", "hypercube"},          {"reduce", "reduce"}};
    std::string p = program;
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const auto& [key, op] : kOps) {
        std::string joined = key;
        joined.erase(std::remove(joined.begin(), joined.end(), '_'), joined.end());
        if (p.find(std::string(key) + "_perf") != std::string::npos || p.find(key) != std::string::npos ||
            p.find(joined + "_perf") != std::string::npos || p.find(joined) != std::string::npos)
            return op;
    }
    return "";
}

NcclTestsRun parseNcclTests(std::istream& in, const std::string& name) {
    NcclTestsRun run;
    std::string raw;
    int n = 0;
    for (; std::getline(in, raw); ++n) {
        const std::string line = untagged(raw);
        const auto w = words(line);
        if (w.empty()) continue;
        if (w[0][0] != '#') {
            if (run.op.empty() && line.find("_perf") != std::string::npos) run.op = ncclTestsOp(line);  // the command
            double first = 0;
            if (!number(w[0], first)) continue;  // a log line (NCCL INFO, mpirun), not a result
            NcclTestsRow r;
            r.line = n + 1;
            std::string why;
            if (parseRow(w, r, why)) {
                run.rows.push_back(r);
            } else {
                ++run.bad_lines;
                run.problems.push_back(name + ":" + std::to_string(n + 1) + ": " + why);
            }
            continue;
        }
        // "#  Rank  0 Group  0 Pid  1234 on host device  0 [0x1b] NVIDIA H100 80GB HBM3", before 2.11 without Group.
        if (w.size() >= 3 && w[1] == "Rank" && line.find(" device ") != std::string::npos) {
            // A pasted tail may list only the last ranks: the highest rank printed counts them too.
            double rank = -1;
            run.ranks = std::max(run.ranks + 1, number(w[2], rank) && rank >= 0 ? static_cast<int>(rank) + 1 : 0);
            const auto bracket = line.find(']', line.find(" device "));
            run.devices.push_back(bracket == std::string::npos ? std::string() : line.substr(line.find_first_not_of(' ', bracket + 1)));
        } else if (line.find("Avg bus bandwidth") != std::string::npos) {
            const auto colon = line.find(':');
            const auto after = colon == std::string::npos ? std::vector<std::string>{} : words(line.substr(colon + 1));
            double v = 0;
            if (!after.empty() && number(after[0], v)) run.avg_busbw_GBps = v;
        } else if (run.op.empty() && line.find("_perf") != std::string::npos) {
            run.op = ncclTestsOp(line);
        }
    }
    if (run.op.empty()) run.op = ncclTestsOp(name);
    if (run.rows.empty())
        throw model::ParseError(name, n, 0,
                                "no nccl-tests result row (size count type redop [root] time algbw busbw #wrong ...)" +
                                    (run.problems.empty() ? std::string() : "; first problem: " + run.problems.front()));
    return run;
}

}  // namespace ct::importers
