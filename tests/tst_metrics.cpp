// Issue 16: one table of metric names, units and number formats; readable ticks.
#include <clustertwin/model/metrics.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <cmath>
#include <set>
#include "test_paths.hpp"

using namespace ct::model;

class TstMetrics : public QObject {
    Q_OBJECT
private slots:
    void knownMetricsHaveReadableNamesAndUnits();
    void valuesPrintInTheUnitAPersonReads();
    void unknownMetricsGetANameFromTheirId();
    void orderPutsPowerAndTemperaturesFirst();
    void ticksAreRoundDistinctAndCoverTheRange_data();
    void ticksAreRoundDistinctAndCoverTheRange();
    void everyMetricARunRecordsIsInTheTableAndTheDocs();
};

void TstMetrics::knownMetricsHaveReadableNamesAndUnits() {
    std::set<std::string> ids;
    for (const auto& m : knownMetrics()) {
        QVERIFY2(ids.insert(m.id).second, m.id.c_str());
        QVERIFY2(m.known && !m.name.empty() && m.name.find('_') == std::string::npos, m.id.c_str());
        QVERIFY2(m.about.size() > 10, m.id.c_str());
        QVERIFY2(m.unit != "percent" && m.unit != "ratio" && m.unit != "degC", m.id.c_str());
    }
    QCOMPARE(metricInfo("inlet_max_c").name, std::string("Inlet, hottest"));
    QCOMPARE(metricInfo("throttle").name, std::string("Clocks, share of full"));  // 100 % = full clocks, not "fully throttled"
}

void TstMetrics::valuesPrintInTheUnitAPersonReads() {
    QCOMPARE(formatMetric(712.4, metricInfo("power_w", "W")), std::string("712 W"));
    QCOMPARE(formatMetric(10432, metricInfo("power_w", "W")), std::string("10.4 kW"));
    QCOMPARE(formatMetric(434e3, metricInfo("it_power_w", "W")), std::string("434 kW"));
    QCOMPARE(formatMetric(1.234e6, metricInfo("facility_power_w", "W")), std::string("1.23 MW"));
    QCOMPARE(formatMetric(27.34, metricInfo("inlet_c", "degC")), std::string("27.3 °C"));
    QCOMPARE(formatMetric(0.853, metricInfo("utilization", "ratio")), std::string("85 %"));
    QCOMPARE(formatMetric(1.0, metricInfo("throttle", "ratio")), std::string("100 %"));
    QCOMPARE(formatMetric(-12.0, metricInfo("rci_hi", "percent")), std::string("-12 %"));  // stored in percent already
    QCOMPARE(formatMetric(1.2345, metricInfo("pue", "ratio")), std::string("1.23"));
    QCOMPARE(formatMetric(-0.01, metricInfo("inlet_c", "degC")), std::string("0.0 °C"));  // no "-0.0"
    QCOMPARE(formatMetric(std::nan(""), metricInfo("inlet_c", "degC")), std::string("—"));
    // A PCI id or a counter is an integer, never 5.9035e+08.
    QCOMPARE(formatMetric(590350000, metricInfo("pci_device_id", "")), std::string("590350000"));
    QCOMPARE(formatMetric(3, metricInfo("ecc_errors_uncorrected_volatile_total", "count")), std::string("3"));
    QCOMPARE(formatMetric(0.123456, metricInfo("mystery", "")), std::string("0.123"));
    // Axis units follow the range.
    QCOMPARE(axisUnit(metricInfo("power_w", "W"), 4e6).unit, std::string("MW"));
    QCOMPARE(axisUnit(metricInfo("power_w", "W"), 40e3).factor, 1e-3);
    QCOMPARE(axisUnit(metricInfo("utilization", "ratio"), 1).unit, std::string("%"));
}

void TstMetrics::unknownMetricsGetANameFromTheirId() {
    const MetricInfo ecc = metricInfo("ecc_errors_uncorrected_volatile_total", "count");
    QVERIFY(!ecc.known);
    QCOMPARE(ecc.name, std::string("ECC errors uncorrected volatile total"));
    QCOMPARE(ecc.unit, std::string(""));
    const MetricInfo t = metricInfo("hbm_temp_c");
    QCOMPARE(t.name, std::string("HBM temperature"));
    QCOMPARE(t.unit, std::string("°C"));
    const MetricInfo p = metricInfo("nvlink_bandwidth_total", "ratio");
    QCOMPARE(p.unit, std::string("%"));
    QCOMPARE(p.name, std::string("NVLink bandwidth total"));
    QCOMPARE(metricInfo("dcgm_fi_dev_dec_util", "").name, std::string("Decoder utilisation"));
    QCOMPARE(metricInfo("dcgm_fi_prof_pcie_rx_bytes", "").name, std::string("PCIe receive bytes"));
    // A known id stored in another unit is not taken for the known one.
    QVERIFY(!metricInfo("power_w", "mW").known);
}

