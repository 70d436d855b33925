#include <clustertwin/model/error.hpp>

#include <algorithm>

namespace ct::model {

namespace {
std::string describe(const std::string& file, int line, int column, const std::string& what) {
    std::string s = file;
    if (line > 0) {
        s += ":" + std::to_string(line);
        if (column > 0) s += ":" + std::to_string(column);
    }
    return s + ": " + what;
}
}  // namespace

ParseError::ParseError(std::string file, int line, int column, const std::string& what)
    : ModelError(describe(file, line, column, what)), file_(std::move(file)), line_(line), column_(column) {}

std::string Diagnostic::toString() const {
    std::string s = severity == Severity::Error ? "error: " : "warning: ";
    if (!location.empty()) s += location + ": ";
    return s + message;
}

bool hasErrors(const Diagnostics& d) { return countErrors(d) > 0; }

std::size_t countErrors(const Diagnostics& d) {
    return static_cast<std::size_t>(std::count_if(d.begin(), d.end(), [](const Diagnostic& x) { return x.severity == Severity::Error; }));
}

std::size_t countWarnings(const Diagnostics& d) { return d.size() - countErrors(d); }

}  // namespace ct::model
