#pragma once
// A read-only, row-selecting table with stretched last column: the lists in the docks.
#include <QHeaderView>
#include <QTableWidget>

namespace ct::app {

inline QTableWidget* makeListTable(QWidget* parent, const QStringList& headers) {
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    return t;
}

}  // namespace ct::app
