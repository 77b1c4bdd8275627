#include "topologyeditorview.h"

#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "jobcolors.h"

namespace ss {

namespace {

enum Kind { KindMachine = 1, KindSwitch = 2 };
constexpr int kMachineW = 92, kMachineH = 36, kSwitchW = 110, kSwitchH = 30;
constexpr int kColGap = 10, kRowGap = 10, kGroupGap = 40;

QString gbps(double g)
{
    return g >= 1000 ? QStringLiteral("%1 Tb/s").arg(g / 1000, 0, 'g', 3) : QStringLiteral("%1 Gb/s").arg(g, 0, 'g', 4);
}

// A box with a centred label; draws its own selection highlight (the default dashed rectangle is hard to see).
class NodeItem : public QGraphicsRectItem {
public:
    NodeItem(const QRectF& r, Kind kind, int id, QString text, QColor fill, QColor border, QColor textColor, QColor sel)
        : QGraphicsRectItem(r)
        , m_text(std::move(text))
        , m_fill(fill)
        , m_border(border)
        , m_textColor(textColor)
        , m_sel(sel)
    {
        setData(0, int(kind));
        setData(1, id);
        setFlag(ItemIsSelectable);
        setToolTip(m_text);
    }
    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        const bool sel = isSelected();
        p->setRenderHint(QPainter::Antialiasing);
        p->setBrush(m_fill);
        p->setPen(QPen(sel ? m_sel : m_border, sel ? 3 : 1));
        p->drawRoundedRect(rect().adjusted(1, 1, -1, -1), 4, 4);
        p->setPen(m_textColor);
        QFont f = p->font();
        f.setPointSizeF(std::max(6.0, f.pointSizeF() * 0.85));
        p->setFont(f);
        p->drawText(rect().adjusted(3, 1, -3, -1), Qt::AlignCenter | Qt::TextWordWrap, m_text);
    }

private:
    QString m_text;
    QColor m_fill, m_border, m_textColor, m_sel;
};

} // namespace

