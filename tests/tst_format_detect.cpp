// Format recognition on real tool output from ../shared/testdata (issue 4 builds the parsers on this).
#include <clustertwin/importers/format.hpp>

#include <QDir>
#include <QDirIterator>
#include <QTest>

using namespace ct::importers;

class TstFormatDetect : public QObject {
    Q_OBJECT
private slots:
    void realFilesAreRecognised_data();
    void realFilesAreRecognised();
    void contentWinsOverAMisleadingExtension();
};

void TstFormatDetect::realFilesAreRecognised_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("format");
    const QDir root(QStringLiteral(CT_SHARED_TESTDATA_DIR));
    if (!root.exists()) QSKIP("shared/testdata not found beside the checkout");
    const std::tuple<const char*, const char*, const char*> dirs[] = {
        {"dcgm_exporter", "*.prom", "prometheus-text"}, {"nvidia_smi_csv", "*.csv", "nvidia-smi-csv"},
        {"nvidia_smi_xml", "*.xml", "nvidia-smi-xml"}, {"prometheus_query", "*.json", "prometheus-api-json"}};
    for (const auto& [dir, pattern, fmt] : dirs) {
        QDirIterator it(root.filePath(dir), {pattern}, QDir::Files);
        while (it.hasNext()) {
            const QString f = it.next();
            QTest::newRow(qPrintable(QString(dir) + "/" + QFileInfo(f).fileName())) << f << fmt;
        }
    }
    QDirIterator ib(root.filePath("infiniband"), {"*perfquery_0x*.out"}, QDir::Files);
    while (ib.hasNext()) {
        const QString f = ib.next();
        // One real fixture is empty: nothing to recognise.
        QTest::newRow(qPrintable("ib/" + QFileInfo(f).fileName())) << f << (QFileInfo(f).size() == 0 ? "unknown" : "ib-perfquery");
    }
    QDirIterator nd(root.filePath("infiniband"), {"*ibnetdiscover*.out"}, QDir::Files);
    while (nd.hasNext()) {
        const QString f = nd.next();
        QTest::newRow(qPrintable("ib/" + QFileInfo(f).fileName())) << f << "ib-netdiscover";
    }
}

void TstFormatDetect::realFilesAreRecognised() {
    QFETCH(QString, path);
    QFETCH(QString, format);
    const Detection d = detectFileFormat(path.toStdString());
    QCOMPARE(QString::fromStdString(std::string(toString(d.format))), format);
    QCOMPARE(d.score > 0, d.format != Format::Unknown);
}

void TstFormatDetect::contentWinsOverAMisleadingExtension() {
    const Detection d = detectFormat("scrape.csv", "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 41\n");
    QVERIFY(d.format == Format::PrometheusText);
    QVERIFY(detectFormat("x.bin", "\x01\x02garbage").format == Format::Unknown);
}

QTEST_GUILESS_MAIN(TstFormatDetect)
#include "tst_format_detect.moc"
