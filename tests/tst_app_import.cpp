// Issue 17 in the app: File > Import telemetry… reads files in a worker with progress and cancel, reports
// what it read exactly as clustertwin-cli import does, and shows the run (on the open scenario, or on one built
// from the telemetry); File > Connect to Prometheus… reads a real Prometheus and, following it, appends every
// poll to the run while the view stays at now.
#include "alerts_panel.hpp"
#include "app_test_window.hpp"
#include "import_dialogs.hpp"
#include "main_window.hpp"
#include "run_controller.hpp"
#include "scenario_document.hpp"
#include "telemetry_control.hpp"

#include <clustertwin/importers/formats.hpp>
#include <clustertwin/runs/replay.hpp>
#include <clustertwin/runs/store.hpp>

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "test_prometheus.hpp"
#include "test_time.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include "test_paths.hpp"

using namespace ct::app;
namespace im = ct::importers;

namespace {
const QString kData = QString(CT_SHARED_TESTDATA_DIR);
double nowS() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

/// An exporter for Prometheus to scrape: a real DCGM exporter scrape (the L40S of the upcloud capture) whose GPU
/// temperature rises by one degree at each scrape, so that each reading of a poll can be told apart.
class ScrapeTarget : public QObject {
public:
    explicit ScrapeTarget(QByteArray scrape) : scrape_(std::move(scrape)) {
        server_.listen(QHostAddress::LocalHost);
        connect(&server_, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server_.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, s, [this, s] {
                    if (!s->readAll().contains("\r\n\r\n")) return;
                    QByteArray body;
                    for (const QByteArray& line : scrape_.split('\n'))
                        body += line.startsWith("DCGM_FI_DEV_GPU_TEMP{")
                                    ? line.left(line.lastIndexOf(' ') + 1) + QByteArray::number(30 + served_++) + "\n"
                                    : line + "\n";
                    s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nConnection: close\r\nContent-Length: " +
                             QByteArray::number(body.size()) + "\r\n\r\n" + body);
                    s->disconnectFromHost();
                });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
    }
    quint16 port() const { return server_.serverPort(); }
    int served() const { return served_; }

private:
    QTcpServer server_;
    QByteArray scrape_;
    int served_ = 0;
};
}  // namespace

class TstAppImport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void theDialogsCheckWhatTheyAreGiven();
    void importedFilesAreReportedAsTheCliDoesAndShownOnTheirScenario();
    void telemetryOfTheOpenScenarioIsShownDirectly();
    void aLongImportShowsProgressAndCanBeCancelled();
    void followingPrometheusAppendsEveryPollAndShowsNow();
    void anUnreachableServerIsNamedAndNotFollowed();

private:
    QTemporaryDir dir_;
    std::unique_ptr<MainWindow> w_;
};

