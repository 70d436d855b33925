#pragma once
// The two ways telemetry comes into the app: File > Import telemetry… (files and folders, any format
// clustertwin-cli import reads) and File > Connect to Prometheus… (a server's HTTP API, once or following
// live). Each dialog only collects what to do; TelemetryControl does it.
#include <QDialog>
#include <QString>
#include <QStringList>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;

namespace ct::app {

/// What File > Import telemetry… asks for.
struct FileImportSettings {
    QStringList paths;  ///< files and folders (folders are walked; what is not telemetry there is skipped)
    QString db;         ///< the run database ("" = telemetry.sqlite in the runs folder)
    QString run_name;   ///< "" = "import <date time>"
    double tz_offset_s = 0;
    QString rules_file;  ///< alert rules evaluated on what is imported ("" = the built-in ones)
};

/// What File > Connect to Prometheus… asks for.
struct PrometheusSettings {
    QString url;               ///< http://host:9090 (a path prefix is kept)
    bool dcgm = true;          ///< the DCGM exporter's default metrics
    QStringList queries;       ///< more PromQL queries
    double lookback_s = 3600;  ///< read this far back from now first
    double step_s = 15;        ///< the resolution
    bool follow = true;        ///< then poll every step (at least 2 s) and append what is new
    QString db;                ///< "" = prometheus.sqlite in the runs folder
    QString rules_file;        ///< alert rules evaluated on every read ("" = the built-in ones)
};

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDialog(const QString& default_db, QWidget* parent = nullptr);
    void addPaths(const QStringList& paths);
    FileImportSettings settings() const;

private:
    void validate();
    QListWidget* paths_;
    QLineEdit* db_;
    QLineEdit* run_name_;
    QLineEdit* tz_;
    QLineEdit* rules_;
    QLabel* problem_;
    QDialogButtonBox* buttons_;
};

class PrometheusDialog : public QDialog {
    Q_OBJECT
public:
    explicit PrometheusDialog(const QString& default_db, QWidget* parent = nullptr);
    PrometheusSettings settings() const;

private:
    void validate();
    QLineEdit* url_;
    QCheckBox* dcgm_;
    QPlainTextEdit* queries_;
    QLineEdit* lookback_;
    QLineEdit* step_;
    QCheckBox* follow_;
    QLineEdit* db_;
    QLineEdit* rules_;
    QLabel* problem_;
    QDialogButtonBox* buttons_;
};

/// The alert rules row of both dialogs: a rules file, or empty for the built-in rules (remembered in the settings).
QWidget* alertRulesRow(QWidget* parent, QLineEdit*& edit);
/// Why the rules file cannot be used ("" when empty or good): its file and JSON pointer.
QString alertRulesProblem(const QLineEdit* edit);

/// "1h", "90s", "15m" as seconds (nullopt-like: negative when not a positive duration).
double parseDurationText(const QString& text);

}  // namespace ct::app
