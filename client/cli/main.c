/* cgroup-feedback: global options and dispatch to the subcommands. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hint.h"
#include "base/suggest.h"
#include "cgfb/log.h"
#include "cli/commands.h"
#include "base/exec.h"
#include "config/config.h"

/* The watcher is a program of its own (client/watch/, base/exec.h); its
 * --help too. */
static int cmd_watch(const struct cgfb_globals *g, int argc, char **argv)
{
	cgfb_exec_watcher(g->config_path, g->catalog_path, g->state_dir, argc, argv);
	return CGFB_EXIT_TROUBLE;
}

/* So are the commands that read free text or send (main_send.c): this
 * program maps neither ICU nor libcurl, and a scan, check or status starts
 * without them (docs/ARCHITECTURE.md, docs/PERFORMANCE.md). */
static int cmd_send(const struct cgfb_globals *g, int argc, char **argv)
{
	cgfb_exec_sender(g->config_path, g->catalog_path, g->state_dir, argc, argv);
	return CGFB_EXIT_TROUBLE;
}

static const struct cgfb_command commands[] = {
	{ "scan", "[--json] [FILE...]  find catalog messages in saved logs or the live log",
	  cgfb_cmd_scan },
	{ "watch", "[--json] [--state-dir DIR] [--once]  follow the live kernel log",
	  cmd_watch },
	{ "catalog", "[--json]  list the messages this version recognises", cgfb_cmd_catalog },
	{ "snapshot", "[--json] [--for ID]  the anonymised cgroup picture a report carries",
	  cgfb_cmd_snapshot },
	{ "check", "[--json] [--target SPEC] [--root DIR]  what here depends on cgroup v1, "
	  "and where it breaks", cgfb_cmd_check },
	{ "review", "[ID]  look at a report, answer its questions, decide what happens",
	  cmd_send },
	{ "list", "[--json]  the reports and their states", cgfb_cmd_list },
	{ "show", "ID  exactly the bytes that would be sent", cgfb_cmd_show },
	{ "status", "[--json]  what is pending, due or failing (exit 1 while sending fails)",
	  cgfb_cmd_status },
	{ "submit", "ID --yes [--use-case-file F] [--answer K=V]...  consent and send",
	  cmd_send },
	{ "decline", "ID  never send this report", cmd_send },
	{ "reopen", "ID|MESSAGE  undo a decline or a never: ask about it again", cmd_send },
	{ "withdraw", "ID  delete a sent report from the collector", cmd_send },
	{ "flush", "  send the consented reports that are due", cmd_send },
	{ "export", "ID [--output FILE]  the report as an e-mail for linux-mm", cmd_send },
	{ "demo", "  a recorded kernel log replayed into a scratch directory; touches nothing here",
	  cgfb_cmd_demo },
};

static void unknown_command(const char *name)
{
	const char *names[sizeof(commands) / sizeof(commands[0]) + 2], *best;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[n++] = commands[i].name;
	names[n++] = "help";
	names[n++] = "version";
	best = cgfb_suggest(name, names, n);
	if (best)
		cgfb_log(LOG_ERR, "unknown command '%s'; did you mean '%s'? (try --help)", name, best);
	else
		cgfb_log(LOG_ERR, "unknown command '%s' (try --help)", name);
}

static void usage(FILE *out)
{
	fputs("Usage: cgroup-feedback [--state-dir DIR] [--catalog FILE] [--config FILE] COMMAND\n"
	      "                       [OPTIONS] [ARGS]\n"
	      "\n"
	      "Recognise kernel messages that deprecate cgroup behaviour and ask for your\n"
	      "use case, so that you can tell the kernel maintainers.\n"
	      "\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("  help     [COMMAND]  this help, or a command's (as COMMAND --help)\n"
	      "  version  the version (as --version)\n", out);
	fputs("\n"
	      "Global options:\n"
	      "  --catalog FILE   use this catalog instead of the installed one\n"
	      "  --config FILE    configuration (default " CGFB_DEFAULT_CONFIG ";\n"
	      "                   also $" CGFB_CONFIG_ENV "); after the command it wins\n"
	      "  --state-dir DIR  the reports and the watcher's state (default " CGFB_DEFAULT_STATE_DIR ";\n"
	      "                   also $" CGFB_STATE_DIR_ENV "); a command's own --state-dir wins\n"
	      "  --dump-config-keys  list the keys the configuration file may set\n"
	      "  -h, --help       show this help (COMMAND --help for a command's options)\n"
	      "  -V, --version    show the version\n", out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "catalog", required_argument, NULL, 'c' },
		{ "config", required_argument, NULL, 'C' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "dump-config-keys", no_argument, NULL, 'K' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct cgfb_globals g = { 0 };
	const char *sudo_user;
	int opt;

	cgfb_log_init("cgroup-feedback");
	sudo_user = getenv("SUDO_USER");
	cgfb_hint_use_sudo(getuid() == 0 && sudo_user && *sudo_user);
	cgfb_globals_from_env(&g);
	/* "+": stop at the command; what follows is the command's to parse.
	 * Mistakes are said here, with the program's one name (not argv[0],
	 * a build tree's path) and the nearest option. */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			g.catalog_path = optarg;
			break;
		case 'C':
			g.config_path = optarg;
			break;
		case 'S':
			g.state_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return CGFB_EXIT_OK;
		case 'V':
			printf("cgroup-feedback %s\n", CGFB_VERSION);
			return CGFB_EXIT_OK;
		case 'K':
			for (size_t i = 0; cgfb_config_key(i); i++)
				printf("%s\n", cgfb_config_key(i));
			return CGFB_EXIT_OK;
		default:
			cgfb_bad_option(NULL, optind > 0 && optind <= argc ? argv[optind - 1] : "?",
					opt == ':', "catalog config state-dir dump-config-keys help version");
			usage(stderr);
			return CGFB_EXIT_TROUBLE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CGFB_EXIT_TROUBLE;
	}
	/* As git and systemctl take them: "help", "help COMMAND", "version". */
	if (strcmp(argv[optind], "version") == 0) {
		printf("cgroup-feedback %s\n", CGFB_VERSION);
		return CGFB_EXIT_OK;
	}
	if (strcmp(argv[optind], "help") == 0) {
		if (optind + 1 >= argc) {
			usage(stdout);
			return CGFB_EXIT_OK;
		}
		argv[optind] = argv[optind + 1];
		argv[optind + 1] = (char *)"--help";
	}
	cgfb_hint_name_cli(true);
	cgfb_hint_use_config(g.config_path);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) != 0)
			continue;
		argv += optind;
		argc -= optind;
		optind = 0;   /* glibc: 0 re-initialises getopt for the command */
		return commands[i].run(&g, argc, argv);
	}
	unknown_command(argv[optind]);
	return CGFB_EXIT_TROUBLE;
}
