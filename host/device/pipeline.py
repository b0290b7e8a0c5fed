"""Several SOLVEs in flight: the device's queue kept full, answers matched by SEQ, in order.

docs/design.md section 4.  The device holds VERSION's ``queue`` SOLVEs (the one it solves
and those waiting) and answers them in order; a :class:`Pipeline` keeps that many of its
:class:`Job`\\ s on the device, each under a SEQ of its own, and gives them back done, in
the order they came.  Nothing but the SEQ says which request a reply answers, and an answer
is taken only if it is the one its request asked for: ANSWER, or RESULT / DEDUCE_RESULT when
the request asked for the counters, of its mode, its size and its uniqueness.  (Every
colouring still goes through the rules checker, :func:`host.engines.checked`.)

A request or an answer lost on the way is asked for again by sending the same request again
(the same SEQ and bytes: the device drops it while it is queued or being solved, answers it
from its store when it was answered, solves it when it never got it), or, where the answer
is more likely lost than the request, by a RESEND that names it (9 bytes: the device sends
the stored answer again, or says PENDING, or UNKNOWN_SEQ and the SOLVE follows):

* at once when the answer to a request sent *after* it comes first (the device answers its
  queue in order: the earlier request, or its answer, was lost): a RESEND for the head;
* at once when a damaged frame comes back: a RESEND for the oldest request in flight (the
  head: its answer comes next);
* at once when the device reports a frame of ours damaged (an ERROR with SEQ 0): the last
  request sent (no later answer will tell of its loss);
* after silence (the head's wait, :mod:`host.device.link`): first a RESEND that looks for
  the head (a long search answers PENDING: the device is alive and has it, so its wait
  doubles and nothing is sent again); after silence to that too, the flush, the head
  again, and a PING that probes the device (alive: it answers the PING also while it
  searches; its VERSION starts the head's count of attempts afresh).

The SOLVEs that go out together, the first ones and those whose places the answers read
together freed (once those answers are taken), go in one write.

After a loss the pipeline keeps one request in flight (the more bytes on a lossy line at
once, the more of them damaged) and opens up again by one with every answer that came at
the first attempt.

The head waits for its search (:meth:`Pipeline._search_wait`: the search allowance only when
the counters are asked for) from the
moment it is the head, and its resends are bounded as a request's are
(:meth:`host.device.link.LinkTiming.solve_bound`): when they run out, the head fails with
the link's error and :meth:`Pipeline.run` raises it, the rest left for a new connection.
A request the device refuses fails alone (ERROR TOO_LARGE, NO_DEDUCE, ...); one it refuses as
BUSY (its queue full of another's requests) is sent again after the next answer or after a
wait.  With a time limit one SOLVE is in flight at a time: its ABORT would empty the
device's queue.
"""

import collections
import itertools
import queue
import threading

from .. import protocol as P
from .connection import _Attempts, _Heard, is_damage_report, lengths, refuses
from .errors import BoardError, DeviceError, NoAnswer, TooLarge

__all__ = ["Job", "Inputs", "Pipeline"]

NEW, SENT, DONE = "new", "sent", "done"


