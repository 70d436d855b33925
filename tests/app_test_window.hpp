#pragma once
// The app's main window as the GUI tests open it: settings and data in a temporary folder (nothing of the
// user's read or written), runs in its runs/ folder, shown and exposed.
#include "main_window.hpp"

#include <QApplication>
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
