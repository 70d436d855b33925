#include "problems_dialog.hpp"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ct::app {

ProblemsDialog::ProblemsDialog(const QString& file, const QString& summary, const model::Diagnostics& problems, QWidget* parent)
    : QDialog(parent) {
    setObjectName("problemsDialog");
    setWindowTitle(tr("Cannot open %1").arg(file));
    auto* lay = new QVBoxLayout(this);
    auto* head = new QLabel(summary, this);
    head->setObjectName("problemsSummary");
    head->setWordWrap(true);
    head->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lay->addWidget(head);
    if (!problems.empty()) {
        auto* list = new QTreeWidget(this);
        list->setObjectName("problemsList");
        list->setHeaderLabels({tr("Severity"), tr("Where"), tr("Problem")});
        list->setRootIsDecorated(false);
        for (const auto& d : problems) {
            new QTreeWidgetItem(list, {d.severity == model::Severity::Error ? tr("error") : tr("warning"),
                                       QString::fromStdString(d.location), QString::fromStdString(d.message)});
        }
        list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
        lay->addWidget(list);
        count_ = static_cast<int>(problems.size());
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    lay->addWidget(buttons);
    resize(760, 420);
}

}  // namespace ct::app
