// Scenario files: exact round trips of every sample, and every malformed file in tests/data/invalid giving
// its expected messages with locations (issue 8).
#include <clustertwin/model/scenario_io.hpp>
#include <clustertwin/model/validate.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <filesystem>
#include <fstream>
#include "test_paths.hpp"

using namespace ct::model;

class TstScenarioIo : public QObject {
    Q_OBJECT
private slots:
    void samplesRoundTripExactly_data();
    void samplesRoundTripExactly();
    void malformedFilesReportTheirProblems_data();
    void malformedFilesReportTheirProblems();
    void unknownKeysSurviveASave();
    void twoGigabyteFileIsRefusedBeforeReading();
    void missingFileAndDirectoryGiveClearErrors();
    void saveIsAtomicAndLeavesNoTemporaryFiles();
    void saveIntoMissingDirectoryFailsCleanly();
};

void TstScenarioIo::samplesRoundTripExactly_data() {
    QTest::addColumn<QString>("path");
    const QDir dir(QString(CT_RESOURCE_DIR) + "/scenarios");
    const auto files = dir.entryList({"*.json"}, QDir::Files);
    QVERIFY(files.size() >= 4);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << dir.filePath(f);
}

void TstScenarioIo::samplesRoundTripExactly() {
    QFETCH(QString, path);
    const std::string text = readTextFile(path.toStdString());
    const LoadResult lr = parseScenario(text, path.toStdString());
    QVERIFY2(lr.diagnostics.empty(), lr.diagnostics.empty() ? "" : lr.diagnostics.front().toString().c_str());
    // Saving gives the same bytes, and loading that gives an equal model.
    const std::string saved = scenarioToJson(lr.scenario);
    QCOMPARE(saved, text);
    QVERIFY(parseScenario(saved).scenario == lr.scenario);
    // Every sample is valid.
    const auto rep = loadAndValidate(path.toStdString());
    for (const auto& d : rep.diagnostics) qWarning("%s", d.toString().c_str());
    QVERIFY(!hasErrors(rep.diagnostics));
}

void TstScenarioIo::malformedFilesReportTheirProblems_data() {
    QTest::addColumn<QString>("path");
    const QDir dir(QString(CT_TEST_DATA_DIR) + "/invalid");
    const auto files = dir.entryList({"*.json"}, QDir::Files);
    QVERIFY(files.size() >= 15);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << dir.filePath(f);
}

void TstScenarioIo::malformedFilesReportTheirProblems() {
    QFETCH(QString, path);
    QFile exp(path.left(path.size() - 5) + ".expected");
    QVERIFY2(exp.open(QIODevice::ReadOnly), "missing .expected file");
    QStringList lines = QString::fromUtf8(exp.readAll()).split('\n', Qt::SkipEmptyParts);
    QVERIFY(!lines.isEmpty());
    const bool expect_valid = lines.takeFirst() == "valid";

    QStringList messages;
    bool valid = false;
    try {
        const auto rep = loadAndValidate(path.toStdString());
        for (const auto& d : rep.diagnostics) messages << QString::fromStdString(d.toString());
        valid = !hasErrors(rep.diagnostics);
    } catch (const ParseError& e) {
        messages << QString::fromStdString(e.what());
        QVERIFY2(e.line() > 0, "a syntax error names its line");
    }
    QCOMPARE(valid, expect_valid);
    for (const QString& want : lines) {
        const bool found = std::any_of(messages.begin(), messages.end(), [&](const QString& m) { return m.contains(want); });
        if (!found) qWarning() << "messages:" << messages;
        QVERIFY2(found, qPrintable("expected a message containing: " + want));
    }
}

void TstScenarioIo::unknownKeysSurviveASave() {
    const std::string text = readTextFile(std::string(CT_TEST_DATA_DIR) + "/invalid/unknown_keys.json");
    const LoadResult lr = parseScenario(text);
    QCOMPARE(countWarnings(lr.diagnostics), std::size_t(2));
    const std::string saved = scenarioToJson(lr.scenario);
    QVERIFY(saved.find("\"colour\": \"teal\"") != std::string::npos);
    QVERIFY(saved.find("\"team\": \"ops\"") != std::string::npos);
    QVERIFY(parseScenario(saved).scenario == lr.scenario);
}

void TstScenarioIo::twoGigabyteFileIsRefusedBeforeReading() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("huge.json").toStdString();
    std::filesystem::resize_file((std::ofstream(path), path), 2ull * 1024 * 1024 * 1024 + 17);  // sparse
    try {
        loadScenarioFile(path);
        QFAIL("a 2 GB file was accepted");
    } catch (const ModelError& e) {
        QVERIFY2(QString(e.what()).contains("too large"), e.what());
        QVERIFY(QString(e.what()).contains("huge.json"));
    }
}

void TstScenarioIo::missingFileAndDirectoryGiveClearErrors() {
    QVERIFY_THROWS_EXCEPTION(ModelError, loadScenarioFile("/nonexistent/x.json"));
    QTemporaryDir tmp;
    try {
        loadScenarioFile(tmp.path().toStdString());
        QFAIL("a directory was accepted");
    } catch (const ModelError& e) {
        QVERIFY(QString(e.what()).contains("directory"));
    }
}

void TstScenarioIo::saveIsAtomicAndLeavesNoTemporaryFiles() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("s.json").toStdString();
    const auto lr = loadScenarioFile(std::string(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    saveScenarioFile(lr.scenario, path);
    Scenario changed = lr.scenario;
    changed.name = "renamed";
    saveScenarioFile(changed, path);
    QCOMPARE(loadScenarioFile(path).scenario.name, std::string("renamed"));
    QCOMPARE(QDir(tmp.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
}

void TstScenarioIo::saveIntoMissingDirectoryFailsCleanly() {
    const auto lr = loadScenarioFile(std::string(CT_RESOURCE_DIR) + "/scenarios/lab-8node.json");
    QVERIFY_THROWS_EXCEPTION(ModelError, saveScenarioFile(lr.scenario, "/nonexistent-dir/s.json"));
}

QTEST_GUILESS_MAIN(TstScenarioIo)
#include "tst_scenario_io.moc"
