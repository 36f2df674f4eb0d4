/* test_monitor_comms.c - communicator table, gid rule, rank translation. */
#include <check.h>
#include <string.h>

#include "comms.h"
#include "mw_slot.h"

START_TEST(test_world_self)
{
	struct mwm_comms c;
	ck_assert_int_eq(mwm_comms_init(&c, 0x100, 0x200, 3, 8), 0);
	struct mwm_comm *w = mwm_comms_find(&c, 0x100), *s = mwm_comms_find(&c, 0x200);
	ck_assert_str_eq(w->gid, "world");
	ck_assert_str_eq(s->gid, "self.3");
	ck_assert_int_eq(w->id, 0);
	ck_assert_int_eq(s->id, 1);
	ck_assert_int_eq(mwm_comm_to_world(w, 5), 5);
	ck_assert_int_eq(mwm_comm_to_world(s, 0), 3);
	mwm_comms_destroy(&c);
}
END_TEST

static const struct {
	int rank;
	int expect;
} xlate[] = {
	{0, 6}, {1, 4}, {2, 2}, {3, 0}, {4, MW_RANK_NONE}, {MW_RANK_ANY, MW_RANK_ANY},
	{MW_RANK_NONE, MW_RANK_NONE}, {-7, MW_RANK_NONE},
};

START_TEST(test_translate)
{
	struct mwm_comms c;
	int even_rev[] = {6, 4, 2, 0};
	ck_assert_int_eq(mwm_comms_init(&c, 1, 2, 4, 8), 0);
	struct mwm_comm *m = mwm_comms_add(&c, 0x55, 1, "split", even_rev, 4, 1, 0, NULL, 0);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(mwm_comm_to_world(m, xlate[_i].rank), xlate[_i].expect);
	ck_assert_int_eq(mwm_comm_to_world(NULL, 0), MW_RANK_NONE);
	mwm_comms_destroy(&c);
}
END_TEST

START_TEST(test_gid_rule)
{
	struct mwm_comms a, b;
	int even[] = {0, 2}, odd[] = {1, 3};
	char h[9];
	/* rank 0 and rank 1 of a 4-rank job split world in halves */
	mwm_comms_init(&a, 1, 2, 0, 4);
	mwm_comms_init(&b, 1, 2, 1, 4);
	struct mwm_comm *ae = mwm_comms_add(&a, 0x10, 1, "split", even, 2, 0, 0, NULL, 0);
	struct mwm_comm *bo = mwm_comms_add(&b, 0x10, 1, "split", odd, 2, 0, 0, NULL, 0);
	mwm_ranks_hash(even, 2, h);
	ck_assert_str_eq(ae->gid + strlen(ae->gid) - 8, h);
	ck_assert_int_eq(strncmp(ae->gid, "world/0:", 8), 0);
	ck_assert_str_ne(ae->gid, bo->gid); /* the two halves differ */
	/* a dup of world made next by both: same gid on both ranks */
	int all[] = {0, 1, 2, 3};
	struct mwm_comm *ad = mwm_comms_add(&a, 0x20, 1, "dup", all, 4, 0, 0, NULL, 0);
	struct mwm_comm *bd = mwm_comms_add(&b, 0x20, 1, "dup", all, 4, 1, 0, NULL, 0);
	ck_assert_str_eq(ad->gid, bd->gid);
	ck_assert_int_eq(strncmp(ad->gid, "world/1:", 8), 0);
	/* a child of the dup */
	struct mwm_comm *ac = mwm_comms_add(&a, 0x30, 0x20, "dup", all, 4, 0, 0, NULL, 0);
	ck_assert_int_eq(strncmp(ac->gid, ad->gid, strlen(ad->gid)), 0);
	ck_assert_int_eq(ac->parent_id, ad->id);
	/* free and reuse of the handle */
	mwm_comms_remove(&a, 0x30);
	ck_assert_ptr_null(mwm_comms_find(&a, 0x30));
	struct mwm_comm *ac2 = mwm_comms_add(&a, 0x30, 0x20, "dup", all, 4, 0, 0, NULL, 0);
	ck_assert_str_ne(ac2->gid, ad->gid);
	ck_assert_int_eq(strncmp(ac2->gid + strlen(ad->gid), "/1:", 3), 0);
	mwm_comms_destroy(&a);
	mwm_comms_destroy(&b);
}
END_TEST

START_TEST(test_intercomm)
{
	struct mwm_comms a, b;
	int l0[] = {0, 1}, l1[] = {2, 3};
	mwm_comms_init(&a, 1, 2, 0, 4);
	mwm_comms_init(&b, 1, 2, 2, 4);
	/* rank 0 (group {0,1}) and rank 2 (group {2,3}) see each other's group as remote */
	struct mwm_comm *x = mwm_comms_add(&a, 0x40, 0x99, "intercomm", l1, 2, 0, 1, l0, 2);
	struct mwm_comm *y = mwm_comms_add(&b, 0x40, 0x98, "intercomm", l0, 2, 0, 1, l1, 2);
	ck_assert_ptr_nonnull(x);
	ck_assert_str_eq(x->gid, y->gid);
	ck_assert_int_eq(x->inter, 1);
	ck_assert_int_eq(mwm_comm_to_world(x, 1), 3); /* remote group */
	ck_assert_int_eq(mwm_comm_to_world(y, 1), 1);
	mwm_comms_destroy(&a);
	mwm_comms_destroy(&b);
}
END_TEST

START_TEST(test_deep_gid)
{
	struct mwm_comms c;
	int all[] = {0, 1};
	uint64_t parent = 1;
	mwm_comms_init(&c, 1, 2, 0, 2);
	for (int i = 0; i < 40; i++) {
		struct mwm_comm *m = mwm_comms_add(&c, 0x1000 + (uint64_t)i, parent, "dup", all, 2, 0, 0, NULL, 0);
		ck_assert_ptr_nonnull(m);
		ck_assert_int_lt(strlen(m->gid), MWM_GID_MAX);
		parent = m->handle;
	}
	mwm_comms_destroy(&c);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("monitor_comms");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_add_test(tc, test_world_self);
	tcase_add_loop_test(tc, test_translate, 0, sizeof(xlate) / sizeof(xlate[0]));
	tcase_add_test(tc, test_gid_rule);
	tcase_add_test(tc, test_intercomm);
	tcase_add_test(tc, test_deep_gid);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
