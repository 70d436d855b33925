// The app as a desktop program (issue 15): correct at a device-pixel ratio of 2 (the 3D view compared with the
// one at ratio 1), window and dock layout kept between sessions, a Help menu with the docs, About and About Qt,
// files dropped on the window opened, resources and docs found.
#include "docs_viewer.hpp"
#include "main_window.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "window_extras.hpp"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QUrl>

#include "test_time.hpp"

#include <cmath>
#include <memory>
#include "test_paths.hpp"

using ct::app::MainWindow;

namespace {
QString sample(const char* name) { return QString(CT_RESOURCE_DIR) + "/scenarios/" + name + ".json"; }

/// The GUI's own screenshot of its 3D view at QT_SCALE_FACTOR `scale`, or a null image.
QImage view3dAt(double scale, const QString& dir) {
    const QString png = dir + QString("/view-%1.png").arg(scale);
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_SCALE_FACTOR", QString::number(scale));
    env.insert("QT_QPA_PLATFORM", "xcb");
    env.insert("XDG_CONFIG_HOME", dir);  // no saved layout
    p.setProcessEnvironment(env);
    p.start(QString(CT_APP_PATH),
            {sample("lab-8node"), "-qwindowgeometry", "800x500+0+0", "--screenshot", png, "--screenshot-area", "view3d"});
    if (!p.waitForFinished(testMs(120000)) || p.exitCode() != 0) return {};
    return QImage(png).convertToFormat(QImage::Format_RGB32);
}

double darkShare(const QImage& img) {
    long dark = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) dark += qGray(img.pixel(x, y)) < 8;
    return static_cast<double>(dark) / (img.width() * img.height());
}
}  // namespace

class TstAppShell : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void resourcesAndDocsAreFound();
    void highDpiViewMatchesScaleOne();
    void helpMenuOffersTheDocsAboutAndAboutQt();
    void layoutIsSavedAndRestored();
    void droppedFilesAreOpened();
    void withoutADisplayTheAppSaysSoInsteadOfAborting();

private:
    QTemporaryDir config_;
};

void TstAppShell::initTestCase() {
    qputenv("XDG_CONFIG_HOME", config_.path().toUtf8());
    QApplication::setOrganizationName("ClusterTwinShellTests");
}

void TstAppShell::resourcesAndDocsAreFound() {
    QVERIFY(QFileInfo::exists(ct::app::resourcesDir() + "/scenarios/demo.json"));
    QVERIFY(QFileInfo::exists(ct::app::documentationDir() + "/simulation.md"));
}

void TstAppShell::highDpiViewMatchesScaleOne() {
    if (qEnvironmentVariableIsEmpty("DISPLAY")) QSKIP("the native 3D view needs X (scripts/with-display gives one)");
    QTemporaryDir tmp;
    const QImage one = view3dAt(1, tmp.path()), two = view3dAt(2, tmp.path());
    QVERIFY(!one.isNull() && !two.isNull());
    // The view is twice as many device pixels, drawn all over: not black (it was, before VTK got device pixels).
    QVERIFY2(std::abs(two.width() - 2 * one.width()) <= 2 && std::abs(two.height() - 2 * one.height()) <= 2,
             qPrintable(QString("%1x%2 against %3x%4").arg(two.width()).arg(two.height()).arg(one.width()).arg(one.height())));
    QVERIFY2(darkShare(two) < 0.05, qPrintable(QString::number(darkShare(two))));
    // Brought back to ratio 1 it shows the same picture: mean difference per channel of a few grey levels
    // (text and lines are rasterised at the finer grid, so not zero).
    const QImage down = two.scaled(one.size(), Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    double diff = 0;
    for (int y = 0; y < one.height(); ++y)
        for (int x = 0; x < one.width(); ++x) {
            const QRgb a = one.pixel(x, y), b = down.pixel(x, y);
            diff += std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b));
        }
    diff /= 3.0 * one.width() * one.height();
    QVERIFY2(diff < 12, qPrintable(QString("mean difference %1 grey levels").arg(diff)));
}

