#pragma once
// An X display for offscreen rendering from the CLI and the benchmarks. Debian's VTK renders through GLX (no
// EGL or OSMesa build), so without a display it would abort; instead a private Xvfb is started, as xvfb-run
// does, or a clear RenderError says why none can be had.
#include <string>

namespace ct::render {

class OffscreenDisplay {
public:
    /// Uses $DISPLAY when it can be opened; otherwise starts a private Xvfb (Mesa software OpenGL) and points
    /// $DISPLAY at it until destruction. Throws RenderError when $DISPLAY cannot be opened or no Xvfb can be
    /// started (not installed, or it failed: its reason is in the message).
    OffscreenDisplay();
    ~OffscreenDisplay();
    OffscreenDisplay(const OffscreenDisplay&) = delete;
    OffscreenDisplay& operator=(const OffscreenDisplay&) = delete;

    /// True when a private Xvfb was started.
    bool privateServer() const { return pid_ > 0; }
    const std::string& display() const { return display_; }

private:
    int pid_ = 0;
    std::string display_;
};

/// VTK's messages as plain lines on stderr when it is not a terminal (no colour codes in log files). Called by
/// Scene; idempotent.
void plainVtkMessagesWhenNotATerminal();

}  // namespace ct::render
