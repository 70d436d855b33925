// nvidia-smi dmon: a whitespace table, one row per GPU per interval, under two '#' header lines (column names
// and units) that nvidia-smi repeats every so often. Columns depend on -s (p: pwr gtemp mtemp, u: sm mem enc
// dec jpg ofa, c: mclk pclk, v: pviol tviol, m: fb bar1 ccpm, e: sbecc dbecc pci, t: rxpci txpci); -o D and
// -o T add Date (YYYYMMDD) and Time (HH:MM:SS) columns in local time; "-" is a value nvidia-smi could not read.
// --format csv writes the same table with commas.
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>

#include "../parse_common.hpp"
#include "../vocabulary.hpp"

#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace ct::importers {

namespace {

/// A dmon column: the nvidia-smi query field it reports (in the vocabulary), or a name of its own.
struct Column {
    std::string_view dmon, field, own;
};
constexpr Column kColumns[] = {
    {"pwr", "power.draw", {}},
    {"gtemp", "temperature.gpu", {}},
    {"temp", "temperature.gpu", {}},  // drivers before 450 call it temp
    {"mtemp", "temperature.memory", {}},
    {"sm", "utilization.gpu", {}},
    {"mem", "utilization.memory", {}},
    {"enc", "utilization.encoder", {}},
    {"dec", "utilization.decoder", {}},
    {"jpg", {}, "jpeg_utilization"},
    {"ofa", {}, "ofa_utilization"},
    {"mclk", "clocks.current.memory", {}},
    {"pclk", "clocks.current.graphics", {}},
    {"fb", "memory.used", {}},
    {"bar1", {}, "bar1_used"},
    {"ccpm", {}, "ccpm_used"},
    {"pviol", {}, "power_violation"},
    {"tviol", {}, "thermal_violation"},
    {"sbecc", {}, "ecc_sbe"},
    {"dbecc", {}, "ecc_dbe"},
    {"pci", {}, "pcie_replay"},
    {"rxpci", {}, "pcie_rx"},
    {"txpci", {}, "pcie_tx"},
};

std::vector<std::string> cells(const std::string& line, bool csv) {
    std::vector<std::string> out;
    if (csv) {
        std::size_t start = 0;
        for (;;) {
            const auto comma = line.find(',', start);
            std::string c = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            const auto a = c.find_first_not_of(" \t"), b = c.find_last_not_of(" \t");
            out.push_back(a == std::string::npos ? std::string() : c.substr(a, b - a + 1));
            if (comma == std::string::npos) return out;
            start = comma + 1;
        }
    }
    std::istringstream ss(line);
    for (std::string c; ss >> c;) out.push_back(c);
    return out;
}

/// How a dmon unit names nvidia-smi's: "C" degrees, "%" percent, "MB" (dmon's MiB), "MB/s".
std::string sourceUnit(const std::string& u) { return u == "MB" ? "MiB" : u; }

} // namespace