class Job:
    """One puzzle's SOLVE: ``mode``, ``unique``, ``bound`` (SOLVE's ``max_checks``),
    ``counters`` (FLAG_COUNTERS), ``label`` (for messages) and ``key`` (the caller's).
    Done, it has a ``reply`` (an answer of :data:`host.protocol.OUTCOMES`) and ``seconds``
    (from its first send to its answer), or an ``error``.  A job made with ``error`` (or
    ``done=True``) is passed through in its place, unsent."""

    def __init__(self, puzzle, *, mode=P.Mode.DEDUCE, unique=False, bound=0, counters=False,
                 label=None, key=None, error=None, done=False):
        self.puzzle, self.mode = puzzle, P.as_mode(mode)
        self.unique, self.bound, self.counters = bool(unique), bound, bool(counters)
        self.label = label or (f"{puzzle.size} puzzle" if puzzle is not None else "input")
        self.key = key
        self.error, self.reply = error, None
        self.state = DONE if error is not None or done else NEW
        self.reset()

    def reset(self):
        """Unsent again (for a new connection)."""
        if self.state is not DONE:
            self.state = NEW
        self.seq = self.frame = None
        self.first_sent = self.last_sent = self.answered = None
        self.order = None   # the number of its last send, in the order the device hears them
        self.sends = self.busy = 0
        self.attempts = self.until = self.limit_at = None
        self.probes = 0
        self.looked = False  # a RESEND looked for it after silence, not answered yet
        self.not_busy = 0   # ABORTs answered NOT_BUSY: the device had no search of ours
        self.missing = 0    # RESENDs in a row answered: the device does not have the SOLVE
        self.aborting = False

    @property
    def reply_len(self):
        """The bytes of its answer (solved, the longest)."""
        return P.OVERHEAD + P.reply_length(self.puzzle.rows, self.puzzle.cols, True,
                                           mode=self.mode, counters=self.counters)

    @property
    def seconds(self):
        if self.first_sent is None or self.answered is None:
            return 0.0
        return self.answered - self.first_sent

    def encode(self, seq):
        return P.encode_solve(self.puzzle, mode=self.mode, unique=self.unique,
                              max_checks=self.bound, counters=self.counters, seq=seq)

    def accepts(self, reply):
        """Whether ``reply`` is the answer this request asked for."""
        if self.counters:
            expected = P.DeduceResultReply if self.mode is P.Mode.DEDUCE else P.ResultReply
        else:
            expected = P.AnswerReply
        return (type(reply) is expected and reply.mode is self.mode
                and (reply.rows, reply.cols, reply.unique)
                == (self.puzzle.rows, self.puzzle.cols, self.unique))

    def fail(self, error, now):
        self.error, self.state, self.answered = error, DONE, now


_END = object()


class Inputs:
    """The jobs of a pipeline, taken in order as its window has room: from a list at once,
    from any other iterable through a thread (e.g. puzzles read from standard input as they
    come), so that the pipeline never waits for its next input while answers are due.
    ``make``, if given, turns an item into its :class:`Job` as it is taken (in the taker's
    thread).  Jobs put back (:meth:`put_back`, for a new connection) come first."""

    def __init__(self, jobs, make=None):
        self._back = collections.deque()
        self._ended = False
        self._make = make
        if isinstance(jobs, (list, tuple)):
            self._items, self._queue = collections.deque(jobs), None
            return
        self._items, self._queue = None, queue.Queue()

        def pump(source=iter(jobs), out=self._queue):
            try:
                for job in source:
                    out.put(job)
            except BaseException as error:  # noqa: BLE001 -- handed to the reader
                out.put(error)
            out.put(_END)
        threading.Thread(target=pump, name="pipeline-inputs", daemon=True).start()

    @property
    def exhausted(self):
        if self._back:
            return False
        if self._queue is None:
            return not self._items
        return self._ended

    def put_back(self, jobs):
        self._back.extendleft(reversed(list(jobs)))

    def get(self, timeout=0.0):
        """The next job, or None when none has come within ``timeout`` seconds (or there
        are no more: see :attr:`exhausted`)."""
        if self._back:
            return self._back.popleft()
        if self._queue is None:
            return self._made(self._items.popleft()) if self._items else None
        if self._ended:
            return None
        try:
            item = self._queue.get(timeout=timeout) if timeout > 0 else \
                self._queue.get_nowait()
        except queue.Empty:
            return None
        if item is _END:
            self._ended = True
            return None
        if isinstance(item, BaseException):
            self._ended = True
            raise item
        return self._made(item)

    def _made(self, item):
        return item if self._make is None else self._make(item)


