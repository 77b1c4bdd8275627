#include "errorbanner.h"

#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace ss::ui {

ErrorBanner::ErrorBanner(QWidget* parent) : QFrame(parent)
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
