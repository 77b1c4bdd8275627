#pragma once
// The inline banner under the menus: errors (red) and notes (blue) without a dialog, dismissed with ✕.
#include <QFrame>

class QLabel;

namespace ss::ui {

class ErrorBanner : public QFrame {
    Q_OBJECT
public:
    explicit ErrorBanner(QWidget* parent = nullptr);
    QString text() const; ///< empty while hidden

public Q_SLOTS:
    void showError(const QString& text);
    void showInfo(const QString& text);
    void clear();

private:
    void showAs(const char* objectName, const QString& text);
    QLabel* m_label;
};

} // namespace ss::ui
