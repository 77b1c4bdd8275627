#pragma once
// Include QCustomPlot through this header: qcustomplot.h uses the `signals` and `foreach` keywords, which
// QT_NO_KEYWORDS (project-wide, for LibTorch) removes. The macros exist only while the header is read.
#if defined(QT_NO_KEYWORDS)
#  include <QtGlobal>
#  include <QObject>
#  if !defined(signals)
#    define signals Q_SIGNALS
#    define SS_QCP_UNDEF_SIGNALS
#  endif
#  if !defined(foreach)
#    define foreach Q_FOREACH
#    define SS_QCP_UNDEF_FOREACH
#  endif
#endif
#include <qcustomplot.h>
#if defined(SS_QCP_UNDEF_SIGNALS)
#  undef signals
#  undef SS_QCP_UNDEF_SIGNALS
#endif
#if defined(SS_QCP_UNDEF_FOREACH)
#  undef foreach
#  undef SS_QCP_UNDEF_FOREACH
#endif
