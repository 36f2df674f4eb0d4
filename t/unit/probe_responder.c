/* probe_responder.c - a probe answer on the test's loop (probe_responder.h). */
#include "probe_responder.h"

#include <arpa/inet.h>
#include <check.h>
#include <string.h>

static void on_alloc(uv_handle_t *h, size_t n, uv_buf_t *b)
{
	static char buf[2048];
	(void)h;
	(void)n;
	*b = uv_buf_init(buf, sizeof buf);
}

static void on_late(uv_timer_t *t)
{
	struct probe_responder *r = t->data;
	uv_udp_try_send(&r->udp, &(uv_buf_t){.base = (char *)r->rep, .len = (size_t)r->replen}, 1,
			(const struct sockaddr *)&r->to);
}

static void on_probe(uv_udp_t *u, ssize_t n, const uv_buf_t *b, const struct sockaddr *from, unsigned flags)
{
	struct probe_responder *r = u->data;
	uint8_t nonce[MW_PROBE_NONCE_LEN], rep[MW_PROBE_MAX_SIZE];
	int len;
	(void)flags;
	if (n <= 0 || !from)
		return;
	ck_assert_int_eq(mw_probe_decode_probe((const uint8_t *)b->base, (size_t)n, nonce), MW_PROBE_OK);
	r->probes++;
	r->src_port = ntohs(((const struct sockaddr_in *)(const void *)from)->sin_port);
	if (!r->answer)
		return;
	len = mw_probe_encode_reply_ex(rep, sizeof rep, (size_t)n, nonce, MW_PROBE_ALIVE, 0, 1, "n9", "ok", r->f,
				       r->cal);
	ck_assert_int_gt(len, 0);
	if (r->delay_ms) { /* the last probe's answer, later */
		memcpy(r->rep, rep, (size_t)len);
		r->replen = len;
		memcpy(&r->to, from, sizeof r->to);
		if (!r->late.data) {
			ck_assert_int_eq(uv_timer_init(u->loop, &r->late), 0);
			r->late.data = r;
		}
		uv_timer_start(&r->late, on_late, r->delay_ms, 0);
		return;
	}
	ck_assert_int_eq(uv_udp_try_send(u, &(uv_buf_t){.base = (char *)rep, .len = (size_t)len}, 1, from), len);
}

void probe_responder_start_at(uv_loop_t *loop, struct probe_responder *r, const char *ip, int port, int answer,
			      const struct mw_probe_factors *f, const struct mw_probe_calib *cal)
{
	struct sockaddr_in a;
	struct sockaddr_storage got;
	int len = sizeof got;
	memset(r, 0, sizeof *r);
	r->answer = answer;
	r->f = f;
	r->cal = cal;
	ck_assert_int_eq(uv_ip4_addr(ip, port, &a), 0);
	ck_assert_int_eq(uv_udp_init(loop, &r->udp), 0);
	r->udp.data = r;
	ck_assert_int_eq(uv_udp_bind(&r->udp, (struct sockaddr *)&a, 0), 0);
	ck_assert_int_eq(uv_udp_getsockname(&r->udp, (struct sockaddr *)&got, &len), 0);
	r->port = ntohs(((struct sockaddr_in *)&got)->sin_port);
	ck_assert_int_eq(uv_udp_recv_start(&r->udp, on_alloc, on_probe), 0);
}

void probe_responder_start(uv_loop_t *loop, struct probe_responder *r, const char *ip,
			   const struct mw_probe_factors *f, const struct mw_probe_calib *cal)
{
	probe_responder_start_at(loop, r, ip, 0, 1, f, cal);
}

void probe_responder_stop(struct probe_responder *r)
{
	uv_close((uv_handle_t *)&r->udp, NULL);
	if (r->late.data)
		uv_close((uv_handle_t *)&r->late, NULL);
}
