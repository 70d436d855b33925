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

/// A dmon file read line by line: headers ("# gpu pwr ...", then "# Idx W ...") define the columns; each row
/// is one GPU at one time.
class DmonReader {
public:
    DmonReader(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint, ParseResult& res)
        : opt_(opt), res_(res), reader_(in, opt, progress, size_hint, res), host_(detail::defaultHost(opt, "unknown-host")) {}

    void read() {
        std::string line;
        while (reader_.next(line)) {
            const auto first = line.find_first_not_of(" \t");
            if (first == std::string::npos) continue;
            if (line[first] == '#') header(line.substr(first + 1));
            else row(line);
        }
        if (unreadable_ > 0)
            res_.warnings.push_back({opt_.file_name, "no_data",
                                     std::to_string(unreadable_) + " value(s) nvidia-smi printed as '-' (not available on this GPU)"});
        if (!gpus_.empty()) {
            res_.entities.push_back({host_, "node", "", host_, {}});
            for (const auto& g : gpus_) res_.entities.push_back({host_ + "/gpu" + g, "gpu", host_, "", {{"index", g}}});
        }
    }

private:
    struct Out {
        int col = -1;
        std::string metric, unit;
        double scale = 1;
    };

    void header(const std::string& body) {
        csv_ = body.find(',') != std::string::npos;
        std::vector<std::string> c = cells(body, csv_);
        if (c.empty()) return;
        if (c[0] == "Idx" || c[0] == "YYYYMMDD" || c[0] == "HH:MM:SS") {  // the units line
            defineColumns(c);
            return;
        }
        names_ = std::move(c);
        gpu_col_ = date_col_ = time_col_ = -1;
        for (std::size_t k = 0; k < names_.size(); ++k) {
            if (names_[k] == "gpu") gpu_col_ = static_cast<int>(k);
            if (names_[k] == "Date") date_col_ = static_cast<int>(k);
            if (names_[k] == "Time") time_col_ = static_cast<int>(k);
        }
        if (gpu_col_ < 0) res_.warnings.push_back({reader_.location(), "missing_field", "dmon header without a gpu column"});
        defineColumns({});
    }

    void defineColumns(const std::vector<std::string>& units) {
        outs_.clear();
        for (std::size_t k = 0; k < names_.size(); ++k) {
            const std::string& n = names_[k];
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
            outs_.push_back(std::move(o));
        }
    }

    void row(const std::string& line) {
        if (gpu_col_ < 0) {
            res_.warnings.push_back({reader_.location(), "syntax", "a row before dmon's '# gpu ...' header"});
            return;
        }
        const std::vector<std::string> c = cells(line, csv_);
        if (c.size() != names_.size()) {
            res_.warnings.push_back({reader_.location(), "syntax",
                                     "expected " + std::to_string(names_.size()) + " columns, found " + std::to_string(c.size())});
            return;
        }
        const std::string& idx = c[static_cast<std::size_t>(gpu_col_)];
        if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) {
            res_.warnings.push_back({reader_.location(), "bad_value", "GPU index '" + idx + "' is not a number"});
            return;
        }
        const std::optional<double> t = rowTime(c, idx);
        if (!t) return;
        const std::string entity = host_ + "/gpu" + idx;
        gpus_.insert(idx);
        for (const auto& o : outs_) {
            const std::string& v = c[static_cast<std::size_t>(o.col)];
            double x = 0;
            if (v == "-" || v == "N/A") {
                ++unreadable_;
                continue;
            }
            if (!detail::parseNumber(v, x)) {
                res_.warnings.push_back(
                    {reader_.location(), "bad_value", names_[static_cast<std::size_t>(o.col)] + " '" + v + "' is not a number"});
                continue;
            }
            res_.samples.push_back({entity, o.metric, o.unit, *t, x * o.scale});
        }
    }

    /// The row's time: -o D gives the date, -o T the time of day (with only the time, the day is the file's);
    /// without either, row k of a GPU is k seconds after the file's time. Nothing after a warning.
    std::optional<double> rowTime(const std::vector<std::string>& c, const std::string& idx) {
        if (date_col_ < 0 && time_col_ < 0) {
            if (std::isnan(opt_.default_time_s))
                throw ImportError(opt_.file_name + ": dmon rows without -o T carry no time, and none was given");
            if (!untimed_noted_) {
                res_.warnings.push_back(
                    {reader_.location(), "note",
                     "dmon rows carry no time (record with -o DT): row k of a GPU is taken k seconds after the file's time"});
                untimed_noted_ = true;
            }
            return opt_.default_time_s + rows_of_gpu_[idx]++;
        }
        const std::string date = date_col_ >= 0 ? c[static_cast<std::size_t>(date_col_)] : std::string();
        const std::string tod = time_col_ >= 0 ? c[static_cast<std::size_t>(time_col_)] : std::string("00:00:00");
        double t = 0;
        if (date.empty() && !std::isnan(opt_.default_time_s)) {
            const double day = std::floor((opt_.default_time_s + opt_.tz_offset_s) / 86400.0);
            double secs = 0;
            if (!detail::parseIsoTime("1970-01-01T" + tod, secs, 0)) {
                res_.warnings.push_back({reader_.location(), "bad_value", "time '" + tod + "' is not HH:MM:SS"});
                return std::nullopt;
            }
            return day * 86400.0 - opt_.tz_offset_s + secs;  // from local midnight of the file's day
        }
        if (date.size() != 8 ||
            !detail::parseIsoTime(date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2) + "T" + tod, t, opt_.tz_offset_s)) {
            res_.warnings.push_back({reader_.location(), "bad_value", "date/time '" + date + " " + tod + "' is not YYYYMMDD HH:MM:SS"});
            return std::nullopt;
        }
        return t;
    }

    const ParseOptions& opt_;
    ParseResult& res_;
    detail::LineReader reader_;
    const std::string host_;
    std::vector<Out> outs_;
    std::vector<std::string> names_;  ///< the column names of the last header
    int gpu_col_ = -1, date_col_ = -1, time_col_ = -1;
    bool csv_ = false, untimed_noted_ = false;
    std::map<std::string, int> rows_of_gpu_;  ///< rows seen per GPU: the k-th row of a GPU is k intervals in
    std::set<std::string> gpus_;
    std::size_t unreadable_ = 0;
};

}  // namespace

ParseResult parseNvidiaSmiDmon(std::istream& in, const ParseOptions& opt, const Progress& progress, std::size_t size_hint) {
    ParseResult res;
    DmonReader(in, opt, progress, size_hint, res).read();
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

}  // namespace format_rows

}  // namespace ct::importers
