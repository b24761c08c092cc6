#include <string.h>

#include "cgfb/wire.h"

bool cgfb_report_id_valid(const char *id)
{
	if (strlen(id) != CGFB_REPORT_ID_LEN)
		return false;
	for (int i = 0; i < CGFB_REPORT_ID_LEN; i++) {
		const bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? id[i] != '-' : !strchr("0123456789abcdef", id[i]) || !id[i])
			return false;
	}
	return true;
}
