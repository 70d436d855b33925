#include "import_dialogs.hpp"
#include "file_row.hpp"

#include <clustertwin/importers/alert_rules.hpp>
#include <clustertwin/importers/formats.hpp>
#include <clustertwin/importers/parse.hpp>
#include <clustertwin/runs/series_csv.hpp>

#include <QCheckBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QUrl>
#include <QVBoxLayout>

namespace ct::app {

namespace {
QLabel* problemLabel(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setObjectName("problem");
    l->setStyleSheet("color: #b00020");
    l->setWordWrap(true);
    return l;
}
}  // namespace

double parseDurationText(const QString& text) {
    const auto d = runs::parseTimeSpec(text.trimmed().toStdString(), 0);
    return d && *d > 0 ? *d : -1;
}

ImportDialog::ImportDialog(const QString& default_db, QWidget* parent) : QDialog(parent) {
    setObjectName("importDialog");
    setWindowTitle(tr("Import telemetry"));
    auto* l = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Files or folders to import (plain or gzip-compressed). Formats are recognised by content; in folders, "
                                "what is not telemetry is skipped."),
                             this);
    intro->setWordWrap(true);
    l->addWidget(intro);
    paths_ = new QListWidget(this);
    paths_->setObjectName("paths");
    paths_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    l->addWidget(paths_, 1);
    auto* row = new QHBoxLayout;
    auto* add_files = new QPushButton(tr("Add files…"), this);
    auto* add_dir = new QPushButton(tr("Add folder…"), this);
    auto* remove = new QPushButton(tr("Remove"), this);
    row->addWidget(add_files);
    row->addWidget(add_dir);
    row->addWidget(remove);
    row->addStretch();
    l->addLayout(row);
    connect(add_files, &QPushButton::clicked, this, [this] { addPaths(QFileDialog::getOpenFileNames(this, tr("Telemetry files"))); });
    connect(add_dir, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Telemetry folder"));
        if (!d.isEmpty()) addPaths({d});
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        qDeleteAll(paths_->selectedItems());
        validate();
    });
    auto* form = new QFormLayout;
    db_ = new QLineEdit(default_db, this);
    db_->setObjectName("database");
    form->addRow(tr("Into database:"),
                 fileRow(this, db_, tr("Run database (added to when it exists)"), tr("Run databases (*.sqlite *.db)"), FileRowMode::AddTo));
    run_name_ = new QLineEdit(tr("import %1").arg(QDateTime::currentDateTime().toString("yyyy-MM-dd HH:mm:ss")), this);
    run_name_->setObjectName("runName");
    run_name_->setToolTip(tr("Importing into a run of the same name again adds to it; files imported into it before are not read twice."));
    form->addRow(tr("Run name:"), run_name_);
    tz_ = new QLineEdit("UTC", this);
    tz_->setObjectName("timeZone");
    tz_->setToolTip(tr("The zone of times written without one (Slurm, nvidia-smi, long CSV): UTC, +05:30, -0800"));
    form->addRow(tr("Times without a zone are in:"), tz_);
    form->addRow(tr("Alert rules:"), alertRulesRow(this, rules_));
    l->addLayout(form);
    // The table of formats (importers/formats.hpp) with what each holds, below the user's own choices: the same
    // list the CLI's `import --formats` prints.
    l->addWidget(new QLabel(tr("Formats it recognises:"), this));
    auto* known = new QListWidget(this);
    known->setObjectName("formatList");
    known->setFocusPolicy(Qt::NoFocus);
    known->setSelectionMode(QAbstractItemView::NoSelection);
    known->setStyleSheet("QListWidget { background: palette(window); color: palette(mid); }");
    for (const importers::FormatInfo* f : importers::formats()) {
        auto* item =
            new QListWidgetItem(QString::fromStdString(f->label) + "  —  " + QString::fromUtf8(importers::toString(f->kind).data()), known);
        item->setData(Qt::UserRole, QString::fromStdString(f->id));
    }
    known->setMaximumHeight(90);
    l->addWidget(known);
    problem_ = problemLabel(this);
    l->addWidget(problem_);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons_->addButton(tr("Import"), QDialogButtonBox::AcceptRole);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    l->addWidget(buttons_);
    for (QLineEdit* e : {db_, run_name_, tz_, rules_}) connect(e, &QLineEdit::textChanged, this, &ImportDialog::validate);
    connect(this, &QDialog::accepted, this, [this] { QSettings().setValue("alerts/rules", rules_->text().trimmed()); });
    resize(620, 500);
    validate();
}