void TstAppImport::initTestCase() {
    QVERIFY(dir_.isValid());
    if (!QDir(kData).exists()) QSKIP("shared/testdata not found beside the checkout");
    qputenv("XDG_CONFIG_HOME", dir_.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", dir_.filePath("data").toUtf8());
    QApplication::setOrganizationName("ClusterTwinImportTests");
    w_ = std::make_unique<MainWindow>();
    w_->setRunsFolder(dir_.filePath("runs"));
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
}

void TstAppImport::theDialogsCheckWhatTheyAreGiven() {
    ImportDialog d(dir_.filePath("t.sqlite"), w_.get());
    auto importButton = [](QDialog& dlg) {
        for (auto* b : dlg.findChildren<QPushButton*>())
            if (b->text() == QObject::tr("Import") || b->text() == QObject::tr("Connect")) return b;
        return static_cast<QPushButton*>(nullptr);
    };
    QVERIFY(importButton(d) && !importButton(d)->isEnabled());  // nothing to import yet
    // The dialog lists the formats it recognises from the formats table (issue 39): every one, once.
    auto* known = d.findChild<QListWidget*>("formatList");
    QVERIFY(known);
    QCOMPARE(known->count(), static_cast<int>(ct::importers::formats().size()));
    for (int i = 0; i < known->count(); ++i)
        QCOMPARE(known->item(i)->data(Qt::UserRole).toString().toStdString(), ct::importers::formats()[static_cast<std::size_t>(i)]->id);
    d.addPaths({kData + "/dcgm_exporter"});
    QVERIFY(importButton(d)->isEnabled());
    d.findChild<QLineEdit*>("timeZone")->setText("+5:3O");
    QVERIFY(!importButton(d)->isEnabled());
    d.findChild<QLineEdit*>("timeZone")->setText("+05:30");
    QVERIFY(importButton(d)->isEnabled());
    QCOMPARE(d.settings().tz_offset_s, 5.5 * 3600);
    QCOMPARE(d.settings().paths, QStringList{kData + "/dcgm_exporter"});
    // Alert rules (issue 40): empty is the built-in rules; a bad file is named with the JSON pointer of its fault.
    auto* rules = d.findChild<QLineEdit*>("alertRules");
    QVERIFY(rules && rules->text().isEmpty() && rules->placeholderText().contains("built-in"));
    const QString bad = dir_.filePath("bad-rules.json");
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"rules": [{"alert": "hot", "metric": "temp_c", "above": "catalog:slowdown_temp_c"}]})");
    }
    rules->setText(bad);
    QVERIFY(!importButton(d)->isEnabled());
    auto* problem = d.findChildren<QLabel*>().last();
    for (auto* l : d.findChildren<QLabel*>())
        if (l->text().contains("/rules/0")) problem = l;
    QVERIFY2(problem->text().contains(bad + ": /rules/0/above") && problem->text().contains("\"entity\": \"gpu\""),
             qPrintable(problem->text()));
    rules->clear();
    QVERIFY(importButton(d)->isEnabled());
    QVERIFY(d.settings().rules_file.isEmpty());

    PrometheusDialog p(dir_.filePath("p.sqlite"), w_.get());
    p.findChild<QLineEdit*>("url")->setText("localhost:9090");  // no scheme
    QVERIFY(!importButton(p)->isEnabled());
    p.findChild<QLineEdit*>("url")->setText("http://127.0.0.1:9090");
    p.findChild<QLineEdit*>("lookback")->setText("2h");
    p.findChild<QLineEdit*>("step")->setText("30s");
    QVERIFY(importButton(p)->isEnabled());
    p.findChild<QLineEdit*>("step")->setText("soon");
    QVERIFY(!importButton(p)->isEnabled());
    p.findChild<QLineEdit*>("step")->setText("30s");
    p.findChild<QCheckBox*>("dcgm")->setChecked(false);
    QVERIFY(!importButton(p)->isEnabled());  // nothing to read
    const PrometheusSettings s = p.settings();
    QCOMPARE(s.lookback_s, 7200.0);
    QCOMPARE(s.step_s, 30.0);
    QVERIFY(s.follow);
}

void TstAppImport::importedFilesAreReportedAsTheCliDoesAndShownOnTheirScenario() {
    // Real DCGM exporter scrapes of four hosts the demo scenario does not have.
    TelemetryControl* t = w_->telemetry();
    const QString db = dir_.filePath("files.sqlite");
    QSignalSpy ended(t, &TelemetryControl::importEnded);
    QVERIFY(t->importFiles({{kData + "/dcgm_exporter"}, db, "scrapes", 0, {}}));
    QVERIFY(t->busy());
    QVERIFY(!t->importFiles({{kData + "/dcgm_exporter"}, db, "again", 0, {}}));  // one at a time
    QVERIFY(ended.wait(testMs(60000)));
    QCOMPARE(ended.at(0).at(0).toString(), QString("finished"));
    const ImportOutcome& o = t->lastOutcome();
    // The same files through clustertwin-cli import: the same figures.
    QProcess cli;
    cli.start(CT_CLI_PATH, {"import", kData + "/dcgm_exporter", "--db", dir_.filePath("cli.sqlite"), "--name", "scrapes", "--json", "-q"});
    QVERIFY(cli.waitForFinished(60000));
    const QJsonObject j = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    QCOMPARE(o.exit_code, cli.exitCode());
    QCOMPARE(o.exit_code, 3);  // the kops capture's first line is the capturing tool's, a record not read
    QCOMPARE(o.stored, static_cast<qint64>(j["samples"].toDouble()));
    QVERIFY(o.stored > 0);
    QVERIFY2(o.summary.contains(QString("%1 samples stored").arg(o.stored)), qPrintable(o.summary));
    // The report says it, naming the file with the bad record.
    QMessageBox* report = t->reportDialog();
    QVERIFY(report && report->isVisible());
    QVERIFY(report->text().contains("some files or records could not be read"));
    QVERIFY2(report->informativeText().contains("kops"), qPrintable(report->informativeText()));
    // None of these hosts is in the demo: the run is not painted on it; a scenario built from them is offered.
    QTest::qWait(200);
    QVERIFY(!w_->run()->hasRun());
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) report->grab().save(qEnvironmentVariable("CT_SHOT_DIR") + "/import-report.png");
    auto* show = report->findChild<QPushButton*>("showOnTelemetryScenario");
    QVERIFY(show);
    show->click();
    QVERIFY(w_->document().path().endsWith(QString("files-run%1.scenario.json").arg(o.run)));
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && !w_->run()->loading(), testMs(20000));
    QCOMPARE(w_->run()->databasePath(), db);
    QCOMPARE(w_->run()->replay()->info().id, o.run);
    QVERIFY(w_->run()->replay()->seriesCount() > 0);
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR"))
        windowShot(*w_).save(qEnvironmentVariable("CT_SHOT_DIR") + "/imported-on-skeleton.png");
}

