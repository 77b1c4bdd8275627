#pragma once
// The banner for errors (red) and notes (blue) without a dialog, dismissed with ✕. It floats over the top
// right of its parent, under the menus and toolbars (topOffset), so showing it never moves a dock or a view.
#include <QFrame>

#include <functional>

class QLabel;

namespace ss::ui {

class ErrorBanner : public QFrame {
    Q_OBJECT
public:
    /// `parent`: the window it floats over; `topOffset`: the y under which it sits (menus, toolbars).
    explicit ErrorBanner(QWidget* parent, std::function<int()> topOffset = {});
    QString text() const; ///< empty while hidden
    /// Puts it at the parent's top right (called on show and on the parent's resize).
    void reposition();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

public Q_SLOTS:
    void showError(const QString& text);
    void showInfo(const QString& text);
    void clear();

private:
    void showAs(const char* objectName, const QString& text);
    QLabel* m_label;
    std::function<int()> m_top;
};

} // namespace ss::ui
