/* mw_linkseg.c - mw_link_segs_in (mw_link.h): the segments a link's socket
 * received, from TCP_INFO.  Apart from mw_link.c because it needs the
 * kernel's struct tcp_info (linux/tcp.h: tcpi_segs_in), which glibc's
 * netinet/tcp.h, included there, lacks and conflicts with.
 */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "mw_link.h"

long long mw_link_segs_in(const struct mw_link *l)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(mw_link_fd(l), IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
	    len < offsetof(struct tcp_info, tcpi_segs_in) + sizeof ti.tcpi_segs_in)
		return -1;
	return (long long)ti.tcpi_segs_in;
}
