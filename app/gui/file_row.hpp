#pragma once
// A line edit with a Browse… button beside it, for the dialogs that name a file (Run, Calibrate, the Twin dock).
#include <QString>

class QLineEdit;
class QWidget;

namespace ct::app {

/// The row as one widget; Browse… opens a file of `filter` ("JSON (*.json)") into `edit`, or a file to write
/// when `save` is set.
QWidget* fileRow(QWidget* parent, QLineEdit* edit, const QString& title, const QString& filter, bool save = false);

}  // namespace ct::app
