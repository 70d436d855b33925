#include "notice_bar.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace ct::app {

NoticeBar::NoticeBar(QWidget* parent) : QWidget(parent), label_(new QLabel(this)) {
    setObjectName("noticeBar");
    setAutoFillBackground(true);
    auto* l = new QHBoxLayout(this);
    l->setContentsMargins(8, 4, 4, 4);
    label_->setObjectName("noticeText");
    label_->setWordWrap(true);
    label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(this);
    close->setObjectName("noticeClose");
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setAutoRaise(true);
    close->setToolTip(tr("Hide this notice"));
    l->addWidget(label_, 1);
    l->addWidget(close, 0, Qt::AlignTop);
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    hide();
}

void NoticeBar::setNotice(Level level, const QString& text) {
    level_ = level;
    label_->setText(text);
    // Light backgrounds with dark text: readable in light and dark themes alike.
    const QColor bg = level == Level::Error     ? QColor(250, 215, 210)
                      : level == Level::Warning ? QColor(252, 236, 190)
                                                : QColor(214, 230, 250);
    QPalette p = palette();
    p.setColor(QPalette::Window, bg);
    p.setColor(QPalette::WindowText, QColor(30, 30, 30));
    setPalette(p);
    label_->setPalette(p);
    setVisible(!text.isEmpty());
}

QString NoticeBar::text() const { return isHidden() ? QString() : label_->text(); }

}  // namespace ct::app
