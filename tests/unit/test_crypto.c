/* test_crypto.c: base64 (canonical checks), AES-256-GCM vectors, scrypt, SHA-256, HMAC, key commitment. */
#include <stdlib.h>

#include "burnlink.h"
#include "unit.h"

static int
dec_ok(const char *s, const char *want, size_t wantlen)
{
	size_t		 n;
	unsigned char	*p = bl_b64_decode(s, strlen(s), &n);
	int		 ok = p != NULL && n == wantlen && memcmp(p, want, n) == 0;

	free(p);
	return ok;
}

static int
dec_bad(const char *s)
{
	size_t		 n;
	unsigned char	*p = bl_b64_decode(s, strlen(s), &n);

	free(p);
	return p == NULL;
}

static void
test_base64(void)
{
	static const char *const bad[] = {
		"QR==", "QUJ=", "Q", "QQ", "QQ=", "QQ===", "====", "Q===", "QQ==QQ==",
		"QQ ==", " QQ==", "QQ==\n", "QUJD\n", "QU-D", "QU_D", "QUJ\0", "Zm9v!",
	};
	size_t	 i, n;
	char	*e;
	unsigned char raw[256], *d;

	CHECK(dec_ok("", "", 0));
	CHECK(dec_ok("QQ==", "A", 1));
	CHECK(dec_ok("QUI=", "AB", 2));
	CHECK(dec_ok("QUJD", "ABC", 3));
	CHECK(dec_ok("Zm9vYmFy", "foobar", 6));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(dec_bad(bad[i]));
	CHECK(bl_b64_decoded_len("QUJD", 4) == 3);
	CHECK(bl_b64_decoded_len("QQ==", 4) == 1);
	CHECK(bl_b64_decoded_len("QQ=", 3) == SIZE_MAX);

	/* Every length 0..255 round-trips, standard and url-safe. */
	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (unsigned char)(i * 37 + 11);
	for (i = 0; i < sizeof(raw); i++) {
		e = bl_b64_encode(raw, i, &n);
		d = bl_b64_decode(e, n, &n);
		CHECK(d != NULL && n == i && memcmp(d, raw, i) == 0);
		free(e);
		free(d);
		e = bl_b64url_encode(raw, i, &n);
		CHECK(strchr(e, '=') == NULL && strchr(e, '+') == NULL && strchr(e, '/') == NULL);
		d = bl_b64url_decode(e, n, &n);
		CHECK(d != NULL && n == i && memcmp(d, raw, i) == 0);
		free(e);
		free(d);
	}
	/* url-safe: no padding accepted, no standard alphabet, canonical tail. */
	CHECK((d = bl_b64url_decode("QQ", 2, &n)) != NULL && n == 1 && d[0] == 'A');
	free(d);
	CHECK(bl_b64url_decode("QQ==", 4, &n) == NULL);
	CHECK(bl_b64url_decode("QR", 2, &n) == NULL);
	CHECK(bl_b64url_decode("a+b/", 4, &n) == NULL);
	CHECK(bl_b64url_decode("Q", 1, &n) == NULL);
	CHECK((d = bl_b64url_decode("-_-_", 4, &n)) != NULL && n == 3 &&
	    d[0] == 0xfb && d[1] == 0xff && d[2] == 0xbf);
	free(d);
}

/* The AES-256 cases of the GCM specification (McGrew and Viega), test cases 13-15. */
static void
test_aes_gcm(void)
{
	static const struct {
		const char *key, *iv, *pt, *ct, *tag;
	} v[] = {
		{ "0000000000000000000000000000000000000000000000000000000000000000",
		  "000000000000000000000000", "", "", "530f8afbc74536b9a963b4f1c4cb738b" },
		{ "0000000000000000000000000000000000000000000000000000000000000000",
		  "000000000000000000000000", "00000000000000000000000000000000",
		  "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919" },
		{ "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308",
		  "cafebabefacedbaddecaf888",
		  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
		  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
		  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
		  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad",
		  "b094dac5d93471bdec1a502270e3cc6c" },
	};
	unsigned char	 key[32], iv[12], pt[64], want[80], out[80], back[64];
	size_t		 i, n;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		unhex(v[i].key, key);
		unhex(v[i].iv, iv);
		n = unhex(v[i].pt, pt);
		unhex(v[i].ct, want);
		unhex(v[i].tag, want + n);
		CHECK(bl_aes_gcm_encrypt(key, iv, pt, n, out) == 0);
		CHECK(memcmp(out, want, n + 16) == 0);
		CHECK(bl_aes_gcm_decrypt(key, iv, out, n + 16, back) == 0);
		CHECK(memcmp(back, pt, n) == 0);
		out[n] ^= 1;	/* a flipped tag bit is refused */
		CHECK(bl_aes_gcm_decrypt(key, iv, out, n + 16, back) != 0);
	}
	CHECK(bl_aes_gcm_decrypt(key, iv, out, 15, back) != 0);
	/* through the default provider's functions, not a fetch (lib/crypto.c) */
	CHECK(bl_aes_gcm_direct() == 1);
}

