/* col_unit.h - what the collector's unit tests share: reading the
 * collector's timeline (collector/colstate.h) as its report would show it. */
#ifndef MW_COL_UNIT_H
#define MW_COL_UNIT_H

#include <string.h>

#include "colstate.h"

/* Whether the timeline of s has an event named ev (NULL: any event) whose
 * detail contains what. */
static inline int col_unit_said(const struct col_state *s, const char *ev, const char *what)
{
	for (size_t i = 0; i < s->ntl; i++)
		if ((!ev || !strcmp(s->tl[i].event, ev)) && strstr(s->tl[i].detail, what))
			return 1;
	return 0;
}

#endif
