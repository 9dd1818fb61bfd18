/* store/fault.h - a store that fails chosen calls of the store it wraps.
 *
 * For tests only: it proves that a failing disk or object store at any call
 * leaves a table as it was. The plan is process-wide, so "the 7th write"
 * counts every write through every wrapped store of the process (a CLI run
 * may open several). A plan is a comma-separated list of rules
 *
 *     KIND@N[+][:MODE[=ARG]]
 *
 * KIND   read | write | put-if-absent | list | delete | stat
 *        (read: read_range and read_tail; write: put without flags,
 *        writer_open, writer write and the commit of a replacing writer;
 *        put-if-absent: put and writer commit with LOOM_PUT_IF_ABSENT;
 *        delete: remove, remove_many - one call per batch - and
 *        remove_empty_dir)
 * N      the 1-based call number of that kind; "N+" means N and every later
 *        call (a disk that stays full)
 * MODE   eio (default) fail with LOOM_EIO before the call reaches the store;
 *        enospc  the same with "No space left on device";
 *        transient  the same with LOOM_ETRANSIENT (a timeout or throttling
 *                that outlived the store's own retries);
 *        short   (read) return half the bytes asked for, with success;
 *        after   perform the call, then report LOOM_EIO (a lost reply: the
 *                object store did the work, the client saw a timeout);
 *        partial (list) report half the entries, then fail with LOOM_EIO;
 *                (delete) a batch delete that deletes only the first half
 *                (a single delete then fails like eio);
 *        crash   kill the process with SIGKILL before the call;
 *        crash-after  the same after the call returned;
 *        delay=MS  sleep MS milliseconds before the call (to order races).
 *
 * loom_store_open wraps every store it opens when the environment variable
 * LOOM_FAULTS holds a plan; LOOM_FAULT_TALLY=PATH makes each wrapped store
 * write the process-wide call counts to PATH when it is freed
 * ("read 12\nwrite 40\n...\nfired 1\n"), so a test can learn how many calls
 * of each kind a run makes and then walk N over all of them. */
#ifndef LOOM_STORE_FAULT_H
#define LOOM_STORE_FAULT_H

#include "loom/store.h"

/* Replace the process-wide plan (resetting every counter) with `spec`;
 * NULL or "" clears it. LOOM_EINVAL with a message naming the bad rule. */
int loom_fault_configure(const char *spec);

/* Wrap `inner` (ownership passes to the wrapper, also on failure) with the
 * current plan. *out is freed with loom_store_free. */
int loom_fault_store_wrap(loom_store **out, loom_store *inner);

/* When LOOM_FAULTS is set, read the plan from it (once per process) and
 * wrap *s in place; otherwise leave *s alone. On failure *s is freed and
 * set to NULL. */
int loom_fault_store_wrap_from_env(loom_store **s);

/* The store a fault store wraps, or `s` itself for any other store. */
const loom_store *loom_fault_store_inner(const loom_store *s);

/* Calls of `kind` ("read", ...) counted since the plan was configured, and
 * how many rules fired (kind NULL). -1 for an unknown kind. */
long loom_fault_count(const char *kind);

#endif
