#include <clustertwin/render/display.hpp>
#include <clustertwin/render/scene.hpp>  // RenderError

#include <vtkLogger.h>
#include <vtkOutputWindow.h>

#include <X11/Xlib.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ct::render {

namespace {

bool canOpen(const char* name) {
    Display* d = XOpenDisplay(name);
    if (!d) return false;
    XCloseDisplay(d);
    return true;
}

}  // namespace

OffscreenDisplay::OffscreenDisplay() {
    if (const char* env = std::getenv("DISPLAY"); env && *env) {
        if (!canOpen(env))
            throw RenderError(std::string("cannot open the X display ") + env + " (unset DISPLAY to render on a private Xvfb)");
        display_ = env;
        return;
    }
    int fds[2];
    if (pipe(fds) != 0) throw RenderError(std::string("cannot start Xvfb: ") + std::strerror(errno));
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        throw RenderError(std::string("cannot start Xvfb: ") + std::strerror(errno));
    }
    if (pid == 0) {
        // -displayfd: Xvfb picks a free display number and writes it once it accepts connections.
        const int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        const std::string fd = std::to_string(fds[1]);
        execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1920x1080x24", "-nolisten", "tcp", static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[1]);
    pid_ = pid;
    std::string number;
    for (int waited_ms = 0; waited_ms < 15000;) {
        pollfd p{fds[0], POLLIN, 0};
        const int r = poll(&p, 1, 100);
        if (r > 0) {
            char buf[32];
            const ssize_t n = read(fds[0], buf, sizeof buf);
            if (n <= 0) break;  // Xvfb closed it: it stopped
            number.append(buf, static_cast<std::size_t>(n));
            if (number.find('\n') != std::string::npos) break;
        } else {
            waited_ms += 100;
        }
    }
    close(fds[0]);
    while (!number.empty() && (number.back() == '\n' || number.back() == ' ')) number.pop_back();
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) {
        int status = 0;
        kill(pid_, SIGTERM);
        waitpid(pid_, &status, 0);
        pid_ = 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
            throw RenderError(
                "no X display: DISPLAY is not set and Xvfb is not installed (Debian package xvfb; scripts/setup installs it)");
        throw RenderError("no X display: DISPLAY is not set and a private Xvfb did not start");
    }
    display_ = ":" + number;
    setenv("DISPLAY", display_.c_str(), 1);
    setenv("LIBGL_ALWAYS_SOFTWARE", "1", 0);
}

OffscreenDisplay::~OffscreenDisplay() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    unsetenv("DISPLAY");
}

void plainVtkMessagesWhenNotATerminal() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (isatty(2)) return;
        vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);  // loguru's lines carry colour codes
        vtkOutputWindow::GetInstance()->SetDisplayModeToAlwaysStdErr();
    });
}

}  // namespace ct::render
