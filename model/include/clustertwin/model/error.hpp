#pragma once
// One error model for ClusterTwin (contributing.md habit 3): exceptions for failures that stop an operation,
// Diagnostics (with a location) for problems in one part of an input that do not.
#include <stdexcept>
#include <string>
#include <vector>

namespace ct {

/// Root of every exception ClusterTwin throws.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace model {

/// A failure in the domain model (unknown id, bad argument to a builder, unreadable file).
class ModelError : public Error {
public:
    using Error::Error;
};

/// A file that cannot be parsed at all: holds the file, line and column (1-based; 0 when unknown).
class ParseError : public ModelError {
public:
    ParseError(std::string file, int line, int column, const std::string& what);
    const std::string& file() const noexcept { return file_; }
    int line() const noexcept { return line_; }
    int column() const noexcept { return column_; }

private:
    std::string file_;
    int line_;
    int column_;
};

enum class Severity { Warning, Error };

/// One problem found in an input. `location` is a JSON pointer ("/halls/0/rows/3/racks/7/position_m")
/// or "file:line:column" for text formats.
struct Diagnostic {
    Severity severity = Severity::Error;
    std::string location;
    std::string message;

    std::string toString() const;  ///< "error: /halls/0/width_m: must be > 0"
    bool operator==(const Diagnostic&) const = default;
};

using Diagnostics = std::vector<Diagnostic>;

bool hasErrors(const Diagnostics& d);
std::size_t countErrors(const Diagnostics& d);
std::size_t countWarnings(const Diagnostics& d);

}  // namespace model
}  // namespace ct