void ImportDialog::addPaths(const QStringList& paths) {
    for (const QString& p : paths)
        if (!p.isEmpty() && paths_->findItems(p, Qt::MatchExactly).isEmpty()) paths_->addItem(p);
    validate();
}

void ImportDialog::validate() {
    QString why;
    if (paths_->count() == 0) why = tr("Add the files or folders to import.");
    else if (db_->text().trimmed().isEmpty()) why = tr("Name the database to import into.");
    else if (run_name_->text().trimmed().isEmpty()) why = tr("Name the run.");
    else if (!importers::parseUtcOffset(tz_->text().trimmed().toStdString()))
        why = tr("'%1' is not an offset from UTC (+05:30, -0800, UTC).").arg(tz_->text());
    else why = alertRulesProblem(rules_);
    problem_->setText(why);
    problem_->setVisible(!why.isEmpty());
    for (QAbstractButton* b : buttons_->buttons())
        if (buttons_->buttonRole(b) == QDialogButtonBox::AcceptRole) b->setEnabled(why.isEmpty());
}

FileImportSettings ImportDialog::settings() const {
    FileImportSettings s;
    for (int i = 0; i < paths_->count(); ++i) s.paths << paths_->item(i)->text();
    s.db = db_->text().trimmed();
    s.run_name = run_name_->text().trimmed();
    s.tz_offset_s = importers::parseUtcOffset(tz_->text().trimmed().toStdString()).value_or(0);
    s.rules_file = rules_->text().trimmed();
    return s;
}

PrometheusDialog::PrometheusDialog(const QString& default_db, QWidget* parent) : QDialog(parent) {
    setObjectName("prometheusDialog");
    setWindowTitle(tr("Connect to Prometheus"));
    QSettings settings;
    auto* l = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    url_ = new QLineEdit(settings.value("prometheus/url", "http://localhost:9090").toString(), this);
    url_->setObjectName("url");
    form->addRow(tr("Server:"), url_);
    dcgm_ = new QCheckBox(tr("The DCGM exporter's default metrics"), this);
    dcgm_->setObjectName("dcgm");
    dcgm_->setChecked(true);
    form->addRow(tr("Read:"), dcgm_);
    queries_ = new QPlainTextEdit(this);
    queries_->setObjectName("queries");
    queries_->setPlaceholderText(tr("More PromQL queries, one per line (node_hwmon_temp_celsius, …)"));
    queries_->setMaximumHeight(90);
    form->addRow(tr("Queries:"), queries_);
    lookback_ = new QLineEdit(settings.value("prometheus/lookback", "1h").toString(), this);
    lookback_->setObjectName("lookback");
    form->addRow(tr("Read back from now:"), lookback_);
    step_ = new QLineEdit(settings.value("prometheus/step", "15s").toString(), this);
    step_->setObjectName("step");
    form->addRow(tr("Step:"), step_);
    follow_ = new QCheckBox(tr("Follow live: poll every step and show now"), this);
    follow_->setObjectName("follow");
    follow_->setChecked(true);
    form->addRow(QString(), follow_);
    db_ = new QLineEdit(default_db, this);
    db_->setObjectName("database");
    form->addRow(tr("Into database:"),
                 fileRow(this, db_, tr("Run database (added to when it exists)"), tr("Run databases (*.sqlite *.db)"), FileRowMode::AddTo));
    form->addRow(tr("Alert rules:"), alertRulesRow(this, rules_));
    l->addLayout(form);
    // The table of formats (importers/formats.hpp) with what each holds, below the user's own choices: the same
    // list the CLI's `import --formats` prints.
    l->addWidget(new QLabel(tr("Formats it recognises:"), this));
    auto* known = new QListWidget(this);
    known->setObjectName("formatList");
    known->setFocusPolicy(Qt::NoFocus);
    known->setSelectionMode(QAbstractItemView::NoSelection);
    known->setStyleSheet("QListWidget { background: palette(window); color: palette(mid); }");
    for (const importers::FormatInfo* f : importers::formats()) {
        auto* item =
            new QListWidgetItem(QString::fromStdString(f->label) + "  —  " + QString::fromUtf8(importers::toString(f->kind).data()), known);
        item->setData(Qt::UserRole, QString::fromStdString(f->id));
    }
    known->setMaximumHeight(90);
    l->addWidget(known);
    problem_ = problemLabel(this);
    l->addWidget(problem_);
    buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    buttons_->addButton(tr("Connect"), QDialogButtonBox::AcceptRole);
    connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
        QSettings s;
        s.setValue("prometheus/url", url_->text().trimmed());
        s.setValue("prometheus/lookback", lookback_->text().trimmed());
        s.setValue("prometheus/step", step_->text().trimmed());
        s.setValue("alerts/rules", rules_->text().trimmed());
        accept();
    });
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    l->addWidget(buttons_);
    for (QLineEdit* e : {url_, lookback_, step_, db_, rules_}) connect(e, &QLineEdit::textChanged, this, &PrometheusDialog::validate);
    connect(queries_, &QPlainTextEdit::textChanged, this, &PrometheusDialog::validate);
    connect(dcgm_, &QCheckBox::toggled, this, &PrometheusDialog::validate);
    resize(560, 0);
    validate();
}

