#include "export_actions.hpp"

#include "main_window.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "view3d.hpp"

#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/render/scene.hpp>
#include <clustertwin/report/export_run.hpp>
#include <clustertwin/report/report.hpp>
#include <clustertwin/runs/replay.hpp>

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryFile>
#include <QTimer>

#include <atomic>
#include <memory>
#include <thread>

#ifndef CT_VERSION
#define CT_VERSION ""
#endif

namespace ct::app {

namespace {

std::string local(const QString& s) { return QDir::toNativeSeparators(s).toStdString(); }

}  // namespace

bool exportVtk(MainWindow& w, const QString& dir, QString* error) {
    const model::Scenario scenario = w.document().scenario();
    const model::Catalog catalog = w.document().catalog();
    RunController* run = w.run();
    const bool with_run = run->hasRun();
    const QString db = run->databasePath();
    const std::int64_t run_id = with_run ? run->replay()->info().id : 0;
    const double at = run->time();
    const std::string out = local(dir);
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto done = std::make_shared<std::atomic<int>>(0);  // per mille
    auto result = std::make_shared<QString>();
    auto finished = std::make_shared<std::atomic<bool>>(false);
    // Off the GUI thread (a run's series can be hundreds of files); only plain data crosses over.
    std::thread worker([=] {
        try {
            std::optional<runs::TelemetryStore> store;
            if (with_run) store.emplace(runs::TelemetryStore::open(db.toStdString(), runs::TelemetryStore::Mode::Existing));
            report::writeRunVtk(scenario, catalog, store ? &*store : nullptr, run_id, out, at, 60, [&](double f) {
                done->store(static_cast<int>(1000 * f));
                return !cancel->load();
            });
        } catch (const std::exception& e) {
            *result =
                cancel->load() ? QObject::tr("Cancelled: the files written so far stay in %1.").arg(dir) : QString::fromStdString(e.what());
        }
        finished->store(true);
    });
    // The window stays alive while the worker writes: a progress dialog (after 0.4 s) that can cancel.
    QProgressDialog progress(QObject::tr("Writing the VTK files…"), QObject::tr("Cancel"), 0, 1000, &w);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(400);
    QObject::connect(&progress, &QProgressDialog::canceled, [cancel] { cancel->store(true); });
    QEventLoop loop;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, [&] {
        if (finished->load()) loop.quit();
        else progress.setValue(done->load());
    });
    tick.start(50);
    if (!finished->load()) loop.exec();
    worker.join();
    progress.setValue(1000);
    if (!result->isEmpty()) {
        if (error) *error = *result;
        return false;
    }
    w.statusBar()->showMessage(
        with_run ? QObject::tr("Wrote %1: open run.pvd in ParaView").arg(dir) : QObject::tr("Wrote %1/hall.vtp").arg(dir), 8000);
    return true;
}

bool exportGltf(MainWindow& w, const QString& path, QString* error) {
    render::Scene* scene = w.view3d()->scene();
    if (!scene) {
        if (error) *error = QObject::tr("The 3D view is not available, so there is nothing to export.");
        return false;
    }
    try {
        scene->exportGltf(local(path));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    w.statusBar()->showMessage(QObject::tr("Wrote %1 (glTF 2.0)").arg(path), 8000);
    return true;
}

bool exportReport(MainWindow& w, const QString& path, QString* error, QString* note) {
    RunController* run = w.run();
    if (!run->hasRun()) {
        if (error) *error = QObject::tr("A report is of a run: simulate (F5) or open a run database first.");
        return false;
    }
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        const auto store = runs::TelemetryStore::open(run->databasePath().toStdString(), runs::TelemetryStore::Mode::Existing);
        report::ReportOptions ro;
        ro.version = CT_VERSION;
        const report::ReportSummary sum =
            report::writeRunReport(w.document().scenario(), w.document().catalog(), store, run->replay()->info().id, local(path), ro);
        QApplication::restoreOverrideCursor();
        if (note) *note = QString::fromStdString(sum.picture_note);
    } catch (const std::exception& e) {
        QApplication::restoreOverrideCursor();
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    w.statusBar()->showMessage(QObject::tr("Wrote the report %1").arg(path), 8000);
    return true;
}

QString cliPath() {
    const QString given = qEnvironmentVariable("CT_CLI");  // a test, or a program installed elsewhere
    if (!given.isEmpty() && QFileInfo(given).isExecutable()) return given;
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& p : {here.filePath("clustertwin-cli"), here.filePath("../clustertwin-cli")})
        if (QFileInfo(p).isExecutable()) return QFileInfo(p).canonicalFilePath();
    return QStandardPaths::findExecutable("clustertwin-cli");
}

