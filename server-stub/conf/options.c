#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cgfb/log.h"
#include "conf/options.h"

static void usage(FILE *out)
{
	fputs("Usage: cgroup-feedback-server [serve] [OPTIONS]\n"
	      "       cgroup-feedback-server [--database FILE] import FILE...\n"
	      "\n"
	      "       cgroup-feedback-server migrate --from FILE --to URI\n"
	      "\n"
	      "Receive cgroup-feedback reports over HTTP(S), keep them in SQLite or\n"
	      "PostgreSQL, and serve a summary, a digest and a dashboard for the maintainers.\n"
	      "\n"
	      "  --listen ADDR:PORT       where to listen (127.0.0.1:8080; [::1]:PORT for IPv6,\n"
	      "                           [::]:PORT for every IPv6 and IPv4 address)\n"
	      "  --database FILE|URI      the SQLite database file (collector.db), or a\n"
	      "                           PostgreSQL database: postgresql://... or key=value\n"
	      "                           (the password from PGPASSFILE, never here)\n"
	      "  --tls-cert FILE          serve HTTPS with this PEM certificate (chain)...\n"
	      "  --tls-key FILE           ...and this PEM private key\n"
	      "  --tls-priorities STR     GnuTLS priority string (TLS 1.2+, ECDHE/DHE, AEAD)\n"
	      "  --admin-token-file FILE  the admin API's bearer tokens (one a line)\n"
	      "  --trusted-proxy ADDR[/BITS][,...]  reverse proxies whose X-Forwarded-For\n"
	      "                           names the client (repeatable)\n"
	      "  --max-connections N      connections at once (256)\n"
	      "  --max-per-ip N           connections at once from one address, or IPv6 /48 (128)\n"
	      "  --head-timeout SEC       time for a request's whole head, from connecting (10)\n"
	      "  --idle-timeout SEC       drop a connection silent this long (10)\n"
	      "  --request-timeout SEC    time for one request's body (30)\n"
	      "  --rate N                 report writes per second per client address (10; 0 off)\n"
	      "  --burst N                writes allowed at once before --rate applies (50)\n"
	      "  --read-rate N            other requests per second per client address (50; 0 off)\n"
	      "  --read-burst N           other requests at once before --read-rate applies (200)\n"
	      "  --summary-interval S     recompute the public summary every S seconds (86400)\n"
	      "  --summary-epsilon E      differential privacy of the public numbers: noise\n"
	      "                           with this epsilon on each (1; 0: exact counts)\n"
	      "  --db-lock-timeout SEC    PostgreSQL: how long a statement waits for a lock (2)\n"
	      "  --db-statement-timeout SEC  PostgreSQL: how long a write may run (10)\n"
	      "  --db-deadline SEC        PostgreSQL: how long past that the collector waits for\n"
	      "                           an answer, and for each step of a connection, before\n"
	      "                           closing it (5)\n"
	      "  --shutdown-grace SEC     at SIGTERM, how long requests in flight may finish (10)\n"
	      "  --port-file FILE         write the bound port to FILE once listening\n"
	      "  --quiet                  no per-request log lines\n"
	      "  -h, --help               show this help\n"
	      "  -V, --version            show the version\n", out);
}