void PrometheusDialog::validate() {
    QString why;
    const QUrl url(url_->text().trimmed());
    if (!url.isValid() || (url.scheme() != "http" && url.scheme() != "https") || url.host().isEmpty())
        why = tr("The server is a http:// or https:// address (http://localhost:9090).");
    else if (!dcgm_->isChecked() && queries_->toPlainText().trimmed().isEmpty()) why = tr("Choose the DCGM metrics or write a query.");
    else if (parseDurationText(lookback_->text()) <= 0) why = tr("'%1' is not a duration (1h, 30m, 2d).").arg(lookback_->text());
    else if (parseDurationText(step_->text()) <= 0) why = tr("'%1' is not a step (15s, 1m).").arg(step_->text());
    else if (db_->text().trimmed().isEmpty()) why = tr("Name the database to read into.");
    else why = alertRulesProblem(rules_);
    problem_->setText(why);
    problem_->setVisible(!why.isEmpty());
    for (QAbstractButton* b : buttons_->buttons())
        if (buttons_->buttonRole(b) == QDialogButtonBox::AcceptRole) b->setEnabled(why.isEmpty());
}

PrometheusSettings PrometheusDialog::settings() const {
    PrometheusSettings s;
    s.url = url_->text().trimmed();
    s.dcgm = dcgm_->isChecked();
    for (const QString& q : queries_->toPlainText().split('\n'))
        if (!q.trimmed().isEmpty()) s.queries << q.trimmed();
    s.lookback_s = parseDurationText(lookback_->text());
    s.step_s = parseDurationText(step_->text());
    s.follow = follow_->isChecked();
    s.db = db_->text().trimmed();
    s.rules_file = rules_->text().trimmed();
    return s;
}

QWidget* alertRulesRow(QWidget* parent, QLineEdit*& edit) {
    edit = new QLineEdit(QSettings().value("alerts/rules").toString(), parent);
    edit->setObjectName("alertRules");
    edit->setPlaceholderText(QObject::tr("the built-in rules"));
    edit->setToolTip(
        QObject::tr("A rules file (JSON: threshold, duration, severity per rule; clustertwin-cli alerts --default-rules "
                    "prints the built-in ones to start from). Empty: a GPU past its model's slowdown or shutdown "
                    "temperature, above its power limit, inlets above 27 °C, breakers above 80 %, links above 90 %."));
    return fileRow(parent, edit, QObject::tr("Alert rules"), QObject::tr("Alert rules (*.json)"), FileRowMode::Open);
}

QString alertRulesProblem(const QLineEdit* edit) {
    const QString path = edit->text().trimmed();
    if (path.isEmpty()) return {};
    try {
        importers::loadAlertRules(path.toStdString());
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace ct::app