bool exportVideo(MainWindow& w, const QString& path, double seconds, QString* error) {
    RunController* run = w.run();
    if (!run->hasRun()) {
        if (error) *error = QObject::tr("A video replays a run: simulate (F5) or open a run database first.");
        return false;
    }
    const QString cli = cliPath();
    if (cli.isEmpty()) {
        if (error) *error = QObject::tr("clustertwin-cli, which makes the video, is not beside the app or on the PATH.");
        return false;
    }
    // The scenario as it is open (edits included) goes to the child process as a file.
    QTemporaryFile scenario(QDir::temp().filePath("clustertwin-video-XXXXXX.json"));
    if (!scenario.open()) {
        if (error) *error = scenario.errorString();
        return false;
    }
    scenario.close();
    try {
        model::saveScenarioFile(w.document().scenario(), local(scenario.fileName()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    QProcess p;
    p.start(cli, {"export", scenario.fileName(), "--video", "--run", run->databasePath(), "--run-id",
                  QString::number(run->replay()->info().id), "--seconds", QString::number(seconds) + "s", "-o", path});
    QProgressDialog progress(QObject::tr("Rendering the video…"), QObject::tr("Cancel"), 0, 100, &w);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    QString log;
    const QRegularExpression pct(R"(frames (\d+) %)");
    QObject::connect(&p, &QProcess::readyReadStandardError, &progress, [&] {
        const QString chunk = QString::fromUtf8(p.readAllStandardError());
        log += chunk;
        for (auto it = pct.globalMatch(chunk); it.hasNext();) progress.setValue(it.next().captured(1).toInt());
    });
    QEventLoop loop;
    QObject::connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&progress, &QProgressDialog::canceled, &loop, [&] {
        p.kill();
        loop.quit();
    });
    if (p.state() != QProcess::NotRunning) loop.exec();
    p.waitForFinished(5000);
    progress.setValue(100);
    if (progress.wasCanceled()) {
        if (error) *error = QObject::tr("Cancelled: no video written.");
        return false;
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        log += QString::fromUtf8(p.readAllStandardError());
        if (error) *error = QObject::tr("The video could not be made:\n%1").arg(log.trimmed().right(1500));
        return false;
    }
    w.statusBar()->showMessage(QObject::tr("Wrote the video %1").arg(path), 8000);
    return true;
}

void exportVideoDialog(MainWindow& w) {
    if (!w.run()->hasRun()) {
        QMessageBox::information(&w, QObject::tr("Export video"),
                                 QObject::tr("A video replays a run: simulate (F5) or open a run database first."));
        return;
    }
    const QString path =
        QFileDialog::getSaveFileName(&w, QObject::tr("Replay as video"), "replay.mp4", QObject::tr("Video (*.mp4 *.webm)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportVideo(w, path, 20, &error)) QMessageBox::warning(&w, QObject::tr("Export video"), error);
}

void exportVtkDialog(MainWindow& w) {
    const QString dir = QFileDialog::getExistingDirectory(&w, QObject::tr("Export for ParaView: choose a folder"));
    if (dir.isEmpty()) return;
    QString error;
    if (!exportVtk(w, dir, &error)) QMessageBox::warning(&w, QObject::tr("Export for ParaView"), error);
}

void exportGltfDialog(MainWindow& w) {
    const QString path =
        QFileDialog::getSaveFileName(&w, QObject::tr("Export the hall as glTF"), "hall.gltf", QObject::tr("glTF 2.0 (*.gltf)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportGltf(w, path, &error)) QMessageBox::warning(&w, QObject::tr("Export glTF"), error);
}

void exportReportDialog(MainWindow& w) {
    if (!w.run()->hasRun()) {
        QMessageBox::information(&w, QObject::tr("Export report"),
                                 QObject::tr("A report is of a run: simulate (F5) or open a run database first."));
        return;
    }
    const QString path =
        QFileDialog::getSaveFileName(&w, QObject::tr("Export the run's report"), "report.html", QObject::tr("HTML (*.html)"));
    if (path.isEmpty()) return;
    QString error, note;
    if (!exportReport(w, path, &error, &note)) QMessageBox::warning(&w, QObject::tr("Export report"), error);
    else if (!note.isEmpty())
        QMessageBox::information(&w, QObject::tr("Export report"), QObject::tr("Written without the 3D picture: %1").arg(note));
}

}  // namespace ct::app
