#include "file_row.hpp"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>

namespace ct::app {

QWidget* fileRow(QWidget* parent, QLineEdit* edit, const QString& title, const QString& filter, FileRowMode mode) {
    auto* w = new QWidget(parent);
    auto* l = new QHBoxLayout(w);
    l->setContentsMargins(0, 0, 0, 0);
    auto* browse = new QPushButton(QObject::tr("Browse…"), w);
    l->addWidget(edit, 1);
    l->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, w, [w, edit, title, filter, mode] {
        const QString f = mode == FileRowMode::Open ? QFileDialog::getOpenFileName(w, title, edit->text(), filter)
                          : mode == FileRowMode::Save
                              ? QFileDialog::getSaveFileName(w, title, edit->text(), filter)
                              : QFileDialog::getSaveFileName(w, title, edit->text(), filter, nullptr, QFileDialog::DontConfirmOverwrite);
        if (!f.isEmpty()) edit->setText(f);
    });
    return w;
}

}  // namespace ct::app
