// clustertwin: the desktop app. Opens the file given on the command line, else the demo scenario.
#include "main_window.hpp"
#include "run_controller.hpp"
#include "scenario_tree.hpp"

#include <clustertwin/model/time.hpp>

#include <QApplication>
#include <QCommandLineParser>
#include <QPixmap>
#include <QScreen>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "view3d.hpp"

namespace {
bool wantsOnlyText(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        for (const char* o : {"-h", "--help", "-v", "--version", "--help-all"})
            if (std::strcmp(argv[i], o) == 0) return true;
    return false;
}

/// Without a display Qt's xcb plugin aborts the program: say what to do instead (help and version need none).
bool displayOrText(int argc, char** argv) {
    const auto set = [](const char* v) { return std::getenv(v) && *std::getenv(v); };
    if (set("DISPLAY") || set("WAYLAND_DISPLAY") || set("QT_QPA_PLATFORM")) return true;
    if (wantsOnlyText(argc, argv)) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return true;
    }
    std::fprintf(stderr,
                 "clustertwin: there is no display (DISPLAY is not set). Run it on a desktop or over ssh -X; on a "
                 "server, xvfb-run clustertwin --screenshot FILE saves a picture of the window, and clustertwin-cli "
                 "render draws a scenario without one.\n");
    return false;
}

/// The command line's options, once parsed.
struct Options {
    QCommandLineOption screenshot{"screenshot", "Save a screenshot of the window to FILE after start-up and quit.", "FILE"};
    QCommandLineOption area{"screenshot-area", "What --screenshot grabs: window (default) or view3d (the 3D view only).", "AREA", "window"};
    QCommandLineOption run{"run", "Open a run or telemetry database (its newest run) on the timeline.", "DB"};
    QCommandLineOption select{"select", "Select the entity with this id (a rack, node, GPU, unit…) once the run has loaded.", "ID"};
    QCommandLineOption at{"time", "Move the timeline to this time of the run (seconds, or 90s, 5m, 1h).", "TIME"};
};

void parse(QCommandLineParser& cli, Options& o, QApplication& app) {
    cli.setApplicationDescription("ClusterTwin — digital twin of GPU data centers");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("scenario", "Scenario file to open (default: the demo)");
    for (const QCommandLineOption* opt : {&o.screenshot, &o.area, &o.run, &o.select, &o.at}) cli.addOption(*opt);
    cli.process(app);
}

/// --select and --time once the run (if any) has loaded: what a person would click.
void selectAndMove(ct::app::MainWindow& w, const QString& id, double at_s) {
    auto apply = [&w, id, at_s] {
        if (!id.isEmpty()) {
            const ct::app::EntityRef ref = w.tree()->refFor(id);
            if (ref.isValid()) w.select(ref);
            else std::fprintf(stderr, "clustertwin: --select: no entity %s in this scenario\n", qPrintable(id));
        }
        if (at_s >= 0) w.run()->setTime(at_s);
    };
    if (w.run()->loading()) QObject::connect(w.run(), &ct::app::RunController::runChanged, &w, apply, Qt::SingleShotConnection);
    else apply();
}

/// --screenshot: the 3D view draws into its own native window, so the screen is grabbed, not the widgets, once
/// the run (if any) has loaded and VTK has drawn; then the app quits.
void screenshotAndQuit(ct::app::MainWindow& w, const QString& out, bool view_only) {
    QTimer::singleShot(1500, &w, [&w, out, view_only] {
        if (w.run()->loading()) QThread::msleep(2000), QCoreApplication::processEvents();
        w.view3d()->renderNow();
        if (view_only) {
            // The view's own pixels, read back from VTK: reading the screen raced VTK's separate X connection
            // under load (a frame not yet on the server).
            QString error;
            const bool ok = w.view3d()->saveScreenshot(out, &error);
            if (!ok) std::fprintf(stderr, "clustertwin: %s\n", qPrintable(error));
            QApplication::exit(ok ? 0 : 1);
            return;
        }
        const QPixmap shot = w.screen()->grabWindow(w.winId());
        QApplication::exit(shot.save(out) ? 0 : 1);
    });
}

}  // namespace

int main(int argc, char** argv) {
    if (!displayOrText(argc, argv)) return 1;
    QApplication app(argc, argv);
    QApplication::setOrganizationName("ClusterTwin");
    QApplication::setApplicationName("ClusterTwin");
    QApplication::setApplicationVersion(QStringLiteral(CT_VERSION));  // project(VERSION) in CMakeLists.txt
    QCommandLineParser cli;
    Options o;
    parse(cli, o, app);

    ct::app::MainWindow w;
    const QStringList args = cli.positionalArguments();
    w.openScenario(args.isEmpty() ? ct::app::MainWindow::demoScenarioPath() : args.first());
    w.show();
    if (cli.isSet(o.run)) w.chooseRun(cli.value(o.run));
    double at_s = -1;
    if (cli.isSet(o.at)) {
        try {
            at_s = ct::model::parseDurationS(cli.value(o.at).toStdString());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "clustertwin: --time: %s\n", e.what());
            return 2;
        }
    }
    if (cli.isSet(o.select) || at_s >= 0) selectAndMove(w, cli.value(o.select), at_s);
    if (cli.isSet(o.screenshot)) {
        const bool view_only = cli.value(o.area) == "view3d";
        if (!view_only && cli.value(o.area) != "window") {
            std::fprintf(stderr, "clustertwin: --screenshot-area must be window or view3d\n");
            return 2;
        }
        screenshotAndQuit(w, cli.value(o.screenshot), view_only);
    }
    return app.exec();
}
