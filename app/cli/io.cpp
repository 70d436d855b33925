#include "io.hpp"

#include <clustertwin/model/scenario_io.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <unistd.h>

namespace ct::cli {

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {}

std::ostream& OutputFile::stream() { return isStdout() ? std::cout : buf_; }

void OutputFile::commit() {
    if (isStdout()) {
        std::cout.flush();
        if (!std::cout) throw std::runtime_error("cannot write to stdout");
        return;
    }
    model::writeFileAtomically(path_, buf_.str());
}

TempFile::TempFile(const std::string& stem, const std::string& suffix) {
    const char* dir = std::getenv("TMPDIR");
    std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/clustertwin-" + stem + "-XXXXXX" + suffix;
    const int fd = mkstemps(tmpl.data(), static_cast<int>(suffix.size()));
    if (fd < 0) throw std::runtime_error("cannot make a temporary file " + tmpl);
    close(fd);
    path_ = tmpl;
}

TempFile::~TempFile() { std::remove(path_.c_str()); }

InputPath::InputPath(const std::string& arg) : path_(arg), name_(arg) {
    if (arg != "-") return;
    name_ = "<stdin>";
    copy_ = std::make_unique<TempFile>("stdin");
    path_ = copy_->path();
    std::ofstream out(path_, std::ios::binary);
    out << std::cin.rdbuf();
    if (!out.flush()) throw std::runtime_error("cannot copy standard input to " + path_);
}

void copyToStdout(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read");
    std::cout << in.rdbuf();
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write to stdout");
}

Progress::Progress(std::string prefix, bool quiet, int every_pct)
    : prefix_(std::move(prefix)), quiet_(quiet), tty_(isatty(2) != 0), every_(every_pct) {}

void Progress::update(int pct, const std::string& text) {
    if (quiet_ || pct == last_) return;
    if (tty_) {
        std::cerr << "\r" << prefix_ << text << "\x1b[K" << std::flush;
        drawn_ = true;
    } else {
        if (last_ >= 0 && pct / every_ == last_ / every_ && pct < 100) return;
        std::cerr << prefix_ << text << "\n";
    }
    last_ = pct;
}

void Progress::finish() {
    if (tty_ && drawn_) std::cerr << "\n";
    drawn_ = false;
}

namespace {
volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void onInterrupt(int sig) {
    g_interrupted = 1;
    std::signal(sig, SIG_DFL);  // the next one ends the process
}
}  // namespace

void catchInterrupt() {
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
}

bool interrupted() { return g_interrupted != 0; }

}  // namespace ct::cli
