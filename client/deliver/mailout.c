#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>

#include "cgfb/atomic.h"
#include "cgfb/buf.h"
#include "cgfb/mail.h"
#include "base/urlshow.h"
#include "consent/destination.h"
#include "deliver/mailout.h"
#include "cgfb/jsonget.h"

extern char **environ;

/* Whom the kernel message asks to hear from (consent/destination.h). */
int cgfb_mailout_recipients(const struct cgfb_config *c, const struct cgfb_buf *report, char *out,
			    size_t outsz)
{
	json_object *r = json_tokener_parse(report->data ? report->data : "");

	cgfb_mail_recipients(c, cgfb_json_str(r, "detection.catalog_id"),
			     cgfb_json_str(r, "detection.contact"), out, outsz);
	json_object_put(r);
	return 0;
}

int cgfb_mailout_format(const struct cgfb_config *c, const struct cgfb_buf *report,
			struct cgfb_buf *mail)
{
	char to[600], header_to[620];
	struct cgfb_mail_opts mo = { 0 };

	cgfb_mailout_recipients(c, report, to, sizeof(to));
	/* A header lists addresses with ", ". */
	snprintf(header_to, sizeof(header_to), "%s", to);
	for (char *p = strchr(header_to, ','); p; p = strchr(p + 2, ',')) {
		memmove(p + 1, p, strlen(p) + 1);
		p[1] = ' ';
	}
	mo.to = header_to;
	mo.from = c->mail_from[0] ? c->mail_from : NULL;
	return cgfb_mail_format(report->data, report->len, &mo, mail);
}

/* dir/name of path, for a replacement made beside it. */
static int replace_file(const char *path, const char *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];

	if (!slash)
		return cgfb_atomic_write(".", path, data, len, 0600);
	if (!slash[1] || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return cgfb_atomic_write(dir, slash + 1, data, len, 0600);
}

static int open_output(const char *path, int how)
{
	if (strcmp(path, "-") == 0)
		return dup(STDOUT_FILENO);
	if (how == CGFB_MAILOUT_MBOX) {
		/* An existing mbox is appended to: never through a link, and
		 * never waiting on a FIFO put at its name (O_NONBLOCK: opening
		 * one without a reader fails; with one it is no mbox). */
		const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
				    O_NONBLOCK, 0600);
		struct stat st;

		if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
			close(fd);
			errno = EINVAL;
			return -1;
		}
		return fd;
	}
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
}

int cgfb_mailout_file(const struct cgfb_buf *mail, const char *path, int how)
{
	struct cgfb_buf b = { 0 };
	const char *data = mail->data;
	size_t len = mail->len;
	int fd, rc;

	if (how == CGFB_MAILOUT_MBOX) {
		rc = cgfb_mbox_append(&b, mail->data, mail->len, time(NULL));
		if (rc < 0)
			return rc;
		data = b.data;
		len = b.len;
	} else if (how == CGFB_MAILOUT_REPLACE && strcmp(path, "-") != 0) {
		return replace_file(path, data, len);
	}
	fd = open_output(path, how);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	/* Mail clients lock mboxes the same way. */
	if (how == CGFB_MAILOUT_MBOX && flock(fd, LOCK_EX) < 0) {
		rc = -errno;
		close(fd);
		goto out;
	}
	rc = cgfb_write_all(fd, data, len);
	if (rc == 0 && strcmp(path, "-") != 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	/* A message cut short is no message: the file is ours, made above. */
	if (rc < 0 && how == CGFB_MAILOUT_NEW && strcmp(path, "-") != 0)
		unlink(path);
out:
	cgfb_buf_free(&b);
	return rc;
}

struct reader {
	const char *p;
	size_t left;
};

static size_t feed(char *buf, size_t size, size_t nmemb, void *arg)
{
	struct reader *r = arg;
	size_t n = size * nmemb < r->left ? size * nmemb : r->left;

	memcpy(buf, r->p, n);
	r->p += n;
	r->left -= n;
	return n;
}

/* SMTP wants CRLF line ends. */
static int crlf(const struct cgfb_buf *mail, struct cgfb_buf *out)
{
	int rc = 0;

	for (size_t i = 0; i < mail->len && rc == 0; i++)
		rc = mail->data[i] == '\n' ? cgfb_buf_add(out, "\r\n", 2)
					   : cgfb_buf_add(out, mail->data + i, 1);
	return rc;
}

/* libcurl greets with the local host name unless the URL's path names a
 * domain: the path is set to a constant, so the EHLO never says which
 * machine is sending. */
static int smtp_url(const char *url, char **out)
{
	CURLU *u = curl_url();
	CURLUcode uc = CURLUE_OUT_OF_MEMORY;

	*out = NULL;
	if (u && (uc = curl_url_set(u, CURLUPART_URL, url, 0)) == CURLUE_OK &&
	    (uc = curl_url_set(u, CURLUPART_PATH, "/" CGFB_MAIL_EHLO_NAME, 0)) == CURLUE_OK)
		uc = curl_url_get(u, CURLUPART_URL, out, 0);
	curl_url_cleanup(u);
	return uc == CURLUE_OK ? 0 : -EINVAL;
}

/* The envelope sender: the bare address of mail-from ("Ops <a@b>" -> a@b). */
static void envelope_from(const struct cgfb_config *c, char *out, size_t outsz)
{
	const char *lt = strchr(c->mail_from, '<');

	snprintf(out, outsz, "%.*s", (int)(lt ? strcspn(lt + 1, ">") : strlen(c->mail_from)),
		 lt ? lt + 1 : c->mail_from);
}

static int send_smtp(const struct cgfb_config *c, const struct cgfb_buf *mail, const char *to,
		     char *err, size_t errsz)
{
	struct curl_slist *rcpt = NULL;
	struct cgfb_buf wire = { 0 };
	char *url = NULL;
	char bare[CGFB_CONFIG_STR_MAX], from[CGFB_CONFIG_STR_MAX + 2], list[600], *save = NULL;
	char shown[CGFB_CONFIG_STR_MAX];
	struct reader r;
	CURLcode cc = CURLE_OUT_OF_MEMORY;
	CURL *h = curl_easy_init();

	envelope_from(c, bare, sizeof(bare));
	snprintf(from, sizeof(from), "<%s>", bare);
	snprintf(list, sizeof(list), "%s", to);
	for (char *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save))
		rcpt = curl_slist_append(rcpt, a);
	if (!h || !rcpt || crlf(mail, &wire) < 0)
		goto out;
	if (smtp_url(c->smtp_url, &url) < 0) {
		cc = CURLE_URL_MALFORMAT;
		goto out;
	}
	r = (struct reader){ wire.data, wire.len };
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	/* The report goes encrypted or not at all. */
	curl_easy_setopt(h, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	if (c->ca_file[0])
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	curl_easy_setopt(h, CURLOPT_MAIL_FROM, from);
	curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, feed);
	curl_easy_setopt(h, CURLOPT_READDATA, &r);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, c->connect_timeout);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, c->timeout);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	cc = curl_easy_perform(h);