class Pipeline:
    """The SOLVEs of one connection (see the module docstring): at most ``depth`` in flight
    (the device's queue by default; 1 with a ``time_limit``, seconds after which a search
    is ended with an ABORT)."""

    def __init__(self, connection, *, depth=None, time_limit=None):
        self.c = connection
        queue_depth = connection.depth
        self.depth = 1 if time_limit is not None else \
            max(1, min(depth or queue_depth, queue_depth))
        self.time_limit = time_limit
        self.limit = self.depth             # in flight now: 1 after a loss, growing back
        self.window = collections.deque()   # jobs taken, not yet given back, in order
        self._by_seq = {}                  # SEQ -> job in flight
        self._order = itertools.count()
        self._probe = self._abort_seq = None
        self._wait = self._heard = self._wait_job = None
        self._resent_in_wait = False

    @property
    def clock(self):
        return self.c.clock

    # -- the loop --

    def run(self, jobs):
        """Solve the jobs of ``jobs`` (an iterable or :class:`Inputs`); yields each done, in
        their order.  When the link fails for the oldest in flight, that job fails with the
        error, which is raised; the jobs not done stay in :attr:`window`."""
        inputs = jobs if isinstance(jobs, Inputs) else Inputs(jobs)
        try:
            while True:
                if not self._replies_waiting():  # the replies read together are taken first
                    self._take(inputs, wait=False)
                    self._fill(self.clock())     # the places they freed, in one write
                    while self.window and self.window[0].state is DONE:
                        yield self.window.popleft()
                if not self.window and inputs.exhausted:
                    return
                self._take(inputs)
                self._step()
        finally:
            for seq in list(self._by_seq) + [self._probe, self._abort_seq]:
                if seq is not None:
                    self.c.ledger.release(seq)

    def _replies_waiting(self):
        """Whether replies read together wait to be taken, a job in flight to take them."""
        return self.c.events_waiting() and self._head() is not None

    def _in_flight(self):
        return [job for job in self.window if job.state is SENT]

    def _take(self, inputs, wait=True):
        """Take jobs into the window while it has room; with ``wait``, when none is in
        flight, wait a little for the next input."""
        room = self.depth - sum(job.state is not DONE for job in self.window)
        idle = wait and not any(job.state is SENT for job in self.window)
        while room > 0 and not inputs.exhausted:
            job = inputs.get(timeout=0.05 if idle else 0.0)
            if job is None:
                return
            self.window.append(job)
            room -= job.state is not DONE   # one passed through done takes no room

    def _head(self):
        """The oldest job in flight: the one whose answer comes next."""
        return next((job for job in self.window if job.state is SENT), None)

    def _step(self):
        now = self.clock()
        if not self._replies_waiting():
            self._fill(now)
        head = self._head()
        if head is None:  # nothing in flight: the next input is awaited
            return None
        if head.until is None:
            self._make_head(head, now)
        if self._wait is None or self._wait_job is not head:
            end = head.until if head.aborting or head.limit_at is None else \
                min(head.until, head.limit_at)
            self._wait, self._heard, self._wait_job = self.c.new_wait(end), _Heard(), head
            self._resent_in_wait = False
        event, nbytes = self.c.next_event(self._wait, once=True)
        self._heard.garbage += nbytes
        if event is not None:
            return self._event(event)
        if self._wait.remaining() > 0 or self._answer_on_its_way(head):
            return None
        self._heard.noisy = self._wait.noisy()
        self.c.cut_short(self._wait, self._heard)
        if self.c.events_waiting():  # a frame cut short left frames behind it
            return None
        if not head.aborting and head.limit_at is not None and self.clock() >= head.limit_at:
            return self._abort(head)
        return self._timed_out(head)

    def _answer_on_its_way(self, head):
        """A frame is arriving as the head's wait ends (its last byte within the link's
        gap): it may be the answer, so the wait is extended once, by the wait for the
        answer's bytes alone, and ends early when the bytes stop."""
        wait = self._wait
        if wait.extended or not self.c.decoder.pending or wait.quiet():
            return False
        wait.extend(self.c.timing.attempt_wait(0, head.reply_len, 0))
        return True

    def _fill(self, now):
        """Send the new jobs the window has places for, in one write."""
        in_flight = len(self._in_flight())
        frames = []
        for job in self.window:
            if in_flight >= self.limit:
                break
            if job.state is NEW:
                frames.append(self._counted_sent(job, now))
                in_flight += 1
        if frames:
            self.c.write_frames(frames)

    def _send(self, job, now, why=""):
        self.c.write_frames([self._counted_sent(job, now, why)])

    def _counted_sent(self, job, now, why=""):
        """``job`` counted as sent now; its SOLVE and what it is, ``(frame, what)``, for the
        caller to write."""
        if job.seq is None:
            job.seq = self.c.ledger.take()
            job.frame = job.encode(job.seq)
            self._by_seq[job.seq] = job
        if job.first_sent is None:
            job.first_sent = now
        job.state = SENT
        job.refused = False
        job.sends += 1
        job.order = next(self._order)
        job.last_sent = now
        if job.sends > 1:
            self.c.resends += 1
        if job.limit_at is None and self.time_limit is not None:
            job.limit_at = now + self.time_limit
        return job.frame, f"{job.label}{': ' + why if why else ''}"

    def _make_head(self, head, now):
        """``head`` became the oldest in flight: its search is waited for from now."""
        c = self.c
        head.attempts = _Attempts(c, "SOLVE", len(head.frame) + lengths()["ping"],
                                  head.reply_len)
        head.until = now + self._search_wait(head)

    def _search_wait(self, head):
        """How long the head's search may stay silent before it is probed: with the counters
        asked for, the search allowance (:meth:`host.device.link.LinkTiming.search_wait`: a
        probe costs the device cycles, which its counters would show); without them, an
        attempt's wait, doubled with every probe answered, up to 16 times (a lost request
        is found in a fraction of a second, also on the virtual board)."""
        c = self.c
        if head.counters:
            return c.timing.search_wait(len(head.frame), head.reply_len, c.version.clock_hz,
                                        head.probes)
        return c.timing.attempt_wait(len(head.frame), head.reply_len, 0) * \
            2 ** min(head.probes, 4)

    def _rearm(self, head, wait):
        head.until = self.clock() + wait
        self._wait = None

    def _done(self, job):
        self._by_seq.pop(job.seq, None)
        self.c.ledger.release(job.seq)
        if job is self._wait_job:
            self._wait = None

    # -- what comes back --

    def _event(self, event):
        c, wait, heard = self.c, self._wait, self._heard
        reply, owed = c.reply_of(event, wait, heard)
        if reply is None:
            if isinstance(event, P.BadFrame):
                self._damaged("a damaged frame came back")
            return
        if reply.seq == 0:
            if is_damage_report(reply):
                return self._reported()
            return c.not_ours(reply, owed, wait, heard)
        if reply.seq == self._probe:
            if isinstance(reply, P.VersionReply):
                return self._alive()
            return c.not_ours(reply, owed, wait, heard)
        head = self._head()
        if reply.seq == self._abort_seq or (head is not None and head.aborting
                                            and reply.seq == head.seq):
            return self._abort_reply(head, reply, owed)
        job = self._by_seq.get(reply.seq)
        if job is None or job.state is not SENT:
            return c.not_ours(reply, owed, wait, heard)
        if isinstance(reply, P.OUTCOMES) and job.accepts(reply):
            return self._answered(job, reply)
        if isinstance(reply, P.ErrorReply):
            return self._refused(job, reply, owed)
        return c.not_ours(reply, owed, wait, heard)

    def _answered(self, job, reply):
        now = self.clock()
        job.reply, job.state, job.answered = reply, DONE, now
        self._done(job)
        if job.sends == 1:
            self.limit = min(self.depth, self.limit + 1)
        for other in self._in_flight():  # a place in the queue is free
            if other.refused:
                self._send(other, now, "after BUSY")
                break
        if job.sends == 1:  # searched in the device's order: what was sent before is lost
            for other in self._in_flight():
                if other.order < job.order:
                    self._lost(other, "the answer to a later request came first")

    def _refused(self, job, reply, owed):
        c, now = self.c, self.clock()
        code = reply.code
        if reply.request_type == P.MsgType.RESEND:
            return self._resend_refused(job, reply)
        if not refuses(reply, P.MsgType.SOLVE):   # a late ERROR to another request's SEQ
            return c.not_ours(reply, owed, self._wait, self._heard)
        if code == P.ErrorCode.BUSY:  # sent again after the next answer, or the head's wait
            job.busy += 1
            if job.busy > c.retries:
                job.fail(NoAnswer(f"{c.what} stayed busy: its queue was full at "
                                  f"{job.busy} SOLVEs of the {job.label} in a row"), now)
                return self._done(job)
            job.refused = True
            if job is self._head():
                self._rearm(job, c.timing.attempt_wait(len(job.frame), job.reply_len,
                                                       job.busy))
            return None
        if code == P.ErrorCode.TOO_LARGE:
            job.fail(TooLarge(f"{c.what} refused the {job.label} as larger than it was "
                              f"built for ({reply})"), now)
        elif code == P.ErrorCode.NO_DEDUCE:
            if job.mode is not P.Mode.DEDUCE:
                return c.not_ours(reply, owed, self._wait, self._heard)
            job.fail(c.no_deduce(f"answered the SOLVE with {reply.name} (detail "
                                 f"{reply.detail})"), now)
        elif code == P.ErrorCode.NO_ACCELERATOR:
            if job.mode is not P.Mode.PAPER:
                return c.not_ours(reply, owed, self._wait, self._heard)
            job.fail(c.no_accelerator(f"answered the SOLVE with {reply.name} (detail "
                                      f"{reply.detail})"), now)
        else:
            job.fail(DeviceError(f"{c.what} refused the {job.label}: {reply}"), now)
        return self._done(job)

    # -- sending again --

    def _resend_head(self, head, damaged, why, flush=False, ask=False):
        """Count a failed attempt of the head (raises when they have run out) and send it
        again; after silence the flush first, the rest in flight again, and a probe.  With
        ``ask`` (its answer was most likely lost, the SOLVE not) a RESEND asks for the
        answer instead: 9 bytes instead of the whole SOLVE."""
        self._failed_attempt(head, damaged=damaged, why=why)
        self.limit = 1  # a loss: one in flight until answers come clean again
        flushed = self.c.flush() if flush else 0
        now = self.clock()
        if head.aborting:
            self.c._write(P.encode_abort(self._abort_seq), "ABORT again")
        elif ask:
            self._ask_again(head, now)
        else:
            self._send(head, now, "again")
            if flush:
                self._probe_device()
        self._rearm(head, head.attempts.wait(flushed))
        self._resent_in_wait = True

    def _failed_attempt(self, head, **how):
        """Count a failed attempt of the head (:meth:`_Attempts.failed`; its sends are
        counted as they go, by :meth:`_send` and :meth:`_ask_again`); when they have run
        out, the head fails and the error is raised."""
        waited = self.clock() - self._wait.begin if self._wait is not None else 0.0
        heard = self._heard if self._heard is not None else _Heard()
        try:
            head.attempts.failed(waited, heard, count=False, **how)
        except BoardError as error:
            head.fail(error, self.clock())
            self._done(head)
            raise

    def _ask_again(self, job, now):
        """RESEND: ask for the answer to ``job``'s SOLVE again (the device sends it again
        from its store, or says where the SOLVE is: :meth:`_resend_refused`)."""
        job.sends += 1     # answered now, it was not answered at the first send
        job.last_sent = now
        self.c.resends += 1
        self._write_resend(job, "its answer again")

    def _write_resend(self, job, why):
        """A RESEND naming ``job``'s SOLVE by its SEQ and CRC."""
        self.c._write(P.encode_resend(P.frame_crc(job.frame), job.seq), f"{job.label}: {why}")

    def _resend_refused(self, job, reply):
        """The device's ERROR to a RESEND: PENDING, the SOLVE is there (queued or being
        solved: the head's search is waited for afresh); anything else (UNKNOWN_SEQ, or a
        device without RESEND), the SOLVE itself is sent again, at most ``retries`` times in
        a row (the device answers, so its link works, but the SOLVE never arrives whole:
        :class:`NoAnswer`)."""
        head, c = self._head(), self.c
        if reply.code == P.ErrorCode.PENDING:
            job.missing = 0
            if job is head and not head.aborting:
                self._searching(head)
            return None
        job.missing += 1
        if job.missing > c.retries:  # it is alive, but never gets this SOLVE whole
            job.fail(NoAnswer(f"{c.what} did not get the SOLVE of the {job.label}: it said "
                              f"so to {job.missing} RESENDs in a row"), self.clock())
            return self._done(job)
        if job is head and head.attempts is not None:
            head.attempts.alive()   # it answered: the loss was the SOLVE's
        self._send(job, self.clock(), "the device does not have it")
        return None

    def _timed_out(self, head):
        """The head's wait ran out: silence (or garbage, then quiet).  After silence, a
        RESEND looks for the head first: most often its search is only long (PENDING), and
        a lost answer comes back from the device's store; silence to that too (or garbage)
        brings the flush, the head again and a probe.  Each silence is one attempt of the
        head's (:class:`_Attempts`), so a silent device is reported after as many waits as
        before."""
        if not (head.looked or head.aborting or self._heard.anything):
            self._failed_attempt(head, look=True)
            head.looked = True
            self._look(head)
            self._rearm(head, head.attempts.wait())
            return None
        head.looked = False
        self._resend_head(head, False, None, flush=not self._wait.short)
        return None

    def _look(self, job):
        """RESEND after silence: where is ``job``'s SOLVE?  Not a resend: nothing of it is
        sent again unless the device does not have it."""
        self._write_resend(job, "where is it?")

    def _searching(self, head):
        """The device has the head, queued or searching (PENDING, or a probe's VERSION): it
        is alive, and the head's search is waited for again, twice as long as before."""
        head.attempts.alive()
        head.looked = False
        head.probes += 1
        self._rearm(head, self._search_wait(head))

    def _lost(self, job, why):
        head = self._head()
        if job is head and head.attempts is not None:
            return self._resend_head(head, True, why, ask=True)
        self._send(job, self.clock(), "again")
        return None

    def _damaged(self, why):
        """A damaged frame came back: most likely the head's answer."""
        head = self._head()
        if head is not None and not self._resent_in_wait:
            self._resend_head(head, True, why, ask=True)

    def _reported(self):
        """The device reports a frame of ours damaged: send the last one sent again (the
        loss of an earlier one shows when a later one is answered first)."""
        in_flight = self._in_flight()
        if not in_flight:
            return None
        tail = max(in_flight, key=lambda job: job.order)
        head = self._head()
        if tail is not head:
            self._send(tail, self.clock(), "again")
        elif not self._resent_in_wait:
            self._resend_head(head, True, "the device got our frame damaged")
        return None

    def _probe_device(self):
        if self._probe is not None:
            self.c.ledger.release(self._probe)
        self._probe = self.c.ledger.take()
        self.c._write(P.encode_ping(self._probe), "probe")

    def _alive(self):
        """The probe's VERSION: the device is alive (searching, or at work on the queue)."""
        self.c.ledger.release(self._probe)
        self._probe = None
        head = self._head()
        if head is None or head.aborting:
            return
        self._searching(head)

    # -- the time limit (one SOLVE in flight) --

    def _abort(self, head):
        c = self.c
        if self._abort_seq is not None:
            c.ledger.release(self._abort_seq)
        self._abort_seq = c.ledger.take()
        frame = P.encode_abort(self._abort_seq)
        c._write(frame, "time limit")
        head.aborting = True
        head.attempts = _Attempts(c, "ABORT", len(frame), head.reply_len)
        self._rearm(head, head.attempts.wait())

    def _abort_reply(self, head, reply, owed):
        """What the device said to the ABORT: the search's reply, aborted (with the SOLVE's
        SEQ, or the ABORT's), or NOT_BUSY: the search had ended, its answer lost (or never
        asked for): ask for it again, and ABORT again after a short wait."""
        c = self.c
        if isinstance(reply, P.OUTCOMES) and head is not None and head.accepts(reply):
            return self._answered(head, reply)
        if isinstance(reply, P.ErrorReply) and reply.code == P.ErrorCode.NOT_BUSY \
                and reply.seq == self._abort_seq and head is not None and head.aborting:
            head.not_busy += 1
            if head.not_busy > c.retries:  # it never searches ours: no answer will come
                head.fail(NoAnswer(f"no answer from {c.what} to the {head.label}: it "
                                   f"answered {head.not_busy} ABORTs in a row with "
                                   f"NOT_BUSY, no search of it running (--retries "
                                   f"{c.retries})"), self.clock())
                self._done(head)
                raise head.error
            head.aborting = False
            head.attempts = _Attempts(c, "SOLVE", len(head.frame), head.reply_len)
            wait = head.attempts.wait()
            head.limit_at = self.clock() + wait
            self._send(head, self.clock(), "after NOT_BUSY")
            return self._rearm(head, wait)
        return c.not_ours(reply, owed, self._wait, self._heard)
