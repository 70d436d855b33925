#include "document_guard.hpp"

#include "notice_bar.hpp"
#include "run_binding.hpp"
#include "scenario_document.hpp"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>

namespace ct::app {

DocumentGuard::DocumentGuard(ScenarioDocument& doc, NoticeBar& notice, QWidget* window, SaveFn save)
    : QObject(window), doc_(doc), notice_(notice), window_(window), save_(std::move(save)) {}

bool DocumentGuard::settle(const QString& why) {
    if (!doc_.isModified()) return true;
    const bool sample = isShippedSample(doc_.path());
    QMessageBox box(QMessageBox::Question, tr("Unsaved changes"),
                    tr("%1: the changes to %2 are not saved.").arg(why, QFileInfo(doc_.path()).fileName()),
                    QMessageBox::Discard | QMessageBox::Cancel, window_);
    box.setObjectName("unsavedChangesDialog");
    QPushButton* save = box.addButton(sample ? tr("Save as…") : tr("Save"), QMessageBox::AcceptRole);
    save->setObjectName("saveChanges");
    if (sample)
        box.setInformativeText(tr("%1 is a sample shipped with ClusterTwin: your changes go to a file of your own.").arg(doc_.path()));
    box.setDefaultButton(save);
    box.exec();
    if (box.clickedButton() == box.button(QMessageBox::Cancel) || !box.clickedButton()) return false;
    if (box.clickedButton() == box.button(QMessageBox::Discard)) {
        doc_.removeAutosave();  // discarded on purpose: nothing to recover later
        return true;
    }
    QString target;
    if (sample) {
        target = saveAsPath();
        if (target.isEmpty()) return false;
    }
    QString error;
    if (!save_(target, &error)) {
        QMessageBox::warning(window_, tr("Save"), error);
        return false;
    }
    return true;
}

QString DocumentGuard::saveAsPath() {
    // A shipped sample is never the place: start in the user's documents.
    const QString start = doc_.path().isEmpty() || isShippedSample(doc_.path())
                              ? QDir(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                                    .filePath(QFileInfo(doc_.path().isEmpty() ? QStringLiteral("scenario.json") : doc_.path()).fileName())
                              : doc_.path();
    return QFileDialog::getSaveFileName(window_, tr("Save scenario as"), start, tr("Scenarios (*.json)"));
}

void DocumentGuard::offerRecovery(const QString& path) {
    const QString autosave = ScenarioDocument::autosavePathFor(path);
    const QFileInfo a(autosave), f(path);
    if (!doc_.ownsAutosave()) {  // another ClusterTwin has this file open: its unsaved edits are its own
        notice_.setNotice(NoticeBar::Level::Info, tr("%1 is also open in another ClusterTwin window: edits made here are not autosaved, "
                                                     "and that window's unsaved changes are left to it.")
                                                      .arg(f.fileName()));
        return;
    }
    if (!a.exists()) return;
    if (a.lastModified() < f.lastModified()) {  // older than the file: saved since
        QFile::remove(autosave);
        return;
    }
    delete recovery_;
    recovery_ = new QMessageBox(QMessageBox::Question, tr("Recover unsaved changes"),
                                tr("%1 has unsaved changes from %2 (ClusterTwin did not close cleanly). Recover them?")
                                    .arg(f.fileName(), a.lastModified().toString()),
                                QMessageBox::Yes | QMessageBox::Discard, window_);
    recovery_->setObjectName("recoveryDialog");
    connect(recovery_, &QMessageBox::finished, this, [this, autosave](int result) {
        if (result == QMessageBox::Yes) {
            QString error;
            if (!doc_.recoverFrom(autosave, &error)) QMessageBox::warning(window_, tr("Recover"), error);
        } else {
            QFile::remove(autosave);
        }
    });
    recovery_->open();
}

}  // namespace ct::app
