#include "args.hpp"

#include <cmath>

namespace ct::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& flags, const std::set<std::string>& options) {
    bool options_end = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (options_end) {
            positional_.push_back(a);
        } else if (a == "--") {
            options_end = true;  // everything after is positional, even "-x"
        } else if (a == "-h" && flags.count("help")) {
            flags_.insert("help");
        } else if (a == "-q" && flags.count("quiet")) {
            flags_.insert("quiet");
        } else if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            const auto eq = name.find('=');
            const bool inline_value = eq != std::string::npos;
            if (inline_value) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            if (flags.count(name)) {
                if (inline_value) throw UsageError("option --" + name + " takes no value");
                flags_.insert(name);
            } else if (options.count(name)) {
                if (!inline_value) {
                    if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
                    value = argv[++i];
                }
                values_[name].push_back(value);
            } else {
                throw UsageError("unknown option --" + name);
            }
        } else if (a == "-o") {
            if (i + 1 >= argv.size()) throw UsageError("option -o needs a file name");
            values_["out"].push_back(argv[++i]);
        } else if (a.size() > 1 && a[0] == '-' && a != "-") {
            throw UsageError("unknown option " + a);
        } else {
            positional_.push_back(a);
        }
    }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::all(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int Args::getInt(const std::string& name, int fallback) const {
    if (!has(name)) return fallback;
    const std::string v = get(name);
    try {
        std::size_t used = 0;
        const long n = std::stol(v, &used);
        if (used != v.size() || n < -1000000000L || n > 1000000000L) throw std::invalid_argument(v);
        return static_cast<int>(n);
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects an integer, got '" + v + "'");
    }
}

double Args::getDouble(const std::string& name, double fallback) const {
    if (!has(name)) return fallback;
    const std::string v = get(name);
    try {
        std::size_t used = 0;
        const double d = std::stod(v, &used);
        if (used != v.size() || !std::isfinite(d)) throw std::invalid_argument(v);
        return d;
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects a number, got '" + v + "'");
    }
}

}  // namespace ct::cli
