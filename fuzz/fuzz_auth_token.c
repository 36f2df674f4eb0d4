/* libFuzzer target for the token file of "mpiwatch run" (one machine
 * without MUNGE: mw_auth_token_read and mw_auth_token_check, shared/auth.c):
 * a file it accepts holds 32 or more hex digits, the token's proof over a
 * payload (mw_auth_token_sign) is accepted and never holds the token, and a
 * proof with one digit changed, or over another payload, is refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "auth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], tok[129], cred[200], err[256];
	int fd = memfd_create("token", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		if (mw_auth_token_read(path, tok, sizeof tok, err, sizeof err) == 0) {
			size_t n = strlen(tok);
			if (n < 32 || strspn(tok, "0123456789abcdef") != n)
				abort();
			const char *pl = "mpiwatch-hello 2 job=1 node=n1 at=127.0.0.1:7300 nonce=00";
			if (mw_auth_token_sign(tok, pl, cred, sizeof cred) != 0 || strstr(cred, tok))
				abort();
			if (mw_auth_token_check(cred, tok, pl, err, sizeof err) != 0)
				abort();
			if (mw_auth_token_check(cred, tok, "mpiwatch-hello 2 job=2", err, sizeof err) == 0)
				abort();
			cred[6] = cred[6] == '0' ? '1' : '0';
			if (mw_auth_token_check(cred, tok, pl, err, sizeof err) == 0)
				abort();
		} else if (strncmp(err, path, strlen(path)) != 0) {
			abort();
		}
	}
	close(fd);
	return 0;
}
