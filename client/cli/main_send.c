/* cgroup-feedback-send: the commands of cgroup-feedback that read free text
 * or send, a program of their own so that the command everyone else runs
 * (scan, check, status, catalog...) maps neither ICU (the secret scan of a
 * use case, privacy/normalise.c) nor libcurl and what it pulls in
 * (deliver/). cgroup-feedback execs it for these commands (base/exec.h),
 * as git runs git-remote-https and systemctl its helpers:
 *
 *   cgroup-feedback-send [--cli PATH] [--config F] [--catalog F]
 *                        [--state-dir D] COMMAND [OPTIONS] [ARGS]
 *
 * --cli is the program that started it, which the printed hints name. The
 * commands' own options, help and messages are the same as before the
 * split: the code is the same (cmd_consent.c, cmd_send.c, review.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/exec.h"
#include "base/hint.h"
#include "cgfb/log.h"
#include "cli/commands.h"

static const struct cgfb_command commands[] = {
	{ "review", NULL, cgfb_cmd_review },
	{ "submit", NULL, cgfb_cmd_submit },
	{ "decline", NULL, cgfb_cmd_decline },
	{ "reopen", NULL, cgfb_cmd_reopen },
	{ "withdraw", NULL, cgfb_cmd_withdraw },
	{ "flush", NULL, cgfb_cmd_flush },
	{ "export", NULL, cgfb_cmd_export },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cli", required_argument, NULL, 'L' },
		{ "catalog", required_argument, NULL, 'c' },
		{ "config", required_argument, NULL, 'C' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	struct cgfb_globals g = { 0 };
	const char *sudo_user, *cli = NULL;
	int opt;

	/* Its messages are cgroup-feedback's: the administrator ran that. */
	cgfb_log_init(CGFB_CLI_NAME);
	sudo_user = getenv("SUDO_USER");
	cgfb_hint_use_sudo(getuid() == 0 && sudo_user && *sudo_user);
	cgfb_globals_from_env(&g);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (opt) {
		case 'L':
			cli = optarg;
			break;
		case 'c':
			g.catalog_path = optarg;
			break;
		case 'C':
			g.config_path = optarg;
			break;
		case 'S':
			g.state_dir = optarg;
			break;
		default:
			cgfb_bad_option(NULL, optind > 0 && optind <= argc ? argv[optind - 1] : "?",
					opt == ':', "cli catalog config state-dir");
			return CGFB_EXIT_TROUBLE;
		}
	}
	if (optind >= argc) {
		cgfb_log(LOG_ERR, "%s runs the commands of cgroup-feedback that send; "
			 "run them as cgroup-feedback COMMAND (try cgroup-feedback --help)",
			 CGFB_SENDER_NAME);
		return CGFB_EXIT_TROUBLE;
	}
	cgfb_hint_name_cli_as(cli);
	cgfb_hint_use_config(g.config_path);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[optind], commands[i].name) != 0)
			continue;
		argv += optind;
		argc -= optind;
		optind = 0;   /* glibc: 0 re-initialises getopt for the command */
		return commands[i].run(&g, argc, argv);
	}
	cgfb_log(LOG_ERR, "%s: not a command of %s (try cgroup-feedback --help)", argv[optind],
		 CGFB_SENDER_NAME);
	return CGFB_EXIT_TROUBLE;
}
