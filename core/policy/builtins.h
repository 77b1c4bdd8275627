#pragma once
// The built-in policies of core/policy, one line each. Their files register themselves with a
// PolicyRegistrar; this list only keeps those files linked (core/policy is a static library).
#define SS_BUILTIN_POLICIES(X) \
    X(admitall)                \
    X(fifo)                    \
    X(sjf)                     \
    X(edf)                     \
    X(drf)                     \
    X(tiresias)                \
    X(firstfit)                \
    X(bestfit)                 \
    X(loadbalance)             \
    X(consolidate)             \
    X(randomplacement)         \
    X(tetris)
