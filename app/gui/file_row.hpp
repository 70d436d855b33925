#pragma once
// A line edit with a Browse… button beside it, for the dialogs that name a file (Run, Calibrate, the Twin dock).
#include <QString>

class QLineEdit;
class QWidget;

namespace ct::app {

/// What Browse… asks for: a file to read, a new file to write (an existing one is confirmed first), or a file to
/// add to (a database: an existing one is added to, never overwritten, so nothing to confirm).
enum class FileRowMode { Open, Save, AddTo };

/// The row as one widget; Browse… puts the chosen file of `filter` ("JSON (*.json)") into `edit`.
QWidget* fileRow(QWidget* parent, QLineEdit* edit, const QString& title, const QString& filter, FileRowMode mode = FileRowMode::Open);

}  // namespace ct::app
