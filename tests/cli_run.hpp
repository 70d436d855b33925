#pragma once
// Runs clustertwin-cli (CT_CLI_PATH) in the CLI tests: exit code (-1 timed out, -2 crashed), stdout, stderr.
#include "test_time.hpp"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
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
