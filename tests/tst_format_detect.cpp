// Format recognition on real tool output from ../shared/testdata (issue 4 builds the parsers on this), and the
// table of formats (issue 39): a new format is one row, and the docs and the fuzz targets name every one.
#include <clustertwin/importers/format.hpp>
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/import_session.hpp>
#include <clustertwin/runs/store.hpp>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <set>
#include <sstream>
#include "test_paths.hpp"

using namespace ct::importers;

class TstFormatDetect : public QObject {
    Q_OBJECT
private slots:
    void realFilesAreRecognised_data();
    void realFilesAreRecognised();
    void contentWinsOverAMisleadingExtension();
    void aNewFormatIsOneRow();
    void theDocsTableNamesEveryFormat();
    void everyFormatHasAFuzzTarget();
};

void TstFormatDetect::realFilesAreRecognised_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("format");
    const QDir root(QString(CT_SHARED_TESTDATA_DIR));
    if (!root.exists()) QSKIP("shared/testdata not found beside the checkout");
    const std::tuple<const char*, const char*, const char*> dirs[] = {{"dcgm_exporter", "*.prom", "prometheus-text"},
                                                                      {"nvidia_smi_csv", "*.csv", "nvidia-smi-csv"},
                                                                      {"nvidia_smi_xml", "*.xml", "nvidia-smi-xml"},
                                                                      {"prometheus_query", "*.json", "prometheus-api-json"}};
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
    QCOMPARE(QString::fromStdString(std::string(d.id())), format);
    QCOMPARE(d.score > 0, d.format != nullptr);
}

void TstFormatDetect::contentWinsOverAMisleadingExtension() {
    const Detection d = detectFormat("scrape.csv", "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 41\n");
    QVERIFY(d.is("prometheus-text"));
    QVERIFY(!detectFormat("x.bin", "\x01\x02garbage"));
}

void TstFormatDetect::aNewFormatIsOneRow() {
    // A made-up format: lines "entity metric value" under a "#ctkv" first line. One row, and detection,
    // parseFile, the import session and the list of formats all know it.
    FormatInfo f;
    f.id = "test-kv";
    f.label = "test key-value lines";
    f.extensions = {".ctkv"};
    f.extension_score = 50;
    f.sniff = [](const FileHead& h) -> Sniff { return h.first_line == "#ctkv" ? Sniff{90, "#ctkv header"} : Sniff{}; };
    f.parse = [](std::istream& in, const ParseOptions& opt, const Progress&, std::size_t) {
        ParseResult r;
        std::string line, entity, metric;
        double v = 0;
        std::getline(in, line);
        while (in >> entity >> metric >> v) r.samples.push_back({entity, metric, "W", opt.default_time_s, v});
        return r;
    };
    registerFormat(f);
    QVERIFY(findFormat("test-kv"));
    QVERIFY(detectFormat("readings.txt", "#ctkv\nh1 power_w 100\n").is("test-kv"));
    QVERIFY(detectFormat("readings.ctkv", "nothing recognisable").is("test-kv"));  // the extension, when the content is silent
    bool listed = false;
    for (const FormatInfo* x : formats()) listed = listed || x->id == "test-kv";
    QVERIFY(listed);
    QTemporaryDir tmp;
    const QString file = tmp.filePath("readings.txt");
    {
        QFile out(file);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("#ctkv\nh1 power_w 100\nh2 power_w 200\n");
    }
    QCOMPARE(parseFile(file.toStdString()).samples.size(), std::size_t(2));
    auto store = ct::runs::TelemetryStore::open(tmp.filePath("t.sqlite").toStdString());
    ImportOptions opt;
    opt.run_name = "kv";
    ImportSession session(store, opt);
    session.importFiles({{file.toStdString(), false}}, {}, {});
    const ImportSummary sum = session.finish();
    QCOMPARE(sum.formats.count("test-kv"), std::size_t(1));
    QCOMPARE(sum.written.stored, std::int64_t(2));
}

namespace {
/// The format ids of every format with a stream parser, and of all of them.
std::set<std::string> ids(bool stream_only) {
    std::set<std::string> out;
    for (const FormatInfo* f : formats())
        if (f->id != "test-kv" && (!stream_only || f->parse)) out.insert(f->id);
    return out;
}
QString readText(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}
}  // namespace

void TstFormatDetect::theDocsTableNamesEveryFormat() {
    // docs/importers.md's table of formats: its second column names each row's format ids (`id` · parser).
    const QString doc = readText(QString(CT_RESOURCE_DIR) + QStringLiteral("/../docs/importers.md"));
    QVERIFY(!doc.isEmpty());
    std::set<std::string> named;
    bool in_table = false;
    for (const QString& line : doc.split('\n')) {
        if (line.startsWith("| Format | Format id")) in_table = true;
        else if (in_table && !line.startsWith("|")) break;
        else if (in_table && !line.startsWith("|---")) {
            const QString cell = line.section(" | ", 1, 1).section(" · ", 0, 0);
            const auto it = QRegularExpression("`([a-z0-9-]+)`").globalMatch(cell);
            for (auto m = it; m.hasNext();) named.insert(m.next().captured(1).toStdString());
        }
    }
    QCOMPARE(named, ids(false));
}

void TstFormatDetect::everyFormatHasAFuzzTarget() {
    const QString cmake = readText(QString(CT_TEST_DATA_DIR) + QStringLiteral("/../fuzz/CMakeLists.txt"));
    QVERIFY(!cmake.isEmpty());
    std::set<std::string> fuzzed;
    const auto it = QRegularExpression("\\b[a-z_]+:([a-z0-9-]+)\\b").globalMatch(cmake);
    for (auto m = it; m.hasNext();) fuzzed.insert(m.next().captured(1).toStdString());
    for (const std::string& id : ids(true)) QVERIFY2(fuzzed.count(id), (id + " has no fuzz target in tests/fuzz/CMakeLists.txt").c_str());
}

QTEST_GUILESS_MAIN(TstFormatDetect)
#include "tst_format_detect.moc"
