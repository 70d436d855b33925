// clustertwin: the desktop app. Opens the file given on the command line, else the demo scenario.
#include "main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName("ClusterTwin");
    QApplication::setApplicationName("ClusterTwin");
    QApplication::setApplicationVersion("0.1.0");
    QCommandLineParser cli;
    cli.setApplicationDescription("ClusterTwin — digital twin of GPU data centers");
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument("scenario", "Scenario file to open (default: the demo)");
    QCommandLineOption screenshot("screenshot", "Save a screenshot of the window to FILE after start-up and quit.", "FILE");
    cli.addOption(screenshot);
    cli.process(app);

    ct::app::MainWindow w;
    const QStringList args = cli.positionalArguments();
    w.openScenario(args.isEmpty() ? ct::app::MainWindow::demoScenarioPath() : args.first());
    w.show();
    if (cli.isSet(screenshot)) {
        const QString out = cli.value(screenshot);
        QMetaObject::invokeMethod(&w, [&w, out] {
            const bool ok = w.grab().save(out);
            QApplication::exit(ok ? 0 : 1);
        }, Qt::QueuedConnection);
    }
    return app.exec();
}
