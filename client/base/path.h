/* Building file names from a directory and a name, with the length checked:
 * a name that does not fit is an error the caller reports, never a path
 * silently cut short. */
#ifndef CGFB_PATH_H
#define CGFB_PATH_H

#include <stddef.h>

/* dir "/" name into out (outsz bytes, PATH_MAX is the usual size); name may
 * be followed by a suffix (".json"), NULL for none. 0, or -ENAMETOOLONG
 * with out empty. */
int cgfb_path_join(char *out, size_t outsz, const char *dir, const char *name,
		   const char *suffix);

#endif
