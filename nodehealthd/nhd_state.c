/* nhd_state.c - the daemon's shared state: reference-counted configuration. */
#include <pthread.h>

#include "nhd.h"

struct nhd_conf *nhd_conf_get(struct nhd *d)
{
	struct nhd_conf *c;
	pthread_mutex_lock(&d->conf_mu);
	c = d->conf;
	c->refs++;
	pthread_mutex_unlock(&d->conf_mu);
	return c;
}

void nhd_conf_put(struct nhd *d, struct nhd_conf *c)
{
	int last;
	pthread_mutex_lock(&d->conf_mu);
	last = --c->refs == 0;
	pthread_mutex_unlock(&d->conf_mu);
	if (last)
		nhd_conf_free(c);
}
