/* Unit tests for the imbalance analysis (imbalance/): grouping, rules, filter,
 * totals, load similarity, statistics, POP efficiencies, text and JSON
 * output.  Expected values are computed by hand in the comments. */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imb.h"
#include "jsonschema.h"

#define DATA MW_SRCDIR "/t/data/imbalance"

static const struct {
	const char *name, *tau_group;
	int group;
} class_cases[] = {
	{"MPI_Send()", "MPI", IMB_G_P2P_BLOCKING},
	{"MPI_Recv()", "MPI", IMB_G_P2P_BLOCKING},
	{"MPI_Sendrecv_replace()", "MPI", IMB_G_P2P_BLOCKING},
	{"MPI_Isend()", "MPI", IMB_G_P2P_NONBLOCKING},
	{"MPI_Waitall()", "MPI", IMB_G_P2P_NONBLOCKING},
	{"MPI_Start()", "MPI", IMB_G_P2P_NONBLOCKING},
	{"MPI_Allreduce()", "MPI", IMB_G_COLLECTIVE},
	{"MPI_Iallreduce()", "MPI", IMB_G_COLLECTIVE},
	{"MPI_Barrier()", "MPI|MPI_COLLECTIVE", IMB_G_COLLECTIVE},
	{"MPI_Comm_split()", "MPI", IMB_G_COLLECTIVE},
	{"MPI_Win_fence()", "MPI", IMB_G_ONESIDED},
	{"MPI_Win_create()", "MPI", IMB_G_ONESIDED},
	{"MPI_Comm_free()", "MPI", IMB_G_COMM_OTHER},
	{"MPI_Comm_rank()", "MPI", IMB_G_COMM_OTHER}, /* MPI, not wrapped by the monitor */
	{"MPI_File_read_at_all()", "MPI", IMB_G_READ_BLOCKING},
	{"MPI_File_iread()", "MPI", IMB_G_READ_NONBLOCKING},
	{"MPI_File_write()", "MPI", IMB_G_WRITE_BLOCKING},
	{"MPI_File_iwrite_at()", "MPI", IMB_G_WRITE_NONBLOCKING},
	{"MPI_File_write_all_begin()", "MPI", IMB_G_WRITE_NONBLOCKING}, /* not in mpi.spec */
	{"MPI_File_open()", "MPI", IMB_G_IO_OTHER},
	{"MPI_File_get_info()", "MPI", IMB_G_IO_OTHER},
	{"mpi_allreduce_", "MPI", IMB_G_COLLECTIVE}, /* Fortran */
	{"solve [{solve.c} {1,1}]", "TAU_USER", IMB_G_COMP_USER},
	{".TAU application", "TAU_DEFAULT", IMB_G_COMP_USER},
	{"my_wrapper", "MPI", IMB_G_COMM_OTHER},
	{"fread()", "TAU_IO", IMB_G_READ_BLOCKING},
	{"fwrite()", "TAU_IO", IMB_G_WRITE_BLOCKING},
	{"open()", "TAU_IO", IMB_G_IO_OTHER},
};

START_TEST(test_classify)
{
	ck_assert_msg(imb_classify(class_cases[_i].name, class_cases[_i].tau_group, NULL) ==
			      class_cases[_i].group,
		      "%s -> %s", class_cases[_i].name,
		      imb_group_id(imb_classify(class_cases[_i].name, class_cases[_i].tau_group, NULL)));
}
END_TEST

/* Every function the monitor wraps is in the table (monitor/mpi.spec). */
START_TEST(test_every_spec_name_is_mpi)
{
	FILE *f = fopen(MW_SRCDIR "/monitor/mpi.spec", "r");
	char line[1024];
	int n = 0;
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (line[0] < 'A' || line[0] > 'Z')
			continue;
		char name[128] = "MPI_";
		sscanf(line, "%100[A-Za-z_0-9]", name + 4);
		int g = imb_mpi_group(name);
		ck_assert_msg(g >= IMB_G_P2P_BLOCKING, "%s not classified", name);
		if (!strncmp(name, "MPI_File_", 9))
			ck_assert_int_eq(imb_group_parent(g), IMB_G_IO);
		else
			ck_assert_int_eq(imb_group_parent(g), IMB_G_COMM);
		n++;
	}
	fclose(f);
	ck_assert_int_gt(n, 100);
}
END_TEST