/* A number option from 0 to max. */
static int number(const char *name, const char *arg, unsigned max, double *out)
{
	char *end;
	const double v = strtod(arg, &end);

	if (*arg == '\0' || *end != '\0' || v < 0 || v > max) {
		cgfb_log(LOG_ERR, "--%s: '%s' is not a number from 0 to %u", name, arg, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int set(struct server_opts *o, int opt, const char *name, const char *arg)
{
	double v = 0;
	int rc = 0;

	switch (opt) {
	case 'l': o->listen = arg; return 0;
	case 'd': o->db_path = arg; return 0;
	case 'c': o->tls_cert = arg; return 0;
	case 'k': o->tls_key = arg; return 0;
	case 'P': o->tls_priorities = arg; return 0;
	case 'X':
		if (o->n_trusted_proxy == sizeof(o->trusted_proxy) / sizeof(o->trusted_proxy[0])) {
			cgfb_log(LOG_ERR, "--trusted-proxy: given more than %zu times",
				 sizeof(o->trusted_proxy) / sizeof(o->trusted_proxy[0]));
			return -EINVAL;
		}
		o->trusted_proxy[o->n_trusted_proxy++] = arg;
		return 0;
	case 'a': o->admin_token_file = arg; return 0;
	case 'p': o->port_file = arg; return 0;
	case 'q': o->quiet = true; return 0;
	}
	rc = number(name, arg, 1000000, &v);
	if (rc < 0)
		return rc;
	switch (opt) {
	case 'C': o->max_connections = (unsigned)v; break;
	case 'I': o->max_per_ip = (unsigned)v; break;
	case 't': o->idle_timeout = (unsigned)v; break;
	case 'T': o->request_timeout = (unsigned)v; break;
	case 'r': o->rate = v; break;
	case 'b': o->burst = (unsigned)v; break;
	case 'H': o->head_timeout = (unsigned)v; break;
	case 'R': o->read_rate = v; break;
	case 'B': o->read_burst = (unsigned)v; break;
	case 'S': o->summary_interval = (unsigned)v; break;
	case 'L': o->db_lock_ms = (unsigned)(v * 1000); break;
	case 'W': o->db_statement_ms = (unsigned)(v * 1000); break;
	case 'D': o->db_deadline_ms = (unsigned)(v * 1000); break;
	case 'g': o->grace_ms = (unsigned)(v * 1000); break;
	case 'E': o->summary_epsilon = v; break;
	}
	return 0;
}

static int check(const struct server_opts *o)
{
	if (!o->tls_cert != !o->tls_key) {
		cgfb_log(LOG_ERR, "--tls-cert and --tls-key go together");
		return -EINVAL;
	}
	if (!o->max_connections || !o->max_per_ip || !o->idle_timeout || !o->request_timeout ||
	    !o->head_timeout || !o->db_lock_ms || !o->db_statement_ms ||
	    !o->db_deadline_ms ||
	    !o->summary_interval) {
		cgfb_log(LOG_ERR, "connection limits and timeouts must be at least 1");
		return -EINVAL;
	}
	return 0;
}

/* For the test suite only: a shorter interval for the refusals' count
 * lines, so that server-attack.sh need not wait out the server's 10 s
 * (docs/TESTING.md). Only shorter: 1 to 9 s. */
static int test_env(struct server_opts *o)
{
	const char *v = getenv("CGFB_SERVER_TEST_LOG_INTERVAL");

	if (!v)
		return 0;
	if (v[0] < '1' || v[0] > '9' || v[1] != '\0') {
		cgfb_log(LOG_ERR, "CGFB_SERVER_TEST_LOG_INTERVAL: '%s' is not a number from 1 to 9", v);
		return -EINVAL;
	}
	o->test_log_interval = (unsigned)(v[0] - '0');
	cgfb_log(LOG_WARNING, "CGFB_SERVER_TEST_LOG_INTERVAL=%u: refusals counted over %u s "
		 "(for tests only)", o->test_log_interval, o->test_log_interval);
	return 0;
}

int options_parse(struct server_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "database", required_argument, NULL, 'd' },
		{ "db", required_argument, NULL, 'd' },
		{ "tls-cert", required_argument, NULL, 'c' },
		{ "tls-key", required_argument, NULL, 'k' },
		{ "tls-priorities", required_argument, NULL, 'P' },
		{ "trusted-proxy", required_argument, NULL, 'X' },
		{ "admin-token-file", required_argument, NULL, 'a' },
		{ "port-file", required_argument, NULL, 'p' },
		{ "max-connections", required_argument, NULL, 'C' },
		{ "max-per-ip", required_argument, NULL, 'I' },
		{ "idle-timeout", required_argument, NULL, 't' },
		{ "request-timeout", required_argument, NULL, 'T' },
		{ "rate", required_argument, NULL, 'r' },
		{ "burst", required_argument, NULL, 'b' },
		{ "head-timeout", required_argument, NULL, 'H' },
		{ "read-rate", required_argument, NULL, 'R' },
		{ "read-burst", required_argument, NULL, 'B' },
		{ "summary-interval", required_argument, NULL, 'S' },
		{ "db-lock-timeout", required_argument, NULL, 'L' },
		{ "db-statement-timeout", required_argument, NULL, 'W' },
		{ "db-deadline", required_argument, NULL, 'D' },
		{ "shutdown-grace", required_argument, NULL, 'g' },
		{ "summary-epsilon", required_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, idx = 0;

	*o = (struct server_opts){
		.listen = "127.0.0.1:8080", .db_path = "collector.db", .max_connections = 256,
		.max_per_ip = 128, .idle_timeout = 10, .request_timeout = 30, .rate = 10,
		.burst = 50, .head_timeout = 10, .read_rate = 50, .read_burst = 200,
		/* store.h's STORE_LOCK_MS, STORE_WRITE_MS and
		 * STORE_DEADLINE_MS (no layer of
		 * options may include the store's). */
		.summary_interval = 86400, .summary_epsilon = 1,
		.tls_priorities = SERVER_TLS_PRIORITIES,
		.db_lock_ms = 2000, .db_statement_ms = 10000, .db_deadline_ms = 5000,
		.grace_ms = 10000,
	};
	/* For measuring the HTTP and validation ceiling only (bench/server.sh). */
	o->no_store = getenv("CGFB_SERVER_BENCH_NO_STORE") != NULL;
	if (test_env(o) < 0)
		return -EINVAL;
	while ((opt = getopt_long(argc, argv, "hV", opts, &idx)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 1;
		}
		if (opt == 'V') {
			printf("cgroup-feedback-server %s\n", CGFB_VERSION);
			return 1;
		}
		if (opt == '?') {
			usage(stderr);
			return -EINVAL;
		}
		if (set(o, opt, opts[idx].name, optarg) < 0)
			return -EINVAL;
	}
	if (optind < argc) {
		cgfb_log(LOG_ERR, "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return check(o);
}
