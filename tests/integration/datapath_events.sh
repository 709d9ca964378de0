#!/bin/sh
# SPDX-License-Identifier: MIT
# Completion events with poll() on a completion channel between two pods: solicited-only arm, next-completion arm, quiet when unarmed.
# (tests/integration/datapath/dpt_events.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_events || fail "dpt_events"
