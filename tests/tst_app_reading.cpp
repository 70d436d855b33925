// Issue 16, "names and units a person can read": telemetry imported with a skeleton shows on that skeleton,
// the inspector and the charts name metrics and units from one table, put power first, and label axes with
// round ticks; alerts carry severity, value and threshold, and a click on one moves the timeline to it.
#include "main_window.hpp"
#include "notice_bar.hpp"
#include "run_controller.hpp"
#include "run_panels.hpp"
#include "scenario_tree.hpp"

#include <clustertwin/importers/replay.hpp>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <cmath>

#include "test_time.hpp"

using namespace ct::app;

namespace {
bool roundStep(double step) {
    if (!(step > 0)) return false;
    const double mant = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (std::abs(mant - m) < 1e-6) return true;
    return false;
}
} // namespace

class TstAppReading : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void telemetryImportedWithASkeletonShowsOnTheSkeleton();
    void theInspectorNamesMetricsAndPutsPowerFirst();
    void chartAxesHaveRoundTicks();

private:
    QTemporaryDir dir_;
    QString skeleton_, db_;
    std::unique_ptr<MainWindow> w_;
};

void TstAppReading::initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("XDG_CONFIG_HOME", dir_.filePath("config").toUtf8());
    qputenv("XDG_DATA_HOME", dir_.filePath("data").toUtf8());
    QApplication::setOrganizationName("ClusterTwinReadingTests");
    // Real DCGM exporter scrapes of four hosts, imported as a user does: a database and a skeleton scenario.
    skeleton_ = dir_.filePath("skeleton.json");
    db_ = dir_.filePath("telemetry.sqlite");
    QProcess p;
    p.start(CT_CLI_PATH, {"import", QString(CT_SHARED_TESTDATA_DIR) + "/dcgm_exporter", "--db", db_, "--skeleton", skeleton_, "--quiet"});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    w_ = std::make_unique<MainWindow>();
    w_->setRunsFolder(dir_.filePath("runs"));
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
}

void TstAppReading::telemetryImportedWithASkeletonShowsOnTheSkeleton() {
    // Issue 16, item 7: the skeleton calls its nodes n0001… with the telemetry's host names; opening it and the
    // database used to show nothing.
    QVERIFY(w_->openScenario(skeleton_));
    w_->openRun(db_);
    QTRY_VERIFY_WITH_TIMEOUT(w_->run()->hasRun() && !w_->run()->loading(), testMs(30000));
    QVERIFY(!w_->runMismatchDialog());  // admitted: it belongs to this scenario
    const auto* rp = w_->run()->replay();
    QVERIFY(rp->series("n0001/gpu0", "power_w"));
    QVERIFY(!rp->series("cp-bm14r7/gpu0", "power_w"));  // renamed to the node that has that host name
    // Nothing left unmatched: no "not in scenario" notice.
    QVERIFY2(w_->notice()->text().isEmpty(), qPrintable(w_->notice()->text()));
    // The GPU's values reach the inspector and the 3D frame.
    w_->select(w_->tree()->refFor("n0001/gpu0"));
    QVERIFY(!w_->values()->value("power_w").isEmpty());
    bool drawn = false;
    for (const auto& g : w_->run()->frame().gpus) drawn = drawn || (g.id == "n0001/gpu0" && std::isfinite(g.power_w));
    QVERIFY(drawn);
}

void TstAppReading::theInspectorNamesMetricsAndPutsPowerFirst() {
    w_->select(w_->tree()->refFor("n0001/gpu0"));
    QTableWidget* t = w_->values()->table();
    QVERIFY(t->rowCount() >= 10);
    QCOMPARE(t->item(0, 0)->text(), QString("Power"));
    QVERIFY2(t->item(0, 1)->text().endsWith(" W"), qPrintable(t->item(0, 1)->text()));
    for (int r = 0; r < t->rowCount(); ++r) {
        const QString name = t->item(r, 0)->text(), value = t->item(r, 1)->text();
        QVERIFY2(!name.contains('_'), qPrintable(name));                // no raw ids
        QVERIFY2(!value.contains("e+") && !value.contains("percent"), qPrintable(value));  // no 5.9e+08, no "percent"
    }
    // The temperature reads in °C, utilisation in %.
    QVERIFY2(w_->values()->value("temp_c").endsWith("°C"), qPrintable(w_->values()->value("temp_c")));
    QVERIFY2(w_->values()->value("utilization").endsWith("%"), qPrintable(w_->values()->value("utilization")));
    // The chart opens on power (not on a counter), under its name.
    QCOMPARE(w_->charts()->currentMetric(), QString("power_w"));
    QCOMPARE(w_->charts()->metricBox()->currentText(), QString("Power"));
    QVERIFY(w_->charts()->series()->count() > 0);
}

void TstAppReading::chartAxesHaveRoundTicks() {
    for (const char* metric : {"power_w", "temp_c", "utilization", "sm_clock_mhz"}) {
        ChartsPanel* c = w_->charts();
        const int i = c->metricBox()->findData(metric);
        QVERIFY2(i >= 0, metric);
        c->metricBox()->setCurrentIndex(i);
        for (QValueAxis* a : {c->valueAxis(), c->timeAxis()}) {
            QVERIFY2(a->tickType() == QValueAxis::TicksDynamic, metric);
            QVERIFY2(roundStep(a->tickInterval()), qPrintable(QString("%1: %2").arg(metric).arg(a->tickInterval())));
            // The axis ends on ticks, and no two labels print the same.
            const double n = (a->max() - a->min()) / a->tickInterval();
            QVERIFY(std::abs(n - std::round(n)) < 1e-6 && n >= 1 && n <= 8);
            QStringList labels;
            for (int k = 0; k <= std::lround(n); ++k)
                labels << QString::asprintf(a->labelFormat().toUtf8().constData(), a->min() + k * a->tickInterval());
            QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
        }
        QVERIFY2(!c->valueAxis()->titleText().contains('_'), qPrintable(c->valueAxis()->titleText()));
    }
}

QTEST_MAIN(TstAppReading)
#include "tst_app_reading.moc"
