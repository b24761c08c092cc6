/* What check reads of a machine's boot (client/readiness/cmdline.c,
 * env.c): a command line's cgroup switches, /etc/default/grub's shell
 * assignments, a BLS entry's options lines, and the file system type at
 * /sys/fs/cgroup in a mount table. The first byte chooses the parser, the
 * rest is the file.
 *
 * Properties: switches are -1, 0 or 1; every value written is terminated
 * within its buffer and holds no newline (it came from one line); the mode
 * is one of the four. */
#include "fuzz.h"
#include "readiness/cmdline.h"
#include "readiness/env.h"

#define OUT 512

static void terminated(const char *s, size_t sz)
{
	PROPERTY(memchr(s, '\0', sz) != NULL, "not terminated");
	PROPERTY(!strchr(s, '\n'), "a newline in '%s'", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, out[OUT], why[160];
	struct cgfb_switches s;

	if (!size)
		return 0;
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		cgfb_switches_read(buf, &s);
		PROPERTY(s.unified >= -1 && s.unified <= 1, "unified %d", s.unified);
		PROPERTY(s.legacy_controller >= -1 && s.legacy_controller <= 1, "controller %d",
			 s.legacy_controller);
		PROPERTY(s.force >= -1 && s.force <= 1, "force %d", s.force);
		break;
	case 1:
		out[0] = '\0';
		cgfb_shell_var(buf, "GRUB_CMDLINE_LINUX", out, sizeof(out));
		terminated(out, sizeof(out));
		cgfb_shell_var(buf, "GRUB_CMDLINE_LINUX", out, sizeof(out));   /* $VAR of itself */
		terminated(out, sizeof(out));
		break;
	case 2:
		cgfb_bls_options(buf, "root=/dev/vda1 ro $kernelopts", out, sizeof(out));
		terminated(out, sizeof(out));
		break;
	default: {
		enum cgfb_cgroup_mode m = cgfb_env_mode_of(buf, NULL, why, sizeof(why));

		PROPERTY(m >= CGFB_MODE_NONE && m <= CGFB_MODE_UNIFIED, "mode %d", m);
		PROPERTY(memchr(why, '\0', sizeof(why)) != NULL, "why not terminated");
		break;
	}
	}
	free(buf);
	return 0;
}
