#pragma once
// The GUI's one std::string → QString conversion (UTF-8), instead of a copy in every panel.
#include <QString>

#include <string>

namespace ct::app {
inline QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace ct::app
