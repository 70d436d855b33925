#pragma once
// Help > Documentation in the app itself (issue 40): the installed Markdown pages (docs/) in Qt's text browser,
// with a list of pages, links between them, back and forward, and find — nothing outside the app is needed
// (QDesktopServices did nothing on machines without a Markdown viewer).
#include <QDialog>
#include <QString>

class QLineEdit;
class QListWidget;
class QTextBrowser;

namespace ct::app {

class DocsViewer : public QDialog {
    Q_OBJECT
public:
    /// `dir`: the documentation folder (model::documentationDir()).
    explicit DocsViewer(const QString& dir, QWidget* parent = nullptr);
    /// Shows a page of the folder ("visualization.md"); false when there is no such page.
    bool showPage(const QString& file);
    QTextBrowser* browser() const { return browser_; }
    QListWidget* pages() const { return pages_; }
    /// The page shown ("visualization.md"), "" when none.
    QString currentPage() const;
    /// Finds `text` from the cursor on, wrapping once; false when the page does not contain it.
    bool find(const QString& text);

private:
    QString dir_;
    QListWidget* pages_;
    QTextBrowser* browser_;
    QLineEdit* find_;
};

/// The one viewer of `window` (created on first use), raised and showing `file`.
DocsViewer* showDocumentation(QWidget* window, const QString& dir, const QString& file);

}  // namespace ct::app