ParseResult parseNvidiaSmiDmon(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    detail::LineReader reader(in, opt, progress, size_hint, res);
    const std::string host = detail::defaultHost(opt, "unknown-host");
    struct Out {
        int col = -1;
        std::string metric, unit;
        double scale = 1;
    };
    std::vector<Out> outs;
    std::vector<std::string> names;  // the column names of the last header
    int gpu_col = -1, date_col = -1, time_col = -1;
    bool csv = false;
    bool untimed_noted = false;
    std::map<std::string, int> rows_of_gpu;  // rows seen per GPU: the k-th row of a GPU is k intervals in
    std::set<std::string> gpus;
    std::size_t unreadable = 0;
    std::string line;
    auto defineColumns = [&](const std::vector<std::string>& units) {
        outs.clear();
        for (std::size_t k = 0; k < names.size(); ++k) {
            const std::string& n = names[k];
            if (n == "gpu" || n == "Idx" || n == "Date" || n == "Time") continue;
            const std::string unit = k < units.size() ? sourceUnit(units[k]) : std::string();
            Out o;
            o.col = static_cast<int>(k);
            const Column* c = nullptr;
            for (const auto& x : kColumns)
                if (x.dmon == n) c = &x;
            std::optional<detail::Term> term;
            if (c && !c->field.empty()) term = detail::smiTerm(c->field, unit);
            if (term) {
                o.metric = term->metric;
                o.unit = term->unit;
                o.scale = term->scale;
            } else {
                const auto own = detail::smiOwnTerm(c && !c->own.empty() ? c->own : n, unit == "MB/s" ? "MiB/s" : unit);
                o.metric = own.metric;
                o.unit = own.unit;
                o.scale = own.scale;
            }
            outs.push_back(std::move(o));
        }
    };
    while (reader.next(line)) {
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos) continue;
        if (line[first] == '#') {
            std::string body = line.substr(first + 1);
            csv = body.find(',') != std::string::npos;
            std::vector<std::string> c = cells(body, csv);
            if (c.empty()) continue;
            const bool units = c[0] == "Idx" || c[0] == "YYYYMMDD" || c[0] == "HH:MM:SS";
            if (!units) {
                names = std::move(c);
                gpu_col = date_col = time_col = -1;
                for (std::size_t k = 0; k < names.size(); ++k) {
                    if (names[k] == "gpu") gpu_col = static_cast<int>(k);
                    if (names[k] == "Date") date_col = static_cast<int>(k);
                    if (names[k] == "Time") time_col = static_cast<int>(k);
                }
                if (gpu_col < 0) res.warnings.push_back({reader.location(), "missing_field", "dmon header without a gpu column"});
                defineColumns({});
            } else {
                defineColumns(c);
            }
            continue;
        }
        if (gpu_col < 0) {
            res.warnings.push_back({reader.location(), "syntax", "a row before dmon's '# gpu ...' header"});
            continue;
        }
        const std::vector<std::string> c = cells(line, csv);
        if (c.size() != names.size()) {
            res.warnings.push_back({reader.location(), "syntax",
                                    "expected " + std::to_string(names.size()) + " columns, found " + std::to_string(c.size())});
            continue;
        }
        const std::string& idx = c[static_cast<std::size_t>(gpu_col)];
        if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) {
            res.warnings.push_back({reader.location(), "bad_value", "GPU index '" + idx + "' is not a number"});
            continue;
        }
        double t = 0;
        if (date_col >= 0 || time_col >= 0) {
            // -o D gives the date, -o T the time of day; with only the time, the day is the file's.
            std::string date = date_col >= 0 ? c[static_cast<std::size_t>(date_col)] : std::string();
            const std::string tod = time_col >= 0 ? c[static_cast<std::size_t>(time_col)] : std::string("00:00:00");
            if (date.empty() && !std::isnan(opt.default_time_s)) {
                const double day = std::floor((opt.default_time_s + opt.tz_offset_s) / 86400.0);
                t = day * 86400.0 - opt.tz_offset_s;  // local midnight of the file's day
                double secs = 0;
                if (!detail::parseIsoTime("1970-01-01T" + tod, secs, 0)) {
                    res.warnings.push_back({reader.location(), "bad_value", "time '" + tod + "' is not HH:MM:SS"});
                    continue;
                }
                t += secs;
            } else if (date.size() != 8 ||
                       !detail::parseIsoTime(date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2) + "T" + tod, t, opt.tz_offset_s)) {
                res.warnings.push_back({reader.location(), "bad_value", "date/time '" + date + " " + tod + "' is not YYYYMMDD HH:MM:SS"});
                continue;
            }
        } else {
            if (std::isnan(opt.default_time_s)) throw ImportError(opt.file_name + ": dmon rows without -o T carry no time, and none was given");
            if (!untimed_noted) {
                res.warnings.push_back({reader.location(), "note",
                                        "dmon rows carry no time (record with -o DT): row k of a GPU is taken k seconds after the file's time"});
                untimed_noted = true;
            }
            t = opt.default_time_s + rows_of_gpu[idx]++;
        }
        const std::string entity = host + "/gpu" + idx;
        gpus.insert(idx);
        for (const auto& o : outs) {
            const std::string& v = c[static_cast<std::size_t>(o.col)];
            double x = 0;
            if (v == "-" || v == "N/A") {
                ++unreadable;
                continue;
            }
            if (!detail::parseNumber(v, x)) {
                res.warnings.push_back({reader.location(), "bad_value", names[static_cast<std::size_t>(o.col)] + " '" + v + "' is not a number"});
                continue;
            }
            res.samples.push_back({entity, o.metric, o.unit, t, x * o.scale});
        }
    }
    if (unreadable > 0)
        res.warnings.push_back({opt.file_name, "no_data", std::to_string(unreadable) + " value(s) nvidia-smi printed as '-' (not available on this GPU)"});
    if (!gpus.empty()) {
        res.entities.push_back({host, "node", "", host, {}});
        for (const auto& g : gpus) res.entities.push_back({host + "/gpu" + g, "gpu", host, "", {{"index", g}}});
    }
    return res;
}

namespace format_rows {

FormatInfo nvidiaSmiDmon() {
    FormatInfo f;
    f.id = "nvidia-smi-dmon";
    f.label = "nvidia-smi dmon";
    f.sniff = [](const FileHead& h) -> Sniff {
        if (!h.text()) return {};
        const std::string_view line = h.first_line;
        auto has = [&](const char* s) { return line.find(s) != std::string_view::npos; };
        if (line.size() > 1 && line[0] == '#' && has("gpu") && (has(" pwr") || has(" sm ") || has(" mclk") || has(" gtemp") || has(" fb ")))
            return {85, "nvidia-smi dmon header (# gpu pwr ...)"};
        return {};
    };
    f.parse = parseNvidiaSmiDmon;
    return f;
}

} // namespace format_rows

} // namespace ct::importers