void TstAppImport::telemetryOfTheOpenScenarioIsShownDirectly() {
    // The scenario built from the scrapes is open: a second import of them maps onto it and is shown at once.
    TelemetryControl* t = w_->telemetry();
    const QString db = dir_.filePath("files.sqlite");
    w_->run()->close();
    QSignalSpy ended(t, &TelemetryControl::importEnded);
    QVERIFY(t->importFiles(
        {{kData + "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom"}, db, "l40s", 0, {}}));
    QVERIFY(ended.wait(testMs(60000)));
    const ImportOutcome& o = t->lastOutcome();
    QCOMPARE(o.exit_code, 0);
    QVERIFY(o.matched > 0);
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && !w_->run()->loading(), testMs(20000));
    QCOMPARE(w_->run()->replay()->info().id, o.run);
    QVERIFY(!t->reportDialog()->findChild<QPushButton*>("showOnTelemetryScenario"));
}

void TstAppImport::aLongImportShowsProgressAndCanBeCancelled() {
    // 24 long-CSV files of 60,000 readings each: cancelled at the first progress report.
    QDir().mkpath(dir_.filePath("long"));
    for (int f = 0; f < 24; ++f) {
        QFile out(dir_.filePath(QString("long/part%1.csv").arg(f, 2, 10, QChar('0'))));
        QVERIFY(out.open(QIODevice::WriteOnly));
        QByteArray text = "time_s,entity,metric,value,unit\n";
        for (int i = 0; i < 60000; ++i)
            text += QByteArray::number(1.7e9 + f * 60000 + i) + ",host" + QByteArray::number(i % 8) + "/gpu0,power_w," +
                    QByteArray::number(300 + i % 50) + ",W\n";
        out.write(text);
    }
    TelemetryControl* t = w_->telemetry();
    const QString db = dir_.filePath("long.sqlite");
    QSignalSpy ended(t, &TelemetryControl::importEnded);
    QVERIFY(t->importFiles({{dir_.filePath("long")}, db, "long", 0, {}}));
    QVERIFY(t->progressBar()->isVisible());
    QVERIFY(t->cancelButton()->isVisible());
    // Generous waits (they return at once): a loaded machine must not fail this (issue: no wall-clock bars).
    QTRY_VERIFY_WITH_TIMEOUT(t->progressBar()->value() > 0 || ended.count() > 0, testMs(300000));
    QVERIFY2(ended.isEmpty(), "the import ended before it could be cancelled");
    t->cancelButton()->click();
    QVERIFY(ended.wait(testMs(300000)));
    QCOMPARE(ended.at(0).at(0).toString(), QString("cancelled"));
    const ImportOutcome& o = t->lastOutcome();
    QVERIFY(o.cancelled);
    QVERIFY2(o.stored < 24 * 60000, qPrintable(o.summary));
    QVERIFY(!t->progressBar()->isVisible());
    QVERIFY(!t->cancelButton()->isVisible());
    // What was stored is what the report says, and no empty run is left; cancelled before anything was stored
    // (a slow, sanitized build), the database this import created is not left behind either.
    if (o.database_removed) {
        QVERIFY(o.run_removed && o.stored == 0 && !QFile::exists(db));
    } else {
        auto store = ct::runs::TelemetryStore::open(db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
        QCOMPARE(store.sampleCount(), static_cast<std::int64_t>(o.stored));
        QCOMPARE(store.runs().size(), std::size_t(o.run_removed ? 0 : 1));
    }
    // What was kept names hosts the open scenario does not have: it is not painted there, and the prompt says so.
    if (o.stored > 0) {
        QTRY_VERIFY_WITH_TIMEOUT(w_->runMismatchDialog() && w_->runMismatchDialog()->isVisible(), testMs(20000));
        QVERIFY(w_->runMismatchDialog()->text().contains("None of the 8 entities"));
        w_->runMismatchDialog()->close();
    }
    QVERIFY(!w_->run()->hasRun() || w_->run()->databasePath() != db);
}

void TstAppImport::followingPrometheusAppendsEveryPollAndShowsNow() {
    if (!TestPrometheus::installed()) QSKIP("prometheus not installed (scripts/setup installs Debian's prometheus)");
    QFile f(kData + "/dcgm_exporter/cncf-k8s-ai-conformance__v1.35-upcloud__1x-nvidia-l40s__drv595.58.03.metrics.prom");
    QVERIFY(f.open(QIODevice::ReadOnly));
    ScrapeTarget target(f.readAll());
    QDir().mkpath(dir_.filePath("prom"));
    TestPrometheus prom;
    const QString why = prom.start(
        dir_.filePath("prom"),
        "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: dcgm\n    static_configs:\n      - targets: ['127.0.0.1:" +
            QByteArray::number(target.port()) + "']\n",
        dir_.filePath("prom/tsdb"));
    QVERIFY2(why.isEmpty(), qPrintable(why));
    QTRY_VERIFY_WITH_TIMEOUT(target.served() >= 3, testMs(20000));
    TelemetryControl* t = w_->telemetry();
    QSignalSpy ended(t, &TelemetryControl::importEnded);
    QSignalSpy polled(t, &TelemetryControl::polled);
    PrometheusSettings s;
    s.url = prom.url();
    s.dcgm = true;
    s.lookback_s = 60;
    s.step_s = 1;
    s.db = dir_.filePath("live.sqlite");
    // The user's own alert rule (issue 40): the scrape's GPU warms by 1 °C a scrape from 30 °C, so while it is
    // followed it passes 36 °C and a poll raises the alert, critical as the rule says.
    s.rules_file = dir_.filePath("rules.json");
    {
        QFile rules(s.rules_file);
        QVERIFY(rules.open(QIODevice::WriteOnly));
        rules.write(R"({"rules": [{"alert": "gpu_warm", "entity": "gpu", "metric": "temp_c", "above": 36, "for": "2s",
                                   "severity": "critical", "summary": "{entity} at {value}, over {limit}"}]})");
    }
    QVERIFY(t->connectPrometheus(s));
    QVERIFY(ended.wait(testMs(60000)));
    QCOMPARE(ended.at(0).at(0).toString(), QString("finished"));
    QVERIFY(t->following());
    const qint64 run = t->lastOutcome().run;
    QVERIFY(t->lastOutcome().stored > 0);
    QVERIFY(t->lastOutcome().matched > 0);  // the L40S's host is in the open scenario (built from the scrapes)
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && w_->run()->replay()->info().id == run && w_->run()->databasePath() == s.db,
                             testMs(20000));
    const double first_end = w_->run()->replay()->endS();
    // Polls add what is new; the view reloads and stays at the newest reading.
    QTRY_VERIFY_WITH_TIMEOUT(
        polled.count() >= 3 && std::any_of(polled.begin(), polled.end(), [](const QList<QVariant>& a) { return a.at(0).toLongLong() > 0; }),
        testMs(30000));
    QTRY_VERIFY_WITH_TIMEOUT(!w_->run()->loading() && w_->run()->replay()->endS() > first_end, testMs(20000));
    QCOMPARE(w_->run()->time(), w_->run()->duration());
    QVERIFY2(nowS() - w_->run()->absoluteTime() < 10, qPrintable(QString::number(nowS() - w_->run()->absoluteTime())));
    QVERIFY(t->followStatus().contains(prom.url()));
    // The rule fired on live data, and the Alerts dock lists it with the rule's severity and words.
    QTRY_VERIFY_WITH_TIMEOUT(!w_->run()->loading() && w_->alerts()->shownCount() >= 1, testMs(30000));
    QTreeWidgetItem* alert = w_->alerts()->tree()->topLevelItem(0);
    if (alert->childCount() > 0) alert = alert->child(0);
    QVERIFY2(alert->text(1) == "critical" && alert->text(6).contains("over 36.0 °C"), qPrintable(alert->text(1) + " " + alert->text(6)));
    for (QWidget* p = w_->alerts(); p; p = p->parentWidget())  // the Alerts dock in front, for the picture
        if (auto* dock = qobject_cast<QDockWidget*>(p)) dock->raise();
    if (!qEnvironmentVariableIsEmpty("CT_SHOT_DIR")) {
        for (QWidget* top : QApplication::topLevelWidgets())  // the import's report box read: the window behind it
            if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) box->close();
        windowShot(*w_).save(qEnvironmentVariable("CT_SHOT_DIR") + "/following.png");
    }
    // Another scenario opened: following goes on in the background without taking the view back.
    QVERIFY(w_->openScenario(MainWindow::demoScenarioPath()));
    QVERIFY(!w_->run()->hasRun());
    const auto polls_before = polled.count();
    QTRY_VERIFY_WITH_TIMEOUT(polled.count() >= polls_before + 2, testMs(20000));
    QTest::qWait(300);
    QVERIFY(!w_->run()->hasRun());
    QVERIFY2(!w_->runMismatchDialog() || !w_->runMismatchDialog()->isVisible(),
             w_->runMismatchDialog() ? qPrintable(w_->runMismatchDialog()->text()) : "");
    QVERIFY(t->following());
    // Every reading of the GPU's temperature is one the exporter served, each time once, in order.
    t->stopFollowing();
    QVERIFY(!t->following());
    QVERIFY(!t->cancelButton()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!t->busy(), testMs(20000));
    auto store = ct::runs::TelemetryStore::open(s.db.toStdString(), ct::runs::TelemetryStore::Mode::Existing);
    QCOMPARE(store.runs().size(), std::size_t(1));  // every poll went to the one run
    const auto temps = store.values(run, "temp_c", {}, -1e300, 1e300);
    QCOMPARE(temps.size(), std::size_t(1));
    double last = -1;
    std::set<double> seen;
    for (const auto& [time, v] : temps.at(0).points) {
        QVERIFY(v >= 30 && v < 30 + target.served());
        QVERIFY(v >= last);  // never older than a reading before it
        last = v;
        seen.insert(v);
    }
    qInfo("following: %lld polls, %zu readings of the GPU temperature, %zu distinct", static_cast<long long>(polled.count()),
          temps.at(0).points.size(), seen.size());
    QVERIFY2(seen.size() >= 5, qPrintable(QString::number(seen.size())));
    const auto& pts = temps.at(0).points;
    for (std::size_t i = 1; i < pts.size(); ++i) QCOMPARE(pts[i].first - pts[i - 1].first, 1.0);  // one grid, no gap, no repeat
    // One alert for the one crossing, however many polls evaluated the rule again; where it held for 2 s.
    const auto events = store.events(run);
    QCOMPARE(static_cast<int>(std::count_if(events.begin(), events.end(), [](const auto& e) { return e.kind == "gpu_warm"; })), 1);
    const auto warm = std::find_if(events.begin(), events.end(), [](const auto& e) { return e.kind == "gpu_warm"; });
    QCOMPARE(warm->severity, std::string("critical"));
    double crossed = -1;  // the first reading above 36 °C; the readings are 1 s apart without gaps (checked above)
    for (const auto& [time, v] : pts)
        if (crossed < 0 && v > 36) crossed = time;
    QCOMPARE(warm->t_s, crossed + 2);  // held for 2 s, then raised
    QCOMPARE(*warm->threshold, 36.0);
}

void TstAppImport::anUnreachableServerIsNamedAndNotFollowed() {
    TelemetryControl* t = w_->telemetry();
    QSignalSpy ended(t, &TelemetryControl::importEnded);
    PrometheusSettings s;
    s.url = "http://127.0.0.1:" + QString::number(TestPrometheus::freePort());
    s.db = dir_.filePath("none.sqlite");
    s.lookback_s = 60;
    QVERIFY(t->connectPrometheus(s));
    QVERIFY(ended.wait(testMs(120000)));
    QCOMPARE(ended.at(0).at(0).toString(), QString("failed"));
    QVERIFY(!t->following());
    QVERIFY2(t->reportDialog()->informativeText().contains("cannot reach Prometheus at " + s.url),
             qPrintable(t->reportDialog()->informativeText()));
}

QTEST_MAIN(TstAppImport)
#include "tst_app_import.moc"