static void
test_hashes(void)
{
	unsigned char	 key[20], out[32], want[32];

	/* FIPS 180-2 "abc" and RFC 4231 test case 1. */
	unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", want);
	CHECK(bl_sha256("abc", 3, out) == 0 && memcmp(out, want, 32) == 0);
	memset(key, 0x0b, sizeof(key));
	unhex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", want);
	CHECK(bl_hmac_sha256(key, sizeof(key), "Hi There", 8, out) == 0 &&
	    memcmp(out, want, 32) == 0);
	/* RFC 4231 test case 6: a key longer than the block is hashed first. */
	{
		unsigned char longkey[131];
		memset(longkey, 0xaa, sizeof(longkey));
		unhex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54", want);
		CHECK(bl_hmac_sha256(longkey, sizeof(longkey),
		    "Test Using Larger Than Block-Size Key - Hash Key First", 54, out) == 0 &&
		    memcmp(out, want, 32) == 0);
	}
}

/*
 * TOTP (RFC 6238, appendix B, the SHA-1 column: the 20-byte key
 * "12345678901234567890", T0 = 0, X = 30 s): the 8-digit values, and the
 * 6-digit codes burnlink uses (the same number modulo 10^6). HOTP (RFC 4226,
 * appendix D) for counters 0 and 9. Base32 (RFC 4648, section 10).
 */
static void
test_totp(void)
{
	static const struct { int64_t t; int64_t code; } v[] = {
		{59, 94287082}, {1111111109, 7081804}, {1111111111, 14050471},
		{1234567890, 89005924}, {2000000000, 69279037}, {20000000000LL, 65353130},
	};
	const unsigned char *key = (const unsigned char *)"12345678901234567890";
	char		 b32[64];
	size_t		 i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK(bl_hotp(key, 20, (uint64_t)(v[i].t / 30), 8) == v[i].code);
		CHECK(bl_hotp(key, 20, (uint64_t)(v[i].t / 30), 6) == v[i].code % 1000000);
	}
	CHECK(bl_hotp(key, 20, 0, 6) == 755224);
	CHECK(bl_hotp(key, 20, 9, 6) == 520489);
	CHECK(bl_hotp(key, 20, 0, 5) == -1 && bl_hotp(key, 20, 0, 9) == -1);
	/* a key longer than SHA-1's block is hashed first (RFC 2104; Python's hmac agrees) */
	{
		unsigned char longkey[80];
		memset(longkey, 0xaa, sizeof(longkey));
		CHECK(bl_hotp(longkey, sizeof(longkey), 0, 8) == 57754963);
		CHECK(bl_hotp(longkey, sizeof(longkey), 1, 6) == 650725);
	}
	CHECK(bl_base32_encode((const unsigned char *)"foobar", 6, b32) == 10 &&
	    strcmp(b32, "MZXW6YTBOI") == 0);
	CHECK(bl_base32_encode((const unsigned char *)"f", 1, b32) == 2 && strcmp(b32, "MY") == 0);
	CHECK(bl_base32_encode(key, 20, b32) == 32 &&
	    strcmp(b32, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == 0);
}

/* The key commitment's test vector of docs/API.md: key 00 01 .. 1f. */
static void
test_key_commitment(void)
{
	unsigned char	 key[32], out[BL_COMMIT_BYTES], want[BL_COMMIT_BYTES];
	char		*b64;
	size_t		 i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (unsigned char)i;
	unhex("53696d42bb5db553b336c6d72e5a2037e9c684ded0bb330afb59dc1798aeafc7", want);
	CHECK(bl_key_commitment(key, out) == 0 && memcmp(out, want, sizeof(want)) == 0);
	b64 = bl_b64url_encode(out, sizeof(out), NULL);
	CHECK(b64 != NULL && strlen(b64) == BL_COMMIT_LEN &&
	    strcmp(b64, "U2ltQrtdtVOzNsbXLlogN-nGhN7QuzMK-1ncF5iur8c") == 0);
	free(b64);
	key[31] ^= 1;	/* another key, another commitment */
	CHECK(bl_key_commitment(key, out) == 0 && memcmp(out, want, sizeof(want)) != 0);
}

static void
test_scrypt(void)
{
	unsigned char	 stored[48], h[48];

	/* scrypt(N=2^15, r=8, p=1) of "correct horse" under salt 00..0f, from openssl kdf. */
	unhex("000102030405060708090a0b0c0d0e0f"
	    "5c662628ac4eb1068a287e2aa2a202ae248e98db04d61d3327e7342db6ec7097", stored);
	CHECK(bl_pass_verify("correct horse", 13, stored) == 1);
	CHECK(bl_pass_verify("correct horsf", 13, stored) == 0);
	CHECK(bl_pass_verify("correct hors", 12, stored) == 0);
	CHECK(bl_pass_hash("tr0ub4dor", 9, h) == 0);
	CHECK(bl_pass_verify("tr0ub4dor", 9, h) == 1);
	CHECK(bl_pass_verify("Tr0ub4dor", 9, h) == 0);
	/* a fresh salt each time */
	CHECK(bl_pass_hash("tr0ub4dor", 9, stored) == 0 && memcmp(stored, h, 16) != 0);
}

int
main(void)
{
	test_base64();
	test_aes_gcm();
	test_hashes();
	test_key_commitment();
	test_totp();
	test_scrypt();
	UNIT_END("unit crypto");
}
