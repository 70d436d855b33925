#pragma once
// File > Export (issue 19): the hall and its run for ParaView (VTK XML), the hall as glTF 2.0, a one-page HTML
// report of the shown run. The writers are render's (export.hpp, report.hpp), as clustertwin-cli export uses.
#include <QString>

class QWidget;

namespace ct::app {

class MainWindow;

/// Writes hall.vtp (racks and units with the values at the timeline's time) into `dir` and, with a run shown,
/// run.pvd over hall_NNNN.vtp and air_NNNN.vti for every air field the run stored. Work runs off the GUI
/// thread behind a progress dialog that can cancel. Returns false with `error` set when it fails or is cancelled.
bool exportVtk(MainWindow& w, const QString& dir, QString* error = nullptr);
/// The 3D view's hall as one self-contained glTF 2.0 file, in the colours shown.
bool exportGltf(MainWindow& w, const QString& path, QString* error = nullptr);
/// The shown run's report (report::writeRunReport). False with `error` without a run or when it cannot be
/// written; `note` says what the report had to leave out (the 3D picture).
bool exportReport(MainWindow& w, const QString& path, QString* error = nullptr, QString* note = nullptr);

/// The shown run's replay as a video (.mp4 or .webm, `seconds` long), made by clustertwin-cli export --video in
/// a child process behind a progress dialog that can cancel (rendering stays off the GUI thread).
bool exportVideo(MainWindow& w, const QString& path, double seconds = 20, QString* error = nullptr);
/// $CT_CLI, else clustertwin-cli beside the app (installed, or in the build tree), else on $PATH; "" when none.
QString cliPath();

/// The File > Export dialogs (file choosers, then the calls above, errors in a message box).
void exportVtkDialog(MainWindow& w);
void exportGltfDialog(MainWindow& w);
void exportReportDialog(MainWindow& w);
void exportVideoDialog(MainWindow& w);

}  // namespace ct::app
