package dev.javaep.cpu.kernel;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * JavaCpu's kernel thread pool: {@code threads - 1} daemon workers ({@code javaep-cpu-1 ..}) that help the calling
 * thread through the tasks of one {@link #parallelFor}. One pool per thread count is shared by every EP that asked
 * for it ({@link #acquire}/{@link #release}, counted), so session cycles do not add threads; the last release stops
 * the workers.
 *
 * <p>Kernels find the pool of the Run they are in through {@link #current()}, which the compiled program sets
 * ({@link #enter}) on the thread that runs it for the Run's length ({@link #leave}). A {@code parallelFor} allocates
 * nothing (kernels hand it a task body they keep, not a lambda per call); one that cannot get the
 * workers (a second Run on another thread is using them, or it is called from inside a task) runs its tasks on the
 * calling thread, as does the pool of one thread.
 */
public final class KernelThreads {
    /** One task of a {@link #parallelFor}: {@code task} is in {@code [0, tasks)}. */
    @FunctionalInterface
    public interface Body {
        void run(int task);
    }

    /** The pool that runs tasks on the calling thread only. */
    public static final KernelThreads INLINE = new KernelThreads(1);

    /** Spins a worker makes waiting for work before it parks (some µs: a Run's kernels come back to back). */
    private static final int SPINS = 2_000;
    private static final Map<Integer, KernelThreads> SHARED = new HashMap<>();
    private static final ThreadLocal<KernelThreads> CURRENT = new ThreadLocal<>();

    private final int threads;
    private final Thread[] workers;
    private final ReentrantLock owner = new ReentrantLock();
    /** The job's generation in the high 32 bits, the next task to take in the low 32: one CAS claims a task of this job only. */
    private final AtomicLong ticket = new AtomicLong();
    /** Tasks of the current job not yet finished. */
    private final AtomicLong remaining = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile Body body;
    private volatile int taskCount;
    private volatile Thread caller;
    private volatile boolean stopped;
    private int users;

    private KernelThreads(int threads) {
        this.threads = threads;
        this.workers = new Thread[threads - 1];
        for (int i = 0; i < workers.length; i++) {
            Thread worker = new Thread(this::work, "javaep-cpu-" + (i + 1));
            worker.setDaemon(true);
            workers[i] = worker;
        }
        for (Thread worker : workers) {
            worker.start();
        }
    }

    /** The shared pool of {@code threads} threads (the calling thread counted), started when first asked for. */
    public static synchronized KernelThreads acquire(int threads) {
        if (threads <= 1) {
            return INLINE;
        }
        KernelThreads pool = SHARED.computeIfAbsent(threads, KernelThreads::new);
        pool.users++;
        return pool;
    }

    /** Gives back a pool from {@link #acquire}; its workers stop when no EP uses it any more. */
    public static synchronized void release(KernelThreads pool) {
        if (pool == INLINE || --pool.users > 0) {
            return;
        }
        SHARED.remove(pool.threads, pool);
        pool.stopped = true;
        for (Thread worker : pool.workers) {
            LockSupport.unpark(worker);
        }
        // joined, so that a session cycle ends with the threads it started gone (the conformance kit counts them)
        for (Thread worker : pool.workers) {
            try {
                worker.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Makes {@code pool} the one {@link #current()} answers on this thread until {@link #leave}; returns the pool it
     * answered before (null outside a Run), for {@code leave}. A compiled program calls the pair around each Run.
     */
    public static KernelThreads enter(KernelThreads pool) {
        KernelThreads previous = CURRENT.get();
        if (previous != pool) {
            CURRENT.set(pool);
        }
        return previous;
    }

    /**
     * Ends what {@link #enter} began: {@code previous} (its answer) is this thread's pool again. Outside a Run the
     * thread then holds no pool: ORT's threads outlive sessions, and a pool they kept reachable would keep its
     * stopped workers' objects too. The entry is set to null rather than removed, so the next Run's {@code enter}
     * allocates no new one.
     */
    public static void leave(KernelThreads previous) {
        if (CURRENT.get() != previous) {
            CURRENT.set(previous);
        }
    }

    /** The pool of the Run on this thread, or {@link #INLINE} outside one. */
    public static KernelThreads current() {
        KernelThreads pool = CURRENT.get();
        return pool == null ? INLINE : pool;
    }

    /** Threads that work on a {@link #parallelFor}, the calling one included. */
    public int threads() {
        return threads;
    }

    /**
     * Tasks to cut a job into: a few per thread, so that a worker the OS has descheduled holds back only a small
     * part of the job while the others take the rest (on a machine busier than its cores, one task per thread made
     * the Run wait for the slowest thread).
     */
    public int tasks() {
        return threads == 1 ? 1 : 4 * threads;
    }

    /** Runs {@code body} for tasks {@code 0 .. tasks - 1}, on the workers and this thread; returns when all are done. */
    public void parallelFor(int tasks, Body body) {
        if (tasks <= 1 || workers.length == 0 || stopped || owner.isHeldByCurrentThread() || !owner.tryLock()) {
            for (int t = 0; t < tasks; t++) {
                body.run(t);
            }
            return;
        }
        try {
            long generation = (ticket.get() >>> 32) + 1;
            // The new generation with no task to claim first: a worker still holding the previous generation then
            // cannot claim a task of this job with the previous job's (or this job's half-written) fields.
            ticket.set(generation << 32 | Integer.MAX_VALUE);
            this.body = body;
            this.taskCount = tasks;
            this.caller = Thread.currentThread();
            remaining.set(tasks);
            ticket.set(generation << 32); // publishes the job: workers read body and taskCount after seeing it
            for (Thread worker : workers) {
                LockSupport.unpark(worker);
            }
            takeTasks(generation, body, tasks);
            for (int spin = 0; remaining.get() > 0; spin++) {
                if (spin < SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.park(this);
                }
            }
            this.body = null;
            Throwable thrown = failure.getAndSet(null);
            if (thrown instanceof RuntimeException e) {
                throw e;
            } else if (thrown instanceof Error e) {
                throw e;
            }
        } finally {
            owner.unlock();
        }
    }

    /** Claims and runs tasks of job {@code generation} until none is left. */
    private void takeTasks(long generation, Body job, int tasks) {
        while (true) {
            long t = ticket.get();
            if (t >>> 32 != generation || (int) t >= tasks) {
                return;
            }
            if (!ticket.compareAndSet(t, t + 1)) {
                continue;
            }
            try {
                job.run((int) t);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
            if (remaining.decrementAndGet() == 0) {
                LockSupport.unpark(caller);
            }
        }
    }

    private void work() {
        long done = 0;
        int spin = 0;
        while (!stopped) {
            long t = ticket.get();
            long generation = t >>> 32;
            // A job is published when its ticket holds a task index; while it still holds MAX the caller is writing
            // body and taskCount, and reading them now could pair this generation with the previous job's fields
            // (running the old body over the new job's tickets).
            if (generation == done || (int) t == Integer.MAX_VALUE) {
                if (spin++ < SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.park(this);
                }
                continue;
            }
            spin = 0;
            done = generation;
            // read after a published ticket: these are this generation's fields, or a later job's, whose tickets
            // carry another generation, so takeTasks claims nothing with them
            Body job = body;
            int tasks = taskCount;
            if (job != null) {
                takeTasks(generation, job, tasks);
            }
        }
    }
}
