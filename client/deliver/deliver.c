#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cgfb/sha256.h"
#include "cgfb/log.h"
#include "deliver/deliver.h"
#include "deliver/submit.h"

/* attempts beyond the limit wait for an administrator: no next attempt */
#define NEVER (-1LL)

static void schedule_retry(const struct cgfb_config *c, struct cgfb_spool_entry *e,
			   const struct cgfb_submit_result *res)
{
	unsigned rnd = 0;

	if (!res->transient || e->attempts >= c->max_attempts) {
		/* Refused for good (400, 409, 413, receipt mismatch) or too
		 * many tries: wait for an administrator to look. */
		e->next_attempt = NEVER;
		return;
	}
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (unsigned)time(NULL);
	e->next_attempt = (long long)time(NULL) +
			  cgfb_backoff_delay(e->attempts, res->retry_after, rnd);
}

int cgfb_deliver(const struct cgfb_config *c, struct cgfb_spool *sp, struct cgfb_spool_entry *e)
{
	struct cgfb_submit_result res;
	struct cgfb_buf bytes = { 0 };
	struct cgfb_spool_entry now;
	char sha[65];
	int rc, src;

	/* Held from the last look at the report to the record of what the
	 * collector said: a withdrawal or decline made meanwhile waits for
	 * this send and then finds the report sent, or comes first and the
	 * report is not sent at all. */
	rc = cgfb_spool_lock_send(sp);
	if (rc < 0)
		return rc;
	rc = cgfb_spool_load(sp, e->id, &now, &bytes);
	if (rc < 0)
		goto out;
	if (now.state_ino != e->state_ino || now.state_mtime_ns != e->state_mtime_ns) {
		cgfb_log(LOG_NOTICE, "report %s was changed by another command since this one "
			 "looked (it is %s now): not sent", e->id, cgfb_rstate_name(now.state));
		rc = -ESTALE;
		goto out;
	}
	cgfb_sha256_hex(bytes.data, bytes.len, sha);
	/* Only what was agreed to leaves: same bytes, same place. */
	if (strcmp(sha, e->sha256) != 0) {
		snprintf(e->last_error, sizeof(e->last_error),
			 "the report changed after consent; review it again");
		e->state = CGFB_R_PENDING;
		rc = -EPERM;
		goto save;
	}
	e->attempts++;
	rc = cgfb_submit_post(c, e->endpoint, bytes.data, bytes.len, e->sha256,
			      e->deletion_token, &res);
	if (rc == 0) {
		e->state = CGFB_R_SENT;
		e->next_attempt = 0;
		e->last_error[0] = '\0';
		snprintf(e->receipt_id, sizeof(e->receipt_id), "%s", res.receipt_id);
		snprintf(e->receipt_sha256, sizeof(e->receipt_sha256), "%s", res.receipt_sha256);
		snprintf(e->receipt_time, sizeof(e->receipt_time), "%s", res.receipt_time);
	} else {
		snprintf(e->last_error, sizeof(e->last_error), "%s", res.error);
		schedule_retry(c, e, &res);
	}
save:
	src = cgfb_spool_save_state(sp, e);
	if (src < 0 && rc == 0) {
		/* Sent, but the spool does not know: not a success. The next
		 * flush sends the same bytes and gets the same receipt. */
		cgfb_log(LOG_ERR, "report %s: the collector has it, but recording that failed: %s; "
			 "the next flush gets its receipt again", e->id, strerror(-src));
		rc = src;
	} else if (src < 0 && src != -ESTALE) {
		cgfb_log(LOG_ERR, "report %s: saving its state: %s", e->id, strerror(-src));
	}
out:
	cgfb_spool_unlock_send(sp);
	cgfb_buf_free(&bytes);
	return rc;
}
