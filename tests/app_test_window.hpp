#pragma once
// The app's main window as the GUI tests open it: settings and data in a temporary folder (nothing of the
// user's read or written), runs in its runs/ folder, shown and exposed.
#include "main_window.hpp"
#include "view3d.hpp"

#include <QApplication>
#include <QPixmap>
#include <QScreen>
#include <QSize>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

inline std::unique_ptr<ct::app::MainWindow> openTestWindow(const QTemporaryDir& dir, const char* organization, QSize size = {}) {
    qputenv("XDG_CONFIG_HOME", dir.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", dir.filePath("data").toUtf8());
    QApplication::setOrganizationName(organization);
    auto w = std::make_unique<ct::app::MainWindow>();
    w->setRunsFolder(dir.filePath("runs"));
    if (size.isValid()) w->resize(size);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    return w;
}

/// The whole window as a person sees it. The 3D view draws straight to the screen with OpenGL, which
/// QWidget::grab() cannot read back (under Xvfb it shows noise there), so the window is taken from the screen, as
/// the app's own `--screenshot` does; grab() only where the screen gives nothing (the offscreen platform).
inline QPixmap windowShot(ct::app::MainWindow& w) {
    w.view3d()->renderNow();
    QApplication::processEvents();
    const QPixmap shot = w.screen() ? w.screen()->grabWindow(w.winId()) : QPixmap();
    return shot.isNull() ? w.grab() : shot;
}
