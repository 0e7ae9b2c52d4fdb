"""The thread pool's runtime in LLVM IR (`tlir.compiler.pool` loads it and states its rules).

`runtime_ir()` is the pool itself: `tlir_rt_pool_parallel` (chunks claimed from
one atomic word, the caller taking part, the stall back-off), the workers'
loop, and the calls that set its knobs, reset it after a fork and read its
counts. `STUB` is the `tlir_rt_parallel` every entry function links against.
"""

from __future__ import annotations

import platform

SPIN = 1000
"""Checks (each with a spin-loop hint, about 40 ns here) before an idle worker sleeps."""

CALLER_SPIN = 5000
"""Checks before a caller waiting for a worker's last chunk sleeps: its call
waits for the wake-up (a 20 µs spin left the MLP's 2-thread speed-up at
1.45-1.5x, 0.2 ms at 1.55-1.65x)."""

PENALTY = 16
"""How long steps run on one thread after a stalled step, in times what it
takes on one thread (doubled after each further stall, up to `MAX_BACKOFF` times, halved again
after each step the workers sped up)."""

MAX_BACKOFF = 64

COUNTS = ("pool", "stalled", "alone", "unhelped", "slow")
"""The runtime's counts (`_Runtime.counts`): threaded steps run on the pool, of
which stalled; steps run on their caller's thread alone after a stall;
threaded steps no worker took part in (the caller claimed every iteration);
steps that took half as long again as one thread at the best pace seen for
their function but were no stall (every chunk ran slower)."""

CLOSED = 0xFFFFFFFF
"""The `next` half of the state word of a job that takes no more claims."""

PTHREAD_FUNCTIONS = frozenset(
    {
        "pthread_mutex_lock",
        "pthread_mutex_unlock",
        "pthread_cond_wait",
        "pthread_cond_broadcast",
        "sched_setscheduler",
    }
)

