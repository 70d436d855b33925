#pragma once
// Minimal command-line parsing for clustertwin-cli: --key value, --key=value, --flag, positionals; -h for --help,
// -q for --quiet, -o for --out, "--" ends the options, "-" is a positional (stdin or stdout).
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ct::cli {

/// A usage error: main prints it with the command's help and exits with 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Args {
public:
    /// `flags`: options without a value; `options`: options with a value (repeatable ones collect all).
    Args(const std::vector<std::string>& argv, const std::set<std::string>& flags, const std::set<std::string>& options);
    bool flag(const std::string& name) const { return flags_.count(name) > 0; }
    bool has(const std::string& name) const { return values_.count(name) > 0; }
    std::string get(const std::string& name, const std::string& fallback = "") const;
    std::vector<std::string> all(const std::string& name) const;
    int getInt(const std::string& name, int fallback) const;
    double getDouble(const std::string& name, double fallback) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::set<std::string> flags_;
    std::map<std::string, std::vector<std::string>> values_;
    std::vector<std::string> positional_;
};

}  // namespace ct::cli
