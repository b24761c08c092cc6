/* Command-line options of the collector. */
#ifndef CGFB_SERVER_OPTIONS_H
#define CGFB_SERVER_OPTIONS_H

#include <stdbool.h>

/* TLS 1.2 and 1.3 only, forward-secret key exchange only, AEAD ciphers
 * only: Mozilla's "intermediate" profile in GnuTLS's words (GnuTLS's own
 * NORMAL still offers static-RSA CBC suites). */
#define SERVER_TLS_PRIORITIES \
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:+DHE-RSA:" \
	"-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD:%SERVER_PRECEDENCE"

struct server_opts {
	const char *listen;          /* ADDR:PORT, [ADDR6]:PORT; port 0 picks one */
	const char *db_path;
	const char *tls_cert, *tls_key;
	const char *tls_priorities;  /* GnuTLS priority string */
	/* --trusted-proxy, as given: parsed by the HTTP layer (http/proxy.h) */
	const char *trusted_proxy[16];
	unsigned n_trusted_proxy;
	const char *admin_token_file;
	const char *port_file;       /* the bound port is written here */
	unsigned max_connections;
	unsigned max_per_ip;          /* per address key: IPv4 address, IPv6 /48 */
	unsigned head_timeout;       /* seconds for a request head, whatever trickles in */
	unsigned idle_timeout;       /* seconds without a byte before a connection is dropped */
	unsigned request_timeout;    /* seconds for a whole request body */
	double rate;                 /* writes per second per client address, 0 = no limit */
	unsigned burst;
	double read_rate;            /* other requests per second per client address */
	unsigned read_burst;
	unsigned summary_interval;   /* seconds between recomputations of the public summary */
	unsigned db_lock_ms;         /* PostgreSQL lock_timeout of every session */
	unsigned db_statement_ms;    /* PostgreSQL statement_timeout of the writer's session */
	unsigned db_deadline_ms;     /* past it (and past a connection's start), the collector
				      * gives up on PostgreSQL: store.h */
	unsigned grace_ms;           /* at shutdown, for requests in flight */
	double summary_epsilon;      /* its noise (store/summary.h); 0: exact counts */
	bool quiet;                  /* no per-request log lines */
	bool no_store;               /* benchmark only: validate, answer 201, store nothing */
	/* Tests only (CGFB_SERVER_TEST_LOG_INTERVAL): seconds over which
	 * refusals are counted before their line (http/refusals.h); 0: the
	 * server's own interval. */
	unsigned test_log_interval;
};

/* Parse serve options (argv[0] is the command name). Returns 0, 1 when
 * --help was printed, or -EINVAL after reporting the problem. */
int options_parse(struct server_opts *o, int argc, char **argv);

#endif