void TstMetrics::orderPutsPowerAndTemperaturesFirst() {
    std::vector<std::string> ids = {"zz_count", "utilization", "fan_speed", "temp_c", "power_w", "aa_other"};
    sortMetrics(ids);
    QCOMPARE(ids.front(), std::string("power_w"));
    QCOMPARE(ids[1], std::string("temp_c"));
    QCOMPARE(ids[2], std::string("utilization"));
    QCOMPARE(ids[4], std::string("aa_other"));  // unknown ones last, by name
    QCOMPARE(ids[5], std::string("zz_count"));
}

void TstMetrics::ticksAreRoundDistinctAndCoverTheRange_data() {
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::newRow("colour bar 0..11") << 0.0 << 11.0;  // was 0 / 3 / 6 / 8 / 11
    QTest::newRow("chart 0..0.7") << 0.0 << 0.7;       // was 0.0 / 0.2 / 0.3 / 0.5 / 0.7
    QTest::newRow("inlets 15..40") << 15.0 << 40.0;
    QTest::newRow("tiny 0..0.05") << 0.0 << 0.05;  // was 0.0, 0.0, 0.1, 0.1
    QTest::newRow("power 0..434000") << 0.0 << 434000.0;
    QTest::newRow("negative -5..5") << -5.0 << 5.0;
    QTest::newRow("flat 27..27") << 27.0 << 27.0;
}

void TstMetrics::ticksAreRoundDistinctAndCoverTheRange() {
    QFETCH(double, lo);
    QFETCH(double, hi);
    const Ticks t = niceTicks(lo, hi, 6);
    QVERIFY(t.count >= 1 && t.count <= 6);
    if (hi > lo) QVERIFY2(t.count >= 3, qPrintable(QString::number(t.count)));
    // Round steps: 1, 2, 2.5 or 5 × 10^n.
    const double mant = t.step / std::pow(10.0, std::floor(std::log10(t.step) + 1e-9));
    QVERIFY2(std::abs(mant - 1) < 1e-9 || std::abs(mant - 2) < 1e-9 || std::abs(mant - 2.5) < 1e-9 || std::abs(mant - 5) < 1e-9,
             qPrintable(QString::number(t.step)));
    QStringList labels;
    for (int i = 0; i < t.count; ++i) {
        const double v = t.first + i * t.step;
        QVERIFY(v >= lo - 1e-9 * std::max(1.0, std::abs(lo)) && v <= hi + 1e-9 * std::max(1.0, std::abs(hi)));
        labels << QString::number(v, 'f', t.decimals);
    }
    // Labels are distinct and each one is exact (no rounding hides a value).
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), labels.size());
    for (int i = 0; i < t.count; ++i) QVERIFY(std::abs(labels[i].toDouble() - (t.first + i * t.step)) < 1e-9 * std::max(1.0, std::abs(hi)));
    if (hi > lo) QVERIFY((t.count - 1) * t.step >= 0.5 * (hi - lo));  // the ticks span most of the range
}

void TstMetrics::everyMetricARunRecordsIsInTheTableAndTheDocs() {
    QTemporaryDir tmp;
    const QString db = tmp.filePath("run.sqlite");
    QProcess p;
    // The demo, and a hall with rear doors on a water loop (issue 18), into one database.
    for (const char* sample : {"demo", "rear-door-dgx-h100"}) {
        p.start(CT_CLI_PATH, {"simulate", QString(CT_RESOURCE_DIR) + "/scenarios/" + sample + ".json", "--duration", "1m", "--air", "quick",
                              "--out", db, "--quiet"});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
    sqlite3* h = nullptr;
    QCOMPARE(sqlite3_open_v2(db.toUtf8().constData(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    QCOMPARE(sqlite3_prepare_v2(h, "SELECT DISTINCT metric, unit FROM series", -1, &s, nullptr), SQLITE_OK);
    QFile doc(QString(CT_RESOURCE_DIR) + "/../docs/metrics.md");
    QVERIFY(doc.open(QIODevice::ReadOnly));
    const QString docs = QString::fromUtf8(doc.readAll());
    int n = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const std::string metric = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
        const std::string unit = reinterpret_cast<const char*>(sqlite3_column_text(s, 1));
        QVERIFY2(metricInfo(metric, unit).known, (metric + " [" + unit + "]").c_str());
        ++n;
    }
    sqlite3_finalize(s);
    sqlite3_close(h);
    QVERIFY(n >= 20);
    // The docs' table lists every known metric with its name and unit.
    for (const auto& m : knownMetrics()) {
        const QString row = QString("| `%1` | %2 |").arg(QString::fromStdString(m.id), QString::fromStdString(m.name));
        QVERIFY2(docs.contains(row), qPrintable(row));
    }
}

QTEST_GUILESS_MAIN(TstMetrics)
#include "tst_metrics.moc"
