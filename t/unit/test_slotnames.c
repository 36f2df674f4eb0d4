/* Unit tests for shared/slotnames.c: the slot's names block (the
 * communicators and datatypes a reader needs to describe the call of a rank
 * that ended before its watcher resolved it), and the heartbeat fields that
 * carry what it names (count, datatype, bytes). */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heartbeat.h"
#include "mw_slot.h"

static struct mw_slot sl;

static void setup(void)
{
	memset(&sl, 0, sizeof sl);
	sl.world_size = 6;
	sl.comm_world = 0x1000;
}

/* A communicator's rank r is world rank first + stride * r: a dup, a split
 * that keeps or reverses the order, every other rank; any other group is
 * not recorded (its ranks stay unknown, never wrong). */
START_TEST(test_comm_affine)
{
	int dup[] = {0, 1, 2, 3, 4, 5}, rev[] = {5, 4, 3, 2, 1, 0}, odd[] = {1, 3, 5}, mixed[] = {0, 2, 3};
	setup();
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x2000, dup, 6), 1);
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x3000, rev, 6), 1);
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x4000, odd, 3), 1);
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x5000, mixed, 3), 0);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x2000, 4), 4);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x3000, 0), 5);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x3000, 5), 0);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x4000, 2), 5);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x4000, 3), -1); /* past its size */
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x5000, 1), -1); /* not recorded */
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x1000, 3), 3);  /* the world */
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x3000, -1), -1); /* any source */
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x3000, -2), -1); /* proc null */
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0, 0), -1);
	/* the call record's peer */
	sl.call.comm = 0x3000;
	sl.call.peer = 1;
	ck_assert_int_eq(mw_slot_world_peer(&sl), 4);
	/* freed: unknown again; the handle reused by another group */
	mw_slot_comm_remove(&sl, 0x3000);
	ck_assert_int_eq(mw_slot_world_peer(&sl), -1);
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x3000, odd, 3), 1);
	ck_assert_int_eq(mw_slot_world_peer(&sl), 3);
	ck_assert_int_eq(sl.seq3 & 1, 0);
	/* a copy taken while a communicator came or went tells nothing */
	sl.seq3++;
	ck_assert_int_eq(mw_slot_world_peer(&sl), -1);
}
END_TEST

/* A full block records nothing more; a freed entry is used again. */
START_TEST(test_comm_full)
{
	int two[] = {0, 1};
	setup();
	for (int i = 0; i < MW_SLOT_NCOMMS; i++)
		ck_assert_int_eq(mw_slot_comm_add(&sl, 0x10000 + (uint64_t)i, two, 2), 1);
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x90000, two, 2), 0);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x90000, 1), -1);
	mw_slot_comm_remove(&sl, 0x10003);
	ck_assert_int_eq(mw_slot_comm_add(&sl, 0x90000, two, 2), 1);
	ck_assert_int_eq(mw_slot_comm_world_rank(&sl, 0x90000, 1), 1);
}
END_TEST

START_TEST(test_dtype_names)
{
	char buf[24];
	int size;
	setup();
	ck_assert_int_eq(mw_slot_dtype_add(&sl, 0x4c000405, "MPI_INT", 4), 1);
	ck_assert_int_eq(mw_slot_dtype_add(&sl, 0x4c00080b, "MPI_DOUBLE", 8), 1);
	ck_assert_int_eq(mw_slot_dtype_add(&sl, 0x4c000405, "MPI_INT32_T", 4), 1); /* an alias: the first name */
	ck_assert_int_eq(mw_slot_dtype_add(&sl, 0x77, "MPI_A_NAME_FAR_TOO_LONG_TO_KEEP", 4), 0);
	ck_assert_ptr_nonnull(mw_slot_dtype_name(&sl, 0x4c000405, buf, sizeof buf, &size));
	ck_assert_str_eq(buf, "MPI_INT");
	ck_assert_int_eq(size, 4);
	ck_assert_ptr_nonnull(mw_slot_dtype_name(&sl, 0x4c00080b, buf, sizeof buf, &size));
	ck_assert_str_eq(buf, "MPI_DOUBLE");
	ck_assert_int_eq(size, 8);
	ck_assert_ptr_null(mw_slot_dtype_name(&sl, 0x8c000000, buf, sizeof buf, &size)); /* derived */
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(size, -1);
	ck_assert_ptr_null(mw_slot_dtype_name(&sl, 0, buf, sizeof buf, &size));
	/* a name that would not travel in a heartbeat is not given */
	sl.dtypes[1].name[0] = '\n';
	ck_assert_ptr_null(mw_slot_dtype_name(&sl, 0x4c00080b, buf, sizeof buf, &size));
	/* a full block */
	setup();
	for (int i = 0; i < MW_SLOT_NDTYPES; i++)
		ck_assert_int_eq(mw_slot_dtype_add(&sl, 0x100 + (uint64_t)i, "MPI_BYTE", 1), 1);
	ck_assert_int_eq(mw_slot_dtype_add(&sl, 0x9999, "MPI_CHAR", 1), 0);
	ck_assert_ptr_nonnull(mw_slot_dtype_name(&sl, 0x100 + MW_SLOT_NDTYPES - 1, buf, sizeof buf, NULL));
}
END_TEST

/* The heartbeat carries the call's count, datatype and bytes, all optional;
 * a datatype that is not a predefined name is refused. */
START_TEST(test_beat_amount)
{
	struct mw_hb_msg in, out;
	uint8_t *buf;
	size_t len;
	memset(&in, 0, sizeof in);
	in.type = MW_HB_HEARTBEAT;
	in.u.beat.size = 2;
	in.u.beat.state = MW_HB_S_EXITED;
	in.u.beat.peer_world = 0;
	in.u.beat.root_world = -1;
	in.u.beat.tag = 3;
	in.u.beat.exit_code = -1;
	strcpy(in.u.beat.call, "MPI_Recv");
	strcpy(in.u.beat.kind, "recv");
	in.u.beat.count = 5;
	strcpy(in.u.beat.datatype, "MPI_INT");
	in.u.beat.bytes = 20;
	ck_assert_int_eq(mw_hb_encode(&in, &buf, &len), 0);
	ck_assert(memmem(buf, len, "\"datatype\":\"MPI_INT\"", 20) || memmem(buf, len, "\"datatype\": \"MPI_INT\"", 21));
	ck_assert_int_eq(mw_hb_decode(buf, len, &out), MW_HB_OK);
	free(buf);
	ck_assert_int_eq(out.u.beat.count, 5);
	ck_assert_str_eq(out.u.beat.datatype, "MPI_INT");
	ck_assert_uint_eq(out.u.beat.bytes, 20);
	/* absent: none */
	in.u.beat.count = 0;
	in.u.beat.datatype[0] = 0;
	in.u.beat.bytes = 0;
	ck_assert_int_eq(mw_hb_encode(&in, &buf, &len), 0);
	ck_assert_ptr_null(memmem(buf, len, "count", 5));
	ck_assert_int_eq(mw_hb_decode(buf, len, &out), MW_HB_OK);
	free(buf);
	ck_assert_int_eq(out.u.beat.count, 0);
	ck_assert_str_eq(out.u.beat.datatype, "");
	/* not a datatype's name */
	strcpy(in.u.beat.datatype, "MPI_int\"");
	ck_assert_int_ne(mw_hb_encode(&in, &buf, &len), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slotnames");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;
	tcase_add_test(tc, test_comm_affine);
	tcase_add_test(tc, test_comm_full);
	tcase_add_test(tc, test_dtype_names);
	tcase_add_test(tc, test_beat_amount);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