out:
	if (cc != CURLE_OK)
		snprintf(err, errsz, "%s: %s", cgfb_url_shown(shown, sizeof(shown), c->smtp_url),
			 curl_easy_strerror(cc));
	curl_slist_free_all(rcpt);
	curl_easy_cleanup(h);
	curl_free(url);
	cgfb_buf_free(&wire);
	return cc == CURLE_OK ? 0 : -EIO;
}

static int send_sendmail(const struct cgfb_config *c, const struct cgfb_buf *mail, char *err,
			 size_t errsz)
{
	char bare[CGFB_CONFIG_STR_MAX];
	char *argv[] = { (char *)c->sendmail, "-f", bare, "-t", "-oi", NULL };
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = 0, rc;
	pid_t pid;

	envelope_from(c, bare, sizeof(bare));
	/* An empty or option-like sender would be read as something else. */
	if (!bare[0] || bare[0] == '-') {
		snprintf(err, errsz, "mail-from has no address for the envelope sender");
		return -EINVAL;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[0], STDIN_FILENO);
	rc = posix_spawn(&pid, c->sendmail, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[0]);
	if (rc != 0) {
		close(pipefd[1]);
		snprintf(err, errsz, "%s: %s", c->sendmail, strerror(rc));
		return -rc;
	}
	rc = cgfb_write_all(pipefd[1], mail->data, mail->len);
	close(pipefd[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		snprintf(err, errsz, "%s -f %s -t -oi failed (status %d)", c->sendmail, bare,
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		rc = -EIO;
	}
	return rc;
}

int cgfb_mailout_send(const struct cgfb_config *c, const struct cgfb_buf *mail, char *err,
		      size_t errsz)
{
	char to[600];
	const char *b, *e;

	if (!c->mail_from[0]) {
		snprintf(err, errsz, "sending needs mail-from in the configuration");
		return -EINVAL;
	}
	if (!c->smtp_url[0])
		return send_sendmail(c, mail, err, errsz);
	/* The recipients are the message's own To: line. */
	b = strstr(mail->data, "\nTo: ");
	e = b ? strchr(b + 5, '\n') : NULL;
	if (!b || !e || (size_t)(e - b - 5) >= sizeof(to)) {
		snprintf(err, errsz, "the message has no To: line");
		return -EINVAL;
	}
	snprintf(to, sizeof(to), "%.*s", (int)(e - b - 5), b + 5);
	for (char *s = to, *d = to;; s++)
		if (*s != ' ' && !(*d++ = *s))
			break;
	return send_smtp(c, mail, to, err, errsz);
}