void TstAppShell::helpMenuOffersTheDocsAboutAndAboutQt() {
    MainWindow w;
    QMenu* help = nullptr;
    for (QAction* a : w.menuBar()->actions())
        if (a->text().remove('&') == "Help") help = a->menu();
    QVERIFY(help);
    QVERIFY(w.findChild<QAction*>("actionAbout"));
    QVERIFY(w.findChild<QAction*>("actionAboutQt"));
    auto* docs = w.findChild<QMenu*>("menuDocumentation");
    QVERIFY(docs);
    int pages = 0;
    for (QAction* a : docs->actions())
        if (a->data().toString().endsWith(".md")) {
            QVERIFY2(a->isEnabled() && QFileInfo::exists(a->data().toString()), qPrintable(a->data().toString()));
            ++pages;
        }
    QVERIFY(pages >= 6);
    // Issue 40: a page opens in the app's own viewer (QDesktopServices did nothing without an outside Markdown
    // viewer): rendered Markdown, every page listed, links between pages followed, Back, and find.
    QAction* visual = nullptr;
    for (QAction* a : docs->actions())
        if (a->data().toString().endsWith("visualization.md")) visual = a;
    QVERIFY(visual);
    visual->trigger();
    auto* viewer = w.findChild<ct::app::DocsViewer*>("docsViewer");
    QVERIFY(viewer && viewer->isVisible());
    QCOMPARE(viewer->currentPage(), QString("visualization.md"));
    const QString text = viewer->browser()->toPlainText();
    QVERIFY2(text.contains("Guided tours") && !text.contains("**Guided tours**"), qPrintable(text.left(200)));  // Markdown, rendered
    QVERIFY(viewer->pages()->count() >= pages);
    QVERIFY(viewer->find("Presentation mode"));
    QVERIFY(!viewer->find("no such words anywhere in it"));
    // A link to another page (visualization.md links importers.md) opens it here; Back returns.
    QVERIFY(text.contains("importers.md") || viewer->browser()->toHtml().contains("importers.md"));
    emit viewer->browser()->anchorClicked(QUrl("importers.md"));
    QCOMPARE(viewer->currentPage(), QString("importers.md"));
    QVERIFY(viewer->browser()->toPlainText().contains("Alert rules"));
    viewer->browser()->backward();
    QCOMPARE(viewer->currentPage(), QString("visualization.md"));
    // Every page renders whole: its last heading is in the text (a bare <name> in importers.md was taken for an
    // HTML tag and swallowed half the page, here and on any Markdown site).
    for (int i = 0; i < viewer->pages()->count(); ++i) {
        const QString file = viewer->pages()->item(i)->data(Qt::UserRole).toString();
        QVERIFY(viewer->showPage(file));
        QFile md(QDir(ct::app::documentationDir()).filePath(file));
        QVERIFY(md.open(QIODevice::ReadOnly));
        QString last;
        for (const QString& line : QString::fromUtf8(md.readAll()).split('\n'))
            if (line.startsWith("## ")) last = line.mid(3).trimmed().remove('`').remove('*');
        if (!last.isEmpty()) QVERIFY2(viewer->browser()->toPlainText().contains(last), qPrintable(file + ": " + last));
    }
    viewer->showPage("visualization.md");
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) viewer->grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/docs-viewer.png");
    // The same menu entry again: the one viewer, not a second.
    visual->trigger();
    QCOMPARE(w.findChildren<ct::app::DocsViewer*>().size(), qsizetype(1));
}

void TstAppShell::layoutIsSavedAndRestored() {
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.resize(1100, 750);
        w.findChild<QDockWidget*>("chartsDock")->hide();
        QVERIFY(w.close());  // a clean close saves the layout
    }
    MainWindow again;
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), QSize(1100, 750));
    QVERIFY(!again.findChild<QDockWidget*>("chartsDock")->isVisible());
    QVERIFY(again.findChild<QDockWidget*>("scenarioDock")->isVisible());
    again.findChild<QDockWidget*>("chartsDock")->show();
    QVERIFY(again.close());
}

void TstAppShell::droppedFilesAreOpened() {
    MainWindow w;
    QVERIFY(w.openScenario(MainWindow::demoScenarioPath()));
    QTemporaryDir tmp;
    QMimeData data;
    data.setUrls({QUrl::fromLocalFile(sample("lab-8node")), QUrl::fromLocalFile(tmp.filePath("missing.sqlite")),
                  QUrl("https://example.com/x.json")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QCOMPARE(w.document().scenario().id, std::string("lab-8node"));
    // What is not a scenario or a run is refused.
    QMimeData other;
    other.setUrls({QUrl::fromLocalFile(QString(CT_RESOURCE_DIR) + "/catalog")});
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &refused);
    QVERIFY(!refused.isAccepted());
    QCOMPARE(ct::app::FileDrops::kindOf(sample("demo")), QString("scenario"));
}

void TstAppShell::withoutADisplayTheAppSaysSoInsteadOfAborting() {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(v);
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QString(CT_APP_PATH), {});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // Qt's xcb plugin used to abort (exit 134)
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("there is no display"));
    p.start(QString(CT_APP_PATH), {"--version"});  // needs no display
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(QString::fromUtf8(p.readAllStandardOutput()).contains(QStringLiteral(CT_VERSION_TEXT)));
}

QTEST_MAIN(TstAppShell)
#include "tst_app_shell.moc"
