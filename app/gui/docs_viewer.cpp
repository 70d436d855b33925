#include "docs_viewer.hpp"

#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

namespace ct::app {

namespace {

/// A page's title: its first Markdown heading, else its file name.
QString titleOf(const QString& path) {
    QFile f(path);
    if (f.open(QIODevice::ReadOnly))
        for (int i = 0; i < 20 && !f.atEnd(); ++i) {
            const QString line = QString::fromUtf8(f.readLine()).trimmed();
            if (line.startsWith("# ")) return line.mid(2).trimmed();
        }
    return QFileInfo(path).completeBaseName();
}

}  // namespace

DocsViewer::DocsViewer(const QString& dir, QWidget* parent) : QDialog(parent), dir_(dir) {
    setObjectName("docsViewer");
    setWindowTitle(tr("ClusterTwin documentation"));
    setWindowFlag(Qt::WindowMaximizeButtonHint);
    auto* l = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    auto* back = new QPushButton(tr("◀ Back"), this);
    auto* forward = new QPushButton(tr("Forward ▶"), this);
    find_ = new QLineEdit(this);
    find_->setObjectName("docsFind");
    find_->setPlaceholderText(tr("Find in this page (Enter: next)"));
    find_->setClearButtonEnabled(true);
    for (QWidget* w : {static_cast<QWidget*>(back), static_cast<QWidget*>(forward)}) bar->addWidget(w);
    bar->addStretch(1);
    bar->addWidget(find_, 2);
    l->addLayout(bar);
    auto* split = new QSplitter(this);
    pages_ = new QListWidget(split);
    pages_->setObjectName("docsPages");
    browser_ = new QTextBrowser(split);
    browser_->setObjectName("docsBrowser");
    browser_->setOpenLinks(false);  // links are followed below: pages here, the web outside
    browser_->setSearchPaths({dir_});
    split->addWidget(pages_);
    split->addWidget(browser_);
    split->setStretchFactor(1, 4);
    l->addWidget(split, 1);
    // Every page of the folder, by its title.
    const QDir d(dir_);
    for (const QString& f : d.entryList({"*.md"}, QDir::Files, QDir::Name)) {
        auto* item = new QListWidgetItem(titleOf(d.filePath(f)), pages_);
        item->setData(Qt::UserRole, f);
        item->setToolTip(f);
    }
    pages_->setMaximumWidth(260);
    connect(pages_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0) showPage(pages_->item(row)->data(Qt::UserRole).toString());
    });
    connect(browser_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == "http" || url.scheme() == "https" || url.scheme() == "mailto") {
            QDesktopServices::openUrl(url);
            return;
        }
        if (url.fileName().isEmpty() && url.hasFragment()) {  // a heading of this page
            browser_->scrollToAnchor(url.fragment());
            return;
        }
        const QString file = QFileInfo(url.path()).fileName();
        if (file.endsWith(".md") && QFileInfo::exists(QDir(dir_).filePath(file))) showPage(file);
    });
    connect(back, &QPushButton::clicked, browser_, &QTextBrowser::backward);
    connect(forward, &QPushButton::clicked, browser_, &QTextBrowser::forward);
    connect(browser_, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    connect(browser_, &QTextBrowser::forwardAvailable, forward, &QPushButton::setEnabled);
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(find_, &QLineEdit::returnPressed, this, [this] { find(find_->text()); });
    resize(1000, 720);
}

bool DocsViewer::showPage(const QString& file) {
    const QString path = QDir(dir_).filePath(file);
    if (!QFileInfo::exists(path)) return false;
    if (currentPage() != file) browser_->setSource(QUrl::fromLocalFile(path), QTextDocument::MarkdownResource);
    for (int i = 0; i < pages_->count(); ++i)
        if (pages_->item(i)->data(Qt::UserRole).toString() == file && pages_->currentRow() != i) {
            const QSignalBlocker quiet(pages_);
            pages_->setCurrentRow(i);
        }
    return true;
}

QString DocsViewer::currentPage() const {
    return browser_->source().isEmpty() ? QString() : QFileInfo(browser_->source().path()).fileName();
}

bool DocsViewer::find(const QString& text) {
    if (text.isEmpty()) return false;
    if (browser_->find(text)) return true;
    QTextCursor c = browser_->textCursor();  // from the top, once
    c.movePosition(QTextCursor::Start);
    browser_->setTextCursor(c);
    return browser_->find(text);
}

DocsViewer* showDocumentation(QWidget* window, const QString& dir, const QString& file) {
    auto* v = window->findChild<DocsViewer*>("docsViewer");
    if (!v) v = new DocsViewer(dir, window);
    v->showPage(file);
    v->show();
    v->raise();
    v->activateWindow();
    return v;
}

}  // namespace ct::app