START_TEST(test_rules)
{
	static const char text[] = "# user rules\n"
				   "solve* = communication.collective\n"
				   "\n"
				   "  my_io_*   =   io  \n";
	struct imb_rules r;
	char err[256];
	ck_assert_int_eq(imb_rules_parse(text, strlen(text), "r", &r, err, sizeof(err)), 0);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_int_eq(imb_classify("solve [{x}]", "TAU_USER", &r), IMB_G_COLLECTIVE);
	ck_assert_int_eq(imb_classify("my_io_dump", "TAU_USER", &r), IMB_G_IO_OTHER);
	ck_assert_int_eq(imb_classify("other", "TAU_USER", &r), IMB_G_COMP_USER);
	imb_rules_free(&r);

	static const char bad[] = "ok* = io\nno equals\n = io\nx = nosuch\n";
	ck_assert_int_eq(imb_rules_parse(bad, strlen(bad), "g.rules", &r, err, sizeof(err)), -1);
	/* every error, each with file and line */
	ck_assert_ptr_nonnull(strstr(err, "g.rules:2: expected 'pattern = group'"));
	ck_assert_ptr_nonnull(strstr(err, "g.rules:3: empty pattern"));
	ck_assert_ptr_nonnull(strstr(err, "g.rules:4: unknown group 'nosuch'"));
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

static const struct {
	double c[4], p[4], want;
} sim_cases[] = {
	{{1, 1, 1, 1}, {2, 2, 2, 2}, 1.0},        /* same shape, any scale */
	{{1, 2, 3, 4}, {2, 4, 6, 8}, 1.0},
	{{1, 0, 0, 0}, {0, 1, 1, 1}, 0.0},        /* disjoint: no load in common */
	{{0, 0, 0, 0}, {1, 1, 1, 1}, -1},         /* empty child: undefined */
	{{1, 2, 3, 4}, {1, 1, 1, 1}, 1 - 0.5 * (0.15 + 0.05 + 0.05 + 0.15)}, /* = 0.8 */
	{{0, 0, 1, 1}, {1, 1, 1, 1}, 0.5},        /* empty on half the ranks */
};

START_TEST(test_similarity)
{
	double s = imb_similarity(sim_cases[_i].c, sim_cases[_i].p, 4);
	ck_assert_double_eq_tol(s, sim_cases[_i].want, 1e-12);
}
END_TEST

START_TEST(test_stats_and_pop)
{
	const double v[4] = {1, 2, 3, 6}; /* mean 3, max 6, var (4+1+0+9)/4 = 3.5 */
	struct imb_stat s;
	imb_stats(v, 4, &s);
	ck_assert_double_eq(s.mean, 3);
	ck_assert_double_eq(s.max, 6);
	ck_assert_double_eq(s.min, 1);
	ck_assert_int_eq(s.argmax, 3);
	ck_assert_double_eq_tol(s.cov, sqrt(3.5) / 3, 1e-12);
	ck_assert_double_eq(s.maxmean, 2);
	/* useful {1,2,3,6}, runtime {8,8,8,10}: LB 3/6, CE 6/10, PE 3/10 */
	const double run[4] = {8, 8, 8, 10};
	double lb, ce, pe;
	imb_pop(v, run, 4, &lb, &ce, &pe);
	ck_assert_double_eq_tol(lb, 0.5, 1e-12);
	ck_assert_double_eq_tol(ce, 0.6, 1e-12);
	ck_assert_double_eq_tol(pe, 0.3, 1e-12);
	ck_assert_double_eq_tol(pe, lb * ce, 1e-12);
}
END_TEST

static const struct {
	const char *s;
	int ok;
	double frac, abs_us;
} th_cases[] = {
	{"0.1%", 1, 0.001, 0}, {"5%", 1, 0.05, 0}, {"500us", 1, 0, 500}, {"2ms", 1, 0, 2000},
	{"1.5s", 1, 0, 1.5e6}, {"0", 1, 0, 0}, {"", 0, 0, 0}, {"5", 0, 0, 0}, {"-1%", 0, 0, 0},
	{"101%", 0, 0, 0}, {"nan%", 0, 0, 0}, {"1 ms", 0, 0, 0},
};

START_TEST(test_threshold_parse)
{
	struct imb_threshold t;
	int rc = imb_threshold_parse(th_cases[_i].s, &t);
	ck_assert_int_eq(rc, th_cases[_i].ok ? 0 : -1);
	if (th_cases[_i].ok) {
		ck_assert_double_eq_tol(t.frac, th_cases[_i].frac, 1e-15);
		ck_assert_double_eq_tol(t.abs_us, th_cases[_i].abs_us, 1e-9);
	}
}
END_TEST

/* t/data/imbalance/tau4: rank r has solve = (r+1) s, MPI_Allreduce =
 * (3-r) s + 0.1 s, main 0.499 s, .TAU application 1 ms, MPI_Send 20 ms,
 * MPI_Recv 30 ms, MPI_File_write_at 50 ms, MPI_Comm_rank 1.5 us, and two
 * call-path entries.  Every rank: 4.7 s (+1.5 us). */
static void load_tau4(struct imb_job *j, struct imb_analysis *a, const char *th)
{
	char err[512];
	struct imb_threshold t = {IMB_DEFAULT_FRAC, 0};
	ck_assert_msg(imb_job_load(DATA "/tau4", j, err, sizeof(err)) == 0, "%s", err);
	if (th)
		ck_assert_int_eq(imb_threshold_parse(th, &t), 0);
	ck_assert_int_eq(imb_analyze(j, &t, NULL, a), 0);
}

START_TEST(test_filter)
{
	struct imb_job j;
	struct imb_analysis a;
	load_tau4(&j, &a, NULL);
	/* total 4 * 4700001.5 = 18800006; threshold 0.1 % = 18800.006 us:
	 * only MPI_Comm_rank (6 us in all) goes; both call paths x 4 ranks ignored */
	ck_assert_double_eq_tol(a.total_time, 18800006, 1e-6);
	ck_assert_double_eq_tol(a.threshold, 18800.006, 1e-6);
	ck_assert_uint_eq(a.ncallpaths, 8);
	ck_assert_uint_eq(a.nfn, 7);
	ck_assert_uint_eq(a.ndropped, 1);
	ck_assert_double_eq_tol(a.dropped_time, 6, 1e-9);
	for (size_t i = 0; i < a.nfn; i++)
		ck_assert_ptr_null(strstr(a.fn[i].name, "=>"));
	imb_analysis_free(&a);
	imb_job_free(&j);
	/* 2% = 376000 us: .TAU application (40 ms), MPI_Send (80 ms), MPI_Recv
	 * (120 ms) and MPI_File_write_at (200 ms) go too */
	load_tau4(&j, &a, "2%");
	ck_assert_uint_eq(a.nfn, 3);
	ck_assert_uint_eq(a.ndropped, 5);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

START_TEST(test_totals_similarity_pop)
{
	struct imb_job j;
	struct imb_analysis a;
	load_tau4(&j, &a, NULL);
	for (int r = 0; r < 4; r++) {
		/* computation = 10000 + 490000 + (r+1) e6 */
		ck_assert_double_eq_tol(a.gt[IMB_G_COMP][r], 0.5e6 + (r + 1) * 1e6, 1e-6);
		ck_assert_double_eq_tol(a.gt[IMB_G_COLLECTIVE][r], (3 - r) * 1e6 + 1e5, 1e-6);
		ck_assert_double_eq_tol(a.gt[IMB_G_P2P_BLOCKING][r], 5e4, 1e-6);
		ck_assert_double_eq_tol(a.gt[IMB_G_COMM][r], (3 - r) * 1e6 + 1.5e5, 1e-6);
		ck_assert_double_eq_tol(a.gt[IMB_G_WRITE_BLOCKING][r], 5e4, 1e-6);
		ck_assert_double_eq_tol(a.gt[IMB_G_IO][r], 5e4, 1e-6);
		ck_assert_double_eq_tol(a.gt[IMB_G_ALL][r], 4.7e6, 1e-6);
	}
	/* computation {1.5,2.5,3.5,4.5} s: mean 3, max 4.5, COV sqrt(1.25)/3 */
	ck_assert_double_eq_tol(a.stat[IMB_G_COMP].maxmean, 1.5, 1e-12);
	ck_assert_double_eq_tol(a.stat[IMB_G_COMP].cov, sqrt(1.25) / 3, 1e-12);
	ck_assert_int_eq(a.stat[IMB_G_COMP].argmax, 3);
	/* shares {1.5,2.5,3.5,4.5}/12 against 1/4 each: 1 - (1.5+.5+.5+1.5)/24 = 5/6 */
	ck_assert_double_eq_tol(a.sim[IMB_G_COMP], 5.0 / 6, 1e-12);
	ck_assert_double_eq_tol(a.sim[IMB_G_IO], 1, 1e-12);
	ck_assert_double_eq_tol(a.sim[IMB_G_WRITE_BLOCKING], 1, 1e-12);
	ck_assert_double_eq(a.sim[IMB_G_ONESIDED], -1); /* empty everywhere */
	ck_assert_double_eq(a.sim[IMB_G_ALL], 1);
	/* useful = comp + io = {1.55,2.55,3.55,4.55} s, runtime 4.7 s each */
	ck_assert_double_eq_tol(a.pop_lb, 3.05 / 4.55, 1e-12);
	ck_assert_double_eq_tol(a.pop_ce, 4.55 / 4.7, 1e-12);
	ck_assert_double_eq_tol(a.pop_pe, 3.05 / 4.7, 1e-12);
	/* ranks furthest above the mean: computation cut 3 + 0.75 = 3.75 s -> rank 3;
	 * collective {3.1,2.1,1.1,0.1}: cut 1.6 + 0.75 = 2.35 -> rank 0 */
	int idx[4];
	ck_assert_uint_eq(imb_top(&a, a.gt[IMB_G_COMP], &a.stat[IMB_G_COMP], idx), 1);
	ck_assert_int_eq(idx[0], 3);
	ck_assert_uint_eq(imb_top(&a, a.gt[IMB_G_COLLECTIVE], &a.stat[IMB_G_COLLECTIVE], idx), 1);
	ck_assert_int_eq(idx[0], 0);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

START_TEST(test_text_report)
{
	struct imb_job j;
	struct imb_analysis a;
	char *buf = NULL;
	size_t len = 0;
	load_tau4(&j, &a, NULL);
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(imb_report_text(f, &a, &j), 0);
	fclose(f);
	/* collective: max - mean = 1.5 s, computation 1.5 s too; both ranked */
	ck_assert_msg(strstr(buf, "load balance 0.67"), "%s", buf);
	ck_assert_msg(strstr(buf, "communication efficiency 0.97"), "%s", buf);
	ck_assert_msg(strstr(buf, "rank 3 spends up to 1.5x the mean"), "%s", buf);
	ck_assert_msg(strstr(buf, "worst function: rank 3 spends 1.6x the mean in solve [{\"solve.c\"} {12,1}-{40,1}]"), "%s", buf);
	ck_assert_msg(strstr(buf, "rank 0 waits up to 1.9x the mean"), "%s", buf);
	ck_assert_msg(strstr(buf, "worst function: rank 0 waits 1.9x the mean in MPI_Allreduce()"), "%s", buf);
	ck_assert_msg(strstr(buf, "they wait for the slow rank 3 of computation"), "%s", buf);
	ck_assert_msg(strstr(buf, "1 below the threshold"), "%s", buf);
	ck_assert_msg(strstr(buf, "not computed: serialisation and transfer efficiency"), "%s", buf);
	free(buf);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

/* Set computation and communication (collective) per rank, as a profile
 * would give them, and write the text report. */
static char *report_with(struct imb_analysis *a, struct imb_job *j, const double comp[4],
			 const double comm[4])
{
	char *buf = NULL;
	size_t len = 0;
	for (int r = 0; r < 4; r++) {
		a->gt[IMB_G_COMP][r] = comp[r];
		a->gt[IMB_G_COMM][r] = a->gt[IMB_G_COLLECTIVE][r] = comm[r];
		a->gt[IMB_G_P2P_BLOCKING][r] = 0;
	}
	imb_stats(a->gt[IMB_G_COMP], 4, &a->stat[IMB_G_COMP]);
	imb_stats(a->gt[IMB_G_COMM], 4, &a->stat[IMB_G_COMM]);
	imb_stats(a->gt[IMB_G_COLLECTIVE], 4, &a->stat[IMB_G_COLLECTIVE]);
	imb_stats(a->gt[IMB_G_P2P_BLOCKING], 4, &a->stat[IMB_G_P2P_BLOCKING]);
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(imb_report_text(f, a, j), 0);
	fclose(f);
	return buf;
}

START_TEST(test_consequence)
{
	struct imb_job j;
	struct imb_analysis a;
	load_tau4(&j, &a, NULL);
	/* measured in a full make test (t/0610, Open MPI, 4 ranks on 2 cores):
	 * ranks 2 and 3 share the slowest computation, rank 0 waits for both.
	 * Computation: mean 160.5, max - mean 35.5, spread 113; collective: mean
	 * 70, max - mean 77, spread 112.  Waiting ranks the first by excess,
	 * but the spreads mirror each other: the waiting is the consequence. */
	static const double comp[4] = {83e3, 167e3, 196e3, 196e3}, comm[4] = {147e3, 63e3, 35e3, 35e3};
	char *buf = report_with(&a, &j, comp, comm);
	ck_assert_msg(strstr(buf, "computation is the most imbalanced group"), "%s", buf);
	ck_assert_msg(strstr(buf, "they wait for the slow ranks 2-3 of computation"), "%s", buf);
	free(buf);
	/* balanced computation (spread 2) and one rank waiting 150 more: the
	 * communication is the problem, not a consequence */
	static const double comp2[4] = {100e3, 101e3, 99e3, 100e3}, comm2[4] = {50e3, 200e3, 50e3, 50e3};
	buf = report_with(&a, &j, comp2, comm2);
	ck_assert_msg(strstr(buf, "communication is the most imbalanced group"), "%s", buf);
	ck_assert_msg(!strstr(buf, "a consequence"), "%s", buf);
	free(buf);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

START_TEST(test_json_report_matches_schema)
{
	struct imb_job j;
	struct imb_analysis a;
	char err[512];
	load_tau4(&j, &a, NULL);
	struct json_object *o = imb_report_json(&a, &j);
	struct json_object *schema =
		mw_json_read_file(MW_SRCDIR "/doc/schemas/imbalance.schema.json", err, sizeof(err));
	ck_assert_ptr_nonnull(schema);
	ck_assert_msg(mw_jsonschema_validate(schema, o, err, sizeof(err)) == 0, "%s", err);
	struct json_object *g = json_object_array_get_idx(json_object_object_get(o, "groups"), IMB_G_COMP);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(g, "id")), "computation");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(g, "max_process")), "3");
	ck_assert_double_eq_tol(json_object_get_double(json_object_object_get(g, "similarity")), 5.0 / 6, 1e-9);
	g = json_object_array_get_idx(json_object_object_get(o, "groups"), IMB_G_ONESIDED);
	ck_assert(json_object_is_type(json_object_object_get(g, "similarity"), json_type_null));
	json_object_put(schema);
	json_object_put(o);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

START_TEST(test_gap_in_report)
{
	struct imb_job j;
	struct imb_analysis a;
	struct imb_threshold t = {IMB_DEFAULT_FRAC, 0};
	char err[256], *buf = NULL;
	size_t len = 0;
	ck_assert_int_eq(imb_job_load(DATA "/gap", &j, err, sizeof(err)), 0);
	ck_assert_int_eq(imb_analyze(&j, &t, NULL, &a), 0);
	FILE *f = open_memstream(&buf, &len);
	imb_report_text(f, &a, &j);
	fclose(f);
	ck_assert_msg(strstr(buf, "WARNING: no profile for rank 2"), "%s", buf);
	ck_assert_str_eq(a.label[2], "3");
	free(buf);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

/* Seed 004 step 4 at every level: each function (a leaf) has its load
 * similarity to its level-2 group, in the JSON and next to the worst
 * function's time in the text.  user code = .TAU application 10 ms + main
 * 490 ms + solve (r+1) s, shares {1.5,2.5,3.5,4.5}/12; solve {1,2,3,4}/10:
 * 1 - (.025+.00833+.00833+.025)/2 = 29/30; main 1/4 each: 1 - (1/3)/2 = 5/6.
 * MPI_Allreduce is the whole of collective: 1. */
START_TEST(test_function_similarity)
{
	struct imb_job j;
	struct imb_analysis a;
	char *buf = NULL;
	size_t len = 0;
	load_tau4(&j, &a, NULL);
	struct json_object *o = imb_report_json(&a, &j), *fs = json_object_object_get(o, "functions");
	int seen = 0;
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *e = json_object_array_get_idx(fs, i), *s;
		const char *name = json_object_get_string(json_object_object_get(e, "name"));
		ck_assert_msg(json_object_object_get_ex(e, "similarity", &s) &&
				      json_object_is_type(s, json_type_double),
			      "function %s has no similarity", name);
		double want = !strncmp(name, "solve", 5)		? 29.0 / 30
			      : !strncmp(name, "int main", 8)		? 5.0 / 6
			      : !strcmp(name, "MPI_Allreduce()")	? 1
									: -1;
		if (want >= 0) {
			ck_assert_double_eq_tol(json_object_get_double(s), want, 1e-9);
			seen++;
		}
	}
	ck_assert_int_eq(seen, 3);
	json_object_put(o);
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(imb_report_text(f, &a, &j), 0);
	fclose(f);
	ck_assert_msg(strstr(buf, "worst function: rank 3 spends 1.6x the mean in solve [{\"solve.c\"} "
				  "{12,1}-{40,1}] (4.00 s against 2.50 s; similarity to user code 0.97)"),
		      "%s", buf);
	ck_assert_msg(strstr(buf, "in MPI_Allreduce() (3.10 s against 1.60 s; similarity to collective "
				  "communication 1.00)"),
		      "%s", buf);
	free(buf);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

/* The findings the page leads with are the text's, from one source: the
 * JSON's "findings" lines, in order, are the lines of the text's ranking. */
START_TEST(test_findings_in_json)
{
	struct imb_job j;
	struct imb_analysis a;
	char *buf = NULL;
	size_t len = 0;
	load_tau4(&j, &a, NULL);
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(imb_report_text(f, &a, &j), 0);
	fclose(f);
	struct json_object *o = imb_report_json(&a, &j), *fs;
	ck_assert_msg(json_object_object_get_ex(o, "findings", &fs) &&
			      json_object_is_type(fs, json_type_array),
		      "no findings in the JSON");
	ck_assert_int_gt((int)json_object_array_length(fs), 4);
	const char *at = buf;
	int worst = 0;
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		struct json_object *e = json_object_array_get_idx(fs, i);
		const char *t = json_object_get_string(json_object_object_get(e, "text"));
		int depth = json_object_get_int(json_object_object_get(e, "depth"));
		ck_assert_msg(t && depth >= 0 && depth <= 2, "finding %zu", i);
		const char *hit = strstr(at, t);
		ck_assert_msg(hit, "finding \"%s\" is not in the text (in order):\n%s", t, buf);
		at = hit + strlen(t);
		worst += strstr(t, "worst function: rank 3 spends 1.6x the mean in solve") != NULL;
	}
	ck_assert_int_eq(worst, 1);
	json_object_put(o);
	free(buf);
	imb_analysis_free(&a);
	imb_job_free(&j);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("imb_analyze");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_classify, 0, sizeof(class_cases) / sizeof(class_cases[0]));
	tcase_add_test(tc, test_every_spec_name_is_mpi);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_consequence);
	tcase_add_loop_test(tc, test_similarity, 0, sizeof(sim_cases) / sizeof(sim_cases[0]));
	tcase_add_test(tc, test_stats_and_pop);
	tcase_add_loop_test(tc, test_threshold_parse, 0, sizeof(th_cases) / sizeof(th_cases[0]));
	tcase_add_test(tc, test_filter);
	tcase_add_test(tc, test_totals_similarity_pop);
	tcase_add_test(tc, test_text_report);
	tcase_add_test(tc, test_json_report_matches_schema);
	tcase_add_test(tc, test_gap_in_report);
	tcase_add_test(tc, test_function_similarity);
	tcase_add_test(tc, test_findings_in_json);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
