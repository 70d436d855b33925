#pragma once
// Keeps the user's edits: asks before unsaved changes would be lost (another scenario opened, the window
// closed), never lets Save overwrite a sample shipped with the program, and offers an autosave for recovery
// only to the instance that holds it (ScenarioDocument::ownsAutosave) and only when it is newer than the file.
#include <QObject>
#include <QString>

#include <functional>

class QMessageBox;
class QWidget;

namespace ct::app {
class NoticeBar;
class ScenarioDocument;

class DocumentGuard : public QObject {
    Q_OBJECT
public:
    /// `save(path, error)` saves the document ("" = its own file) the way the window does.
    using SaveFn = std::function<bool(const QString& path, QString* error)>;
    DocumentGuard(ScenarioDocument& doc, NoticeBar& notice, QWidget* window, SaveFn save);

    /// Before the document is replaced or closed (`why`, e.g. "Opening x.json"): with unsaved edits, asks
    /// Save (Save as for a shipped sample) / Discard / Cancel. False: keep the document as it is.
    bool settle(const QString& why);
    /// Asks where to save, starting in the user's documents for a shipped sample; "" when cancelled.
    QString saveAsPath();
    /// After `path` was opened: offers its autosave when there is one to recover.
    void offerRecovery(const QString& path);
    /// The last recovery question (nullptr if none), for tests.
    QMessageBox* recoveryDialog() const { return recovery_; }

private:
    ScenarioDocument& doc_;
    NoticeBar& notice_;
    QWidget* window_;
    SaveFn save_;
    QMessageBox* recovery_ = nullptr;
};

}  // namespace ct::app