_RUNTIME = """
@tlir.rt.state = internal global i64 CLOSED, align 64
@tlir.rt.done = internal global i64 0, align 64
@tlir.rt.gen = internal global i32 0, align 64
@tlir.rt.fn = internal global ptr null, align 64
@tlir.rt.args = internal global ptr null, align 8
@tlir.rt.n = internal global i64 0, align 8
@tlir.rt.team = internal global i64 1, align 8
@tlir.rt.busy = internal global i32 0, align 64
@tlir.rt.sleepers = internal global i32 0, align 64
@tlir.rt.waiting = internal global i32 0, align 64
@tlir.rt.workers = internal global i32 0, align 64
@tlir.rt.spin = internal global i32 SPIN, align 4
@tlir.rt.caller_spin = internal global i32 CALLER_SPIN, align 4
@tlir.rt.counts = internal global [5 x i64] zeroinitializer, align 64
@tlir.rt.pace_keys = internal global [64 x i64] zeroinitializer, align 64
@tlir.rt.pace_values = internal global [64 x i64] zeroinitializer, align 64
@tlir.rt.pace_until = internal global [64 x i64] zeroinitializer, align 64
@tlir.rt.pace_backoff = internal global [64 x i64] zeroinitializer, align 64
@tlir.rt.penalty = internal global i64 PENALTY, align 8
@tlir.rt.mutex = internal global [64 x i8] zeroinitializer, align 64
@tlir.rt.work = internal global [64 x i8] zeroinitializer, align 64
@tlir.rt.finished = internal global [64 x i8] zeroinitializer, align 64

declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare i64 @llvm.readcyclecounter()
declare i32 @sched_setscheduler(i32, i32, ptr)
PAUSE_DECLARATION

; Claim chunks of job %g until it has none left (or is no longer the job).
; The state word is (generation << 32) | next: a claim that succeeds proves
; that the fields read before it belong to job %g (they are written only
; while the state is closed).
define internal i64 @tlir.rt.claim(i64 %g) {
entry:
  br label %loop
loop:
  %claimed = phi i64 [ 0, %entry ], [ %claimed, %size ], [ %claimed1, %again ]
  %w = load atomic i64, ptr @tlir.rt.state seq_cst, align 8
  %wg = lshr i64 %w, 32
  %same = icmp eq i64 %wg, %g
  br i1 %same, label %check, label %out
check:
  %lo = and i64 %w, 4294967295
  %n = load atomic i64, ptr @tlir.rt.n acquire, align 8
  %more = icmp ult i64 %lo, %n
  br i1 %more, label %size, label %out
size:
  %t0 = load atomic i64, ptr @tlir.rt.team acquire, align 8
  %t_ok = icmp ugt i64 %t0, 0
  %t = select i1 %t_ok, i64 %t0, i64 1
  %left = sub i64 %n, %lo
  %share = udiv i64 %left, %t
  %big = icmp ugt i64 %share, 1
  %step = select i1 %big, i64 %share, i64 1
  %f = load atomic ptr, ptr @tlir.rt.fn acquire, align 8
  %a = load atomic ptr, ptr @tlir.rt.args acquire, align 8
  %next = add i64 %w, %step
  %pair = cmpxchg ptr @tlir.rt.state, i64 %w, i64 %next seq_cst seq_cst
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %run, label %loop
run:
  %hi = add i64 %lo, %step
  call void %f(ptr %a, i64 %lo, i64 %hi)
  %claimed1 = add i64 %claimed, %step
  %old = atomicrmw add ptr @tlir.rt.done, i64 %step seq_cst
  %now = add i64 %old, %step
  %last = icmp eq i64 %now, %n
  br i1 %last, label %tell, label %again
again:
  br label %loop
tell:
  %waiting = load atomic i32, ptr @tlir.rt.waiting seq_cst, align 4
  %asleep = icmp ne i32 %waiting, 0
  br i1 %asleep, label %wake, label %out
wake:
  call i32 @pthread_mutex_lock(ptr @tlir.rt.mutex)
  call i32 @pthread_cond_broadcast(ptr @tlir.rt.finished)
  call i32 @pthread_mutex_unlock(ptr @tlir.rt.mutex)
  br label %out
out:
  %total = phi i64 [ %claimed, %loop ], [ %claimed, %check ],
                   [ %claimed1, %tell ], [ %claimed1, %wake ]
  ret i64 %total
}

; The slot of step function %f in the tables below.
define internal i64 @tlir.rt.slot(ptr %f) {
  %key = ptrtoint ptr %f to i64
  %h = lshr i64 %key, 4
  %slot = and i64 %h, 63
  ret i64 %slot
}

; The best pace (cycles per iteration, times 16) seen for step function %f,
; first taking a sample of %cycles for %iterations (none if 0); 0 if unknown.
; A small table keyed by the function's address: a heuristic, so a slot two
; functions share, or a race between two callers, costs only a guess.
define internal i64 @tlir.rt.pace(ptr %f, i64 %cycles, i64 %iterations) {
entry:
  %key = ptrtoint ptr %f to i64
  %slot = call i64 @tlir.rt.slot(ptr %f)
  %kp = getelementptr [64 x i64], ptr @tlir.rt.pace_keys, i64 0, i64 %slot
  %vp = getelementptr [64 x i64], ptr @tlir.rt.pace_values, i64 0, i64 %slot
  %k = load atomic i64, ptr %kp monotonic, align 8
  %v = load atomic i64, ptr %vp monotonic, align 8
  %known = icmp eq i64 %k, %key
  %old = select i1 %known, i64 %v, i64 -1
  %measured = icmp ne i64 %iterations, 0
  br i1 %measured, label %sample, label %look
sample:
  %c16 = shl i64 %cycles, 4
  %p = udiv i64 %c16, %iterations
  %better = icmp ult i64 %p, %old
  %best = select i1 %better, i64 %p, i64 %old
  store atomic i64 %best, ptr %vp monotonic, align 8
  br i1 %known, label %kept, label %claim_slot
claim_slot:  ; a new function in this slot: no back-off of the previous one
  %up = getelementptr [64 x i64], ptr @tlir.rt.pace_until, i64 0, i64 %slot
  store atomic i64 0, ptr %up monotonic, align 8
  %bp = getelementptr [64 x i64], ptr @tlir.rt.pace_backoff, i64 0, i64 %slot
  %base = load atomic i64, ptr @tlir.rt.penalty monotonic, align 8
  store atomic i64 %base, ptr %bp monotonic, align 8
  store atomic i64 %key, ptr %kp monotonic, align 8
  br label %kept
kept:
  ret i64 %best
look:
  %r = select i1 %known, i64 %v, i64 0
  ret i64 %r
}

; A worker's life: wait for a new job (spin, then sleep), take part if its
; number (1, 2, ...; the caller is 0) is below the job's team, repeat.
define ptr @tlir_rt_worker(ptr %arg) {
entry:
  BATCH_CALL
  %index = ptrtoint ptr %arg to i64
  %g0 = load atomic i32, ptr @tlir.rt.gen seq_cst, align 4
  br label %wait
wait:
  %seen = phi i32 [ %g0, %entry ], [ %g, %got ], [ %g, %work ]
  br label %spin
spin:
  %k = phi i32 [ 0, %wait ], [ %k1, %pause ]
  %cur = load atomic i32, ptr @tlir.rt.gen seq_cst, align 4
  %new = icmp ne i32 %cur, %seen
  br i1 %new, label %got, label %pause
pause:
  PAUSE_CALL
  %k1 = add i32 %k, 1
  %limit = load atomic i32, ptr @tlir.rt.spin monotonic, align 4
  %again = icmp ult i32 %k1, %limit
  br i1 %again, label %spin, label %sleep
sleep:
  call i32 @pthread_mutex_lock(ptr @tlir.rt.mutex)
  %s0 = atomicrmw add ptr @tlir.rt.sleepers, i32 1 seq_cst
  br label %recheck
recheck:
  %c = load atomic i32, ptr @tlir.rt.gen seq_cst, align 4
  %still = icmp eq i32 %c, %seen
  br i1 %still, label %block, label %woken
block:
  call i32 @pthread_cond_wait(ptr @tlir.rt.work, ptr @tlir.rt.mutex)
  br label %recheck
woken:
  %s1 = atomicrmw sub ptr @tlir.rt.sleepers, i32 1 seq_cst
  call i32 @pthread_mutex_unlock(ptr @tlir.rt.mutex)
  br label %got
got:
  %g = load atomic i32, ptr @tlir.rt.gen seq_cst, align 4
  %team = load atomic i64, ptr @tlir.rt.team acquire, align 8
  %joins = icmp ult i64 %index, %team
  br i1 %joins, label %work, label %wait
work:
  %g64 = zext i32 %g to i64
  %ignored = call i64 @tlir.rt.claim(i64 %g64)
  br label %wait
}

define void @tlir_rt_pool_parallel(ptr %f, ptr %args, i64 %n, i32 %threads) {
entry:
  %workers = load atomic i32, ptr @tlir.rt.workers acquire, align 4
  %alone = icmp eq i32 %workers, 0
  %one = icmp slt i32 %threads, 2
  %small = icmp ult i64 %n, 2
  %huge = icmp uge i64 %n, CLOSED
  %x1 = or i1 %alone, %one
  %x2 = or i1 %small, %huge
  %serial_case = or i1 %x1, %x2
  br i1 %serial_case, label %serial, label %recent
recent:
  ; a worker held a call up lately: on one thread for a while
  %t0 = call i64 @llvm.readcyclecounter()
  %fkey = ptrtoint ptr %f to i64
  %fslot = call i64 @tlir.rt.slot(ptr %f)
  %fkp = getelementptr [64 x i64], ptr @tlir.rt.pace_keys, i64 0, i64 %fslot
  %fk = load atomic i64, ptr %fkp monotonic, align 8
  %fup = getelementptr [64 x i64], ptr @tlir.rt.pace_until, i64 0, i64 %fslot
  %until0 = load atomic i64, ptr %fup monotonic, align 8
  %mine_slot = icmp eq i64 %fk, %fkey
  %until = select i1 %mine_slot, i64 %until0, i64 0
  %backing_off = icmp ult i64 %t0, %until
  br i1 %backing_off, label %skip, label %acquire
skip:
  %skips = getelementptr [5 x i64], ptr @tlir.rt.counts, i64 0, i64 2
  %s0 = atomicrmw add ptr %skips, i64 1 monotonic
  call void %f(ptr %args, i64 0, i64 %n)
  %ta = call i64 @llvm.readcyclecounter()
  %alone_took = sub i64 %ta, %t0
  %ignored_pace = call i64 @tlir.rt.pace(ptr %f, i64 %alone_took, i64 %n)
  ret void
acquire:
  %pair = cmpxchg ptr @tlir.rt.busy, i32 0, i32 1 seq_cst seq_cst
  %taken = extractvalue { i32, i1 } %pair, 1
  br i1 %taken, label %publish, label %serial
publish:
  %w1 = add i32 %workers, 1
  %fits = icmp slt i32 %threads, %w1
  %team32 = select i1 %fits, i32 %threads, i32 %w1
  %team = sext i32 %team32 to i64
  %g = load atomic i32, ptr @tlir.rt.gen seq_cst, align 4
  %g1 = add i32 %g, 1
  store atomic ptr %f, ptr @tlir.rt.fn release, align 8
  store atomic ptr %args, ptr @tlir.rt.args release, align 8
  store atomic i64 %n, ptr @tlir.rt.n release, align 8
  store atomic i64 %team, ptr @tlir.rt.team release, align 8
  store atomic i64 0, ptr @tlir.rt.done release, align 8
  %g64 = zext i32 %g1 to i64
  %open = shl i64 %g64, 32
  store atomic i64 %open, ptr @tlir.rt.state seq_cst, align 8
  store atomic i32 %g1, ptr @tlir.rt.gen seq_cst, align 4
  %sleepers = load atomic i32, ptr @tlir.rt.sleepers seq_cst, align 4
  %asleep = icmp ne i32 %sleepers, 0
  br i1 %asleep, label %wake, label %claim
wake:
  call i32 @pthread_mutex_lock(ptr @tlir.rt.mutex)
  call i32 @pthread_cond_broadcast(ptr @tlir.rt.work)
  call i32 @pthread_mutex_unlock(ptr @tlir.rt.mutex)
  br label %claim
claim:
  %jobs = getelementptr [5 x i64], ptr @tlir.rt.counts, i64 0, i64 0
  %j0 = atomicrmw add ptr %jobs, i64 1 monotonic
  %tc = call i64 @llvm.readcyclecounter()
  %mine = call i64 @tlir.rt.claim(i64 %g64)
  %t1 = call i64 @llvm.readcyclecounter()
  br label %spin
spin:
  %k = phi i32 [ 0, %claim ], [ %k1, %pause ]
  %d = load atomic i64, ptr @tlir.rt.done seq_cst, align 8
  %finished = icmp eq i64 %d, %n
  br i1 %finished, label %timed, label %pause
pause:
  PAUSE_CALL
  %k1 = add i32 %k, 1
  %limit = load atomic i32, ptr @tlir.rt.caller_spin monotonic, align 4
  %again = icmp ult i32 %k1, %limit
  br i1 %again, label %spin, label %sleep
sleep:
  call i32 @pthread_mutex_lock(ptr @tlir.rt.mutex)
  store atomic i32 1, ptr @tlir.rt.waiting seq_cst, align 4
  br label %recheck
recheck:
  %d2 = load atomic i64, ptr @tlir.rt.done seq_cst, align 8
  %finished2 = icmp eq i64 %d2, %n
  br i1 %finished2, label %woken, label %block
block:
  call i32 @pthread_cond_wait(ptr @tlir.rt.finished, ptr @tlir.rt.mutex)
  br label %recheck
woken:
  store atomic i32 0, ptr @tlir.rt.waiting seq_cst, align 4
  call i32 @pthread_mutex_unlock(ptr @tlir.rt.mutex)
  br label %timed
timed:
  ; The step took half as long again as this thread alone would have needed
  ; at the pace its own chunks just ran (or this thread got no chunk): it
  ; waited for a worker holding a chunk that was not running or ran on this
  ; thread's core, or the step is too small for the wake-up to pay. Steps of
  ; its function then run on their caller's thread alone for a while, so
  ; that such stalls cost little of the time. A step that was merely slow,
  ; every chunk at a slower pace (another process's threads sharing the
  ; caches or spinning beside it, a lower clock), is no stall, up to twice
  ; the best pace seen: two threads still beat one. (Workers that never
  ; came cost nothing but the wake-up: not a stall either.)
  %t2 = call i64 @llvm.readcyclecounter()
  %worked = sub i64 %t1, %tc
  %took = sub i64 %t2, %t0
  %none = icmp eq i64 %mine, 0
  %some = select i1 %none, i64 1, i64 %mine
  %worked16 = shl i64 %worked, 4
  %own16 = udiv i64 %worked16, %some
  %best16 = call i64 @tlir.rt.pace(ptr %f, i64 %worked, i64 %mine)
  %pace_known = icmp ne i64 %best16, 0
  %best32 = shl i64 %best16, 1
  %capped = icmp ult i64 %best32, %own16
  %use_best = and i1 %capped, %pace_known
  %ref16 = select i1 %use_best, i64 %best32, i64 %own16
  %ref_by_one16 = mul i64 %ref16, %n
  %own_by_one48 = mul i64 %ref_by_one16, 3
  %took32 = shl i64 %took, 5
  %late = icmp ugt i64 %took32, %own_by_one48
  %stalled = or i1 %late, %none
  ; beside it, what a rule against the best pace seen would say (a count)
  %by_one16 = mul i64 %best16, %n
  %by_one48 = mul i64 %by_one16, 3
  %slower = icmp ugt i64 %took32, %by_one48
  %slow_known = and i1 %slower, %pace_known
  %on_time = xor i1 %stalled, true
  %slow = and i1 %slow_known, %on_time
  %slow64 = zext i1 %slow to i64
  %slows = getelementptr [5 x i64], ptr @tlir.rt.counts, i64 0, i64 4
  %sl0 = atomicrmw add ptr %slows, i64 %slow64 monotonic
  %helped = icmp ult i64 %mine, %n
  %alone_all = xor i1 %helped, true
  %unhelped64 = zext i1 %alone_all to i64
  %unhelped = getelementptr [5 x i64], ptr @tlir.rt.counts, i64 0, i64 3
  %u0 = atomicrmw add ptr %unhelped, i64 %unhelped64 monotonic
  %base = load atomic i64, ptr @tlir.rt.penalty monotonic, align 8
  %fbp = getelementptr [64 x i64], ptr @tlir.rt.pace_backoff, i64 0, i64 %fslot
  %factor = load atomic i64, ptr %fbp monotonic, align 8
  br i1 %stalled, label %back_off, label %clean
clean:
  br i1 %helped, label %relax, label %close
back_off:
  ; stall after stall (a machine whose other cores stay busy): each time
  ; twice as long alone, up to MAX_BACKOFF times the base
  %stalls = getelementptr [5 x i64], ptr @tlir.rt.counts, i64 0, i64 1
  %st0 = atomicrmw add ptr %stalls, i64 1 monotonic
  ; in units of what the step takes on this thread alone (its own chunks'
  ; pace), not of the stall, which may have lasted many times that
  %all_work = mul i64 %worked, %n
  %alone_est = udiv i64 %all_work, %some
  %unit = select i1 %none, i64 %took, i64 %alone_est
  %pause_for = mul i64 %unit, %factor
  %resume = add i64 %t2, %pause_for
  store atomic i64 %resume, ptr %fup monotonic, align 8
  %doubled = shl i64 %factor, 1
  %most = mul i64 %base, MAX_BACKOFF
  %over = icmp ugt i64 %doubled, %most
  %grown = select i1 %over, i64 %most, i64 %doubled
  %low = icmp ult i64 %grown, %base
  %next_up = select i1 %low, i64 %base, i64 %grown
  store atomic i64 %next_up, ptr %fbp monotonic, align 8
  br label %close
relax:
  ; a step the workers sped up: the next stall is forgiven sooner
  %halved = lshr i64 %factor, 1
  %under = icmp ult i64 %halved, %base
  %next_down = select i1 %under, i64 %base, i64 %halved
  store atomic i64 %next_down, ptr %fbp monotonic, align 8
  br label %close
close:
  ; No claim of this job can succeed any more, before the next job's fields
  ; are written (by this thread or the next caller to take the pool).
  %closed = or i64 %open, CLOSED
  store atomic i64 %closed, ptr @tlir.rt.state seq_cst, align 8
  fence seq_cst
  store atomic i32 0, ptr @tlir.rt.busy release, align 4
  ret void
serial:
  call void %f(ptr %args, i64 0, i64 %n)
  ret void
}

define void @tlir_rt_set_spin(i32 %count, i32 %caller) {
  store atomic i32 %count, ptr @tlir.rt.spin monotonic, align 4
  store atomic i32 %caller, ptr @tlir.rt.caller_spin monotonic, align 4
  ret void
}

; (threaded steps, of which stalled, steps on one thread after a stall,
;  threaded steps no worker took part in, steps slower than the best pace
;  seen that were no stall)
define void @tlir_rt_counts(ptr %out) {
  call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr @tlir.rt.counts, i64 40, i1 false)
  ret void
}

define void @tlir_rt_set_penalty(i64 %penalty) {
  store atomic i64 %penalty, ptr @tlir.rt.penalty monotonic, align 8
  call void @llvm.memset.p0.i64(ptr @tlir.rt.pace_keys, i8 0, i64 512, i1 false)
  ret void
}

define void @tlir_rt_set_workers(i32 %count) {
  store atomic i32 %count, ptr @tlir.rt.workers release, align 4
  ret void
}

; In a forked child: the parent's workers do not exist here, and the locks may
; have been held by one of them.
define void @tlir_rt_reset() {
  store atomic i32 0, ptr @tlir.rt.workers seq_cst, align 4
  store atomic i32 0, ptr @tlir.rt.busy seq_cst, align 4
  store atomic i32 0, ptr @tlir.rt.sleepers seq_cst, align 4
  store atomic i32 0, ptr @tlir.rt.waiting seq_cst, align 4
  store atomic i64 CLOSED, ptr @tlir.rt.state seq_cst, align 8
  store atomic i32 0, ptr @tlir.rt.gen seq_cst, align 4
  call void @llvm.memset.p0.i64(ptr @tlir.rt.mutex, i8 0, i64 64, i1 false)
  call void @llvm.memset.p0.i64(ptr @tlir.rt.pace_keys, i8 0, i64 512, i1 false)
  call void @llvm.memset.p0.i64(ptr @tlir.rt.work, i8 0, i64 64, i1 false)
  call void @llvm.memset.p0.i64(ptr @tlir.rt.finished, i8 0, i64 64, i1 false)
  ret void
}
"""