TopologyEditorView::TopologyEditorView(QWidget* parent)
    : QGraphicsView(parent)
    , m_scene(new QGraphicsScene(this))
{
    setScene(m_scene);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRenderHint(QPainter::Antialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    connect(m_scene, &QGraphicsScene::selectionChanged, this, &TopologyEditorView::onSceneSelectionChanged);
}

TopologyEditorView::~TopologyEditorView()
{
    // The scene (a child) is deleted after this body and reports selection changes while clearing.
    disconnect(m_scene, nullptr, this, nullptr);
    m_machineItems.clear();
    m_switchItems.clear();
}

void TopologyEditorView::setCluster(const ClusterSpec& cluster)
{
    const QList<int> keepM = selectedMachines(), keepS = selectedSwitches();
    m_rebuilding = true;
    m_scene->clear();
    m_rubberLine = nullptr;
    m_machineItems.clear();
    m_switchItems.clear();
    m_linkCount = 0;
    m_cluster = cluster;

    const QPalette pal = palette();
    const bool dark = isDarkPalette(pal);
    const QColor text = pal.color(QPalette::Text);
    const QColor border = pal.color(QPalette::Mid);
    const QColor sel = pal.color(QPalette::Highlight);
    const QColor machineFill = dark ? QColor(52, 56, 64) : QColor(240, 244, 250);
    const QColor switchFill = dark ? QColor(70, 60, 40) : QColor(255, 240, 205);
    const QColor wire = dark ? QColor(110, 110, 120) : QColor(170, 170, 180);
    const QColor linkColor = dark ? QColor(240, 170, 80) : QColor(200, 110, 20);

    const int nsw = int(cluster.switches.size());
    std::vector<std::vector<int>> groups(size_t(std::max(nsw, 0) + 1));
    for (int m = 0; m < cluster.machineCount(); ++m) {
        const int s = cluster.machines[size_t(m)].sw;
        groups[size_t(s >= 0 && s < nsw ? s : nsw)].push_back(m);
    }
    m_machineItems.assign(size_t(cluster.machineCount()), nullptr);
    m_switchItems.assign(size_t(nsw), nullptr);
    std::vector<QPointF> swCentre(static_cast<size_t>(nsw), QPointF());

    // Switches in a row; each switch's machines in a grid below it (up to 4 columns, so wide racks wrap).
    double x = 0;
    for (int g = 0; g <= nsw; ++g) {
        const auto& ms = groups[size_t(g)];
        if (g == nsw && ms.empty())
            continue;
        const int cols = std::clamp(int(ms.size()), 1, 4);
        const double groupW = std::max<double>(kSwitchW, cols * kMachineW + (cols - 1) * kColGap);
        const QPointF sc(x + groupW / 2, kSwitchH / 2.0);
        if (g < nsw) {
            const Switch& s = cluster.switches[size_t(g)];
            auto* it = new NodeItem(QRectF(-kSwitchW / 2.0, -kSwitchH / 2.0, kSwitchW, kSwitchH), KindSwitch, g,
                                    QStringLiteral("%1\n%2 up").arg(QString::fromStdString(s.name), gbps(s.uplinkGbps)),
                                    switchFill, border, text, sel);
            it->setPos(sc);
            it->setZValue(2);
            m_scene->addItem(it);
            m_switchItems[size_t(g)] = it;
            swCentre[size_t(g)] = sc;
        }
        for (int i = 0; i < int(ms.size()); ++i) {
            const int m = ms[size_t(i)];
            const Machine& mc = cluster.machines[size_t(m)];
            const QString type = mc.type >= 0 && mc.type < int(cluster.types.size())
                                     ? QString::fromStdString(cluster.types[size_t(mc.type)].name)
                                     : QStringLiteral("?");
            const double mx = x + (groupW - (cols * kMachineW + (cols - 1) * kColGap)) / 2 + (i % cols) * (kMachineW + kColGap);
            const double my = kSwitchH + 40 + (i / cols) * (kMachineH + kRowGap);
            auto* it = new NodeItem(QRectF(0, 0, kMachineW, kMachineH), KindMachine, m,
                                    QStringLiteral("%1\n%2\u00d7%3").arg(QString::fromStdString(mc.name)).arg(mc.gpus).arg(type),
                                    machineFill, border, text, sel);
            it->setPos(mx, my);
            it->setZValue(2);
            m_scene->addItem(it);
            m_machineItems[size_t(m)] = it;
            if (g < nsw) {
                // Wire to the switch: only the first row connects visually to keep big racks readable.
                auto* l = m_scene->addLine(QLineF(sc + QPointF(0, kSwitchH / 2.0), QPointF(mx + kMachineW / 2.0, my)), QPen(wire, 1));
                l->setZValue(0);
                if (i >= cols)
                    l->setVisible(false);
            }
        }
        x += groupW + kGroupGap;
    }

    // Explicit switch-to-switch links arc above the row so that they never run through other switches.
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    for (const Link& lk : cluster.links) {
        if (lk.a < 0 || lk.a >= nsw || lk.b < 0 || lk.b >= nsw)
            continue;
        const QPointF a = swCentre[size_t(lk.a)] - QPointF(0, kSwitchH / 2.0);
        const QPointF b = swCentre[size_t(lk.b)] - QPointF(0, kSwitchH / 2.0);
        const double h = 30 + 0.25 * std::fabs(b.x() - a.x());
        QPainterPath path(a);
        const QPointF ctrl((a.x() + b.x()) / 2, std::min(a.y(), b.y()) - h);
        path.quadTo(ctrl, b);
        auto* pi = m_scene->addPath(path, QPen(linkColor, 2));
        pi->setZValue(1);
        auto* label = m_scene->addSimpleText(gbps(lk.gbps), small);
        label->setBrush(text);
        const QPointF mid = path.pointAtPercent(0.5);
        label->setPos(mid - QPointF(label->boundingRect().width() / 2, label->boundingRect().height() + 1));
        label->setZValue(3);
        ++m_linkCount;
    }
    // Without explicit links switches meet at an implicit core (their uplinks).
    if (cluster.links.empty() && nsw > 1) {
        const QPointF core((swCentre.front().x() + swCentre.back().x()) / 2, -90);
        auto* c = m_scene->addEllipse(QRectF(core - QPointF(40, 14), QSizeF(80, 28)), QPen(border), QBrush(machineFill));
        c->setZValue(2);
        auto* t = m_scene->addSimpleText(tr("core"), small);
        t->setBrush(text);
        t->setPos(core - QPointF(t->boundingRect().width() / 2, t->boundingRect().height() / 2));
        t->setZValue(3);
        for (int s = 0; s < nsw; ++s) {
            auto* l = m_scene->addLine(QLineF(core + QPointF(0, 14), swCentre[size_t(s)] - QPointF(0, kSwitchH / 2.0)),
                                       QPen(wire, 1, Qt::DashLine));
            l->setZValue(0);
        }
    }
    m_scene->setSceneRect(m_scene->itemsBoundingRect().adjusted(-20, -20, 20, 20));
    m_rebuilding = false;
    if (m_autoFit)
        fitAll();
    selectIds(keepM, keepS);
}

QList<int> TopologyEditorView::selectedMachines() const
{
    QList<int> out;
    for (int m = 0; m < int(m_machineItems.size()); ++m)
        if (m_machineItems[size_t(m)] && m_machineItems[size_t(m)]->isSelected())
            out << m;
    return out;
}

QList<int> TopologyEditorView::selectedSwitches() const
{
    QList<int> out;
    for (int s = 0; s < int(m_switchItems.size()); ++s)
        if (m_switchItems[size_t(s)] && m_switchItems[size_t(s)]->isSelected())
            out << s;
    return out;
}

void TopologyEditorView::selectIds(const QList<int>& machines, const QList<int>& switches)
{
    const bool was = m_rebuilding;
    m_rebuilding = true; // one signal at the end, not one per item
    m_scene->clearSelection();
    for (int m : machines)
        if (auto* it = machineItem(m))
            it->setSelected(true);
    for (int s : switches)
        if (auto* it = switchItem(s))
            it->setSelected(true);
    m_rebuilding = was;
    onSceneSelectionChanged();
}

QGraphicsItem* TopologyEditorView::machineItem(int m) const
{
    return m >= 0 && m < int(m_machineItems.size()) ? m_machineItems[size_t(m)] : nullptr;
}

QGraphicsItem* TopologyEditorView::switchItem(int s) const
{
    return s >= 0 && s < int(m_switchItems.size()) ? m_switchItems[size_t(s)] : nullptr;
}

void TopologyEditorView::fitAll()
{
    m_autoFit = true;
    fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    if (transform().m11() > 1.5) // a tiny cluster should not be blown up
        setTransform(QTransform::fromScale(1.5, 1.5));
}

void TopologyEditorView::resizeEvent(QResizeEvent* e)
{
    QGraphicsView::resizeEvent(e);
    if (m_autoFit)
        fitAll();
}

void TopologyEditorView::connectSelectedSwitches()
{
    const QList<int> s = selectedSwitches();
    if (s.size() == 2)
        Q_EMIT requestConnect(s[0], s[1]);
}

void TopologyEditorView::onSceneSelectionChanged()
{
    if (m_rebuilding)
        return;
    Q_EMIT selectionChangedIds(selectedMachines(), selectedSwitches());
}

int TopologyEditorView::switchAt(const QPoint& viewPos) const
{
    for (QGraphicsItem* it : items(viewPos))
        if (it->data(0).toInt() == KindSwitch)
            return it->data(1).toInt();
    return -1;
}

void TopologyEditorView::mousePressEvent(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton && (e->modifiers() & Qt::ShiftModifier)) {
        const int s = switchAt(e->position().toPoint());
        if (s >= 0) {
            // Shift-drag from a switch draws a link request instead of a rubber band.
            m_connectFrom = s;
            const QPointF a = m_switchItems[size_t(s)]->pos();
            m_rubberLine = m_scene->addLine(QLineF(a, a), QPen(palette().color(QPalette::Highlight), 2, Qt::DashLine));
            m_rubberLine->setZValue(5);
            e->accept();
            return;
        }
    }
    QGraphicsView::mousePressEvent(e);
}

