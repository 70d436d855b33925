#pragma once
// Runs clustertwin-cli (CT_CLI_PATH) in the CLI tests: exit code (-1 timed out, -2 crashed), stdout, stderr.
#include "test_time.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <sstream>
#include <string>
#include <vector>
#include "test_paths.hpp"

struct CliRun {
    int code = -1;
    QString out, err;
    QJsonObject json() const { return QJsonDocument::fromJson(out.toUtf8()).object(); }
};

inline CliRun cli(const QStringList& args) {
    QProcess p;
    p.start(QString(CT_CLI_PATH), args);
    if (!p.waitForFinished(testMs(120000))) return {};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

/// One sample of `clustertwin-cli query --format csv`.
struct QueryRow {
    double t;
    std::string entity;
    double value;
};

/// Every sample of one metric of a run database, through `clustertwin-cli query`; a query that fails stops the
/// test program (what follows would check nothing).
inline std::vector<QueryRow> queryRows(const QString& db, const char* metric) {
    const CliRun r = cli({"query", "--db", db, "--metric", metric, "--format", "csv"});
    if (r.code != 0) qFatal("query %s of %s failed: %s", metric, qPrintable(db), qPrintable(r.err));
    std::vector<QueryRow> out;
    std::istringstream in(r.out.toStdString());
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::string t, e, m, v;
        std::getline(f, t, ',');
        std::getline(f, e, ',');
        std::getline(f, m, ',');
        std::getline(f, v, ',');
        out.push_back({std::stod(t), e, std::stod(v)});
    }
    return out;
}