STUB = """
@tlir.rt.pool = internal global ptr null, align 8

define void @tlir_rt_parallel(ptr %f, ptr %args, i64 %n, i32 %threads) {
  %pool = load atomic ptr, ptr @tlir.rt.pool acquire, align 8
  %none = icmp eq ptr %pool, null
  br i1 %none, label %serial, label %run
serial:
  call void %f(ptr %args, i64 0, i64 %n)
  ret void
run:
  tail call void %pool(ptr %f, ptr %args, i64 %n, i32 %threads)
  ret void
}

define void @tlir_rt_attach(ptr %pool) {
  store atomic ptr %pool, ptr @tlir.rt.pool release, align 8
  ret void
}
"""
"""The symbol entry functions link against: the pool's entry once `runtime()`
has loaded it (before any call with more than one thread), else the step on
the calling thread. A process whose calls all run on one thread thus never
loads the runtime (about 30 ms of LLVM), and a compile never waits for it."""

_BATCH = """%param = alloca i32, align 4
  store i32 0, ptr %param, align 4
  %batch = call i32 @sched_setscheduler(i32 0, i32 3, ptr %param)"""


def runtime_ir(batch: bool = True) -> str:
    """The runtime's LLVM IR for this host (the spin-loop hint is the CPU's own);
    `batch`: its workers put themselves under `SCHED_BATCH`."""
    machine = platform.machine().lower()
    if machine in ("x86_64", "amd64", "i686", "i386"):
        declaration, call = (
            "declare void @llvm.x86.sse2.pause()",
            "call void @llvm.x86.sse2.pause()",
        )
    else:
        declaration, call = "", ""
    return (
        _RUNTIME.replace("PAUSE_DECLARATION", declaration)
        .replace("PAUSE_CALL", call)
        .replace("CLOSED", str(CLOSED))
        .replace("CALLER_SPIN", str(CALLER_SPIN))
        .replace("SPIN", str(SPIN))
        .replace("MAX_BACKOFF", str(MAX_BACKOFF))
        .replace("PENALTY", str(PENALTY))
        .replace("BATCH_CALL", _BATCH if batch else "")
    )


__all__ = [
    "CALLER_SPIN",
    "CLOSED",
    "COUNTS",
    "MAX_BACKOFF",
    "PENALTY",
    "PTHREAD_FUNCTIONS",
    "SPIN",
    "STUB",
    "runtime_ir",
]