void TopologyEditorView::mouseMoveEvent(QMouseEvent* e)
{
    if (m_connectFrom >= 0 && m_rubberLine) {
        auto* l = static_cast<QGraphicsLineItem*>(m_rubberLine);
        l->setLine(QLineF(l->line().p1(), mapToScene(e->position().toPoint())));
        e->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(e);
}

void TopologyEditorView::mouseReleaseEvent(QMouseEvent* e)
{
    if (m_connectFrom >= 0) {
        const int to = switchAt(e->position().toPoint());
        const int from = m_connectFrom;
        m_connectFrom = -1;
        if (m_rubberLine) {
            m_scene->removeItem(m_rubberLine);
            delete m_rubberLine;
            m_rubberLine = nullptr;
        }
        if (to >= 0 && to != from)
            Q_EMIT requestConnect(from, to);
        e->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(e);
}

void TopologyEditorView::mouseDoubleClickEvent(QMouseEvent* e)
{
    for (QGraphicsItem* it : items(e->position().toPoint())) {
        const int kind = it->data(0).toInt();
        if (kind == KindMachine) {
            Q_EMIT machineDoubleClicked(it->data(1).toInt());
            return;
        }
        if (kind == KindSwitch) {
            Q_EMIT switchDoubleClicked(it->data(1).toInt());
            return;
        }
    }
    QGraphicsView::mouseDoubleClickEvent(e);
}

void TopologyEditorView::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Delete || e->key() == Qt::Key_Backspace) {
        const QList<int> m = selectedMachines(), s = selectedSwitches();
        if (!m.isEmpty() || !s.isEmpty()) {
            Q_EMIT requestDelete(m, s);
            e->accept();
            return;
        }
    }
    QGraphicsView::keyPressEvent(e);
}

void TopologyEditorView::wheelEvent(QWheelEvent* e)
{
    if (e->modifiers() & Qt::ControlModifier) {
        const double f = std::pow(1.15, e->angleDelta().y() / 120.0);
        m_autoFit = false;
        scale(f, f);
        e->accept();
        return;
    }
    QGraphicsView::wheelEvent(e);
}

} // namespace ss
