"""Work ahead: a new plan drops the last plan's jobs not started; the one running finishes; all at low priority."""

from __future__ import annotations

import os
import threading

from app.services.ahead import Ahead


def test_a_new_plan_drops_what_has_not_started_and_lets_the_running_job_finish():
    ahead, done = Ahead("test-ahead"), []
    started, release = threading.Event(), threading.Event()

    def held():
        started.set()
        release.wait(30)
        done.append("held")

    ahead.plan([held, lambda: done.append("stale 1"), lambda: done.append("stale 2")])
    assert started.wait(30)
    ahead.plan([lambda: done.append("new")])
    release.set()
    ahead.idle(60)
    assert done == ["held", "new"]


def test_a_failing_job_does_not_stop_the_next():
    ahead, done = Ahead("test-ahead"), []
    ahead.plan([lambda: 1 / 0, lambda: done.append("next")])
    ahead.idle(60)
    assert done == ["next"]


def test_jobs_run_at_a_lower_priority_than_the_caller():
    ahead = Ahead("test-ahead")
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    theirs = ahead.pool.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result(60)
    assert theirs == min(19, mine + 10)
