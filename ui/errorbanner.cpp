#include "errorbanner.h"

#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

#include <algorithm>

namespace ss::ui {

ErrorBanner::ErrorBanner(QWidget* parent, std::function<int()> topOffset) : QFrame(parent), m_top(std::move(topOffset))
{
    setObjectName(QStringLiteral("errorBanner"));
    auto* bl = new QHBoxLayout(this);
    bl->setContentsMargins(8, 4, 4, 4);
    m_label = new QLabel(this);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(tr("Dismiss"));
    bl->addWidget(m_label, 1);
    bl->addWidget(close);
    connect(close, &QToolButton::clicked, this, &ErrorBanner::clear);
    QFile qss(QStringLiteral(":/styles/banner.qss"));
    if (qss.open(QIODevice::ReadOnly))
        setStyleSheet(QString::fromUtf8(qss.readAll()));
    setVisible(false);
    if (parent)
        parent->installEventFilter(this);
}

bool ErrorBanner::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == parentWidget() && (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest))
        reposition();
    return QFrame::eventFilter(watched, event);
}

void ErrorBanner::reposition()
{
    QWidget* p = parentWidget();
    if (!p || isHidden())
        return;
    const int w = std::clamp(p->width() * 45 / 100, std::min(420, p->width() - 16), 720);
    const int h = std::min(heightForWidth(w) > 0 ? heightForWidth(w) : sizeHint().height(), p->height() / 2);
    const int top = m_top ? m_top() : 0;
    setGeometry(p->width() - w - 8, top + 6, w, h);
    raise();
}

QString ErrorBanner::text() const
{
    return isHidden() ? QString() : m_label->text();
}

void ErrorBanner::showAs(const char* objectName, const QString& text)
{
    setObjectName(QLatin1String(objectName));
    style()->unpolish(this);
    style()->polish(this);
    m_label->setText(text);
    setVisible(true);
    reposition();
}

void ErrorBanner::showError(const QString& text)
{
    showAs("errorBanner", text);
}

void ErrorBanner::showInfo(const QString& text)
{
    showAs("infoBanner", text);
}

void ErrorBanner::clear()
{
    m_label->clear();
    setVisible(false);
}

} // namespace ss::ui
