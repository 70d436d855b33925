#pragma once
// The CLI's Unix habits in one place: "-" for stdin and stdout, atomic output files, progress that redraws
// only on a terminal, --quiet, and SIGINT as a request to stop.
#include <iosfwd>
#include <memory>
#include <sstream>
#include <string>

namespace ct::cli {

/// Where a command writes its result: stdout for "-", otherwise a file written atomically on commit()
/// (nothing is left behind when the command fails before that).
class OutputFile {
public:
    explicit OutputFile(std::string path);
    std::ostream& stream();
    bool isStdout() const { return path_ == "-"; }
    /// Writes the file (temporary + rename) or flushes stdout. Throws std::runtime_error naming the path.
    void commit();

private:
    std::string path_;
    std::ostringstream buf_;
};

/// A new empty file in $TMPDIR (or /tmp) named clustertwin-STEM-XXXXXX[SUFFIX], removed on destruction.
/// Throws std::runtime_error when it cannot be made.
class TempFile {
public:
    explicit TempFile(const std::string& stem, const std::string& suffix = {});
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// Standard input copied to a temporary file, for readers that need a path and may read twice (format
/// detection, then parsing). Any other path is passed through unchanged.
class InputPath {
public:
    explicit InputPath(const std::string& arg);
    /// The path to read.
    const std::string& path() const { return path_; }
    /// How messages name it: the argument, or "<stdin>".
    const std::string& name() const { return name_; }

private:
    std::unique_ptr<TempFile> copy_;
    std::string path_, name_;
};

/// Copies a file's bytes to stdout (binary).
void copyToStdout(const std::string& path);

/// Progress on stderr: redrawn in place with \r on a terminal; on a pipe or log file, a plain line at most
/// every `every_pct` percent; nothing with --quiet.
class Progress {
public:
    Progress(std::string prefix, bool quiet, int every_pct = 10);
    void update(int pct, const std::string& text);
    /// Ends the redrawn line (a newline on a terminal when something was drawn).
    void finish();

private:
    std::string prefix_;
    bool quiet_, tty_;
    int every_, last_ = -1;
    bool drawn_ = false;
};

/// SIGINT (Ctrl-C) and SIGTERM handled as a request: interrupted() turns true and the command ends cleanly.
/// A second Ctrl-C kills the process as usual.
void catchInterrupt();
bool interrupted();

}  // namespace ct::cli
